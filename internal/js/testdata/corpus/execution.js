// Area: k6/execution: vu, scenario, instance, test.options; a scenario with exec and
// scenario tags (vu.metrics.tags: execution-tags.js).
// Run:  tidemark run internal/js/testdata/corpus/execution.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// One scenario "exec_one": per-vu-iterations, 2 VUs x 3 iterations, exec "run", tags
// {corpus: execution}. A correct runtime produces:
// - exit code 0: every threshold passes.
// - HTTP: 6 requests, each tagged scenario=exec_one and corpus=execution (the
//   scenario's tags).
// - corpus_iteration_index_sum count==15: scenario.iterationInInstance takes each of
//   0..5 exactly once; corpus_vu_id_sum count==9: each of VUs 1 and 2 runs 3 times.
// - the default function is never called (corpus_default_calls has no samples).
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

const iterationIndexSum = new Counter('corpus_iteration_index_sum');
const vuIDSum = new Counter('corpus_vu_id_sum');
const defaultCalls = new Counter('corpus_default_calls');

export const options = {
  scenarios: {
    exec_one: {
      executor: 'per-vu-iterations',
      vus: 2,
      iterations: 3,
      exec: 'run',
      tags: { corpus: 'execution' },
    },
  },
  thresholds: {
    corpus_iteration_index_sum: ['count==15'],
    corpus_vu_id_sum: ['count==9'],
    'http_reqs{scenario:exec_one}': ['count==6'],
    'http_reqs{corpus:execution}': ['count==6'],
    'checks{corpus:execution}': ['rate==1'],
    checks: ['rate==1'],
  },
};

export default function () {
  defaultCalls.add(1);
}

export function run() {
  const now = Date.now();
  iterationIndexSum.add(exec.scenario.iterationInInstance);
  vuIDSum.add(exec.vu.idInTest);

  check(exec, {
    'scenario.name': (e) => e.scenario.name === 'exec_one',
    'scenario.executor': (e) => e.scenario.executor === 'per-vu-iterations',
    'scenario.startTime is Unix ms': (e) => e.scenario.startTime <= now && e.scenario.startTime > now - 60000,
    'scenario.progress in [0,1]': (e) => e.scenario.progress >= 0 && e.scenario.progress <= 1,
    'scenario.iterationInInstance in 0..5': (e) => e.scenario.iterationInInstance >= 0 && e.scenario.iterationInInstance <= 5,
    'scenario.iterationInTest in 0..5': (e) => e.scenario.iterationInTest >= 0 && e.scenario.iterationInTest <= 5,
    'vu.idInInstance is 1 or 2': (e) => e.vu.idInInstance === 1 || e.vu.idInInstance === 2,
    'vu.idInTest is __VU': (e) => e.vu.idInTest === __VU,
    'vu.iterationInInstance is __ITER': (e) => e.vu.iterationInInstance === __ITER,
    'vu.iterationInScenario is __ITER': (e) => e.vu.iterationInScenario === __ITER,
    'instance.vusInitialized is 2': (e) => e.instance.vusInitialized === 2,
    'instance.vusActive in 1..2': (e) => e.instance.vusActive >= 1 && e.instance.vusActive <= 2,
    'instance.iterationsCompleted in 0..5': (e) => e.instance.iterationsCompleted >= 0 && e.instance.iterationsCompleted <= 5,
    'instance.currentTestRunDuration > 0': (e) => e.instance.currentTestRunDuration > 0,
    'test.options has the scenario': (e) => e.test.options.scenarios.exec_one.executor === 'per-vu-iterations',
  });

  const res = http.get(`${BASE_URL}/execution?vu=${exec.vu.idInTest}`, { tags: { name: 'execution' } });
  check(res, { 'request is 200': (r) => r.status === 200 });
}
