//go:build integration

package remotewrite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

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

// TestIntegrationDashboardsRunWithoutDrops is the done-when "every query of dashboards
// 19665 and 18030 returns data for a run without drops": an arrival-rate run that keeps
// up (ample VUs, a 2 ms target) drops no iteration, k6_dropped_iterations_total exists
// with the value 0 (the dropped-iterations panel shows 0, not No data), and every
// panel query of both dashboards returns data. Each iteration makes one request that
// fails (503), for the dashboards' error panels.
func TestIntegrationDashboardsRunWithoutDrops(t *testing.T) {
	t.Parallel()
	prom := promtest.StartPrometheus(t)
	_, targetURL := targettest.Start(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 2 * time.Millisecond}})
	ok, err := scenario.ParseTemplate(targetURL + "/api")
	require.NoError(t, err)
	failing, err := scenario.ParseTemplate(targetURL + "/api?status=503")
	require.NoError(t, err)
	testID := "e2e-no-drops"
	store := aggregate.New()
	eng, err := engine.New(engine.Config{
		Test: &scenario.Test{Scenarios: []*scenario.Scenario{
			// 20 VUs for 20 iterations a second of two 2 ms requests: each VU is busy
			// well under 1% of the time.
			{Name: "open", Executor: scenario.ConstantArrivalRate, Rate: 20, TimeUnit: time.Second, Duration: 3 * time.Second,
				PreAllocatedVUs: 20, MaxVUs: 20, GracefulStop: 5 * time.Second, Flow: scenario.Flow{Steps: []scenario.Step{
					{Name: "api", URL: ok, Checks: []scenario.Check{{Name: "ok", Kind: scenario.CheckStatus, Status: 200}}},
					{Name: "failing", URL: failing},
				}}},
		}},
		TestID:   testID,
		Pusher:   store,
		Registry: metrics.NewRegistry(),
	})
	require.NoError(t, err)
	cfg := integrationConfig(prom.WriteURL(), testID)
	cfg.PushInterval = model.Duration(500 * time.Millisecond)
	cfg.Series.NativeHistograms = true // dashboard 18030
	c, err := remotewrite.NewClient(cfg, series.FromAggregate(store), promslog.NewNopLogger(), nil)
	require.NoError(t, err)
	c.Start()
	res := eng.Run(context.Background())
	require.False(t, res.Interrupted || res.Crossed, "the run passed")

	final := store.Snapshot()
	dropped, found := final.Metric("dropped_iterations")
	require.True(t, found, "dropped_iterations starts from 0")
	require.Zero(t, dropped.Count, "the run dropped no iteration")
	iters, found := final.Metric("iterations")
	require.True(t, found)
	require.InDelta(t, 60, iters.Count, 2, "20/s for 3 s")

	// While the series are live (before Stop's stale markers).
	sel := fmt.Sprintf(`testid=%q`, testID)
	promtest.WaitForQuery(t, prom.URL, `sum(k6_iterations_total{`+sel+`})`, 30*time.Second, func(v model.Value) bool {
		vec := v.(model.Vector)
		return len(vec) == 1 && float64(vec[0].Value) == iters.Count
	})
	d := query(t, prom.URL, `k6_dropped_iterations_total{`+sel+`}`)
	require.Len(t, d, 1, "one series, of the scenario")
	require.Equal(t, model.LabelValue("open"), d[0].Metric["scenario"])
	require.Zero(t, float64(d[0].Value))
	dashboard19665(t, prom.URL, testID)
	dashboard18030(t, prom.URL, testID)

	require.NoError(t, c.Stop())
	require.Zero(t, c.Stats().Dropped)
}
