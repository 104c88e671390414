// Broken options: a negative number of VUs.
// Error class: invalid configuration: vus is -1; it must be 0 or more (with a duration,
// more than 0).
// k6 exit code: 104 (InvalidConfig). Nothing runs.
import http from 'k6/http';

export const options = { vus: -1, duration: '1s' };

export default function () {
  http.get('http://127.0.0.1:8099/never');
}
