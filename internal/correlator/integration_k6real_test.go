//go:build integration

package correlator

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/timeline"
)

// TestIntegrationRealK6Run correlates a run that k6 itself made: testdata/k6-v1.8.1-steps.om
// holds, read back raw from Prometheus 2.42, what k6 v1.8.1 wrote through its
// experimental-prometheus-rw output (recorded once, kept as data: no test builds or runs k6)
// (K6_PROMETHEUS_RW_PUSH_INTERVAL=5s, stale markers on, --tag testid=k6-real-steps) for a
// ramping-arrival-rate script (startRate 5; stages 20s:5, 5s:20, 25s:20, 5s:40, 25s:40,
// 5s:0) against `tidemark target`. k6 printed http_reqs 1912.
//
// k6 stamps each series with its newest sample: k6_vus with its last 1 s emission, the
// counters with their last request, so the final push's counters (700.320 s) come 0.66 s
// after the last k6_vus (699.659 s), and that push comes 4.69 s after the one before. By
// testid alone, the window must end at the counters' final push, every request must be
// counted, and the six stages must be inferred within one push of the script's, each
// with the rate the script gave it. Server-side rules (correlate --slo) judge the run
// k6 made over its window and per stage.
func TestIntegrationRealK6Run(t *testing.T) {
	prom := layoutstest.LoadFiles(t, []string{"testdata/k6-v1.8.1-steps.om"})
	lastCounter := time.UnixMilli(1796138700320).UTC()
	layoutstest.WaitForRun(t, prom, "k6-real-steps", lastCounter)
	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	res, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), Config{
		TestID: "k6-real-steps", Lookback: time.Since(lastCounter) + time.Hour,
	})
	require.NoError(t, err)
	require.Equal(t, WindowFromK6, res.Window.From)
	require.Equal(t, lastCounter, res.Window.Run.To.UTC(), "the window ends at the counters' final push")
	require.InDelta(t, 1912, res.Load.Requests, 0, "k6's own http_reqs")

	// The script's stages, from k6's start: its end less the 85 s the stages take.
	start := lastCounter.Add(-85 * time.Second)
	want := []struct {
		kind     timeline.StageKind
		from, to time.Duration
	}{
		{timeline.Hold, 0, 20 * time.Second},
		{timeline.RampUp, 20 * time.Second, 25 * time.Second},
		{timeline.Hold, 25 * time.Second, 50 * time.Second},
		{timeline.RampUp, 50 * time.Second, 55 * time.Second},
		{timeline.Hold, 55 * time.Second, 80 * time.Second},
		{timeline.RampDown, 80 * time.Second, 85 * time.Second},
	}
	push := 5 * time.Second
	require.Len(t, res.Load.Stages, len(want))
	for i, w := range want {
		st := res.Load.Stages[i]
		require.Equal(t, w.kind, st.Kind, "stage %d", i)
		require.True(t, st.Inferred, "stage %d", i)
		if i > 0 {
			require.WithinDuration(t, start.Add(w.from), st.From, push, "stage %d start", i)
		}
		if i < len(want)-1 {
			require.WithinDuration(t, start.Add(w.to), st.To, push, "stage %d end", i)
		}
	}

	// Every stage's counts come from k6's own samples, a push straddling a boundary
	// shared by time: the holds achieve their rates (within the 0.66 s before k6's first
	// iteration that the first stage holds), and no request is lost or counted twice.
	// Dated by the step grid, a push's 5 s went whole to the next stage: the 40/s hold
	// read 30.2/s and the ramp down to 0 read 98.7/s.
	var sum float64
	for _, st := range res.Load.Stages {
		sum += st.Requests
	}
	require.InDelta(t, 1912, sum, 1e-6, "the stages' requests")
	for i, rate := range map[int]float64{0: 5, 2: 20, 4: 40} {
		st := res.Load.Stages[i]
		require.NotNil(t, st.Achieved, "stage %d", i)
		require.InEpsilon(t, rate, st.Achieved.Value, 0.06, "stage %d's achieved rate", i)
		require.InEpsilon(t, rate, st.RequestRate.Value, 0.06, "stage %d's request rate", i)
	}

	// The same run judged by a server-side rule (correlate --slo): k6's own series, over
	// the run's window and per stage. Over 30 requests/s fires in the 40/s hold only.
	rules, err := slo.Parse("rules.yaml", []byte(`groups:
  - name: load
    rules:
      - alert: Over30PerSecond
        expr: sum(rate(k6_http_reqs_total{testid="{{ .testid }}"}[10s])) > 30
        labels: {severity: error}
`), slo.DefaultPushInterval)
	require.NoError(t, err)
	res, err = New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), Config{
		TestID: "k6-real-steps", Lookback: time.Since(lastCounter) + time.Hour, SLO: &slo.Rules{Sources: []string{"rules.yaml"}, Rules: rules},
	})
	require.NoError(t, err)
	require.NotNil(t, res.SLO)
	require.True(t, res.SLO.Failed)
	require.ErrorContains(t, res.SLO.Err(), "Over30PerSecond (error) fired")
	require.Len(t, res.SLO.Stages, len(want))
	for i, fired := range map[int]bool{0: false, 2: false, 4: true} {
		require.Equal(t, fired, res.SLO.Stages[i].Outcomes[0].Fired, "stage %d: %+v", i, res.SLO.Stages[i].Outcomes[0])
	}
	require.True(t, res.SLO.Run.Outcomes[0].FiredBetween(res.Load.Stages[4].From, res.Load.Stages[4].To))
}
