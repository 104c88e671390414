// Broken: a syntax error.
// Error class: script error (SyntaxError), found while compiling, before any VU starts.
// k6 exit code: 107 (ScriptException). Tidemark must name the place: syntax-error.js:13
// (the unexpected token is the ')' at column 30) and run nothing: no setup, no
// iteration, no HTTP.
import http from 'k6/http';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = { vus: 1, iterations: 1 };

export default function () {
  const res = http.get(BASE_URL +);
  return res;
}
