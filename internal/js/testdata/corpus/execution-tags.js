// Area: k6/execution vu.metrics.tags: tags set by VU code go on the samples that follow
// (HTTP, checks, custom metrics) and read back as strings.
// Run:  tidemark run internal/js/testdata/corpus/execution-tags.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// 2 VUs x 2 iterations (per-vu-iterations). A correct runtime produces:
// - exit code 0: every threshold passes.
// - every sample after the assignment carries area=execution and attempt=<__ITER>
//   (a number set, read back as the string "0" or "1"): http_reqs{area:execution}
//   count==4, http_reqs{attempt:1} count==2, corpus_tagged{area:execution} count==4,
//   checks{area:execution} rate==1.
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

const tagged = new Counter('corpus_tagged');

export const options = {
  scenarios: { tags: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } },
  thresholds: {
    'http_reqs{area:execution}': ['count==4'],
    'http_reqs{attempt:1}': ['count==2'],
    'corpus_tagged{area:execution}': ['count==4'],
    'checks{area:execution}': ['rate==1'],
    checks: ['rate==1'],
  },
};

export default function () {
  exec.vu.metrics.tags.area = 'execution';
  exec.vu.metrics.tags.attempt = __ITER;
  tagged.add(1);
  check(exec.vu.metrics.tags, {
    'a tag reads back': (t) => t.area === 'execution',
    'a number reads back as a string': (t) => t.attempt === String(__ITER),
  });
  const res = http.get(`${BASE_URL}/execution-tags?attempt=${__ITER}`, { tags: { name: 'execution-tags' } });
  check(res, { 'request is 200': (r) => r.status === 200 });
}
