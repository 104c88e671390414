// Broken options: a threshold on a metric that neither k6 nor the script defines.
// Error class: invalid configuration (thresholds): no metric named
// "corpus_undefined_metric" exists once the init context has run.
// k6 exit code: 104 (InvalidConfig) [derived: k6 rejects thresholds on unknown metrics
// after init; confirm against a real binary]. Nothing runs.
import { sleep } from 'k6';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { corpus_undefined_metric: ['count>0'] },
};

export default function () {
  sleep(0.1);
}
