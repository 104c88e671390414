// A local CommonJS module for modules-cjs.js (not a test script): module.exports and
// exports, require() of a built-in module and of a local module relative to lib/.
const http = require('k6/http');
const nested = require('./cjs-nested.js');

function ping(baseURL) {
  return http.get(`${baseURL}/cjs/${nested.word}`);
}

module.exports = {
  ping,
  double: (x) => nested.twice(x),
};
module.exports.kind = 'commonjs';
