// Vendored copy of https://modules.tidemark.example/greeting/1.0.0/index.js for
// remote-module.js (written for the corpus; not a test script). Its relative import
// resolves against its own URL: https://modules.tidemark.example/greeting/1.0.0/format.js.
import { exclaim } from './format.js';

export const VERSION = '1.0.0';

export function greeting(name) {
  return exclaim(`Hello, ${name}`);
}
