// Broken: setup() throws.
// Error class: script error in setup: the message carries "corpus: setup failed" and
// the place setup-throws.js:12. No iteration runs and teardown() is skipped (it logs
// nothing); the target receives no request.
// k6 exit code: 107 (ScriptException) [derived from k6-js.md §3: "an exception in setup
// ends the run with an error"; confirm against a real binary].
import { sleep } from 'k6';

export const options = { vus: 1, iterations: 1 };

export function setup() {
  throw new Error('corpus: setup failed');
}

export default function () {
  sleep(0.1);
}

export function teardown() {
  console.log('setup-throws: teardown ran (must not happen)');
}
