// Broken: a TypeError in the init context (reading a property of undefined).
// Error class: script error: an uncaught TypeError in init, at init-type-error.js:10.
// k6 exit code: 107 (ScriptException; grafana/k6#6480 shows 107 for an init TypeError).
// Nothing else runs.
import { sleep } from 'k6';

export const options = { vus: 1, iterations: 1 };

const config = undefined;
const url = config.url;

export default function () {
  sleep(0.1);
}
