// Package request performs one instrumented HTTP request of a scenario step the way
// k6 does: connections per VU (keep-alive connections are never shared between
// VUs), timings with k6's definitions, bytes counted on the wire at the net.Conn
// level, k6's error codes, expected statuses, redirects as separate requests, and
// checks. Every request's samples go to the metrics.Pusher in one Push.
//
// Plain-HTTP requests without a proxy go through a lean HTTP/1.1 client that
// writes and reads the VU's connections on the VU's own goroutine (h1.go); its
// response parser is fuzzed against net/http's. HTTPS (TLS, HTTP/2 when
// negotiated) and proxied requests go through a per-VU net/http transport with
// httptrace timings.
//
// A scenario step is compiled once (Compile) and run by Client.Do; a request
// described at run time, as k6/http's functions describe one, is run by
// Client.Send (and Client.Batch, in parallel). Both go through one path (hops:
// the redirect loop, the transports and the samples), so they are measured
// alike. A CookieJar is a VU's cookies as k6 keeps them.
package request
