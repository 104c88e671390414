package sitetest

import (
	"net"
	"testing"

	"github.com/tidemark/tidemark/internal/target/grpctarget"
)

// startGRPC serves the gRPC target (k6's example services, QuickPizza's, health and
// reflection) on loopback until the test ends and returns its address. gRPC clients
// do not go through an HTTP proxy for a loopback address, so scripts are pointed at
// it with the variables k6's gRPC examples read (GRPC_ADDR, BASE_GRPC_URL).
func startGRPC(tb testing.TB) string {
	tb.Helper()
	srv, err := grpctarget.New()
	if err != nil {
		tb.Fatalf("sitetest: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("sitetest: grpc listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	tb.Cleanup(func() {
		srv.Stop()
		if err := <-done; err != nil {
			tb.Errorf("sitetest: %v", err)
		}
	})
	return ln.Addr().String()
}
