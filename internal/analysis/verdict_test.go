package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// withThresholds adds tidemark_threshold series to tl, one per "metric|expr|type|contains".
func withThresholds(tl *timeline.Timeline, defs ...[4]string) {
	var set timeline.Set
	for _, d := range defs {
		set = append(set, gen(m("metric", d[0], "threshold", d[1], "type", d[2], "contains", d[3]), runFrom, runTo, k6Res, func(time.Duration) float64 { return 1 }))
	}
	tl.Sets[QThresholds] = set
}

// withStageStat sets one per-stage statistic of key, stage by stage (seconds).
func withStageStat(tl *timeline.Timeline, stages []StageFacts, key, stat string, v func(StageFacts) float64) {
	var s timeline.Series
	for _, st := range stages {
		s.Points = append(s.Points, timeline.Point{T: st.To, V: v(st)})
	}
	tl.Sets[StageStatSet(key, stat)] = timeline.Set{s}
}

func stageAt(t *testing.T, stages []StageFacts, offset time.Duration) StageFacts {
	t.Helper()
	at := runFrom.Add(offset)
	for _, st := range stages {
		if !at.Before(st.From) && at.Before(st.To) {
			return st
		}
	}
	t.Fatalf("no stage at %s", offset)
	return StageFacts{}
}

func TestStageVerdictByRunThresholds(t *testing.T) {
	t.Parallel()
	tl := spike()
	withThresholds(tl,
		[4]string{"http_req_duration", "p(95)<500", "trend", "time"},
		[4]string{"http_req_failed", "rate<0.05", "rate", "default"},
		[4]string{"http_reqs", "count>100", "counter", "default"},
	)
	stages := Analyze(tl, DefaultConfig).Load.Stages
	// p95 0.2 s before the spike, 0.8 s from it until the ramp-down, 0.3 s after.
	withStageStat(tl, stages, "http_req_duration", "p(95)", func(st StageFacts) float64 {
		switch {
		case st.To.Sub(runFrom) <= minutes(2):
			return 0.2
		case st.From.Sub(runFrom) < minutes(7):
			return 0.8
		}
		return 0.3
	})
	a := Analyze(tl, DefaultConfig)
	require.Contains(t, a.Load.VerdictRule, "held when every threshold of the run passes in the stage (http_req_duration: p(95)<500; http_req_failed: rate<0.05; http_reqs: count>100)")

	base := stageAt(t, a.Load.Stages, minutes(1))
	require.True(t, base.Held, base.Why)
	require.Equal(t, "held", base.Why)
	require.Len(t, base.Thresholds, 3)
	for _, o := range base.Thresholds {
		require.True(t, o.Judged && o.Passed, "%+v", o)
	}
	require.InDelta(t, 200, *base.Thresholds[0].Value, 1e-9, "p(95) in ms")

	hold := stageAt(t, a.Load.Stages, minutes(3))
	require.False(t, hold.Held)
	require.Contains(t, hold.Why, "http_req_duration 'p(95)<500' p(95)=800ms")
	require.Contains(t, hold.Why, "http_req_failed 'rate<0.05' rate=", "20% failures from 2 m to 4 m")

	// Capacity: the last stage that held is the baseline; what broke is named.
	require.Contains(t, a.Load.Capacity.Text, "last stage that held: stage 1 (spike, hold at 10 iterations/s)")
	require.Contains(t, a.Load.Capacity.Text, "p(95)=800ms")

	// The ramp-down (2 minutes) is judged on thresholds; 0.3 s passes. The last stage,
	// target 0, has no requests: thresholds pass as in k6 (p95 of nothing is 0, a rate
	// without samples has no value) and count>100 breaks.
	down := stageAt(t, a.Load.Stages, minutes(8))
	require.True(t, down.Held, down.Why)
	idle := stageAt(t, a.Load.Stages, minutes(9)+30*time.Second)
	require.Zero(t, idle.Requests)
	for _, o := range idle.Thresholds {
		switch o.Metric {
		case "http_req_failed":
			require.True(t, o.Passed)
			require.Nil(t, o.Value, "no requests: no rate")
		case "http_reqs":
			require.False(t, o.Passed)
		}
	}
}

