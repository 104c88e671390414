// Broken options: a duration that is not a duration.
// Error class: invalid configuration: duration "ten seconds" cannot be parsed (expected
// a value such as "10s").
// k6 exit code: 104 (InvalidConfig). Nothing runs.
import { sleep } from 'k6';

export const options = { vus: 1, duration: 'ten seconds' };

export default function () {
  sleep(0.1);
}
