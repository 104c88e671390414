// Story 2 (seed-stories.md), the JavaScript twin of story2-signup.yaml: story 2's ramp
// (ramping-vus.js) compressed into two minutes for the demo, 5 → 40 VUs each sleeping
// 1 s between requests, which already asks more than the 10 TPS the pod of
// cluster-story2-postgres.yaml can give.
//   tidemark run examples/story2-signup.js
// It is a plain k6 script: `k6 run examples/story2-signup.js` runs it unchanged.
import http from 'k6/http';
import { check, sleep } from 'k6';
import { randomString } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';

export const options = {
  scenarios: {
    signup: {
      executor: 'ramping-vus',
      startVUs: 5,
      gracefulRampDown: '10s',
      stages: [
        { duration: '30s', target: 10 },
        { duration: '30s', target: 20 },
        { duration: '30s', target: 40 },
        { duration: '30s', target: 40 },
      ],
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
  },
};

const BASE_URL = __ENV.TARGET_URL || __ENV.BASE_URL || 'http://127.0.0.1:8099';
// ${__RANDOM_STRING(12)} in the YAML form draws letters and digits.
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export default function () {
  const body = JSON.stringify({
    email: `user-${__VU}-${__ITER}@example.com`,
    password: randomString(12, ALNUM),
  });
  const res = http.post(`${BASE_URL}/users`, body, {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: 'signup' },
    timeout: '30s',
  });
  check(res, { 'signed up': (r) => r.status === 200 });
  sleep(1);
}
