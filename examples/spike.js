// Story 1 (seed-stories.md), the useful spike, the JavaScript twin of spike.yaml: 10 RPS
// baseline, a jump to 50 RPS held for 3 minutes, then back. Watch how long new pods take
// to become Ready after the HPA scales out (tidemark correlate).
//   tidemark run examples/spike.js
//   tidemark run --testid=spike-1 --env TARGET_URL=http://127.0.0.1:8099 examples/spike.js
// It is a plain k6 script: `k6 run examples/spike.js` runs it unchanged.
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
        { duration: '2m', target: 10 }, // baseline
        { duration: '10s', target: 50 }, // the spike
        { duration: '3m', target: 50 },
        { duration: '10s', target: 10 },
        { duration: '5m', target: 10 }, // recovery: scale-in waits for the stabilization window
        { duration: '30s', target: 0 },
      ],
    },
  },
  thresholds: {
    http_req_duration: ['p(95)<500'],
    http_req_failed: ['rate<0.01'],
    'http_req_duration{scenario:spike}': ['p(99)<2000'],
  },
};

const BASE_URL = __ENV.TARGET_URL || __ENV.BASE_URL || 'http://127.0.0.1:8099';

export default function () {
  // ${__RANDOM_INT(1,1000)} in the YAML form: both ends included. The name tag keeps
  // one series for all the order ids.
  const res = http.get(`${BASE_URL}/orders/${randomIntBetween(1, 1000)}`, { tags: { name: 'order' } });
  check(res, { 'status is 200': (r) => r.status === 200 });
}
