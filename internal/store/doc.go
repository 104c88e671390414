// Package store is Tidemark's embedded Prometheus: Prometheus' own TSDB, PromQL engine,
// remote-write receiver (protocol 1.0 and 2.0, native histograms included), scrape
// manager and HTTP API (web/api/v1), wired together in one process.
//
// It is the only package of Tidemark that imports the heavy Prometheus server packages
// (tsdb, promql, web/api/v1, scrape); everything else talks to it over HTTP, through
// [Store.Handler] or [Store.Transport].
//
// A running server announces itself with a small file in its data directory
// ([DiscoveryFile]); [Discover] finds it, so that another process (tidemark run) writes
// through the live server instead of failing on the TSDB lock.
package store
