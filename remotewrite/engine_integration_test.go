//go:build integration

package remotewrite_test

import (
	"context"
	"fmt"
	"strings"
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

// TestIntegrationEngineRun runs the real engine against the built-in target, with the
// aggregate store feeding remote write into real Prometheus and VictoriaMetrics at once:
// the final k6_http_reqs_total equals the target's own count in both, trend gauges
// agree with the run's aggregates, histogram_quantile agrees with the summary's p95, and
// after the run stale markers make every series vanish from instant queries.
func TestIntegrationEngineRun(t *testing.T) {
	t.Parallel()
	prom := promtest.StartPrometheus(t)
	vm := promtest.StartVictoriaMetrics(t)
	ts, targetURL := targettest.Start(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 2 * time.Millisecond}})

	u, err := scenario.ParseTemplate(targetURL + "/api")
	require.NoError(t, err)
	flow := scenario.Flow{Steps: []scenario.Step{{Name: "api", URL: u, Checks: []scenario.Check{{Name: "ok", Kind: scenario.CheckStatus, Status: 200}}}}}
	// One VU at 100 ms a request cannot keep up with 30/s: dropped iterations, and
	// failures (status 503) for the dashboards' error panels.
	slowURL, err := scenario.ParseTemplate(targetURL + "/slow?delay=100ms&status=503")
	require.NoError(t, err)
	slow := scenario.Flow{Steps: []scenario.Step{{Name: "slow", URL: slowURL}}}
	testID := "e2e-engine"
	store := aggregate.New()
	eng, err := engine.New(engine.Config{
		Test: &scenario.Test{Scenarios: []*scenario.Scenario{
			{Name: "open", Executor: scenario.ConstantArrivalRate, Rate: 100, TimeUnit: time.Second, Duration: 3 * time.Second,
				PreAllocatedVUs: 10, MaxVUs: 50, GracefulStop: 5 * time.Second, Flow: flow},
			{Name: "closed", Executor: scenario.ConstantVUs, VUs: 2, Duration: 3 * time.Second, GracefulStop: 5 * time.Second, Flow: flow},
			{Name: "dropping", Executor: scenario.ConstantArrivalRate, Rate: 30, TimeUnit: time.Second, Duration: 3 * time.Second,
				PreAllocatedVUs: 1, MaxVUs: 1, GracefulStop: 5 * time.Second, Flow: slow},
		}},
		TestID:   testID,
		Pusher:   store,
		Registry: metrics.NewRegistry(),
	})
	require.NoError(t, err)

	var clients []*remotewrite.Client
	for _, s := range []*promtest.Server{prom, vm} {
		cfg := integrationConfig(s.WriteURL(), testID)
		cfg.PushInterval = model.Duration(500 * time.Millisecond)
		cfg.Series.NativeHistograms = s == prom
		c, err := remotewrite.NewClient(cfg, series.FromAggregate(store), promslog.NewNopLogger(), nil)
		require.NoError(t, err)
		c.Start()
		clients = append(clients, c)
	}
	res := eng.Run(context.Background())
	require.False(t, res.Interrupted || res.Crossed, "the run passed")
	served := float64(ts.Stats().Requests)
	final := store.Snapshot()
	dur, ok := final.Metric("http_req_duration")
	require.True(t, ok)
	p95, err := dur.Stat("p(95)")
	require.NoError(t, err)
	// While the series are live (before Stop's stale markers), the native histogram's
	// p95 agrees with the summary's.
	promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(`sum(k6_http_reqs_total{testid=%q})`, testID), 30*time.Second, func(v model.Value) bool {
		vec := v.(model.Vector)
		return len(vec) == 1 && float64(vec[0].Value) == served
	})
	dashboard19665(t, prom.URL, testID)
	dashboard18030(t, prom.URL, testID)
	hq := query(t, prom.URL, fmt.Sprintf(`histogram_quantile(0.95, sum(k6_http_req_duration_seconds{testid=%q}))`, testID))
	require.Len(t, hq, 1)
	require.InEpsilon(t, p95, float64(hq[0].Value), 0.09, "native histogram p95 %v vs the summary's %v", hq[0].Value, p95)

	for _, c := range clients {
		require.NoError(t, c.Stop())
		require.Zero(t, c.Stats().Dropped)
		t.Log(c.Stats().String())
	}

	reqs, ok := final.Metric("http_reqs")
	require.True(t, ok)
	require.Equal(t, served, reqs.Count, "the engine counts what the target served")
	openDur, ok := final.Submetric("http_req_duration", []metrics.Tag{{Key: "scenario", Value: "open"}})
	require.True(t, ok)
	openP95, err := openDur.Stat("p(95)")
	require.NoError(t, err)

	for _, s := range []*promtest.Server{prom, vm} {
		t.Run(s.Name, func(t *testing.T) {
			// After the run the series are stale: read the last values over a range.
			total := promtest.WaitForQuery(t, s.URL, fmt.Sprintf(`sum(last_over_time(k6_http_reqs_total{testid=%q}[5m]))`, testID), 30*time.Second,
				func(v model.Value) bool {
					vec := v.(model.Vector)
					return len(vec) == 1 && float64(vec[0].Value) == served
				})
			require.Equal(t, served, float64(total.(model.Vector)[0].Value), "final counter equals the target's count")

			gauge := promtest.WaitForQuery(t, s.URL, fmt.Sprintf(`last_over_time(k6_http_req_duration_p95{testid=%q,scenario="open"}[5m])`, testID), 30*time.Second, promtest.SeriesCount(1))
			require.InEpsilon(t, openP95, float64(gauge.(model.Vector)[0].Value), 1e-9, "the gauge is the aggregate's p95")

			for _, name := range []string{"k6_vus", "k6_iterations_total", "k6_checks_rate", "k6_http_req_failed_rate", "k6_data_sent_total",
				"k6_data_received_total", "k6_http_req_waiting_p99", "k6_iteration_duration_med", "tidemark_run_info", "tidemark_scenario_target"} {
				promtest.WaitForQuery(t, s.URL, fmt.Sprintf(`last_over_time(%s{testid=%q}[5m])`, name, testID), 30*time.Second, promtest.NonEmpty)
			}
			// Stale markers: nothing of the run is left in instant queries.
			promtest.WaitForQuery(t, s.URL, fmt.Sprintf(`{testid=%q}`, testID), 30*time.Second, promtest.SeriesCount(0))
		})
	}
}

