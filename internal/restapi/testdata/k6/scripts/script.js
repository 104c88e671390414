import http from 'k6/http';
import { check, group } from 'k6';
export const options = { vus: 2, duration: '30s' };
export function setup() { return { token: "abc", n: 1 }; }
export default function (data) {
  group('visit homepage', function () {
    const r = http.get('http://127.0.0.1:18799/');
    check(r, { 'is 200': (r) => r.status === 200 });
    group('nested', function () { check(1, { 'one': (v) => v === 1 }); });
  });
}
export function teardown(data) { console.log("teardown " + JSON.stringify(data)); }
