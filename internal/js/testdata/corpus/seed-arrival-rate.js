// Seed shape, story 1: a ramping-arrival-rate spike whose request comes from a shared
// module (orderRequest from ./common.js), thresholds p(95)<500 and rate<0.01;
// compressed to 4 s.
// Run:  tidemark run internal/js/testdata/corpus/seed-arrival-rate.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// Rate 10/s rising to 20/s over 1 s, 20/s for 2 s, falling to 0 over 1 s: the open model
// starts 15 + 40 + 10 = about 65 iterations whatever the latency.
// A correct runtime produces:
// - exit code 0: http_req_duration p(95)<500 and http_req_failed rate<0.01 pass against
//   an unloaded target; http_reqs count between 60 and 70 (about 65, each a POST /orders
//   named "order"; the target counts the same number); checks rate==1.
// - dropped_iterations: none on a target that answers at once (5 VUs are preallocated,
//   up to 20 may be started).
import { orderRequest } from './common.js';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  scenarios: {
    spike: {
      executor: 'ramping-arrival-rate',
      startRate: 10,
      timeUnit: '1s',
      preAllocatedVUs: 5,
      maxVUs: 20,
      stages: [
        { duration: '1s', target: 20 },
        { duration: '2s', target: 20 },
        { duration: '1s', target: 0 },
      ],
    },
  },
  thresholds: {
    http_req_duration: ['p(95)<500'],
    http_req_failed: ['rate<0.01'],
    http_reqs: ['count>=60', 'count<=70'],
    checks: ['rate==1'],
  },
};

export default function () {
  orderRequest(BASE_URL);
}
