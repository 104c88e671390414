package target

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestListenAndServeAllGRPC: the HTTP target and the gRPC target start together and
// stop with the context; a gRPC address in use fails the target, saying how to turn
// the gRPC side off.
func TestListenAndServeAllGRPC(t *testing.T) {
	s, err := New(Config{})
	require.NoError(t, err)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	err = s.ListenAndServeAll(context.Background(), "127.0.0.1:0", busy.Addr().String(), "", time.Second, slog.New(slog.DiscardHandler))
	require.ErrorContains(t, err, "--grpc.listen-address= turns the gRPC target off")

	logs := &lockedWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.ListenAndServeAll(ctx, "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0", time.Second, slog.New(slog.NewTextHandler(logs, nil)))
	}()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "gRPC target listening") }, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
}
