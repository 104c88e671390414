package main

import (
	"bytes"
	"net"
	"net/http/httptest"
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/api/v1/write"
	require.NoError(t, ln.Close())

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
