// Package remotewrite pushes a run's k6-compatible series to a Prometheus
// remote-write receiver (protocol 1.0, as k6 sends, or 2.0 with metadata).
//
// Every push interval the Client takes a snapshot of the run's aggregates, maps it
// through the series contract (internal/series) and sends every live series stamped
// with the push time, so a series has one point per interval for as long as the run
// lives. Values are cumulative, so a newer snapshot supersedes an older one that could
// not be sent yet: a backlog coalesces instead of growing, and nothing is lost while the
// receiver is down. Network errors, 5xx and 429 are retried with exponential backoff and
// jitter (honouring Retry-After); other 4xx are logged once with the receiver's message
// and counted as dropped. Native histograms travel in their own requests, so a receiver
// that rejects them never costs the float series. At Stop the client sends a final
// snapshot and then a stale marker for every series it ever sent.
package remotewrite
