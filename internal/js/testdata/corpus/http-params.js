// Area: k6/http params: headers, tags, timeout (string and number = ms), redirects,
// auth basic, responseType text/binary/none, responseCallback, expectedStatuses,
// setResponseCallback.
// Run:  tidemark run internal/js/testdata/corpus/http-params.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: every threshold passes.
// - HTTP: 14 requests in 1 iteration (http_reqs count==14):
//   headers 1, tags 2 (http_reqs{kind:tagged} count==2), timeouts 2, redirects 1,
//   auth 1, responseType 3, callbacks 4.
// - the two requests to ?delay=2s with timeout '300ms' and timeout 300 (a number is
//   milliseconds) end after about 300 ms with status 0 and error_code 1050; each logs a
//   request-timeout warning; both are failures (http_req_failed{case:timeout} rate==1).
// - ?status=302 with redirects: 0 gives status 302 (the target sends no Location).
// - responseType: text → "abcdefghi\n"; binary → an ArrayBuffer of 10 bytes starting
//   with 97 ('a'); none → body null.
// - expected statuses: 404 with expectedStatuses(404), 201 with expectedStatuses({min:200,
//   max:201}) and 418 under setResponseCallback(expectedStatuses(200, 418)) are not
//   failures (http_req_failed{case:expected} rate==0); 503 with the default callback
//   is one, with error_code 1503 (http_req_failed{case:unexpected} rate==1).
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: {
    http_reqs: ['count==14'],
    'http_reqs{kind:tagged}': ['count==2'],
    'http_req_failed{case:timeout}': ['rate==1'],
    'http_req_failed{case:expected}': ['rate==0'],
    'http_req_failed{case:unexpected}': ['rate==1'],
    'http_req_failed{case:plain}': ['rate==0'],
    checks: ['rate==1'],
  },
};

function one(v) {
  return Array.isArray(v) ? v[0] : v;
}

const plain = { case: 'plain' };

export default function () {
  // headers
  const h = http.get(`${BASE_URL}/p/headers`, {
    headers: { 'X-Corpus': 'params', 'User-Agent': 'tidemark-corpus/1' },
    tags: plain,
  });
  check(h, {
    'custom header is sent': (r) => one(r.request.headers['X-Corpus']) === 'params',
    'User-Agent can be replaced': (r) => one(r.request.headers['User-Agent']) === 'tidemark-corpus/1',
  });

  // tags
  for (let i = 0; i < 2; i++) {
    const t = http.get(`${BASE_URL}/p/tagged?i=${i}`, { tags: { kind: 'tagged', case: 'plain' } });
    check(t, { 'tagged request is 200': (r) => r.status === 200 });
  }

  // timeout: a string duration, then a number of milliseconds
  for (const timeout of ['300ms', 300]) {
    const t0 = Date.now();
    const r = http.get(`${BASE_URL}/p/slow?delay=2s`, { timeout, tags: { case: 'timeout' } });
    const took = Date.now() - t0;
    check(r, {
      [`timeout ${JSON.stringify(timeout)}: no response`]: (x) => x.status === 0,
      [`timeout ${JSON.stringify(timeout)}: error_code 1050`]: (x) => x.error_code === 1050,
      [`timeout ${JSON.stringify(timeout)}: ends after about 300 ms`]: () => took >= 250 && took < 1500,
    });
  }

  // redirects: 0 returns the 3xx itself
  const red = http.get(`${BASE_URL}/p/redirect?status=302`, { redirects: 0, tags: plain });
  check(red, { 'redirects: 0 returns the 302': (r) => r.status === 302 });

  // auth: basic, credentials from the URL
  const authURL = BASE_URL.replace('://', '://corpus:secret@');
  const auth = http.get(`${authURL}/p/auth`, { auth: 'basic', tags: plain });
  check(auth, { 'basic auth request is 200': (r) => r.status === 200 });

  // responseType
  const sized = `${BASE_URL}/p/body?size=10`;
  const text = http.get(sized, { responseType: 'text', tags: plain });
  const binary = http.get(sized, { responseType: 'binary', tags: plain });
  const none = http.get(sized, { responseType: 'none', tags: plain });
  check(null, {
    'responseType text: a string': () => text.body === 'abcdefghi\n',
    'responseType binary: an ArrayBuffer': () => binary.body instanceof ArrayBuffer && binary.body.byteLength === 10,
    'responseType binary: the bytes': () => new Uint8Array(binary.body)[0] === 97,
    'responseType none: no body': () => none.body === null && none.status === 200,
  });

  // responseCallback / expectedStatuses
  const expected = { case: 'expected' };
  const nf = http.get(`${BASE_URL}/p/missing?status=404`, { responseCallback: http.expectedStatuses(404), tags: expected });
  const created = http.post(`${BASE_URL}/p/created?status=201`, 'x', {
    responseCallback: http.expectedStatuses({ min: 200, max: 201 }),
    tags: expected,
  });
  const down = http.get(`${BASE_URL}/p/down?status=503`, { tags: { case: 'unexpected' } });
  http.setResponseCallback(http.expectedStatuses(200, 418));
  const teapot = http.get(`${BASE_URL}/p/teapot?status=418`, { tags: expected });
  http.setResponseCallback(http.expectedStatuses({ min: 200, max: 399 }));
  check(null, {
    'statuses come through': () => nf.status === 404 && created.status === 201 && down.status === 503 && teapot.status === 418,
    '503 has error_code 1503': () => down.error_code === 1503,
  });
}
