// Area: thresholds with abortOnFail: the run stops as soon as the threshold fails.
// Run:  tidemark run internal/js/testdata/corpus/thresholds-abort.js   (no HTTP)
// 1 VU, constant-vus for 5s, 10 iterations a second (sleep 0.1). A correct runtime
// produces:
// - exit code 99: corpus_abort_iterations count<5 fails after the 5th iteration and
//   abortOnFail stops the run at the next threshold evaluation (k6 evaluates them about
//   every 2 s), well before the 5 s duration; the log says the test was aborted
//   because a threshold was crossed.
// - corpus_abort_iterations ends below 50 (a full 5 s run would make about 50); with
//   k6's 2 s evaluation period, about 20.
import { sleep } from 'k6';
import { Counter } from 'k6/metrics';

const iterations = new Counter('corpus_abort_iterations');

export const options = {
  scenarios: {
    abort: { executor: 'constant-vus', vus: 1, duration: '5s' },
  },
  thresholds: {
    corpus_abort_iterations: [{ threshold: 'count<5', abortOnFail: true }],
  },
};

export default function () {
  iterations.add(1);
  sleep(0.1);
}
