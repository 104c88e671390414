// A local ES module for modules-esm.js (not a test script): named and default exports,
// and an import of its own resolved against lib/, not against the importing script.
import { pad } from './strings/pad.js';
import { loads } from './counter.js';

export const TWO_PI = 2 * Math.PI;

export function add(a, b) {
  return a + b;
}

export function label(n) {
  return pad(String(n), 4);
}

export { loads };

export default function square(x) {
  return x * x;
}
