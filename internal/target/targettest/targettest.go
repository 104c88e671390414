// Package targettest starts the built-in target for tests, on loopback, served the way
// `tidemark target` serves it (target.Server.Serve).
package targettest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/target"
)

// Start serves a target with cfg on a free loopback port until the test ends and
// returns it and its base URL ("http://127.0.0.1:PORT").
func Start(tb testing.TB, cfg target.Config) (*target.Server, string) {
	tb.Helper()
	ts, err := target.New(cfg)
	if err != nil {
		tb.Fatalf("new target: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Serve(ctx, ln, nil, time.Second) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("target: %v", err)
		}
	})
	return ts, "http://" + ln.Addr().String()
}
