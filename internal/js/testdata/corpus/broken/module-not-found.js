// Broken: an import of a local module that does not exist.
// Error class: script error at init: the module ./no-such-module.js (resolved to
// broken/no-such-module.js next to this script) cannot be read; the message names
// the resolved path and the importing file.
// k6 exit code: 107 (ScriptException) [derived: module loading is part of init].
// Nothing runs.
import { helper } from './no-such-module.js';

export const options = { vus: 1, iterations: 1 };

export default function () {
  helper();
}
