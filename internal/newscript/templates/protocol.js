import http from 'k6/http';
import { check, group, sleep } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'https://quickpizza.grafana.com';

export const options = {
  stages: [
    { duration: '10s', target: 5 },
    { duration: '20s', target: 10 },
    { duration: '10s', target: 0 },
  ],
  thresholds: {
    http_req_failed: ['rate<0.01'],
    http_req_duration: ['p(95)<500'],
  },{{ if .ProjectID }}
  cloud: {
    projectID: {{ .ProjectID }},
    name: '{{ .ScriptName }}',
  },{{ end }}
};

export function setup() {
  const res = http.get(BASE_URL);
  check(res, { 'the service is up': (r) => r.status === 200 });
}

export default function () {
  group('home page', () => {
    const res = http.get(BASE_URL);
    check(res, { 'status is 200': (r) => r.status === 200 });
  });
  group('recommendation', () => {
    const res = http.post(`${BASE_URL}/api/pizza`, JSON.stringify({ maxCaloriesPerSlice: 1000 }), {
      headers: { 'Content-Type': 'application/json', Authorization: 'token abcdef0123456789' },
    });
    check(res, { 'got a pizza': (r) => r.status === 200 });
  });
  sleep(1);
}
