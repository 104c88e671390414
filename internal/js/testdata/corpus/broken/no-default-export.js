// Broken: no default export, and no scenario names another function with exec.
// Error class: invalid configuration: the scenario "default" (from vus/iterations) runs
// the function "default", which the script does not export. k6 reports it before
// the run starts ("function 'default' not found in exports").
// k6 exit code: 104 (InvalidConfig) [derived: k6 checks exec names while validating the
// options; confirm against a real binary]. No setup, no iteration, no HTTP.
import { sleep } from 'k6';

export const options = { vus: 1, iterations: 1 };

export function notDefault() {
  sleep(0.1);
}
