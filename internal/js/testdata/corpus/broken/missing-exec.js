// Broken: a scenario's exec names a function the script does not export.
// Error class: invalid configuration; the message names the scenario "orders" and the
// function "placeOrder" ("function 'placeOrder' not found in exports").
// k6 exit code: 104 (InvalidConfig) [derived, as no-default-export.js]. Nothing runs.
import { sleep } from 'k6';

export const options = {
  scenarios: {
    orders: { executor: 'shared-iterations', vus: 1, iterations: 1, exec: 'placeOrder' },
  },
};

export default function () {
  sleep(0.1);
}
