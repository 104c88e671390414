// TestOperatorInitializer's TestRun script: warm's two VUs are held through its
// default 30s gracefulStop, so they overlap spike's four (maxVUs 6).
import http from 'k6/http';

export const options = {
  scenarios: {
    warm: { executor: 'constant-vus', vus: 2, duration: '1s' },
    spike: {
      executor: 'ramping-arrival-rate', startTime: '1s', startRate: 5, timeUnit: '1s',
      stages: [{ duration: '1s', target: 10 }], preAllocatedVUs: 2, maxVUs: 4, gracefulStop: '1s',
    },
  },
  thresholds: { http_req_failed: ['rate<0.1'] },
};

export default function () {
  http.get(`${__ENV.URL}/?status=${__ENV.STATUS}`);
}
