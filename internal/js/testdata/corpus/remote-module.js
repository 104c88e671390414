// Area: a module imported by https:// URL, resolved from a local module directory
// (--modules.dir) where the user vendored it as <dir>/<host>/<path>; its own relative
// import resolves against its URL.
// Run:  tidemark run --modules.dir=internal/js/testdata/corpus/modules \
//         internal/js/testdata/corpus/remote-module.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// Files: modules/modules.tidemark.example/greeting/1.0.0/index.js and format.js.
// modules.tidemark.example is a reserved (.example) name: real k6 would try to download it,
// so on k6 this script needs that host to serve the two files.
// A correct runtime produces: exit code 0, every threshold passes (checks rate==1,
// http_reqs count==1); HTTP: GET /remote/1.0.0. Without --modules.dir it must fail at
// init naming the URL (and never reach the network for it).
import http from 'k6/http';
import { check } from 'k6';
import { greeting, VERSION } from 'https://modules.tidemark.example/greeting/1.0.0/index.js';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { http_reqs: ['count==1'], checks: ['rate==1'] },
};

export default function () {
  check(null, {
    'the remote module loads': () => VERSION === '1.0.0',
    "its relative import (./format.js) loads": () => greeting('corpus') === 'Hello, corpus!',
  });
  const res = http.get(`${BASE_URL}/remote/${VERSION}`);
  check(res, { 'request is 200': (r) => r.status === 200 });
}
