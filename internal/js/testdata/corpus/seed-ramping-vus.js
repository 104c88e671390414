// Seed shape, story 2: ramping-vus 3 → 30 in ten stages (the story's 30 → 300 over ten
// minutes, scaled by 1/10 in VUs and compressed to 4 s), sleep(1) per iteration,
// thresholds on http_req_failed and http_req_duration.
// Run:  tidemark run internal/js/testdata/corpus/seed-ramping-vus.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: http_req_failed rate<0.01, http_req_duration p(95)<500 and checks
//   rate==1 pass against an unloaded target.
// - VUs rise 3 → 30 (vus_max 30); each VU posts one sign-up (POST /users, named
//   "signup") and sleeps 1 s: about 60 to 90 requests in all; gracefulRampDown 1s lets
//   the last sleeps finish, so the run lasts at most about 5 s.
import http from 'k6/http';
import { check, sleep } from 'k6';
import { randomString } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

const stages = [];
for (let i = 1; i <= 10; i++) {
  stages.push({ duration: '400ms', target: 3 * i });
}

export const options = {
  scenarios: {
    signup: {
      executor: 'ramping-vus',
      startVUs: 3,
      stages,
      gracefulRampDown: '1s',
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    http_req_duration: ['p(95)<500'],
    'http_reqs{name:signup}': ['count>=30'],
    checks: ['rate==1'],
  },
};

export default function () {
  const body = JSON.stringify({ email: `user-${__VU}-${__ITER}@example.com`, password: randomString(12) });
  const res = http.post(`${BASE_URL}/users`, body, {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: 'signup' },
  });
  check(res, { 'signed up': (r) => r.status === 200 });
  sleep(1);
}
