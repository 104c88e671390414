// Seed shape: the everyday k6 script, `stages` in options (the ramping-vus shortcut,
// scenario "default") and sleep(1) after each request; 5 s in all.
// Run:  tidemark run internal/js/testdata/corpus/seed-stages-sleep.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: http_req_duration p(95)<500, http_req_failed rate<0.01 and checks
//   rate==1 pass.
// - one scenario "default" with executor ramping-vus, starting at 1 VU (the default vus),
//   up to 4 VUs; each VU makes about one request a second: roughly 12 to 16 GET / in all
//   (http_reqs{scenario:default} count>=8 is checked); the target counts the same.
import http from 'k6/http';
import { check, sleep } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  stages: [
    { duration: '2s', target: 4 },
    { duration: '2s', target: 4 },
    { duration: '1s', target: 0 },
  ],
  thresholds: {
    http_req_duration: ['p(95)<500'],
    http_req_failed: ['rate<0.01'],
    'http_reqs{scenario:default}': ['count>=8'],
    checks: ['rate==1'],
  },
};

export default function () {
  const res = http.get(`${BASE_URL}/`);
  check(res, { 'status is 200': (r) => r.status === 200 });
  sleep(1);
}
