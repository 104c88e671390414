// A local ES module (not a test script) imported both by modules-esm.js and by
// lib/math.js: a module is evaluated once per VU, so both see loads() === 1.
let count = 0;
count++;

export function loads() {
  return count;
}
