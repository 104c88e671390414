// The demo's spike, the JavaScript twin of demo-spike.yaml: story 1's 10 → 50 RPS spike
// compressed into about three minutes, against the simulated cluster's order service.
// `tidemark demo` runs the YAML form; run this one against the demo's order service
// (or any target) yourself:
//   TARGET_URL=http://127.0.0.1:8099 tidemark run examples/demo-spike.js
// It is a plain k6 script: `k6 run examples/demo-spike.js` runs it unchanged.
import http from 'k6/http';
import { check } from 'k6';
import { randomIntBetween } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';

export const options = {
  scenarios: {
    spike: {
      executor: 'ramping-arrival-rate',
      startRate: 10,
      timeUnit: '1s',
      preAllocatedVUs: 20,
      maxVUs: 200,
      stages: [
        { duration: '30s', target: 10 }, // baseline
        { duration: '5s', target: 50 }, // the spike
        { duration: '100s', target: 50 },
        { duration: '5s', target: 10 },
        { duration: '30s', target: 10 }, // recovery
      ],
    },
  },
  thresholds: {
    http_req_duration: ['p(95)<500'],
    http_req_failed: ['rate<0.01'],
  },
};

const BASE_URL = __ENV.TARGET_URL || __ENV.BASE_URL || 'http://127.0.0.1:8099';

export default function () {
  const res = http.get(`${BASE_URL}/orders/${randomIntBetween(1, 1000)}`, {
    tags: { name: 'order' },
    timeout: '10s',
  });
  check(res, { 'status is 200': (r) => r.status === 200 });
}
