package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/timeline"
)

func TestFormatFact(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 2, 4, 38, 0, time.UTC)
	for _, tc := range []struct {
		name string
		f    *analysis.Fact
		want string
	}{
		{"missing", nil, "—"},
		{"span", &analysis.Fact{Value: 30, Unit: analysis.UnitSeconds, ResolutionSeconds: 10}, "30 s"},
		{"zero span below the resolution", &analysis.Fact{Value: 0, Unit: analysis.UnitSeconds, ResolutionSeconds: 10}, "< 10 s"},
		{"zero span, exact source", &analysis.Fact{Value: 0, Unit: analysis.UnitSeconds}, "0 ms"},
		{"sub-second latency read at a moment", &analysis.Fact{Value: 0.079, Unit: analysis.UnitSeconds, At: at, ResolutionSeconds: 5}, "79 ms"},
		{"minutes", &analysis.Fact{Value: 120, Unit: analysis.UnitSeconds, ResolutionSeconds: 10}, "2m0s"},
		{"instant", &analysis.Fact{Value: float64(at.Unix()), Unit: analysis.UnitTime, At: at, ResolutionSeconds: 5}, "02:04:38"},
		{"count", &analysis.Fact{Value: 20, Unit: analysis.UnitCount, ResolutionSeconds: 60}, "20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, FormatFact(tc.f))
		})
	}
}

func TestAutoscalingSectionStartUpGaps(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 2, 4, 38, 0, time.UTC)
	inst := func(d time.Duration) *analysis.Fact {
		return &analysis.Fact{Value: float64(at.Add(d).Unix()), Unit: analysis.UnitTime, At: at.Add(d), ResolutionSeconds: 5}
	}
	gap := func(s float64) *analysis.Fact {
		return &analysis.Fact{Value: s, Unit: analysis.UnitSeconds, ResolutionSeconds: 10}
	}
	r := &correlator.Result{}
	r.Autoscaling = []analysis.HPA{{Namespace: "shoong", Name: "order", Deployment: "order", Steps: []analysis.ScaleStep{
		{Direction: "up", From: 2, To: 4, DesiredAt: inst(0), CurrentAt: inst(15 * time.Second), ReadyAt: inst(20 * time.Second), ReadyGap: gap(5)},
		{Direction: "up", From: 4, To: 5, DesiredAt: inst(15 * time.Second), CurrentAt: inst(30 * time.Second), ReadyAt: inst(30 * time.Second), ReadyGap: gap(0)},
		{Direction: "up", From: 5, To: 6, DesiredAt: inst(40 * time.Second), CurrentAt: inst(45 * time.Second), NeverReady: true, ReadyMax: 5},
	}}}
	s, ok := autoscalingSection(r)
	require.True(t, ok)
	var steps *Table
	for i := range s.Tables {
		if strings.Contains(s.Tables[i].Title, "per step") {
			steps = &s.Tables[i]
		}
	}
	require.NotNil(t, steps)
	var gaps []string
	for _, row := range steps.Rows {
		gaps = append(gaps, row[len(row)-1])
	}
	require.Equal(t, []string{"5 s", "< 10 s", "never Ready (reached 5)"}, gaps)
}

// TestLoadChartDrawsEveryAchievedPoint: the achieved line is the http_req_rate series as
// queried, one point per push (issue 12: it is no smoother than the correlator's rate
// window of two pushes, and no later).
func TestLoadChartDrawsEveryAchievedPoint(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var s timeline.Series
	for i := range 24 {
		v := 9.1
		if i >= 12 {
			v = 17.4 // the step to 20 VUs, drawn where it happened
		}
		s.Points = append(s.Points, timeline.Point{T: t0.Add(time.Duration(i) * 5 * time.Second), V: v})
	}
	r := &correlator.Result{Series: map[string]timeline.Set{analysis.QHTTPReqRate: {s}}}
	cs := charts(r)
	require.NotEmpty(t, cs)
	require.Equal(t, "Load: target vs achieved", cs[0].Title)
	require.Len(t, cs[0].Series, 1)
	got := cs[0].Series[0]
	require.Equal(t, "achieved req/s", got.Name)
	require.Len(t, got.Points, len(s.Points))
	for i, p := range s.Points {
		require.Equal(t, Point{T: p.T, V: p.V}, got.Points[i])
	}
}

