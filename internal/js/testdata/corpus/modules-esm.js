// Area: local ES modules by relative path: named, default and namespace imports, a
// module importing another relative to itself (lib/math.js → lib/strings/pad.js), and
// one module instance per VU however many modules import it (lib/counter.js).
// Run:  tidemark run internal/js/testdata/corpus/modules-esm.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces: exit code 0, every check passes (checks rate==1);
// HTTP: 1 request, GET /modules/0005 (http_reqs count==1).
import http from 'k6/http';
import { check } from 'k6';
import square, { add, label, TWO_PI } from './lib/math.js';
import * as math from './lib/math.js';
import { loads } from './lib/counter.js';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { http_reqs: ['count==1'], checks: ['rate==1'] },
};

export default function () {
  check(null, {
    'named import': () => add(2, 3) === 5,
    'default import': () => square(4) === 16,
    'named constant': () => TWO_PI === 2 * Math.PI,
    'namespace import': () => math.add(1, 1) === 2 && math.default(3) === 9,
    'nested relative import (lib/strings/pad.js)': () => label(7) === '0007',
    'one module instance per VU': () => loads() === 1 && math.loads() === 1,
  });
  const res = http.get(`${BASE_URL}/modules/${label(add(2, 3))}`);
  check(res, {
    'request is 200': (r) => r.status === 200,
    'URL built from module values': (r) => r.url === `${BASE_URL}/modules/0005`,
  });
}
