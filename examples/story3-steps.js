// Seed story 3 (seed-stories.md), the JavaScript twin of story3-steps.yaml: 10, 20, 30
// and 40 users, each polling then deducting a coupon with 1 s of think time after each
// call, judged by the story's SLO p(95)<500.
//   tidemark simulate --runtime process examples/cluster-story3-process-500m.yaml
//   TARGET_URL=http://127.0.0.1:PORT tidemark run examples/story3-steps.js
// It is a plain k6 script: `k6 run examples/story3-steps.js` runs it unchanged.
import http from 'k6/http';
import { sleep } from 'k6';

export const options = {
  scenarios: {
    users: {
      executor: 'ramping-vus',
      startVUs: 0,
      gracefulRampDown: '5s',
      stages: [
        { duration: '2s', target: 10 },
        { duration: '20s', target: 10 },
        { duration: '2s', target: 20 },
        { duration: '20s', target: 20 },
        { duration: '2s', target: 30 },
        { duration: '20s', target: 30 },
        { duration: '2s', target: 40 },
        { duration: '20s', target: 40 },
        { duration: '2s', target: 0 },
      ],
    },
  },
  thresholds: {
    http_req_duration: ['p(95)<500'],
  },
};

const BASE_URL = __ENV.TARGET_URL || 'http://127.0.0.1:8099';

export default function () {
  http.get(`${BASE_URL}/coupons/poll`, { tags: { name: 'poll' }, timeout: '30s' });
  sleep(1);
  http.post(`${BASE_URL}/coupons/deduct`, null, { tags: { name: 'deduct' }, timeout: '30s' });
  sleep(1);
}
