// Story 2 (seed-stories.md), the JavaScript twin of ramping-vus.yaml: find the bottleneck
// of a sign-up API. A closed model: 30 → 300 VUs in ten one-minute stages, each VU
// sleeping 1 s between requests, so the throughput plateau (9–10 TPS in the story) shows
// where the system saturates.
//   tidemark run examples/ramping-vus.js
//   TARGET_URL=http://signup.example:8080 tidemark run examples/ramping-vus.js
// It is a plain k6 script: `k6 run examples/ramping-vus.js` runs it unchanged.
import http from 'k6/http';
import { check, sleep } from 'k6';
import { randomString } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';

export const options = {
  scenarios: {
    signup: {
      executor: 'ramping-vus',
      startVUs: 30,
      gracefulRampDown: '30s',
      stages: [
        { duration: '1m', target: 30 },
        { duration: '1m', target: 60 },
        { duration: '1m', target: 90 },
        { duration: '1m', target: 120 },
        { duration: '1m', target: 150 },
        { duration: '1m', target: 180 },
        { duration: '1m', target: 210 },
        { duration: '1m', target: 240 },
        { duration: '1m', target: 270 },
        { duration: '1m', target: 300 },
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
  });
  check(res, { 'signed up': (r) => r.status === 200 });
  sleep(1);
}
