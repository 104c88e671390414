// Package request performs one instrumented HTTP request of a scenario step the way
// k6 does: one transport per VU (keep-alive connections are never shared between
// VUs), httptrace timings with k6's definitions, bytes counted on the wire at the
// net.Conn level, k6's error codes, expected statuses, redirects as separate
// requests, and checks. Every request's samples go to the metrics.Pusher in one Push.
package request