// TestThrottlingOnsetIsTheFirstHoldThrottledInMostPeriods: the key fact names the hold
// of the workload's StageOnset with every hold's share as its evidence, and the CPU
// section lists the holds and marks the onset. A workload whose holds all stayed under
// the share has no onset ("none" when bursts made a timed onset, nothing when it was not
// throttled); only a load without holds keeps the first timed onset.
func TestThrottlingOnsetIsTheFirstHoldThrottledInMostPeriods(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 2, 4, 38, 0, time.UTC)
	share := func(v float64) *analysis.Fact {
		return &analysis.Fact{Value: v, Unit: analysis.UnitRatio, ResolutionSeconds: 1}
	}
	holds := []analysis.HoldThrottling{
		{Stage: 1, Target: 10, Unit: analysis.UnitVUs, Share: share(0.12), RequestRate: &analysis.Fact{Value: 9.5, Unit: analysis.UnitPerSec}},
		{Stage: 3, Target: 20, Unit: analysis.UnitVUs, Share: share(0.9), RequestRate: &analysis.Fact{Value: 17.8, Unit: analysis.UnitPerSec}},
		{Stage: 5, Target: 30, Unit: analysis.UnitVUs, Share: share(1)},
	}
	timed := []analysis.Onset{{Threshold: 0.05, At: &analysis.Fact{Value: float64(at.Unix()), Unit: analysis.UnitTime, At: at, ResolutionSeconds: 1}}}
	r := &correlator.Result{}
	r.CPU = []analysis.WorkloadCPU{
		{Namespace: "loadtest", Workload: "api", Onsets: timed, Holds: holds, StageOnset: &holds[1], StageOnsetShare: 0.5},
		{Namespace: "loadtest", Workload: "rate", Onsets: timed, StageOnsetShare: 0.5,
			Holds: []analysis.HoldThrottling{{Stage: 1, Target: 50, Unit: analysis.StageUnitIterations, Share: share(0.3)}}},
		{Namespace: "loadtest", Workload: "idle", StageOnsetShare: 0.5,
			Holds: []analysis.HoldThrottling{{Stage: 1, Target: 50, Unit: analysis.StageUnitIterations, Share: share(0.01)}}},
		{Namespace: "loadtest", Workload: "ramp", Onsets: timed, StageOnsetShare: 0.5},
	}
	var got []KeyFact
	for _, k := range keyFacts(r) {
		if strings.HasPrefix(k.Label, "Throttling onset") {
			got = append(got, k)
		}
	}
	require.Equal(t, []KeyFact{
		{Label: "Throttling onset api", Value: "20 VUs (17.8/s)",
			Detail: "first hold throttled in more than 50.00% of its active CFS periods (90.00%); per hold: 10 VUs 12.00%, 20 VUs 90.00%, 30 VUs 100.00%"},
		{Label: "Throttling onset rate", Value: "none",
			Detail: "no hold throttled in more than 50.00% of its active CFS periods; per hold: 50 iterations/s 30.00%"},
		{Label: "Throttling onset ramp (>5%)", Value: "02:04:38", Detail: "throttled > 5% of active CFS periods; ±1 s"},
	}, got)
	s, ok := cpuSection(r)
	require.True(t, ok)
	require.Len(t, s.Tables, 2)
	require.Equal(t, [][]string{
		{"loadtest/api", "10 VUs (9.5/s)", "12.00%", ""},
		{"loadtest/api", "20 VUs (17.8/s)", "90.00%", "onset: over 50.00%"},
		{"loadtest/api", "30 VUs", "100.00%", ""},
		{"loadtest/rate", "50 iterations/s", "30.00%", ""},
		{"loadtest/idle", "50 iterations/s", "1.00%", ""},
	}, s.Tables[1].Rows)
}
