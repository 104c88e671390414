// Broken: a syntax error.
// Error class: script error (SyntaxError), found while compiling, before any VU starts.
// k6 exit code: 107 (ScriptException). Tidemark must name the place: syntax-error.js:12
// (the unexpected token is the ';' at column 26) and run nothing: no setup, no
// iteration.
import { sleep } from 'k6';

export const options = { vus: 1, iterations: 1 };

export default function () {
  const seconds = 0.1;
  const total = seconds +;
  sleep(total);
}
