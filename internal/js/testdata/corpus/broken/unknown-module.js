// Broken: an import of a k6 module that does not exist.
// Error class: script error at init: unknown module "k6/nonexistent" (the message names
// it; Tidemark must never treat it as an empty module).
// k6 exit code: 107 (ScriptException) [derived: module loading is part of init].
// Nothing runs.
import { something } from 'k6/nonexistent';

export const options = { vus: 1, iterations: 1 };

export default function () {
  something();
}
