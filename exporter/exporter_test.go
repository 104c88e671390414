package exporter_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/tidemark/tidemark/exporter"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/series/seriestest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func source() (*seriestest.Source, *seriestest.Run) {
	run := seriestest.NewRun()
	src := &seriestest.Source{}
	src.Set(run.Snapshot(1))
	return src, run
}

func TestCollectAndCompare(t *testing.T) {
	src, _ := source()
	cfg := series.Config{TrendStats: []string{"p(95)", "count"}, TestID: "run-1"}
	c, err := exporter.NewCollector(src, cfg, time.Unix(1700000000, 0))
	require.NoError(t, err)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	var buf bytes.Buffer
	mfs, err := reg.Gather()
	require.NoError(t, err)
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		require.NoError(t, enc.Encode(mf))
	}
	path := filepath.Join("testdata", "exposition.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, testutil.CollectAndCompare(c, bytes.NewReader(want)))
	require.Equal(t, string(want), buf.String())
}

func TestLint(t *testing.T) {
	src, _ := source()
	c, err := exporter.NewCollector(src, series.Config{TrendStats: series.DefaultTrendStats, NativeHistograms: true, TestID: "run-1"}, time.Unix(1700000000, 0))
	require.NoError(t, err)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	// k6's names are the contract; the only lint findings allowed are the ones k6's
	// naming implies, and there are none today.
	require.Empty(t, problems)
}

// TestSameAsPushed: the exporter exposes exactly the series remote write sends.
func TestSameAsPushed(t *testing.T) {
	src, run := source()
	cfg := series.Config{TrendStats: series.DefaultTrendStats, TestID: "run-1", InstanceID: "a", Labels: map[string]string{"team": "x"}}
	c, err := exporter.NewCollector(src, cfg, time.Now())
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(c))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var parts []string
			for _, lp := range m.GetLabel() {
				parts = append(parts, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			v := m.GetGauge().GetValue()
			if m.Counter != nil {
				v = m.GetCounter().GetValue()
			}
			got[mf.GetName()+"{"+strings.Join(parts, ",")+"}"] = v
		}
	}
	m, err := series.NewMapper(cfg)
	require.NoError(t, err)
	want := map[string]float64{}
	for _, s := range m.Map(nil, run.Snapshot(1)) {
		var parts []string
		for _, l := range s.Labels {
			parts = append(parts, fmt.Sprintf("%s=%q", l.Name, l.Value))
		}
		want[s.Name+"{"+strings.Join(parts, ",")+"}"] = s.Value
	}
	require.Equal(t, want, got)
}

func TestServerBasicAuth(t *testing.T) {
	src, _ := source()
	c, err := exporter.NewCollector(src, series.DefaultConfig, time.Now())
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(c))
	hash, err := bcrypt.GenerateFromPassword([]byte("scrape-pass"), bcrypt.MinCost)
	require.NoError(t, err)
	webCfg := filepath.Join(t.TempDir(), "web.yml")
	require.NoError(t, os.WriteFile(webCfg, []byte("basic_auth_users:\n  prom: "+string(hash)+"\n"), 0o600))
	srv := exporter.NewServer(exporter.ServerConfig{ListenAddress: "127.0.0.1:0", WebConfigFile: webCfg}, reg, promslog.NewNopLogger())
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	url := "http://" + srv.Addr() + "/metrics"

	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.SetBasicAuth("prom", "scrape-pass")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), `k6_http_reqs_total{expected_response="true"`)
	require.Contains(t, string(body), "k6_http_req_duration_p95{")

	require.NoError(t, srv.Stop())
	require.NoError(t, srv.Stop(), "idempotent")
}

func TestServerListenError(t *testing.T) {
	srv := exporter.NewServer(exporter.ServerConfig{ListenAddress: "127.0.0.1:0"}, prometheus.NewRegistry(), promslog.NewNopLogger())
	require.NoError(t, srv.Start())
	defer func() { require.NoError(t, srv.Stop()) }()
	again := exporter.NewServer(exporter.ServerConfig{ListenAddress: srv.Addr()}, prometheus.NewRegistry(), promslog.NewNopLogger())
	require.ErrorContains(t, again.Start(), "listen on "+srv.Addr())
	require.NoError(t, again.Stop())
}

// TestNoClashWithNativeHistograms: a plain-number trend's histogram k6_<trend> owns
// the _count and _sum lines, so the stat gauges of the same names are left out and
// gathering succeeds.
func TestNoClashWithNativeHistograms(t *testing.T) {
	src, _ := source()
	c, err := exporter.NewCollector(src, series.Config{TrendStats: []string{"count", "sum", "max"}, NativeHistograms: true}, time.Now())
	require.NoError(t, err)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	require.True(t, names["k6_queue_depth"])
	require.True(t, names["k6_queue_depth_max"])
	require.False(t, names["k6_queue_depth_count"])
	require.True(t, names["k6_http_req_duration_count"], "time trends' histograms are _seconds: no clash")
	require.True(t, names["k6_http_req_duration_seconds"])
}

// TestServerBadWebConfig: a web config that cannot be used fails Start, before the run
// begins, instead of leaving the run without its metrics endpoint.
func TestServerBadWebConfig(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "web.yml")
	require.NoError(t, os.WriteFile(bad, []byte("tls_server_config:\n  cert_file: /nonexistent/cert.pem\n  key_file: /nonexistent/key.pem\n"), 0o600))
	for _, tc := range []struct{ name, path string }{
		{"missing file", filepath.Join(t.TempDir(), "missing.yml")},
		{"missing certificate", bad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := exporter.NewServer(exporter.ServerConfig{ListenAddress: "127.0.0.1:0", WebConfigFile: tc.path}, prometheus.NewRegistry(), promslog.NewNopLogger())
			err := srv.Start()
			require.ErrorContains(t, err, "web config "+tc.path)
			require.Empty(t, srv.Addr(), "not listening")
			require.NoError(t, srv.Stop())
		})
	}
}
