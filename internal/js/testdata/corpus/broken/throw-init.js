// Broken: the init context throws.
// Error class: script error: an uncaught exception in init; the message carries the
// thrown text "corpus: thrown from the init context" and the place throw-init.js:9.
// k6 exit code: 107 (ScriptException). Nothing else runs: no setup, no iteration.
import { sleep } from 'k6';

export const options = { vus: 1, iterations: 1 };

throw new Error('corpus: thrown from the init context');

export default function () {
  sleep(0.1);
}
