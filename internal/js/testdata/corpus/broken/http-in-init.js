// Broken: an HTTP request in the init context (init must be reproducible; k6 allows no
// protocol calls there).
// Error class: script error at init: making HTTP requests in the init context is not
// supported; the place is http-in-init.js:8. The target receives no request.
// k6 exit code: 107 (ScriptException). Nothing else runs.
import http from 'k6/http';

const res = http.get(`${__ENV.BASE_URL || 'http://127.0.0.1:8099'}/init`);

export const options = { vus: 1, iterations: 1 };

export default function () {
  return res;
}
