// Area: request chaining, the way k6 users log in once and keep the token: setup() logs
// in and hands the token to every VU; each iteration reads a value from one JSON
// response and uses it in the next request.
// Run:  tidemark run internal/js/testdata/corpus/http-chaining.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// `tidemark target` has no login route that returns a token: POST /login answers
// "ok\n", so the token is taken from GET /stats' JSON (its "started" field).
// A correct runtime produces:
// - exit code 0: every threshold passes (checks rate==1, http_reqs count==14).
// - HTTP: setup 2 (POST /login, GET /stats); 4 iterations (2 VUs, shared-iterations)
//   of 3 (GET /stats, GET /orders with the token, GET /orders/<id> named
//   "order-by-id"): 14 in all; the target counts 9 (it does not count /stats).
// - every /orders request carries "Authorization: Bearer tok-<started>".
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 2,
  iterations: 4,
  thresholds: {
    http_reqs: ['count==14'],
    'http_reqs{name:order-by-id}': ['count==4'],
    checks: ['rate==1'],
  },
};

function one(v) {
  return Array.isArray(v) ? v[0] : v;
}

export function setup() {
  const login = http.post(`${BASE_URL}/login`, { user: 'alice', password: 'secret' });
  check(login, { 'logged in': (r) => r.status === 200 });
  const token = `tok-${http.get(`${BASE_URL}/stats`).json('started')}`;
  return { token };
}

export default function (data) {
  const auth = { headers: { Authorization: `Bearer ${data.token}` } };

  const orders = http.get(`${BASE_URL}/orders`, auth);
  check(orders, {
    'the token from setup is sent': (r) => one(r.request.headers['Authorization']) === `Bearer ${data.token}`,
    'orders is 200': (r) => r.status === 200,
  });

  // Chain: a value read from one response goes into the next request.
  const id = http.get(`${BASE_URL}/stats`).json('requests');
  const order = http.get(`${BASE_URL}/orders/${id}`, Object.assign({ tags: { name: 'order-by-id' } }, auth));
  check(order, {
    'the id from the previous response is in the URL': (r) => r.url === `${BASE_URL}/orders/${id}`,
    'order-by-id is 200': (r) => r.status === 200,
  });
}
