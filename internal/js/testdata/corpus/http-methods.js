// Area: k6/http request functions: get, post, put, patch, del, head, options, request,
// and the body forms (string, object as a form, ArrayBuffer).
// Run:  tidemark run internal/js/testdata/corpus/http-methods.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: every threshold passes.
// - HTTP: 11 requests in 1 iteration, all answered 200 (the target counts 11):
//   GET 2, POST 3, PUT 2, PATCH 1, DELETE 1, HEAD 1, OPTIONS 1 (thresholds
//   http_reqs{method:…} count==N, http_reqs count==11); http_req_failed rate==0;
//   checks rate==1.
// - an object body is sent form-encoded: request.body "a=1&b=two" with Content-Type
//   application/x-www-form-urlencoded.
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: {
    http_reqs: ['count==11'],
    'http_reqs{method:GET}': ['count==2'],
    'http_reqs{method:POST}': ['count==3'],
    'http_reqs{method:PUT}': ['count==2'],
    'http_reqs{method:PATCH}': ['count==1'],
    'http_reqs{method:DELETE}': ['count==1'],
    'http_reqs{method:HEAD}': ['count==1'],
    'http_reqs{method:OPTIONS}': ['count==1'],
    http_req_failed: ['rate==0'],
    checks: ['rate==1'],
  },
};

// Header values may come as a string or a one-element array.
function one(v) {
  return Array.isArray(v) ? v[0] : v;
}

function sent(res, method, body) {
  return check(res, {
    [`${method} is 200`]: (r) => r.status === 200,
    [`${method} was sent as ${method}`]: (r) => r.request.method === method,
    [`${method} body is what was sent`]: (r) => body === undefined || r.request.body === body,
  });
}

export default function () {
  const json = JSON.stringify({ a: 1 });
  const jsonParams = { headers: { 'Content-Type': 'application/json' } };

  const get = http.get(`${BASE_URL}/m/get`);
  sent(get, 'GET');
  check(get, { 'GET body is "ok\\n"': (r) => r.body === 'ok\n' });

  sent(http.post(`${BASE_URL}/m/post`, json, jsonParams), 'POST', json);

  const form = http.post(`${BASE_URL}/m/form`, { a: '1', b: 'two' });
  sent(form, 'POST', 'a=1&b=two');
  check(form, {
    'an object body is form-encoded': (r) =>
      String(one(r.request.headers['Content-Type'])).startsWith('application/x-www-form-urlencoded'),
  });

  const bin = new Uint8Array([1, 2, 3]).buffer;
  sent(http.post(`${BASE_URL}/m/binary`, bin, { headers: { 'Content-Type': 'application/octet-stream' } }), 'POST');

  sent(http.put(`${BASE_URL}/m/put`, 'put-body'), 'PUT', 'put-body');
  sent(http.patch(`${BASE_URL}/m/patch`, 'patch-body'), 'PATCH', 'patch-body');
  sent(http.del(`${BASE_URL}/m/del`), 'DELETE');

  const head = http.head(`${BASE_URL}/m/head`);
  sent(head, 'HEAD');
  check(head, {
    'HEAD has no body': (r) => !r.body,
    'HEAD keeps Content-Length 3': (r) => one(r.headers['Content-Length']) === '3',
  });

  sent(http.options(`${BASE_URL}/m/options`), 'OPTIONS');

  // request(): the method is uppercase; the body comes before the params.
  sent(http.request('GET', `${BASE_URL}/m/request`), 'GET');
  sent(http.request('PUT', `${BASE_URL}/m/request`, 'request-body', { tags: { via: 'request' } }), 'PUT', 'request-body');
}
