package websockets_test

import (
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// echoURL serves the target and returns its WebSocket echo's URL.
func echoURL(t *testing.T) string {
	t.Helper()
	_, base := targettest.Start(t, target.Config{})
	return "ws" + strings.TrimPrefix(base, "http") + "/ws"
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// logs keeps what the run logs.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) Enabled(context.Context, slog.Level) bool { return true }
func (l *logs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.Key + "=" + a.Value.String(); return true })
	l.lines = append(l.lines, line)
	return nil
}
func (l *logs) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logs) WithGroup(string) slog.Handler      { return l }

// run runs script's default function once in a VU; it returns the harness and
// whether the iteration completed.
func run(t *testing.T, script string) (*modulestest.Harness, bool, *logs) {
	t.Helper()
	l := &logs{}
	h := modulestest.Start(t, map[string]string{"script.js": script}, modulestest.WithLogger(slog.New(l)))
	vu := h.VUs(t, 1)[0]
	ok := vu.Iterate(context.Background())
	return h, ok, l
}

// runInit loads script (its init context) and returns the error.
func runInit(t *testing.T, script string) (any, error) {
	t.Helper()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": script})
	return modulestest.Load(t, filepath.Join(dir, "script.js"), nil)
}

// requireChecks requires every check to have passed, and at least want of them.
func requireChecks(t *testing.T, h *modulestest.Harness, want ...string) {
	t.Helper()
	got := h.Checks()
	for name, ok := range got {
		require.True(t, ok, "check %q failed", name)
	}
	for _, name := range want {
		require.Contains(t, got, name)
	}
}

func tagsOf(s metrics.Sample) map[string]string {
	out := map[string]string{}
	for _, t := range s.Tags.Tags() {
		out[t.Key] = t.Value
	}
	return out
}

func sum(ss []metrics.Sample) float64 {
	var v float64
	for _, s := range ss {
		v += s.Value
	}
	return v
}
