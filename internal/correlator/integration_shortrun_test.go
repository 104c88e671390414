//go:build integration

package correlator

import (
	"context"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/store"
	targetsrv "github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/remotewrite"
)

// TestCorrelateShortRunEmbeddedStore runs short real runs (the engine against the
// built-in target) that push with remote write at the default 5 s interval, with stale
// markers, into the embedded store, and correlates each right after it stopped, as
// `tidemark run` then `tidemark correlate` do: the correlated request count equals the
// run's own count exactly, and the run is not taken for live.
func TestCorrelateShortRunEmbeddedStore(t *testing.T) {
	scfg := store.DefaultConfig
	scfg.Dir = t.TempDir()
	st, err := store.Open(scfg, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(srv.Close)
	tgt, err := targetsrv.New(targetsrv.Config{Latency: targetsrv.Latency{Kind: targetsrv.Fixed, A: 2 * time.Millisecond}})
	require.NoError(t, err)
	tsrv := httptest.NewServer(tgt)
	t.Cleanup(tsrv.Close)
	writeURL, err := url.Parse(srv.URL + "/api/v1/write")
	require.NoError(t, err)

	for _, tc := range []struct {
		testID   string
		vus      int
		duration time.Duration
		// judged: the target was pushed at least once before the final push, so the
		// stage is known and must hold.
		judged bool
	}{
		{testID: "quick-10s", vus: 5, duration: 10 * time.Second, judged: true},
		{testID: "tiny-3s", vus: 2, duration: 3 * time.Second},
	} {
		t.Run(tc.testID, func(t *testing.T) {
			t.Parallel()
			u, err := scenario.ParseTemplate(tsrv.URL + "/")
			require.NoError(t, err)
			flow := scenario.Flow{Steps: []scenario.Step{
				{Name: "home", URL: u, Checks: []scenario.Check{{Name: "status is 200", Kind: scenario.CheckStatus, Status: 200}}},
				{Sleep: scenario.Think{Min: 100 * time.Millisecond, Max: 100 * time.Millisecond}},
			}}
			agg := aggregate.New()
			eng, err := engine.New(engine.Config{
				Test: &scenario.Test{Scenarios: []*scenario.Scenario{
					{Name: "default", Executor: scenario.ConstantVUs, VUs: tc.vus, Duration: tc.duration, GracefulStop: 30 * time.Second, Flow: flow},
				}},
				TestID:   tc.testID,
				Pusher:   agg,
				Registry: metrics.NewRegistry(),
			})
			require.NoError(t, err)
			rcfg := remotewrite.DefaultConfig // 5 s pushes, stale markers at the end
			rcfg.URL = &config.URL{URL: writeURL}
			rcfg.Series.TestID = tc.testID
			rcfg.Series.NativeHistograms = true // per-stage quantiles
			client, err := remotewrite.NewClient(rcfg, series.FromAggregate(agg), promslog.NewNopLogger(), nil)
			require.NoError(t, err)
			client.Start()
			res := eng.Run(context.Background())
			require.False(t, res.Interrupted || res.Crossed, "the run passed")
			require.NoError(t, client.Stop())
			require.Zero(t, client.Stats().Dropped)
			reqs, ok := agg.Snapshot().Metric("http_reqs")
			require.True(t, ok)
			require.Positive(t, reqs.Count)

			q, err := query.NewPrometheus(srv.URL, nil)
			require.NoError(t, err)
			cat, err := query.Default()
			require.NoError(t, err)
			out, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), Config{TestID: tc.testID})
			require.NoError(t, err)
			for _, n := range out.Notes {
				t.Logf("note: %s/%s %s: %s", n.Section, n.Object, n.Level, n.Text)
			}

			require.Equal(t, reqs.Count, out.Load.Requests, "the summary's http_reqs: the final counter value")
			require.Zero(t, out.Load.Failures)
			require.False(t, out.Window.Live, "the run ended with stale markers")
			require.InDelta(t, tc.duration.Seconds(), out.Window.Run.Duration().Seconds(), 5, "the run's length, within one push interval")
			for _, s := range out.Sources {
				if s.Name == analysis.SourceK6 {
					require.GreaterOrEqual(t, s.Coverage, 0.9)
				}
			}
			if !tc.judged {
				return
			}
			require.Len(t, out.Load.Stages, 1)
			stage := out.Load.Stages[0]
			require.InDelta(t, float64(tc.vus), stage.TargetAvg, 0)
			require.Equal(t, reqs.Count, stage.Requests)
			require.True(t, stage.Held, stage.Why)
			// The stage starts with the run: its quantile counts from the start, first push included.
			dur, ok := agg.Snapshot().Metric("http_req_duration")
			require.True(t, ok)
			p95, err := dur.Stat("p(95)")
			require.NoError(t, err)
			require.Equal(t, analysis.LatencyHistogram, stage.LatencySource)
			require.NotNil(t, stage.P95)
			require.InEpsilon(t, p95, stage.P95.Value, 0.09, "native histogram p95 %v vs the summary's %v", stage.P95.Value, p95)
			require.Nil(t, out.Load.Capacity.FirstBroke, out.Load.Capacity.Text)
		})
	}
}
