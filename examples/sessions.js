// Story 3 (seed-stories.md), the JavaScript twin of sessions.yaml: one more user every
// second, each keeping a long session: log in, then poll for about a minute (every
// iteration is one session). When the pod hits its CPU limit, latency rises long before
// errors appear (CFS throttling), and the 10 s client timeout is the only error.
//   tidemark run examples/sessions.js
//   TARGET_URL=http://coupon-api.loadtest:8080 tidemark run examples/sessions.js
// It is a plain k6 script: `k6 run examples/sessions.js` runs it unchanged.
import http from 'k6/http';
import { check, group, sleep } from 'k6';
import { uuidv4 } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';

export const options = {
  scenarios: {
    sessions: {
      executor: 'ramping-vus',
      startVUs: 0,
      gracefulRampDown: '10s',
      stages: [
        { duration: '4m', target: 240 }, // one VU per second
        { duration: '1m', target: 240 },
      ],
      tags: { test: 'sessions' },
    },
  },
  thresholds: {
    'http_req_duration{name:poll}': ['p(95)<500'],
    http_req_failed: ['rate<0.05'],
  },
};

const BASE_URL = __ENV.TARGET_URL || __ENV.BASE_URL || 'http://127.0.0.1:8099';
const POLLS = 30; // about 30 polls 1-3 s apart

export default function () {
  // All 31 requests are in one group, as the YAML form's consecutive `group: session` steps.
  group('session', () => {
    const login = http.post(`${BASE_URL}/login`, `user=u${__VU}&session=${uuidv4()}`, {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      tags: { name: 'login' },
      timeout: '10s',
    });
    check(login, { 'status is 200': (r) => r.status === 200 });
    for (let i = 0; i < POLLS; i++) {
      const poll = http.get(`${BASE_URL}/poll?user=u${__VU}`, { tags: { name: 'poll' }, timeout: '10s' });
      check(poll, { 'status is 200': (r) => r.status === 200 });
      sleep(1 + Math.random() * 2); // sleep: 1s-3s, uniform
    }
  });
}
