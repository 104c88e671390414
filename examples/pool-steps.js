// The pool case (issue 28), the JavaScript twin of pool-steps.yaml: 5 users, then 40,
// each ordering with 0.5 s of think time, against cluster-pool-postgres.yaml's pod whose
// pool of 4 connections serves 20 requests/s.
//   tidemark demo --runtime process --profile examples/cluster-pool-postgres.yaml --scenario examples/pool-steps.js
// It is a plain k6 script: `k6 run examples/pool-steps.js` runs it unchanged.
import http from 'k6/http';
import { sleep } from 'k6';

export const options = {
  scenarios: {
    orders: {
      executor: 'ramping-vus',
      startVUs: 0,
      gracefulRampDown: '5s',
      stages: [
        { duration: '2s', target: 5 },
        { duration: '10s', target: 5 },
        { duration: '2s', target: 40 },
        { duration: '14s', target: 40 },
      ],
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
  },
};

const BASE_URL = __ENV.TARGET_URL || 'http://127.0.0.1:8099';

export default function () {
  http.post(`${BASE_URL}/orders`, null, { tags: { name: 'order' }, timeout: '10s' });
  sleep(0.5);
}
