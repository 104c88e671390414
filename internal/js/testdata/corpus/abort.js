// Area: k6/execution test.abort(): the run stops, teardown still runs, exit code 108.
// Run:  tidemark run internal/js/testdata/corpus/abort.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// 1 VU, shared-iterations, 10 iterations. A correct runtime produces:
// - exit code 108 (ScriptAborted), whatever the thresholds.
// - HTTP: 2 requests (iterations 0 and 1); iteration 2 calls test.abort() before its
//   request and no later iteration starts.
// - logs: the abort with its message "corpus: abort in the third iteration", then
//   "abort: teardown ran" once (teardown runs after an abort).
import http from 'k6/http';
import exec from 'k6/execution';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 10,
};

export default function () {
  if (exec.vu.iterationInScenario === 2) {
    exec.test.abort('corpus: abort in the third iteration');
  }
  http.get(`${BASE_URL}/abort?iter=${__ITER}`, { tags: { name: 'abort' } });
}

export function teardown() {
  console.log('abort: teardown ran');
}
