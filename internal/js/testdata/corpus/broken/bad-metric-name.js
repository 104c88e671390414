// Broken: a custom metric whose name is not allowed (only ASCII letters, digits and
// '_', starting with a letter or '_', at most 128 characters).
// Error class: script error at init: new Counter('orders-placed!') throws, naming the
// metric and the rule; the place is bad-metric-name.js:9.
// k6 exit code: 107 (ScriptException) [derived: the throw happens in init]. Nothing runs.
import { Counter } from 'k6/metrics';
import { sleep } from 'k6';

const placed = new Counter('orders-placed!');

export const options = { vus: 1, iterations: 1 };

export default function () {
  sleep(0.1);
  placed.add(1);
}
