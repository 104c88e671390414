// Package output writes a run's samples to k6's file outputs, `--out json=FILE` and
// `--out csv=FILE`, and parses k6's `--out` values.
//
// A Fanout is the engine's metrics.Pusher: it hands every batch to the run's aggregate
// store, as before, and a copy to each sample writer's bounded queue. A writer that
// cannot keep up (a slow disk) never slows the engine: when its queue is full the batch
// is dropped and counted, and the count is reported at the end of the run.
//
// The formats follow k6 v1.8.1's own output field by field (reference/k6-js.md §5.1 and
// §5.2, checked against the k6 binary): the JSON writer writes one Metric line per
// metric, when first seen, then one Point line per sample, with times in k6's precision
// and the local offset and time values in milliseconds; the CSV writer writes k6's
// columns with the default system tags, the other tags as `k=v&k2=v2` in extra_tags.
package output
