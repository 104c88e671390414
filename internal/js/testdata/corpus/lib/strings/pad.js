// A local ES module two directories down (not a test script), imported by lib/math.js.
export function pad(s, n) {
  return s.length >= n ? s : '0'.repeat(n - s.length) + s;
}
