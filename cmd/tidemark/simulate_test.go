package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/cluster"
	"github.com/tidemark/tidemark/internal/exitcode"
)

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestSimulatePrintsURLsAndServes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &lockedBuffer{}
	cfg := &simulateConfig{profile: "../../examples/cluster-shoong.yaml", cluster: cluster.Config{MetricsAddress: "127.0.0.1:0", ServiceAddresses: map[string]string{}, Fast: true, FastWindow: 20 * time.Second}}
	errc := make(chan error, 1)
	go func() { errc <- simulate(ctx, cfg, promslog.NewNopLogger(), out) }()
	re := regexp.MustCompile(`metrics \(all\)\s+(http://127\.0\.0\.1:\d+/metrics)`)
	var metricsURL string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(out.String())
		if m != nil {
			metricsURL = m[1]
		}
		return m != nil
	}, 30*time.Second, 10*time.Millisecond)
	require.Contains(t, out.String(), "FAST MODE: the HPA downscale stabilisation window is 20s instead of 5m0s")
	require.Regexp(t, `service order\s+http://127\.0\.0\.1:\d+`, out.String())
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, metricsURL, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Contains(t, string(body), `tidemark_sim_info{downscale_stabilization="20s",fast="true",namespace="shoong",profile="shoong"} 1`)
	cancel()
	require.NoError(t, <-errc)
}

func TestSimulateBadProfile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte("services:\n  - name: api\n    replicaz: 2\n"), 0o600))
	err := simulate(t.Context(), &simulateConfig{profile: path, cluster: cluster.Config{MetricsAddress: "127.0.0.1:0"}}, promslog.NewNopLogger(), io.Discard)
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err))
	require.ErrorContains(t, err, path+`:3: unknown field "replicaz" (expected one of:`)
}

func TestSimulateBadFastWindow(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // a simulation that starts anyway ends at once
	err := simulate(ctx, &simulateConfig{profile: "../../examples/cluster-shoong.yaml",
		cluster: cluster.Config{MetricsAddress: "127.0.0.1:0", Fast: true, FastWindow: -time.Second}}, promslog.NewNopLogger(), io.Discard)
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err))
	require.ErrorContains(t, err, "--fast.downscale-stabilization -1s: expected a positive duration")
}
