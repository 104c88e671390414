// Area: the execution globals __ENV, __VU and __ITER.
// Run:  tidemark run -e CORPUS_GREETING=hello -e CORPUS_NUMBER=42 internal/js/testdata/corpus/env.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// 2 VUs x 3 iterations (per-vu-iterations). A correct runtime produces:
// - with both -e flags: exit code 0, every threshold passes.
// - without them: exit code 99 (checks rate==1 fails: the two __ENV checks fail in
//   setup and in each of the 6 iterations); the counters still pass.
// - corpus_iter_sum count==6 (each VU adds __ITER 0+1+2); corpus_vu_sum count==9
//   (VUs 1 and 2, 3 times each); HTTP: 6 GET /env?vu=N&iter=I named "env".
// - logs: "env: init __VU=N" for each init run (N is 0 in the options-reading run).
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

const iterSum = new Counter('corpus_iter_sum');
const vuSum = new Counter('corpus_vu_sum');

console.log(`env: init __VU=${__VU}`);

export const options = {
  scenarios: { env: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } },
  thresholds: {
    corpus_iter_sum: ['count==6'],
    corpus_vu_sum: ['count==9'],
    'http_reqs{name:env}': ['count==6'],
    checks: ['rate==1'],
  },
};

function envChecks() {
  return {
    '-e CORPUS_GREETING=hello reaches __ENV': () => __ENV.CORPUS_GREETING === 'hello',
    '__ENV values are strings': () => __ENV.CORPUS_NUMBER === '42' && typeof __ENV.CORPUS_NUMBER === 'string',
  };
}

export function setup() {
  check(null, Object.assign({ '__VU is 0 in setup': () => __VU === 0 }, envChecks()));
}

export default function () {
  iterSum.add(__ITER);
  vuSum.add(__VU);
  // __ENV is writable; the value lasts for the rest of this VU's iteration.
  __ENV.CORPUS_SET_BY_SCRIPT = `vu-${__VU}`;
  check(null, Object.assign({
    '__VU is 1 or 2': () => __VU === 1 || __VU === 2,
    '__ITER is 0, 1 or 2': () => __ITER >= 0 && __ITER <= 2,
    '__ENV is writable': () => __ENV.CORPUS_SET_BY_SCRIPT === `vu-${__VU}`,
  }, envChecks()));
  const res = http.get(`${BASE_URL}/env?vu=${__VU}&iter=${__ITER}`, { tags: { name: 'env' } });
  check(res, { 'request is 200': (r) => r.status === 200 });
}
