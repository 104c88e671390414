//go:build integration

package dashboards

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/remotewrite"
)

// engineScenario has an arrival-rate scenario short of VUs (dropped iterations) next to a
// constant-VUs one, against a target that fails some requests, so every k6 panel has data.
const engineScenario = `
scenarios:
  arrivals:
    executor: ramping-arrival-rate
    startRate: 20
    timeUnit: 1s
    preAllocatedVUs: 2
    maxVUs: 2
    stages:
      - { duration: 8s, target: 40 }
  users:
    executor: constant-vus
    vus: 2
    duration: 8s
flow:
  - name: home
    url: ${__ENV.TARGET_URL}/
    checks:
      - status: 200
`

// TestLoadPanelsOnARealRun runs the real load engine against the built-in target and
// remote-writes its series (with native histograms) into a real Prometheus, as
// `tidemark run` does; every panel and annotation that reads k6 or run-metadata series,
// in both dashboards, must return data. This pins the dashboards to the series the engine
// really writes, not to the test's idea of them.
func TestLoadPanelsOnARealRun(t *testing.T) {
	prom := promtest.StartPrometheus(t)
	_, targetURL := targettest.Start(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 100 * time.Millisecond}, ErrorRatio: 0.1})

	const testID = "engine-1"
	test, err := scenario.Parse("engine.yaml", []byte(engineScenario), map[string]string{"TARGET_URL": targetURL})
	require.NoError(t, err)
	store := aggregate.New()
	eng, err := engine.New(engine.Config{Test: test, TestID: testID, Pusher: store, Registry: metrics.NewRegistry()})
	require.NoError(t, err)
	u, err := url.Parse(prom.WriteURL())
	require.NoError(t, err)
	cfg := remotewrite.DefaultConfig
	cfg.URL = &config.URL{URL: u}
	cfg.PushInterval = model.Duration(500 * time.Millisecond)
	cfg.Series.TestID = testID
	cfg.Series.NativeHistograms = true
	c, err := remotewrite.NewClient(cfg, series.FromAggregate(store), promslog.NewNopLogger(), nil)
	require.NoError(t, err)
	c.Start()
	start := time.Now()
	res := eng.Run(context.Background())
	end := time.Now()
	require.NoError(t, c.Stop())
	require.Zero(t, c.Stats().Dropped)
	require.False(t, res.Interrupted || res.Crossed, "the run passed")

	client, err := api.NewClient(api.Config{Address: prom.URL})
	require.NoError(t, err)
	papi := v1.NewAPI(client)
	vars := testVars(testID)
	vars["quantile_stat"] = []string{"p95"}
	vars["__rate_interval"] = []string{"3s"}
	checked := 0
	for _, qu := range generatedQueries(t) {
		if strings.Contains(qu.Expr, "kube_") || strings.Contains(qu.Expr, "container_") ||
			strings.Contains(qu.Expr, "aws_rds") || strings.Contains(qu.Expr, "tidemark_event") ||
			strings.Contains(qu.Expr, "tidemark_fact_") || dbExporterOrPool(qu.Expr) {
			continue // cluster series, the correlator's write-back and the exporter's facts: not written by a run
		}
		expr, _ := interpolate(qu.Expr, vars)
		name := qu.Dashboard + " / " + qu.Panel + " / " + qu.RefID
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var v model.Value
		if qu.Instant {
			v, _, _, err = papi.Query(ctx, expr, end.Add(-time.Second))
		} else {
			v, _, _, err = papi.QueryRange(ctx, expr, v1.Range{Start: start, End: end, Step: time.Second})
		}
		cancel()
		require.NoError(t, err, "%s:\n%s", name, expr)
		require.True(t, promtest.NonEmpty(v), "%s returned no data from the engine's series:\n%s", name, expr)
		checked++
	}
	require.Greater(t, checked, 40)
}
