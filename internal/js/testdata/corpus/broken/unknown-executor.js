// Broken options: an unknown executor.
// Error class: invalid configuration: scenario "spike" has executor "ramping-arrivals",
// which does not exist (a did-you-mean for ramping-arrival-rate is welcome).
// k6 exit code: 104 (InvalidConfig). Nothing runs.
import { sleep } from 'k6';

export const options = {
  scenarios: {
    spike: { executor: 'ramping-arrivals', stages: [{ duration: '1s', target: 1 }] },
  },
};

export default function () {
  sleep(0.1);
}
