// Story 1 (seed-stories.md), the JavaScript twin of load-steps.yaml: load steps
// 10 → 30 → 50 requests per second. Each step ramps for 2 minutes and holds for 5; the
// open model (ramping-arrival-rate) keeps the request rate whatever the latency, and
// counts dropped_iterations when all 200 VUs are busy.
//   tidemark run examples/load-steps.js
//   TARGET_URL=http://order.shop.svc:8080 tidemark run examples/load-steps.js
// It is a plain k6 script: `k6 run examples/load-steps.js` runs it unchanged.
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  scenarios: {
    load_steps: {
      executor: 'ramping-arrival-rate',
      startRate: 0,
      timeUnit: '1s',
      preAllocatedVUs: 20,
      maxVUs: 200,
      stages: [
        { duration: '2m', target: 10 },
        { duration: '5m', target: 10 },
        { duration: '2m', target: 30 },
        { duration: '5m', target: 30 },
        { duration: '2m', target: 50 },
        { duration: '5m', target: 50 },
        { duration: '2m', target: 0 },
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
  // The YAML form's mapping body: JSON, keys in the same order, with its content type.
  const body = JSON.stringify({ customer: `c-${__VU}`, items: [{ sku: 'tea', qty: 1 }] });
  const res = http.post(`${BASE_URL}/orders`, body, {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: 'order' },
  });
  check(res, { 'status is 200': (r) => r.status === 200 });
}
