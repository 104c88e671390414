// Package store is Tidemark's embedded Prometheus: Prometheus' own TSDB, PromQL engine,
// remote-write receiver (protocol 1.0 and 2.0, native histograms included), scrape
// manager and HTTP API (web/api/v1), wired together in one process.
//
// It is the only package of Tidemark that imports the heavy Prometheus server packages
// (tsdb, promql, web/api/v1, scrape); everything else talks to it over HTTP, through
// [Store.Handler] or [Store.Transport].
//
// Remote write 1.0 has a fast path in front of Prometheus' receiver (fastwrite.go). Prometheus'
// handler spends about 40% of its time decoding the generic protobuf message (a string per
// label name and value, a growing slice per series, a body copied as it grows) and its
// garbage, as much as storing the samples; the fast path
// decodes the wire format itself into reused buffers, builds each series' labels straight from
// the decoded body, and appends through the same appender (label limits, the ten-minute future
// bound) and the same TSDB. It takes only the plain case, series of labels and float samples
// that Prometheus would store in full; anything else (exemplars, histograms, metadata, invalid
// labels, a decoding or storage error, another protocol) is rolled back and handed, untouched,
// to Prometheus' handler, which remains the reference for every answer but a plain 204. Tests
// send the same requests to a store with and without the fast path and require the same
// answers, data, logs and counters (but for the TSDB's count of refused samples, see
// fastWrite.serve); its decoder is fuzzed against gogo-protobuf's.
//
// The TSDB sits behind liveDB (livedb.go), so that the store can reopen it in-process
// after a write to its WAL failed (a full disk): the reopen repairs a torn WAL, and no
// write that reached the WAL after the failure is acknowledged (walrecovery.go).
//
// A running server announces itself with a small file in its data directory
// ([DiscoveryFile]); [Discover] finds it, so that another process (tidemark run) writes
// through the live server instead of failing on the TSDB lock.
package store
