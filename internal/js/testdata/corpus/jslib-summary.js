// Area: handleSummary with jslib k6-summary 0.1.0 (built into Tidemark) textSummary,
// writing stdout and files (strings and an ArrayBuffer).
// Run:  tidemark run internal/js/testdata/corpus/jslib-summary.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099; SUMMARY_DIR,
//        default ".", is where the files go)
// 1 VU, 3 iterations. A correct runtime produces:
// - exit code 0: every threshold passes (http_reqs count==3, checks rate==1).
// - stdout: textSummary's text (indent " ", no colours) instead of the default summary,
//   with the http_reqs and checks lines and the thresholds count==3 and rate==1 marked
//   as passed.
// - files written (overwritten if present), under $SUMMARY_DIR:
//     jslib-summary.txt   textSummary(data, {indent: '', enableColors: false})
//     jslib-summary.json  JSON.stringify(data): metrics.http_reqs.values.count == 3,
//                         metrics.http_reqs.thresholds["count==3"].ok == true
//     jslib-summary.bin   the 3 bytes 74 6d 0a ("tm\n"), from an ArrayBuffer
import http from 'k6/http';
import { check } from 'k6';
import { textSummary } from 'https://jslib.k6.io/k6-summary/0.1.0/index.js';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';
const SUMMARY_DIR = __ENV.SUMMARY_DIR || '.';

export const options = {
  vus: 1,
  iterations: 3,
  thresholds: { http_reqs: ['count==3'], checks: ['rate==1'] },
};

export default function () {
  const res = http.get(`${BASE_URL}/summary/${__ITER}`, { tags: { name: 'summary' } });
  check(res, { 'status is 200': (r) => r.status === 200 });
}

export function handleSummary(data) {
  return {
    stdout: textSummary(data, { indent: ' ', enableColors: false }),
    [`${SUMMARY_DIR}/jslib-summary.txt`]: textSummary(data, { indent: '', enableColors: false }),
    [`${SUMMARY_DIR}/jslib-summary.json`]: JSON.stringify(data),
    [`${SUMMARY_DIR}/jslib-summary.bin`]: new Uint8Array([0x74, 0x6d, 0x0a]).buffer,
  };
}
