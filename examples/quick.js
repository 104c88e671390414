// A first look, the JavaScript twin of quick.yaml: 5 VUs for 10 seconds against the
// built-in target (`tidemark target` listens on 127.0.0.1:8099).
//   tidemark target &
//   tidemark run examples/quick.js
//   TARGET_URL=http://10.0.0.1:8080 tidemark run examples/quick.js
// It is a plain k6 script: `k6 run examples/quick.js` runs it unchanged.
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = {
  vus: 5,
  duration: '10s',
  thresholds: {
    http_req_duration: ['p(95)<500'],
    http_req_failed: ['rate<0.01'],
  },
};

// As ${__ENV.TARGET_URL:-http://127.0.0.1:8099} in the YAML form; BASE_URL works too.
const BASE_URL = __ENV.TARGET_URL || __ENV.BASE_URL || 'http://127.0.0.1:8099';

export default function () {
  const res = http.get(`${BASE_URL}/`, { tags: { name: 'home' } });
  check(res, { 'status is 200': (r) => r.status === 200 });
  sleep(0.1);
}
