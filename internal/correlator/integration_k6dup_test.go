//go:build integration

package correlator

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/model/value"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	targetsrv "github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/remotewrite"
)

// haStream is one copy of a run's k6 series: a testid and the external labels of the
// Prometheus that holds it.
type haStream struct {
	testID string
	labels map[string]string
	mapper *series.Mapper
}

// TestHAPairLeavesK6FactsUnchanged is issue 12's regression for the k6 series: one
// real run written once (testid ha-once), and written twice as an HA pair queried
// through Thanos without deduplication returns it (testid ha-pair, once with
// prometheus_replica="a" and once with "b"), gives the same load facts: requests,
// failures, error rate, dropped iterations, peak rate and VUs, and per stage the request
// rate, the achieved rate and the native histogram's quantiles.
//
// Every snapshot of the run is mapped for the three copies and written at one
// timestamp, so the copies hold the same samples, as two receivers of the same remote
// writes do; the run ends with stale markers 1 ms after the final push, as the client's.
func TestHAPairLeavesK6FactsUnchanged(t *testing.T) {
	prom := promtest.StartPrometheus(t)
	_, targetURL := targettest.Start(t, targetsrv.Config{Latency: targetsrv.Latency{Kind: targetsrv.Fixed, A: 2 * time.Millisecond}})
	ok, err := scenario.ParseTemplate(targetURL + "/api")
	require.NoError(t, err)
	// One VU at 100 ms a request cannot keep up with 20/s: dropped iterations, and
	// failures (503).
	slow, err := scenario.ParseTemplate(targetURL + "/slow?delay=100ms&status=503")
	require.NoError(t, err)
	agg := aggregate.New()
	eng, err := engine.New(engine.Config{
		Test: &scenario.Test{Scenarios: []*scenario.Scenario{
			{
				Name: "ramp", Executor: scenario.RampingArrivalRate, StartRate: 10, TimeUnit: time.Second,
				Stages:          []scenario.Stage{{Duration: 3 * time.Second, Target: 30}, {Duration: 3 * time.Second, Target: 30}},
				PreAllocatedVUs: 10, MaxVUs: 10, GracefulStop: 5 * time.Second,
				Flow: scenario.Flow{Steps: []scenario.Step{{Name: "api", URL: ok}}},
			},
			{
				Name: "dropping", Executor: scenario.ConstantArrivalRate, Rate: 20, TimeUnit: time.Second, Duration: 6 * time.Second,
				PreAllocatedVUs: 1, MaxVUs: 1, GracefulStop: 5 * time.Second,
				Flow: scenario.Flow{Steps: []scenario.Step{{Name: "slow", URL: slow}}},
			},
		}},
		TestID:   "ha",
		Pusher:   agg,
		Registry: metrics.NewRegistry(),
	})
	require.NoError(t, err)

	streams := []*haStream{
		{testID: "ha-once"},
		{testID: "ha-pair", labels: map[string]string{"prometheus": "monitoring/k8s", "prometheus_replica": "a"}},
		{testID: "ha-pair", labels: map[string]string{"prometheus": "monitoring/k8s", "prometheus_replica": "b"}},
	}
	for _, s := range streams {
		cfg := series.DefaultConfig
		cfg.NativeHistograms = true // per-stage quantiles
		cfg.TestID, cfg.InstanceID, cfg.Labels = s.testID, "1", s.labels
		// The engine tags every sample with its own testid, which wins over cfg.TestID.
		cfg.LabelRules = []series.LabelRule{{Label: "testid", Action: series.ActionReplace, Regex: ".*", Replacement: s.testID}}
		s.mapper, err = series.NewMapper(cfg)
		require.NoError(t, err)
	}
	w, err := remotewrite.NewWriter(prom.WriteURL(), promslog.NewNopLogger())
	require.NoError(t, err)
	ctx := context.Background()
	var last []series.Series
	push := func() error {
		ts := time.Now().UnixMilli()
		in := series.Inputs(nil, agg.Snapshot())
		last = last[:0]
		for _, s := range streams {
			last = s.mapper.Map(last, in)
		}
		return w.Write(ctx, ts, last)
	}

	// Push every second while the run is live (a 6 s run: several pushes per stage).
	done, pushErr := make(chan struct{}), make(chan error, 1)
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				pushErr <- nil
				return
			case <-tick.C:
				if err := push(); err != nil {
					pushErr <- err
					return
				}
			}
		}
	}()
	res := eng.Run(ctx)
	close(done)
	require.NoError(t, <-pushErr)
	require.False(t, res.Interrupted, "the run was not interrupted")
	time.Sleep(2 * time.Millisecond) // the final push after the last periodic one
	require.NoError(t, push())
	stale := make([]series.Series, len(last))
	for i, s := range last {
		stale[i] = series.Series{Name: s.Name, Labels: s.Labels, Type: series.Gauge, Value: math.Float64frombits(value.StaleNaN)}
	}
	require.NoError(t, w.Write(ctx, time.Now().UnixMilli()+1, stale))

	cat, err := query.Default()
	require.NoError(t, err)
	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	results := map[string]*Result{}
	for _, id := range []string{"ha-once", "ha-pair"} {
		r, err := New(q, cat, promslog.NewNopLogger()).Correlate(ctx, Config{TestID: id})
		require.NoError(t, err, id)
		for _, qi := range r.Queries {
			require.Empty(t, qi.Error, "%s: %s", id, qi.Name)
		}
		results[id] = r
	}
	once, pair := results["ha-once"], results["ha-pair"]

	// The run's facts are there to compare: the run's own request count, failures and
	// drops, and per stage a request rate and the native histogram's p95.
	snap := agg.Snapshot()
	reqs, found := snap.Metric("http_reqs")
	require.True(t, found)
	dropped, found := snap.Metric("dropped_iterations")
	require.True(t, found)
	require.Equal(t, reqs.Count, once.Load.Requests)
	require.Positive(t, once.Load.Failures)
	require.Positive(t, dropped.Count)
	require.Equal(t, dropped.Count, once.Load.Dropped)
	require.NotNil(t, once.Load.ErrorRate)
	require.NotNil(t, once.Load.PeakRate)
	require.NotNil(t, once.Load.PeakVUs)
	require.GreaterOrEqual(t, len(once.Load.Stages), 3, "two stages of ramp, one of dropping")
	for _, st := range once.Load.Stages {
		require.NotNil(t, st.RequestRate, "stage %d", st.Index)
		require.NotNil(t, st.P95, "stage %d", st.Index)
		require.Equal(t, analysis.LatencyHistogram, st.LatencySource, "stage %d", st.Index)
	}

	// And the pair's are the same.
	f1, f2 := factsJSON(t, once).(map[string]any), factsJSON(t, pair).(map[string]any)
	// (The window's cool-down ends at the time of correlating, which differs; the
	// evidence names the series read, testid included.)
	require.Equal(t, once.Window.Run, pair.Window.Run)
	sameRun := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return strings.ReplaceAll(string(b), "ha-pair", "ha-once")
	}
	require.JSONEq(t, sameRun(f1["load"]), sameRun(f2["load"]))
	// The charts run to the end of each window's cool-down: compare them up to the
	// earlier one (on a busy machine the second correlation ends a step or more later).
	cutoff := once.Window.After.To
	if pair.Window.After.To.Before(cutoff) {
		cutoff = pair.Window.After.To
	}
	require.JSONEq(t, sameRun(chartsUpTo(t, f1["series"], cutoff)), sameRun(chartsUpTo(t, f2["series"], cutoff)), "the charts' series")
}

// chartsUpTo keeps the points of a result's charts (its JSON "series": name → series →
// points {t, v}) at or before cutoff.
func chartsUpTo(t *testing.T, charts any, cutoff time.Time) any {
	t.Helper()
	m, ok := charts.(map[string]any)
	require.True(t, ok, "series is an object")
	for _, list := range m {
		for _, s := range list.([]any) {
			ser := s.(map[string]any)
			var kept []any
			for _, p := range ser["points"].([]any) {
				at, err := time.Parse(time.RFC3339Nano, p.(map[string]any)["t"].(string))
				require.NoError(t, err)
				if !at.After(cutoff) {
					kept = append(kept, p)
				}
			}
			ser["points"] = kept
		}
	}
	return m
}
