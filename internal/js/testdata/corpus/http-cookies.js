// Area: k6/http cookies: the VU cookie jar (set, cookiesForURL, delete, clear), params
// cookies (per request, never stored; replace), a local CookieJar through params.jar,
// and the jar reset between iterations.
// Run:  tidemark run internal/js/testdata/corpus/http-cookies.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// The target sets no cookies (no Set-Cookie route), so this script proves the sending
// side and the jar API; res.cookies is always {}.
// A correct runtime produces:
// - exit code 0: every threshold passes (checks rate==1, http_reqs count==5).
// - HTTP: 5 requests, all in iteration 0 (1 VU, 2 iterations); iteration 1 only reads
//   the jar and finds it empty (the VU jar is reset between iterations).
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';
const URL = `${BASE_URL}/c/`;

export const options = {
  scenarios: { cookies: { executor: 'per-vu-iterations', vus: 1, iterations: 2 } },
  thresholds: {
    http_reqs: ['count==5'],
    checks: ['rate==1'],
  },
};

// request.cookies is {name: [{name, value, replace}]}.
function sentCookie(res, name) {
  const c = res.request.cookies[name];
  return c && c.length > 0 ? c[0].value : undefined;
}

export default function () {
  const jar = http.cookieJar();
  if (__ITER === 1) {
    check(jar.cookiesForURL(URL), { 'the VU jar is reset between iterations': (c) => c.left === undefined });
    return;
  }

  jar.set(BASE_URL, 'session', 'abc123');
  check(jar.cookiesForURL(URL), { 'jar.set then cookiesForURL': (c) => c.session && c.session[0] === 'abc123' });

  const r1 = http.get(`${URL}jar`);
  check(r1, {
    'the jar cookie is sent': (r) => sentCookie(r, 'session') === 'abc123',
    'the target sets no cookie': (r) => Object.keys(r.cookies).length === 0,
  });

  const r2 = http.get(`${URL}per-request`, { cookies: { extra: 'x1' } });
  check(r2, {
    'a params cookie is sent': (r) => sentCookie(r, 'extra') === 'x1',
    'the jar cookie is sent with it': (r) => sentCookie(r, 'session') === 'abc123',
  });
  check(jar.cookiesForURL(URL), { 'a params cookie is not stored': (c) => c.extra === undefined });

  const r3 = http.get(`${URL}replace`, { cookies: { session: { value: 'override', replace: true } } });
  check(r3, {
    'replace: true wins over the jar': (r) => r.request.cookies.session.length === 1 && sentCookie(r, 'session') === 'override',
  });

  const local = new http.CookieJar();
  local.set(BASE_URL, 'local', 'yes');
  const r4 = http.get(`${URL}local`, { jar: local });
  check(r4, {
    'params.jar sends its own cookies': (r) => sentCookie(r, 'local') === 'yes',
    'params.jar replaces the VU jar': (r) => sentCookie(r, 'session') === undefined,
  });

  jar.delete(BASE_URL, 'session');
  check(jar.cookiesForURL(URL), { 'jar.delete removes one cookie': (c) => c.session === undefined });
  const r5 = http.get(`${URL}after-delete`);
  check(r5, { 'a deleted cookie is not sent': (r) => sentCookie(r, 'session') === undefined });

  jar.set(BASE_URL, 'a', '1');
  jar.set(BASE_URL, 'b', '2');
  jar.clear(BASE_URL);
  check(jar.cookiesForURL(URL), { 'jar.clear removes all': (c) => c.a === undefined && c.b === undefined });

  // Left in the jar at the end of iteration 0; iteration 1 must not see it.
  jar.set(BASE_URL, 'left', 'over');
}
