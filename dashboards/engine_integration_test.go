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
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/promapi"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/internal/threshold"
	"github.com/tidemark/tidemark/internal/verdict"
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
thresholds:
  http_req_duration:
    - 'p(95)<5000'
    - {threshold: 'p(95)<50', window: 2s}
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
// really writes, not to the test's idea of them. Its windowed threshold (p95 under
// 50 ms over 2 s, against a 100 ms target) fails from its first window on, and the
// failed-thresholds annotation marks it from there.
func TestLoadPanelsOnARealRun(t *testing.T) {
	prom := promtest.StartPrometheus(t)
	_, targetURL := targettest.Start(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 100 * time.Millisecond}, ErrorRatio: 0.1})

	const testID = "engine-1"
	test, err := scenario.Parse("engine.yaml", []byte(engineScenario), map[string]string{"TARGET_URL": targetURL})
	require.NoError(t, err)
	u, err := url.Parse(prom.WriteURL())
	require.NoError(t, err)
	cfg := remotewrite.DefaultConfig
	cfg.URL = &config.URL{URL: u}
	cfg.PushInterval = model.Duration(500 * time.Millisecond)
	cfg.Series.TestID = testID
	cfg.Series.NativeHistograms = true
	var c *remotewrite.Client
	// A server-side rule that fires from its first evaluation (every second) on: the
	// rules annotation marks it.
	rules, err := slo.Parse("rules.yaml", []byte(`groups:
  - name: g
    interval: 1s
    rules:
      - alert: VUsActive
        expr: sum(k6_vus{testid="{{ .testid }}"}) > 0
        labels: {severity: warning}
`), 500*time.Millisecond)
	require.NoError(t, err)
	judge := slo.NewLive(slo.LiveConfig{Rules: &slo.Rules{Sources: []string{"rules.yaml"}, Rules: rules},
		Querier: func() (query.Querier, error) { return promapi.Remote(promapi.Config{URL: prom.URL}) }, PushInterval: 500 * time.Millisecond})
	start := time.Now()
	res, err := loadtest.Run(context.Background(), loadtest.Config{Test: test, TestID: testID, Registry: metrics.NewRegistry(),
		Actors: []loadtest.Actor{loadtest.Outputs(func(store *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
			var err error
			c, err = remotewrite.NewClient(cfg, series.FromAggregate(store), promslog.NewNopLogger(), nil)
			return []loadtest.Sink{c}, err
		}), judge}})
	end := time.Now()
	require.Equal(t, verdict.ErrThresholds, verdict.Of(err), "the windowed threshold fails the run: %v", err)
	require.False(t, res.Run.Interrupted)
	require.Zero(t, c.Stats().Dropped)
	first := res.Run.Start.Add(windowedRecord(t, res).FirstFailure.End)

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
			strings.Contains(qu.Expr, "tidemark_fact_") || dbExporterOrPool(qu.Expr) ||
			strings.Contains(qu.Expr, "k6_browser_web_vital_") {
			continue // cluster series, the correlator's write-back, the exporter's facts and browser VUs: not written by this run
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
		if strings.Contains(qu.Expr, "tidemark_threshold_result_pass") && !qu.Instant {
			requireFailedFrom(t, v, first, name)
		}
		if strings.Contains(qu.Expr, "tidemark_slo_rule_firing") && !qu.Instant {
			requireRuleFiredFrom(t, v, judge.Outcomes()[0], name)
		}
	}
	require.Greater(t, checked, 40)
}

// windowedRecord is the record of the run's windowed threshold.
func windowedRecord(t *testing.T, res *loadtest.Result) *threshold.WindowRecord {
	t.Helper()
	for _, th := range res.Summary.Thresholds["http_req_duration"] {
		if th.Window > 0 {
			require.True(t, th.Record.Failed)
			return th.Record
		}
	}
	t.Fatal("no windowed threshold")
	return nil
}

// requireFailedFrom checks a failed-thresholds annotation query: the windowed
// threshold's series is 1 (an annotation) from about its first failing window on,
// and the whole-run one, which passes, is never 1.
func requireFailedFrom(t *testing.T, v model.Value, first time.Time, name string) {
	t.Helper()
	var windowed, plain int
	for _, s := range v.(model.Matrix) {
		if s.Metric["window"] == "" {
			plain++
			for _, p := range s.Values {
				require.Zero(t, float64(p.Value), "%s: the whole-run threshold passes", name)
			}
			continue
		}
		windowed++
		var firstOne time.Time
		for _, p := range s.Values {
			if p.Value == 1 {
				firstOne = p.Timestamp.Time()
				break
			}
		}
		require.False(t, firstOne.IsZero(), "%s: no annotation", name)
		// One 1 s step of the query, one 500 ms push, and Prometheus' lookback of the
		// sample before the first failing one: the annotation starts within 2 s of the
		// engine's first failing window.
		t.Logf("%s: first failing window at %s, annotation from %s", name, first.Format(time.TimeOnly+".000"), firstOne.Format(time.TimeOnly+".000"))
		require.WithinDuration(t, first, firstOne, 2*time.Second, "%s", name)
	}
	require.Equal(t, [2]int{1, 1}, [2]int{windowed, plain}, name)
}

// requireRuleFiredFrom checks a rules annotation query: the rule's series is 1 from
// about the evaluation that found it firing first.
func requireRuleFiredFrom(t *testing.T, v model.Value, o slo.Outcome, name string) {
	t.Helper()
	require.NotEmpty(t, o.Firing, "%s: the rule fired", name)
	m := v.(model.Matrix)
	require.Len(t, m, 1, name)
	require.Equal(t, model.LabelValue("VUsActive"), m[0].Metric["alertname"], name)
	var firstOne time.Time
	for _, p := range m[0].Values {
		if p.Value == 1 {
			firstOne = p.Timestamp.Time()
			break
		}
	}
	// One 1 s step of the query and one 500 ms push after the evaluation.
	t.Logf("%s: rule fired at %s, annotation from %s", name, o.Firing[0].From.Format(time.TimeOnly+".000"), firstOne.Format(time.TimeOnly+".000"))
	require.WithinDuration(t, o.Firing[0].From, firstOne, 2*time.Second, "%s", name)
}
