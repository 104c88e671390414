// A local CommonJS module (not a test script) required by lib/cjs-helper.js, with
// exports.* assignments.
exports.word = 'ping';
exports.twice = function (x) {
  return 2 * x;
};
