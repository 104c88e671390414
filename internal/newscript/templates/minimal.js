import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = {
  vus: 10,
  duration: '30s',{{ if .ProjectID }}
  cloud: {
    projectID: {{ .ProjectID }},
    name: '{{ .ScriptName }}',
  },{{ end }}
};

// Each VU runs this function over and over for the duration of the test.
export default function () {
  const res = http.get('https://quickpizza.grafana.com');
  check(res, { 'status is 200': (r) => r.status === 200 });
  sleep(1);
}
