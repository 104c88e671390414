// Area: the `k6` module: check (with tags, return value), group (nesting, return value,
// group tag), sleep, fail, randomSeed.
// Run:  tidemark run internal/js/testdata/corpus/k6-core.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: every threshold passes. fail() ends only its own iteration.
// - HTTP: 4 requests (1 VU, 4 iterations), GET /core/grouped, all inside group
//   "::outer::inner" (threshold http_reqs{group:::outer::inner} count==4).
// - checks: per iteration one pass and one fail tagged area=core (checks{area:core}
//   rate==0.5, checks{check:one_is_one} rate==1, checks{check:one_is_two} rate==0), and
//   only passing checks tagged area=misc (checks{area:misc} rate==1).
// - corpus_check_returned_true rate==0 (check returns false when any entry fails);
//   corpus_after_fail count==3 (the code after fail() in iteration 3 never runs).
// - logs: one error for the iteration ended by fail(), naming "corpus: deliberate failure
//   in iteration 3".
import http from 'k6/http';
import { check, fail, group, randomSeed, sleep } from 'k6';
import { Counter, Rate } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

const checkReturnedTrue = new Rate('corpus_check_returned_true');
const afterFail = new Counter('corpus_after_fail');

export const options = {
  vus: 1,
  iterations: 4,
  thresholds: {
    'checks{area:core}': ['rate==0.5'],
    'checks{check:one_is_one}': ['rate==1'],
    'checks{check:one_is_two}': ['rate==0'],
    'checks{area:misc}': ['rate==1'],
    corpus_check_returned_true: ['rate==0'],
    corpus_after_fail: ['count==3'],
    'http_reqs{group:::outer::inner}': ['count==4'],
    http_reqs: ['count==4'],
  },
};

function draws(seed) {
  randomSeed(seed);
  return [Math.random(), Math.random(), Math.random()];
}

export default function () {
  const misc = { area: 'misc' };

  // check: one sample per entry, tagged check=<name> plus the tags given.
  const ok = check(1, { one_is_one: (v) => v === 1, one_is_two: (v) => v === 2 }, { area: 'core' });
  checkReturnedTrue.add(ok);

  // group: nested names make the group tag "::outer::inner"; group returns fn's value.
  const got = group('outer', () =>
    group('inner', () => {
      const res = http.get(`${BASE_URL}/core/grouped`);
      check(res, { 'grouped request is 200': (r) => r.status === 200 }, misc);
      return 42;
    }),
  );
  check(got, { 'group returns its function value': (v) => v === 42 }, misc);

  // sleep takes seconds.
  const t0 = Date.now();
  sleep(0.2);
  check(Date.now() - t0, { 'sleep(0.2) waits about 200 ms': (ms) => ms >= 190 && ms < 1000 }, misc);

  // randomSeed makes Math.random repeatable.
  const a = draws(7);
  const b = draws(7);
  const c = draws(8);
  check(null, {
    'randomSeed(7) twice gives the same draws': () => a.join() === b.join(),
    'randomSeed(8) gives other draws': () => a.join() !== c.join(),
    'draws are in [0,1)': () => a.every((x) => x >= 0 && x < 1),
  }, misc);

  if (__ITER === 3) {
    fail('corpus: deliberate failure in iteration 3');
  }
  afterFail.add(1);
}
