//go:build integration

package remotewrite_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/store"
	"github.com/tidemark/tidemark/remotewrite"
)

// startStore serves an embedded store with its default limits until the test ends.
func startStore(t *testing.T) *httptest.Server {
	t.Helper()
	cfg := store.DefaultConfig
	cfg.Dir = t.TempDir()
	st, err := store.Open(cfg, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, st.Close())
	})
	return srv
}

// TestIntegrationProtocol2 pushes with remote write 2.0 into Tidemark's embedded store,
// which runs Prometheus 3's own write handler (the Debian Prometheus 2.42 and
// VictoriaMetrics 1.79 predate 2.0): every float series and native histogram lands,
// nothing is rejected, and the stale markers end the series.
func TestIntegrationProtocol2(t *testing.T) {
	t.Parallel()
	srv := startStore(t)

	testID := "rw2"
	run := newSyntheticRun(testID)
	run.requests(0, 1000)
	rcfg := integrationConfig(srv.URL+"/api/v1/write", testID)
	rcfg.Protocol = remotewrite.Protocol2
	rcfg.Series.NativeHistograms = true
	src := series.FromAggregate(run.store)
	logger, logs := newLogger(slog.LevelInfo)
	c, err := remotewrite.NewClient(rcfg, src, logger, nil)
	require.NoError(t, err)
	c.Start()
	defer func() { _ = c.Stop() }() // a safety net on failure; the test checks Stop itself

	m, err := series.NewMapper(rcfg.Series)
	require.NoError(t, err)
	all := m.Map(nil, src.Snapshot())
	promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`{testid=%q}`, testID), 30*time.Second, promtest.SeriesCount(len(all)))
	h := query(t, srv.URL, fmt.Sprintf(`histogram_quantile(0.95, sum(k6_http_req_duration_seconds{testid=%q}))`, testID))
	require.Len(t, h, 1)
	require.InEpsilon(t, 0.95, float64(h[0].Value), 0.09)
	vec := query(t, srv.URL, fmt.Sprintf(`k6_http_reqs_total{testid=%q,status="200"}`, testID))
	require.Len(t, vec, 1)
	require.Equal(t, model.SampleValue(950), vec[0].Value)

	require.NoError(t, c.Stop())
	require.Zero(t, c.Stats().Dropped)
	require.Empty(t, logs.lines("rejected"))
	require.Empty(t, logs.lines("falling back"), "Prometheus 3 reports what it wrote")
	promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`{testid=%q}`, testID), 30*time.Second, promtest.SeriesCount(0))
}

// TestIntegrationProtocol2Fallback: Prometheus 2.42 and VictoriaMetrics 1.79 answer a
// 2.0 request 204 having decoded nothing; the client notices the missing written-count
// headers, falls back to 1.0 and the series land.
func TestIntegrationProtocol2Fallback(t *testing.T) {
	t.Parallel()
	for _, start := range []func(testing.TB, ...promtest.Option) *promtest.Server{promtest.StartPrometheus, promtest.StartVictoriaMetrics} {
		srv := start(t)
		t.Run(srv.Name, func(t *testing.T) {
			testID := "fallback-" + srv.Name
			run := newSyntheticRun(testID)
			run.requests(0, 100)
			cfg := integrationConfig(srv.WriteURL(), testID)
			cfg.Protocol = remotewrite.Protocol2
			logger, logs := newLogger(slog.LevelInfo)
			c, err := remotewrite.NewClient(cfg, series.FromAggregate(run.store), logger, nil)
			require.NoError(t, err)
			c.Start()
			defer func() { _ = c.Stop() }() // a safety net on failure; the test checks Stop itself
			v := promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`sum(k6_http_reqs_total{testid=%q})`, testID), 30*time.Second, promtest.NonEmpty)
			require.Equal(t, model.SampleValue(100), v.(model.Vector)[0].Value)
			require.NoError(t, c.Stop())
			require.Len(t, logs.lines("falling back to 1.0"), 1)
		})
	}
}

// TestIntegrationLongLabelValue is issue 24's lost run: one request in ten carries a URL
// of 20 KiB, over the embedded store's 16 KiB label value limit, which answers the whole
// request 400. Without a client-side cap (label_value_max_length: 0) the client splits
// the rejected request until the long series is alone: every other series lands, the
// long one is refused once and counted, and the summary line says so. With the default
// cap the long URL is sent truncated within 2,048 bytes and every series lands.
func TestIntegrationLongLabelValue(t *testing.T) {
	t.Parallel()
	srv := startStore(t)
	long := "http://127.0.0.1/search?q=" + strings.Repeat("x", 20*1024)

	for _, tc := range []struct {
		name   string
		maxLen int
	}{{name: "split", maxLen: 0}, {name: "truncate", maxLen: series.DefaultLabelValueMaxLength}} {
		t.Run(tc.name, func(t *testing.T) {
			testID := "long-" + tc.name
			run := newSyntheticRun(testID)
			run.requests(0, 90)
			b := run.run.Builtin
			longTags := run.run.Tags("testid", testID, "scenario", "default", "method", "GET", "status", "200", "url", long, "name", long)
			for range 10 {
				run.store.Push([]metrics.Sample{{Metric: b.HTTPReqs, Tags: longTags, Time: time.Now(), Value: 1}})
			}
			rcfg := integrationConfig(srv.URL+"/api/v1/write", testID)
			rcfg.Series.LabelValueMaxLength = tc.maxLen
			src := series.FromAggregate(run.store)
			logger, logs := newLogger(slog.LevelInfo)
			c, err := remotewrite.NewClient(rcfg, src, logger, nil)
			require.NoError(t, err)
			c.Start()
			m, err := series.NewMapper(rcfg.Series)
			require.NoError(t, err)
			all := m.Map(nil, src.Snapshot())
			want := len(all)
			if tc.maxLen == 0 {
				want-- // the long series
			}
			promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`{testid=%q}`, testID), 30*time.Second, promtest.SeriesCount(want))
			require.NoError(t, c.Stop())
			stats := c.Stats()
			// After the stale markers: the newest values of the run's series.
			reqs := query(t, srv.URL, fmt.Sprintf(`sum(max_over_time(k6_http_reqs_total{testid=%q}[5m]))`, testID))
			require.Len(t, reqs, 1)
			if tc.maxLen == 0 {
				require.Equal(t, uint64(1), stats.RefusedSeries, stats.String())
				require.True(t, stats.Lost())
				require.Contains(t, stats.String(), "1 series refused by the receiver")
				require.Len(t, logs.lines("refused a series"), 1)
				require.Equal(t, model.SampleValue(90), reqs[0].Value, "every request but the long URL's")
				return
			}
			require.Zero(t, stats.Dropped, stats.String())
			require.False(t, stats.Lost())
			require.Contains(t, stats.String(), "1 series with a label value over label_value_max_length sent truncated")
			require.Equal(t, model.SampleValue(100), reqs[0].Value)
			urls := query(t, srv.URL, fmt.Sprintf(`max_over_time(k6_http_reqs_total{testid=%q,url=~"http://127.0.0.1/search.*"}[5m])`, testID))
			require.Len(t, urls, 1)
			require.LessOrEqual(t, len(urls[0].Metric["url"]), series.DefaultLabelValueMaxLength)
			require.Contains(t, string(urls[0].Metric["url"]), "...#")
		})
	}
}
