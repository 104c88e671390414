// Story 4 (seed-stories.md), the JavaScript twin of constant-1000tps.yaml: a fixed-rate
// attack, as vegeta does, at 1000 requests per second for one minute. Raise `rate`
// (2000, 3000, …) to find where success drops.
//   tidemark run examples/constant-1000tps.js
//   TARGET_URL=http://gateway.example:8000 tidemark run examples/constant-1000tps.js
// It is a plain k6 script: `k6 run examples/constant-1000tps.js` runs it unchanged.
import http from 'k6/http';

export const options = {
  scenarios: {
    attack: {
      executor: 'constant-arrival-rate',
      rate: 1000,
      timeUnit: '1s',
      duration: '1m',
      preAllocatedVUs: 100,
      maxVUs: 1000,
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    dropped_iterations: ['count<100'],
  },
};

const BASE_URL = __ENV.TARGET_URL || __ENV.BASE_URL || 'http://127.0.0.1:8099';

export default function () {
  http.get(`${BASE_URL}/`, { tags: { name: 'gateway' }, timeout: '10s' });
}
