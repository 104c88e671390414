// Area: lifecycle: init, setup(), default, teardown(), handleSummary(); setup data is a
// JSON copy that every VU and teardown receive afresh.
// Run:  tidemark run internal/js/testdata/corpus/lifecycle.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099, used by this run alone;
//        SUMMARY_DIR, default ".", is where handleSummary writes)
// A correct runtime produces:
// - exit code 0: every threshold passes (corpus_setup_runs count==1,
//   corpus_teardown_runs count==1, corpus_iterations count==4, checks rate==1).
// - HTTP: setup GET /stats, 4 iterations (2 VUs x 2, per-vu-iterations) GET /lifecycle,
//   teardown GET /stats: http_reqs = 6. The target counts 4 (it does not count /stats),
//   and teardown checks that the target's count grew by exactly 4.
// - logs: "lifecycle: setup ran (__VU=0)" once, "lifecycle: teardown ran (__VU=0)" once,
//   "lifecycle: init (__VU=N)" at least 3 times (k6 runs init once per VU plus at least
//   once more to read options; do not count them exactly).
// - handleSummary replaces the default summary: stdout gets exactly the line
//   "lifecycle: handleSummary ran", and $SUMMARY_DIR/lifecycle-summary.json is written
//   (overwritten) with {"setup_runs":1,"teardown_runs":1,"iterations":4,"checks_failed":0}.
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';
const SUMMARY_DIR = __ENV.SUMMARY_DIR || '.';

const setupRuns = new Counter('corpus_setup_runs');
const teardownRuns = new Counter('corpus_teardown_runs');
const iterations = new Counter('corpus_iterations');

console.log(`lifecycle: init (__VU=${__VU})`);

export const options = {
  scenarios: {
    lifecycle: { executor: 'per-vu-iterations', vus: 2, iterations: 2 },
  },
  thresholds: {
    corpus_setup_runs: ['count==1'],
    corpus_teardown_runs: ['count==1'],
    corpus_iterations: ['count==4'],
    checks: ['rate==1'],
  },
};

export function setup() {
  console.log(`lifecycle: setup ran (__VU=${__VU})`);
  setupRuns.add(1);
  check(__VU, { 'setup runs with __VU 0': (v) => v === 0 });
  const before = http.get(`${BASE_URL}/stats`).json('requests');
  return {
    before,
    counter: 0,
    list: [1, 2, 3],
    nested: { a: { b: 'c' } },
    // k6 copies the data as Go's encoding/json does with the exported value: a Date
    // becomes its RFC 3339 time, undefined becomes null (k6 v1.8.1).
    when: new Date(0),
    nothing: undefined,
  };
}

export default function (data) {
  iterations.add(1);
  check(data, {
    'data.list is a copy of [1,2,3]': (d) => Array.isArray(d.list) && d.list.length >= 3 && d.list[0] === 1,
    'data.nested survives': (d) => d.nested.a.b === 'c',
    'a Date arrives as its RFC 3339 time': (d) => d.when === '1970-01-01T00:00:00Z',
    'an undefined value arrives as null': (d) => d.nothing === null,
    'data.before is the number setup read': (d) => typeof d.before === 'number',
  });
  // Changes here are never seen by another VU or by teardown.
  data.counter++;
  data.list.push(99);
  const res = http.get(`${BASE_URL}/lifecycle?vu=${__VU}&iter=${__ITER}`, { tags: { name: 'lifecycle' } });
  check(res, { 'status is 200': (r) => r.status === 200 });
}

export function teardown(data) {
  console.log(`lifecycle: teardown ran (__VU=${__VU})`);
  teardownRuns.add(1);
  const after = http.get(`${BASE_URL}/stats`).json('requests');
  check(data, {
    'teardown runs with __VU 0': () => __VU === 0,
    "teardown's copy has no VU's changes": (d) => d.counter === 0 && d.list.length === 3,
    'the target served exactly the 4 iteration requests': (d) => after - d.before === 4,
  });
}

export function handleSummary(data) {
  const m = data.metrics;
  const out = {
    setup_runs: m.corpus_setup_runs.values.count,
    teardown_runs: m.corpus_teardown_runs.values.count,
    iterations: m.corpus_iterations.values.count,
    checks_failed: m.checks.values.fails,
  };
  return {
    stdout: 'lifecycle: handleSummary ran\n',
    [`${SUMMARY_DIR}/lifecycle-summary.json`]: JSON.stringify(out),
  };
}