func TestStageVerdictEmptyTrendIsZero(t *testing.T) {
	t.Parallel()
	tl := spike()
	withThresholds(tl, [4]string{"http_req_duration", "p(95)<500", "trend", "time"})
	stages := Analyze(tl, DefaultConfig).Load.Stages
	// histogram_quantile over a stage without observations is NaN: k6 gives 0.
	withStageStat(tl, stages, "http_req_duration", "p(95)", func(StageFacts) float64 { return math.NaN() })
	for _, st := range Analyze(tl, DefaultConfig).Load.Stages {
		require.Len(t, st.Thresholds, 1)
		o := st.Thresholds[0]
		require.True(t, o.Judged && o.Passed, "%+v", o)
		require.Zero(t, *o.Value)
	}
}

func TestStageVerdictShortRampNotJudgedOnAchieved(t *testing.T) {
	t.Parallel()
	tl := spike()
	// Iterations lag the target by one push: the 5 s jump to 50/s achieves 10/s.
	tl.Sets[QIterations] = timeline.Set{integrate(m("scenario", "spike"), runFrom, runTo, k6Res, func(d time.Duration) float64 {
		return spikeTarget(max(0, d-k6Res))
	})}
	a := Analyze(tl, DefaultConfig)
	var ramp *StageFacts
	for i, st := range a.Load.Stages {
		if st.Kind == timeline.RampUp {
			ramp = &a.Load.Stages[i]
		}
	}
	require.NotNil(t, ramp)
	require.Less(t, ramp.Duration(), minJudgedRampPushes*k6Res)
	require.NotNil(t, ramp.AchievedRatio)
	require.Less(t, ramp.AchievedRatio.Value, DefaultConfig.StageAchievedOK)
	require.NotContains(t, ramp.Why, "achieved", "a ramp under three pushes is not judged on achieved-vs-target")

	// A hold that lags is.
	tl.Sets[QIterations] = timeline.Set{integrate(m("scenario", "spike"), runFrom, runTo, k6Res, func(d time.Duration) float64 {
		return 0.5 * spikeTarget(d)
	})}
	hold := stageAt(t, Analyze(tl, DefaultConfig).Load.Stages, minutes(4))
	require.Contains(t, hold.Why, "achieved 25/s < 95% of 50/s")
}

func TestStageVerdictDefaultsWithoutThresholds(t *testing.T) {
	t.Parallel()
	a := Analyze(spike(), DefaultConfig)
	require.Contains(t, a.Load.VerdictRule, "the run wrote no thresholds, so the defaults: held when the error rate is ≤ 1%")
	for _, st := range a.Load.Stages {
		require.Empty(t, st.Thresholds)
	}
	require.Regexp(t, `^broke: error rate 9.8\d% > 1% \(default\)$`, stageAt(t, a.Load.Stages, minutes(3)).Why, "about 10%: 20% for 2 of the hold's 5 minutes, 10% for 1")
}

func TestStageVerdictUnjudgedThresholds(t *testing.T) {
	t.Parallel()
	tl := spike()
	withThresholds(tl,
		[4]string{"http_req_duration", "max<1000", "trend", "time"},
		[4]string{"http_req_duration{scenario:other}", "p(95)<100", "trend", "time"},
		[4]string{"checks", "rate>0.9", "rate", "default"},
		[4]string{"http_req_waiting", "p(90)<300", "trend", "time"},
		[4]string{"http_reqs{status:200}", "count>1", "counter", "default"},
		[4]string{"http_req_duration", "p(95)<<500", "trend", "time"},
	)
	a := Analyze(tl, DefaultConfig)
	base := stageAt(t, a.Load.Stages, minutes(1))
	why := map[string]string{}
	for _, o := range base.Thresholds {
		require.False(t, o.Judged, "%+v", o)
		require.NotEqual(t, "http_req_duration{scenario:other}", o.Metric, "another scenario's threshold is left out")
		why[o.Metric+" "+o.Threshold] = o.Why
	}
	require.Len(t, why, 4)
	require.Contains(t, why["http_req_duration max<1000"], "min and max per stage are not in Prometheus")
	require.Contains(t, why["checks rate>0.9"], "not among the metrics read per stage")
	require.Contains(t, why["http_req_waiting p(90)<300"], "no native histogram for http_req_waiting")
	require.Contains(t, why["http_reqs{status:200} count>1"], "read per scenario only")
	require.True(t, base.Held, "unjudged thresholds neither hold nor break a stage: %s", base.Why)
	var texts []string
	for _, n := range a.Notes {
		texts = append(texts, n.Text)
	}
	require.Contains(t, texts, "threshold checks 'rate>0.9' is not judged per stage: checks is not among the metrics read per stage (http_reqs, http_req_failed, iterations, dropped_iterations, vus, trends with native histograms)")
	require.True(t, slicesContainsPrefix(texts, `the run's threshold "p(95)<<500" on "http_req_duration" is not understood`), "%q", texts)
}

