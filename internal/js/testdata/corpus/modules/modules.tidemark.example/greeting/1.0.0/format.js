// Vendored copy of https://modules.tidemark.example/greeting/1.0.0/format.js (written for
// the corpus; not a test script), imported by index.js next to it.
export function exclaim(s) {
  return `${s}!`;
}
