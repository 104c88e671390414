package target

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lockedWriter is an io.Writer safe for the server's goroutine and the test's.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestListenAndServe: the target serves load and /metrics on the address it logs, and
// returns nil once ctx ends, having logged what it served.
func TestListenAndServe(t *testing.T) {
	t.Parallel()
	s, err := New(Config{})
	require.NoError(t, err)
	var logs lockedWriter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.ListenAndServe(ctx, "127.0.0.1:0", time.Second, slog.New(slog.NewJSONHandler(&logs, nil)))
	}()
	var addr string
	require.Eventually(t, func() bool {
		line, _, _ := strings.Cut(logs.String(), "\n")
		var rec struct{ Address string }
		if json.Unmarshal([]byte(line), &rec) != nil {
			return false
		}
		addr = rec.Address
		return addr != ""
	}, 5*time.Second, 10*time.Millisecond)
	for _, path := range []string{"/load", "/metrics"} {
		resp, err := http.Get("http://" + addr + path)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
	cancel()
	require.NoError(t, <-done)
	require.Contains(t, logs.String(), `"msg":"Target stopped","requests":1`)
}
