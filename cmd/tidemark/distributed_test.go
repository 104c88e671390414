package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestDistributedFlagErrors: every bad combination is a configuration error (104)
// that names the flag and what was expected, in one line.
func TestDistributedFlagErrors(t *testing.T) {
	t.Parallel()
	file := writeScenario(t, "vus: 1\niterations: 1\nflow:\n  - url: http://127.0.0.1:1/\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no index", []string{"--instances=3"}, "--instances 3 needs --instance-index (or JOB_COMPLETION_INDEX"},
		{"index out of range", []string{"--instances=3", "--instance-index=3"}, `--instance-index "3": expected a whole number from 0 to 2 (--instances 3)`},
		{"index not a number", []string{"--instances=3", "--instance-index=a"}, `--instance-index "a": expected a whole number from 0 to 2`},
		{"zero instances", []string{"--instances=0"}, "--instances 0: expected at least 1"},
		{"segment too", []string{"--instances=2", "--instance-index=0", "--execution-segment=0:1/2"}, "give one or the other"},
		{"no remote write", []string{"--instances=2", "--instance-index=0"}, "--instances 2 needs a remote-write URL"},
		{"unknown backend", []string{"--instances=2", "--instance-index=0", "--remote-write.url=http://127.0.0.1:1/receive"}, "set --barrier.prometheus.url"},
		{"bad start-at", []string{"--start-at=tomorrow"}, `--start-at "tomorrow": expected an RFC 3339 time`},
		{"no testid", []string{"--instances=2", "--instance-index=0", "--remote-write.url=http://127.0.0.1:1/api/v1/write"}, "no testid"},
		{"margin below poll", []string{"--testid=x", "--instances=2", "--instance-index=0", "--remote-write.url=http://127.0.0.1:1/api/v1/write",
			"--barrier.poll-interval=5s"}, "margin 3s: expected more than the poll interval 5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(append(append([]string{"run", "--quiet", "--no-embedded-store"}, tc.args...), file), &stdout, &stderr)
			require.Equal(t, exitcode.InvalidConfig, code, "stderr:\n%s", stderr.String())
			require.Contains(t, stderr.String(), tc.want)
			require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr.String()), "\n")+1, "one clear message: %s", stderr.String())
		})
	}
}

// TestRunStartAt: a run given --start-at sends its first request at that instant, not
// before, and needs no backend.
func TestRunStartAt(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var first time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		if first.IsZero() {
			first = time.Now()
		}
		mu.Unlock()
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	file := writeScenario(t, "vus: 1\niterations: 2\nflow:\n  - url: "+srv.URL+"/\n")
	at := time.Now().Add(1500 * time.Millisecond).Truncate(time.Millisecond)
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--quiet", "--no-embedded-store", "--start-at", at.Format(time.RFC3339Nano), file}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, "stderr:\n%s", stderr.String())
	mu.Lock()
	defer mu.Unlock()
	require.False(t, first.Before(at), "first request at %s, before --start-at %s", first, at)
	require.Less(t, first.Sub(at), time.Second, "first request at %s, long after --start-at %s", first, at)
}
