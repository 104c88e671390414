// Area: thresholds on custom metrics that fail: exit code 99.
// Run:  tidemark run internal/js/testdata/corpus/metrics-fail.js   (no HTTP)
// 1 VU, 3 iterations. A correct runtime produces:
// - exit code 99 (ThresholdsHaveFailed), after all 3 iterations ran.
// - corpus_fail_counter count==3           passes (3)
// - corpus_fail_counter count==4           FAILS  (3)
// - corpus_fail_rate    rate==1            FAILS  (2 of 3 true: 0.666…)
// - corpus_fail_trend   max<100            FAILS  (max 150)
// - corpus_fail_trend   min==50            passes (min 50)
// - the summary marks the three failing expressions as failed and the two others as
//   passed; the log reports that thresholds on metrics corpus_fail_counter,
//   corpus_fail_rate and corpus_fail_trend have been crossed.
import { Counter, Rate, Trend } from 'k6/metrics';

const counter = new Counter('corpus_fail_counter');
const rate = new Rate('corpus_fail_rate');
const trend = new Trend('corpus_fail_trend');

export const options = {
  vus: 1,
  iterations: 3,
  thresholds: {
    corpus_fail_counter: ['count==3', 'count==4'],
    corpus_fail_rate: ['rate==1'],
    corpus_fail_trend: ['max<100', 'min==50'],
  },
};

export default function () {
  counter.add(1);
  rate.add(__ITER !== 1);
  trend.add([50, 100, 150][__ITER]);
}
