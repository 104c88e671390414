// Package series is the k6 naming contract: it maps the aggregated state of every
// (metric, tag set) of a run to named Prometheus series, exactly as k6's
// experimental-prometheus-rw output names them (reference/k6.md §1.4–1.5), with
// Tidemark's documented fixes (true trend counts, label rules, instance labels).
//
// Both sinks use it: remotewrite pushes the series and exporter exposes them, so the
// two always agree.
//
// Names:
//   - counters: k6_<metric>_total, cumulative since the start of the run;
//   - gauges: k6_<metric>, the last value;
//   - rates: k6_<metric>_rate, cumulative passes/total;
//   - trends: one gauge per configured stat, k6_<metric>_<stat>, in seconds for time
//     trends (p(95)→p95, p(99.9)→p999, p(0.95)→p095, avg, min, med, max, count, sum),
//     and optionally a native histogram k6_<metric>_seconds (_bytes for data trends,
//     no suffix otherwise);
//   - metrics whose name starts with "tidemark_" (run metadata such as
//     tidemark_run_info) keep their name: they get no k6_ prefix.
//
// Labels are the sample's indexed tags verbatim (never vu or iter), after the
// configured label rules, plus static labels, instance_id and testid where the tags do
// not already carry them.
package series