// dashboard19665 runs every query of Grafana dashboard 19665 "k6 Prometheus"
// (reference/k6.md §2) for a live run and requires data for each: with the default
// trend stats every panel is filled, which k6's default (p(99) only) does not do.
func dashboard19665(t *testing.T, base, testID string) {
	t.Helper()
	sel := fmt.Sprintf(`testid=~%q`, testID)
	rate := "[1m]" // $__rate_interval
	queries := []string{
		`sum(k6_vus{` + sel + `})`,
		`sum(irate(k6_http_reqs_total{` + sel + `}` + rate + `))`,
		`sum(irate(k6_http_reqs_total{` + sel + `, expected_response="false"}` + rate + `))`,
		`sum(irate(k6_http_reqs_total{` + sel + `, expected_response="true"}` + rate + `))`,
		`avg(round(k6_http_req_failed_rate{` + sel + `}, 0.1)*100)`,
		`sum(k6_http_reqs_total{` + sel + `})`,
		`sum(k6_http_reqs_total{` + sel + `, expected_response="false"})`,
		`avg(irate(k6_data_sent_total{` + sel + `}` + rate + `))`,
		`avg(irate(k6_data_received_total{` + sel + `}` + rate + `))`,
		`avg(k6_dropped_iterations_total{` + sel + `})`,
		`round(k6_checks_rate{` + sel + `}, 0.1)`,
		`avg(round(k6_checks_rate{` + sel + `}, 0.1)*100)`,
	}
	// The quantile_stat variable offers every stat suffix; the URL table reads
	// min, max, p95 and p99.
	for _, stat := range []string{"min", "max", "p95", "p99", "p90", "avg", "med"} {
		for _, trend := range []string{"http_req_duration", "iteration_duration", "http_req_blocked", "http_req_tls_handshaking",
			"http_req_sending", "http_req_waiting", "http_req_receiving"} {
			queries = append(queries, `avg(k6_`+trend+`_`+stat+`{`+sel+`})`)
		}
		queries = append(queries, `avg by(name, method, status) (k6_http_req_duration_`+stat+`{`+sel+`})`)
	}
	for _, q := range queries {
		promtest.WaitForQuery(t, base, q, 10*time.Second, promtest.NonEmpty)
	}
	names, err := promtest.Query(context.Background(), base, fmt.Sprintf(`count by (__name__) ({__name__=~"k6_http_req_duration_.*", %s})`, sel), time.Time{})
	require.NoError(t, err)
	var stats []string
	for _, s := range names.(model.Vector) {
		stats = append(stats, strings.TrimPrefix(string(s.Metric[model.MetricNameLabel]), "k6_http_req_duration_"))
	}
	require.ElementsMatch(t, []string{"p99", "p95", "p90", "avg", "min", "max", "med", "seconds"}, stats)
}

// dashboard18030 runs the native-histogram queries of Grafana dashboard 18030 "k6
// Prometheus (Native Histograms)" (reference/k6.md §2) for a live run.
func dashboard18030(t *testing.T, base, testID string) {
	t.Helper()
	sel := fmt.Sprintf(`testid=~%q`, testID)
	var queries []string
	for _, trend := range []string{"http_req_duration", "iteration_duration", "http_req_blocked", "http_req_tls_handshaking",
		"http_req_sending", "http_req_waiting", "http_req_receiving"} {
		queries = append(queries, `histogram_quantile(0.99, sum by (le) (rate(k6_`+trend+`_seconds{`+sel+`}[1m])))`)
	}
	for _, q := range []string{"0", "1", "0.95", "0.99"} {
		queries = append(queries, `histogram_quantile(`+q+`, sum by(le, name, method, status) (rate(k6_http_req_duration_seconds{`+sel+`}[1m])))`)
	}
	for _, q := range queries {
		promtest.WaitForQuery(t, base, q, 10*time.Second, promtest.NonEmpty)
	}
}
