// Broken options: a negative number of VUs.
// Error class: invalid configuration: vus is -1; it must be 0 or more (with a duration,
// more than 0).
// k6 exit code: 104 (InvalidConfig). Nothing runs.
import { sleep } from 'k6';

export const options = { vus: -1, duration: '1s' };

export default function () {
  sleep(0.1);
}
