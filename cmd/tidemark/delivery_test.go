package main

import (
	"bytes"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/store"
	"github.com/tidemark/tidemark/internal/target"
)

// TestRunNotDelivered is issue 24's disagreeing exit codes: a run whose receiver was
// unreachable exited 255, one whose every sample was refused (400) exited 0. Both exit
// 111, say so in the summary, and the stop stays within --remote-write.flush-timeout
// (it took 15 s of flush plus 15 s of stale markers, over Kubernetes' 30 s grace). The
// refusing receiver is Tidemark's own store with a limit of one label per series.
func TestRunNotDelivered(t *testing.T) {
	t.Parallel()
	_, turl := startTestTarget(t, target.Config{})
	scen := writeScenario(t, `
scenarios:
  s: {executor: constant-vus, vus: 1, duration: 1s}
flow:
  - url: `+turl+`/
`)
	closed := closedWriteURL(t)

	st, err := store.Open(store.Config{Dir: t.TempDir(), MaxLabelsPerSeries: 1}, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	refusing := httptest.NewServer(st.Handler())
	t.Cleanup(refusing.Close)

	for _, tc := range []struct{ name, url, want string }{
		{"unreachable", closed, "connection refused"},
		{"every sample refused", refusing.URL + "/api/v1/write", "samples not delivered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			begin := time.Now()
			code := run([]string{"run", "--quiet", "--no-thresholds", "--remote-write.url", tc.url,
				"--remote-write.flush-timeout", "2s", "--remote-write.push-interval", "500ms", scen}, &stdout, &stderr)
			took := time.Since(begin)
			require.Equal(t, exitcode.NotDelivered, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			require.Contains(t, stderr.String(), tc.want)
			require.Contains(t, stdout.String(), "remote write:")
			require.Less(t, took, 1*time.Second+2*time.Second+5*time.Second, "the run, its flush budget and some slack")
		})
	}
}

// TestRunSummaryBeforeFlush is issue 24's summary lost to the grace period: the summary
// waited for the final flush to an unreachable receiver, so a pod killed at the end of
// its grace period printed none. It is printed first; the delivery line follows the
// flush.
func TestRunSummaryBeforeFlush(t *testing.T) {
	t.Parallel()
	_, turl := startTestTarget(t, target.Config{})
	scen := writeScenario(t, `
scenarios:
  s: {executor: shared-iterations, vus: 1, iterations: 3}
flow:
  - url: `+turl+`/
`)
	closed := closedWriteURL(t)

	stdout := &stampedWriter{}
	var stderr bytes.Buffer
	code := run([]string{"run", "--quiet", "--remote-write.url", closed,
		"--remote-write.flush-timeout", "3s", scen}, stdout, &stderr)
	end := time.Now()
	require.Equal(t, exitcode.NotDelivered, code, "stderr:\n%s", stderr.String())
	summaryAt, ok := stdout.first("TOTAL RESULTS")
	require.True(t, ok, "stdout:\n%s", stdout.String())
	require.Greater(t, end.Sub(summaryAt), 2*time.Second, "the summary is printed before the 3 s flush")
	deliveryAt, ok := stdout.first("remote write:")
	require.True(t, ok, "stdout:\n%s", stdout.String())
	require.Less(t, end.Sub(deliveryAt), time.Second, "the delivery line comes after the flush")
}

// stampedWriter records when each write happened.
type stampedWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes []stampedWrite
}

type stampedWrite struct {
	at   time.Time
	text string
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, stampedWrite{time.Now(), string(p)})
	return w.buf.Write(p)
}

// first is the time of the first write holding s.
func (w *stampedWriter) first(s string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wr := range w.writes {
		if strings.Contains(wr.text, s) {
			return wr.at, true
		}
	}
	return time.Time{}, false
}

func (w *stampedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// closedWriteURL is a remote-write URL on a loopback port nothing listens on.
func closedWriteURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/api/v1/write"
	require.NoError(t, ln.Close())
	return url
}