func slicesContainsPrefix(ss []string, prefix string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestCapacityLastHeldIsAHold: a ramp that held on the way to a level that broke is a
// transition, not a capacity; the last hold that held is. Without any hold that held,
// the last ramp that did is named.
func TestCapacityLastHeldIsAHold(t *testing.T) {
	t.Parallel()
	st := func(i int, kind timeline.StageKind, from, to float64, held bool) StageFacts {
		return StageFacts{Stage: timeline.Stage{Index: i, Scenario: "s", Unit: "iterations_per_second", Kind: kind, StartTarget: from, EndTarget: to},
			TargetAvg: (from + to) / 2, Held: held, Why: map[bool]string{true: "held", false: "broke: 3 dropped"}[held]}
	}
	c := capacity([]StageFacts{
		st(0, timeline.Hold, 10, 10, true), st(1, timeline.RampUp, 10, 50, true), st(2, timeline.Hold, 50, 50, false), st(3, timeline.RampDown, 50, 0, true),
	})
	require.Equal(t, 0, *c.LastHeld)
	require.Equal(t, 2, *c.FirstBroke)
	require.Equal(t, "last stage that held: stage 1 (s, hold at 10 iterations/s); first that broke: stage 3 (s, hold at 50 iterations/s): 3 dropped", c.Text)

	c = capacity([]StageFacts{st(0, timeline.RampUp, 0, 30, true), st(1, timeline.RampUp, 30, 300, false)})
	require.Equal(t, 0, *c.LastHeld, "only ramps: the last that held")
	require.Equal(t, 1, *c.FirstBroke)
}

// TestWindowsFailed: a windowed threshold is named in the stages in which its series
// says a window failed (1), not in an idle stage of its scenario, not for another
// scenario's key, and not from the run's last push interval (the verdict, not a
// window).
func TestWindowsFailed(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return from.Add(time.Duration(s) * time.Second) }
	series := func(metric string, fail func(s int) bool) timeline.Series {
		out := timeline.Series{Labels: map[string]string{"metric": metric, "threshold": "p(95)<500", "window": "30s"}}
		for s := 0; s <= 60; s += 5 {
			v := 0.0
			if fail(s) {
				v = 1
			}
			out.Points = append(out.Points, timeline.Point{T: at(s), V: v})
		}
		return out
	}
	tl := &timeline.Timeline{Run: timeline.Window{From: from, To: at(60)}, Sets: map[string]timeline.Set{QWindowedFailed: {
		series("http_req_duration", func(s int) bool { return (s >= 20 && s < 30) || s == 55 }),
		series("http_req_duration{scenario:other}", func(int) bool { return true }),
	}}}
	stage := func(a, b int, target float64) *StageFacts {
		return &StageFacts{Stage: timeline.Stage{Scenario: "spike", Window: timeline.Window{From: at(a), To: at(b)}, StartTarget: target, EndTarget: target}}
	}
	require.Empty(t, windowsFailed(tl, stage(0, 20, 10), 5*time.Second))
	require.Equal(t, []string{"http_req_duration 'p(95)<500' over 30s"}, windowsFailed(tl, stage(20, 40, 10), 5*time.Second))
	require.Empty(t, windowsFailed(tl, stage(20, 40, 0), 5*time.Second), "its scenario was idle")
	require.Empty(t, windowsFailed(tl, stage(40, 60, 10), 5*time.Second), "the last push interval carries the verdict")
	require.Equal(t, []string{"http_req_duration 'p(95)<500' over 30s"}, windowsFailed(tl, stage(40, 60, 10), 0), "read without the guard")
}
