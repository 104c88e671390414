// Area: jslib k6-utils 1.4.0 (built into Tidemark): randomIntBetween, randomItem,
// randomString, uuidv4.
// Run:  tidemark run internal/js/testdata/corpus/jslib-utils.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces: exit code 0, every threshold passes (checks rate==1,
// http_reqs count==1); HTTP: GET /jslib/<a v4 UUID>, named "jslib". (With 600 draws the
// chance that a check on "every value is seen" fails by bad luck is below 1e-100.)
import http from 'k6/http';
import { check } from 'k6';
import { randomIntBetween, randomItem, randomString, uuidv4 } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const N = 600;

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { http_reqs: ['count==1'], checks: ['rate==1'] },
};

function draws(f) {
  const out = [];
  for (let i = 0; i < N; i++) {
    out.push(f());
  }
  return out;
}

export default function () {
  const ints = draws(() => randomIntBetween(1, 3));
  const items = draws(() => randomItem(['a', 'b', 'c']));
  const ids = draws(() => uuidv4());
  check(null, {
    'randomIntBetween: integers': () => ints.every((x) => Number.isInteger(x)),
    'randomIntBetween: both ends included': () => ints.every((x) => x >= 1 && x <= 3) && ints.includes(1) && ints.includes(3),
    'randomIntBetween(5, 5) is 5': () => randomIntBetween(5, 5) === 5,
    'randomItem: only items, all seen': () =>
      items.every((x) => ['a', 'b', 'c'].includes(x)) && ['a', 'b', 'c'].every((x) => items.includes(x)),
    'randomString(16) has 16 characters': () => randomString(16).length === 16,
    'randomString with a one-character charset': () => randomString(6, 'x') === 'xxxxxx',
    'randomString draws only from the charset': () => /^[ab]{1000}$/.test(randomString(1000, 'ab')),
    'uuidv4 is a v4 UUID': () => ids.every((id) => UUID_V4.test(id)),
    'uuidv4 values differ': () => new Set(ids).size === N,
    'uuidv4(true) is a v4 UUID': () => UUID_V4.test(uuidv4(true)),
  });
  const res = http.get(`${BASE_URL}/jslib/${uuidv4()}`, { tags: { name: 'jslib' } });
  check(res, { 'request is 200': (r) => r.status === 200 });
}
