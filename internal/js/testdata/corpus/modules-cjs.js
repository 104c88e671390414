// Area: CommonJS require() of local modules by relative path (module.exports,
// exports.*, a nested require resolved against the requiring module's directory) and of
// built-in k6 modules.
// Run:  tidemark run internal/js/testdata/corpus/modules-cjs.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces: exit code 0, every check passes (checks rate==1);
// HTTP: 1 request, GET /cjs/ping, made by the required module (http_reqs count==1).
const { check } = require('k6');
const helper = require('./lib/cjs-helper.js');

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { http_reqs: ['count==1'], checks: ['rate==1'] },
};

export default function () {
  check(helper, {
    'module.exports object': (h) => typeof h.ping === 'function' && typeof h.double === 'function',
    'module.exports.kind assignment': (h) => h.kind === 'commonjs',
    'nested require (lib/cjs-nested.js)': (h) => h.double(21) === 42,
  });
  const res = helper.ping(BASE_URL);
  check(res, {
    'request made by the required module': (r) => r.status === 200 && r.url === `${BASE_URL}/cjs/ping`,
  });
}
