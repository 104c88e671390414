package sim

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

func get(t *testing.T, client *http.Client, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func startServer(t *testing.T, yaml string, opts ...Option) *Server {
	t.Helper()
	p, err := ParseProfile([]byte(yaml), "test.yaml")
	require.NoError(t, err)
	s, err := NewServer(p, promslog.NewNopLogger(), opts...)
	require.NoError(t, err)
	require.NoError(t, s.Start(t.Context()))
	t.Cleanup(func() { require.NoError(t, s.Stop()) })
	return s
}

const serverProfile = `name: srv
namespace: demo
services:
  - name: api
    replicas: 2
    resources:
      requests: {cpu: 100m}
      limits: {cpu: 200m}
    request: {cpu: 2ms, db_queries: 1}
    hpa: {min_replicas: 2, max_replicas: 4, target_cpu_utilization: 70}
database:
  identifier: demo-db
  credits: {initial: 30, earn_per_hour: 12, baseline_percent: 20}
`

func TestServerServesRequestsAndMetrics(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverProfile)
	client := &http.Client{Timeout: 10 * time.Second}
	urls := s.ServiceURLs()
	require.Contains(t, urls, "api")
	require.True(t, strings.HasPrefix(urls["api"], "http://127.0.0.1:"))

	pods := map[string]bool{}
	for range 4 {
		resp, body := get(t, client, urls["api"]+"/orders")
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		pods[resp.Header.Get("X-Sim-Pod")] = true
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &out))
		require.Equal(t, "api", out["service"])
		require.GreaterOrEqual(t, out["latency_seconds"].(float64), 0.002)
	}
	require.Len(t, pods, 2, "round-robin over both Ready pods")

	base := strings.TrimSuffix(s.MetricsURL(), MetricsPath)
	_, all := get(t, client, s.MetricsURL())
	for _, want := range []string{
		`tidemark_sim_info{downscale_stabilization="5m0s",fast="false",namespace="demo",profile="srv"} 1`,
		`tidemark_sim_responses_total{code="200",service="api",startup_gap="false"} 4`,
		`kube_deployment_spec_replicas{deployment="api",namespace="demo"} 2`,
		`kube_horizontalpodautoscaler_info{horizontalpodautoscaler="api",namespace="demo",scaletargetref_api_version="apps/v1",scaletargetref_kind="Deployment",scaletargetref_name="api"} 1`,
		`container_cpu_cfs_periods_total{container="api"`,
		`aws_rds_info{account_id="123456789012",name="arn:aws:rds:us-east-1:123456789012:db:demo-db",region="us-east-1"} 0`,
	} {
		require.Contains(t, all, want)
	}
	for path, prefix := range map[string]string{KubeStateMetricsPath: "kube_", CadvisorPath: "container_", RDSPath: "aws_rds_"} {
		resp, body := get(t, client, base+path)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		for line := range strings.SplitSeq(strings.TrimSpace(body), "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			require.True(t, strings.HasPrefix(line, prefix), "%s serves %q", path, line)
		}
	}
	resp, body := get(t, client, base+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, KubeStateMetricsPath)
}

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeClock) add(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func TestServerHoldsRequestsForSimulatedTime(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: simStart}
	// 1 s of CPU at a 500m limit: 2 s of simulated time, throttled half of it.
	s := startServer(t, `services:
  - name: slow
    resources: {requests: {cpu: 500m}, limits: {cpu: 500m}}
    request: {cpu: 1s}
`, WithClock(clock.now), WithTick(time.Millisecond))
	type answer struct {
		code int
		body string
	}
	done := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.ServiceURLs()["slow"], nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, string(b)}
	}()
	deadline := time.After(20 * time.Second)
	var got answer
	for got.code == 0 {
		select {
		case got = <-done:
		case <-deadline:
			t.Fatal("request never answered")
		default:
			clock.add(50 * time.Millisecond)
			time.Sleep(time.Millisecond) // let the server's ticker observe the clock
		}
	}
	require.Equal(t, http.StatusOK, got.code)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(got.body), &out))
	require.InDelta(t, 2.0, out["latency_seconds"].(float64), 0.15)
	snap := s.Snapshot()
	require.Positive(t, snap.Pods[0].CFS.ThrottledPeriods)
}

func TestServerClientTimeoutLeavesRequestUnanswered(t *testing.T) {
	t.Parallel()
	s := startServer(t, `services:
  - name: stuck
    resources: {requests: {cpu: 10m}, limits: {cpu: 10m}}
    request: {cpu: 1h}
`)
	client := &http.Client{Timeout: 300 * time.Millisecond}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.ServiceURLs()["stuck"], nil)
	require.NoError(t, err)
	_, err = client.Do(req) // times out: no response, so no body to close
	require.Error(t, err)
	require.Contains(t, err.Error(), "Client.Timeout")
	require.Equal(t, 1, s.Snapshot().Pods[0].InFlight, "the pod still works on it")
}

func TestServerFastModeIsVisible(t *testing.T) {
	t.Parallel()
	s := startServer(t, serverProfile, WithFast(0))
	require.Equal(t, FastDownscaleStabilization, s.Profile().Controller.DownscaleStabilization.D())
	_, body := get(t, &http.Client{Timeout: 10 * time.Second}, s.MetricsURL())
	require.Contains(t, body, `tidemark_sim_info{downscale_stabilization="30s",fast="true",namespace="demo",profile="srv"} 1`)
}

func TestServerRejectsBadOptionsAndStopsTwice(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(serverProfile), "test.yaml")
	require.NoError(t, err)
	_, err = NewServer(p, promslog.NewNopLogger(), WithServiceAddress("nope", "127.0.0.1:0"))
	require.EqualError(t, err, `new simulation server: address for unknown service "nope"`)
	s, err := NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	require.NoError(t, s.Start(context.Background()))
	require.Error(t, s.Start(context.Background()))
	require.NoError(t, s.Stop())
	require.NoError(t, s.Stop())
}

func TestServerStartFailsCleanlyOnBusyAddress(t *testing.T) {
	t.Parallel()
	first := startServer(t, serverProfile)
	busy := strings.TrimPrefix(first.ServiceURLs()["api"], "http://")
	p, err := ParseProfile([]byte(serverProfile), "test.yaml")
	require.NoError(t, err)
	s, err := NewServer(p, promslog.NewNopLogger(), WithServiceAddress("api", busy))
	require.NoError(t, err)
	err = s.Start(t.Context())
	require.ErrorContains(t, err, "start simulation server: listen for service api:")
	require.NoError(t, s.Stop())
}

// TestServerStopsWithUnusedConnection is the regression test of `tidemark demo` ending
// with "context deadline exceeded": a client's spare connection that never sent a
// request held http.Server.Shutdown for 5 seconds, past Stop's deadline.
func TestServerStopsWithUnusedConnection(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(serverProfile), "test.yaml")
	require.NoError(t, err)
	s, err := NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	require.NoError(t, s.Start(t.Context()))
	for _, u := range []string{s.ServiceURLs()["api"], s.MetricsURL()} {
		var d net.Dialer
		conn, err := d.DialContext(t.Context(), "tcp", strings.TrimPrefix(strings.TrimSuffix(u, MetricsPath), "http://"))
		require.NoError(t, err)
		defer conn.Close()
	}
	time.Sleep(50 * time.Millisecond) // let the servers accept them
	start := time.Now()
	require.NoError(t, s.Stop())
	require.Less(t, time.Since(start), 2*time.Second)
}
