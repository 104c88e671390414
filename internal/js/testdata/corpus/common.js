// The delivery team's shared module (seed story 1), imported as ./common.js by
// seed-arrival-rate.js; not a test script. orderRequest posts one order and checks it.
import http from 'k6/http';
import { check } from 'k6';

export function orderRequest(baseURL) {
  const body = JSON.stringify({ customer: `c-${__VU}`, items: [{ sku: 'tea', qty: 1 }] });
  const res = http.post(`${baseURL}/orders`, body, {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: 'order' },
  });
  check(res, { 'status is 200': (r) => r.status === 200 });
  return res;
}
