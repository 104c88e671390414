// Area: k6/metrics custom metrics: Counter, Gauge, Rate, Trend (isTime and not), tags per
// sample, thresholds on custom metrics and their sub-metrics (all passing here; see
// metrics-fail.js for failing ones).
// Run:  tidemark run internal/js/testdata/corpus/metrics.js
//       (no HTTP; BASE_URL is not used)
// 1 VU, 5 iterations (__ITER i = 0..4). A correct runtime produces:
// - exit code 0: every threshold below passes. The values are exact:
//   corpus_counter         count 15 (1 + 2 per iteration); {kind:double} count 10
//   corpus_gauge           value 40 (the last of 0,10,20,30,40); {slot:b} value 7
//   corpus_rate            rate 0.8 (3 of 5 untagged true, 5 of 5 tagged true);
//                          {side:always} rate 1
//   corpus_trend (isTime)  values 0,100,200,300,400 ms: min 0, max 400, avg 200,
//                          med 200, p(75) 300; the summary shows them as durations
//   corpus_size (plain)    {kind:small} max 3, {kind:large} min 300
// - Prometheus remote write, under k6's names: k6_corpus_counter_total,
//   k6_corpus_gauge, k6_corpus_rate_rate, k6_corpus_trend_p99 (in seconds: about 0.396),
//   k6_corpus_size_p99.
// - creating a metric outside the init context throws (checked; checks rate==1).
import { check } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';

const counter = new Counter('corpus_counter');
const gauge = new Gauge('corpus_gauge');
const rate = new Rate('corpus_rate');
const trend = new Trend('corpus_trend', true);
const size = new Trend('corpus_size');

export const options = {
  vus: 1,
  iterations: 5,
  thresholds: {
    corpus_counter: ['count==15'],
    'corpus_counter{kind:double}': ['count==10'],
    corpus_gauge: ['value==40'],
    'corpus_gauge{slot:b}': ['value==7'],
    corpus_rate: ['rate==0.8'],
    'corpus_rate{side:always}': ['rate==1'],
    corpus_trend: ['min==0', 'max==400', 'avg==200', 'med==200', 'p(75)==300'],
    'corpus_size{kind:small}': ['max==3'],
    'corpus_size{kind:large}': ['min==300'],
    checks: ['rate==1'],
  },
};

export default function () {
  const i = __ITER;
  counter.add(1);
  counter.add(2, { kind: 'double' });
  // One VU, so the last value is the last iteration's; the tagged sample comes only in
  // iteration 0, so it is never the last one.
  if (i === 0) {
    gauge.add(7, { slot: 'b' });
  }
  gauge.add(i * 10);
  rate.add(i % 2 === 0);
  rate.add(1, { side: 'always' });
  trend.add(i * 100);
  size.add(3, { kind: 'small' });
  size.add(300, { kind: 'large' });

  let threw = false;
  try {
    new Counter('corpus_too_late');
  } catch (e) {
    threw = true;
  }
  check(null, {
    'metric.name is the name given': () => counter.name === 'corpus_counter' && trend.name === 'corpus_trend',
    'a metric cannot be created outside init': () => threw,
  });
}
