package analysis

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// pushed is a series sampled the way remote write pushes it: at the given run offsets.
func pushed(labels map[string]string, from time.Time, at []time.Duration, vs []float64) timeline.Series {
	s := timeline.Series{Labels: labels}
	for i, d := range at {
		s.Points = append(s.Points, timeline.Point{T: from.Add(d), V: vs[i]})
	}
	return s
}

// TestLoadShortRun covers runs of one or two push intervals, as the correlator's step grid
// (aligned on the run's end) sees them: the first push one interval after the start, the
// final push at the end with the target after the run (0) and the counters' final values.
func TestLoadShortRun(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 2, 14, 39, 792e6, time.UTC)
	ms := time.Millisecond
	for _, tc := range []struct {
		name     string
		run      time.Duration
		at       []time.Duration // grid points with samples (the last is the run's end)
		target   []float64
		reqs     []float64
		unit     string
		requests float64
		stages   []timeline.Stage // Scenario and Unit are filled in
		held     []bool
		capacity string
	}{
		{
			name: "10 s at 5 VUs (quick.yaml)", run: 10096 * ms, unit: "vus",
			at: []time.Duration{5096 * ms, 10096 * ms}, target: []float64{5, 0}, reqs: []float64{218, 429},
			requests: 429,
			stages:   []timeline.Stage{{Kind: timeline.Hold, StartTarget: 5, EndTarget: 5}},
			held:     []bool{true},
			capacity: "every stage held",
		},
		{
			name: "shorter than one push interval", run: 3 * time.Second, unit: "vus",
			at: []time.Duration{3 * time.Second}, target: []float64{0}, reqs: []float64{120},
			requests: 120,
			stages:   []timeline.Stage{{Kind: timeline.Hold, StartTarget: 0, EndTarget: 0}},
			held:     []bool{true},
			capacity: "no loaded stages to judge",
		},
		{
			name: "ramp from 0 sampled from its first push", run: 20050 * ms, unit: "iterations_per_second",
			at:     []time.Duration{5 * time.Second, 10 * time.Second, 15 * time.Second, 20 * time.Second, 20050 * ms},
			target: []float64{5, 10, 15, 20, 0}, reqs: []float64{12.5, 50, 112.5, 200, 201},
			requests: 201,
			stages:   []timeline.Stage{{Kind: timeline.RampUp, StartTarget: 0, EndTarget: 20}},
			held:     []bool{true},
			capacity: "every stage held",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := timeline.Window{From: start, To: start.Add(tc.run)}
			sc := map[string]string{"scenario": "default"}
			tl := &timeline.Timeline{
				Run: run, Baseline: timeline.Window{From: start.Add(-5 * time.Minute), To: start},
				After: timeline.Window{From: run.To, To: run.To.Add(time.Second)},
				Step:  5 * time.Second, Resolution: map[string]time.Duration{SourceK6: 5 * time.Second},
				Sets: map[string]timeline.Set{
					QScenarioTarget: {pushed(map[string]string{"scenario": "default", "unit": tc.unit}, start, tc.at, tc.target)},
					QHTTPReqs:       {pushed(sc, start, tc.at, tc.reqs)},
					QIterations:     {pushed(sc, start, tc.at, tc.reqs)},
					QHTTPFailures:   {pushed(sc, start, tc.at, make([]float64, len(tc.at)))},
				},
			}
			load, _, _ := AnalyzeLoad(tl, DefaultConfig)
			require.InDelta(t, tc.requests, load.Requests, 0, "the final push's counter value, not the one before it")
			require.Len(t, load.Stages, len(tc.stages))
			for i, want := range tc.stages {
				st := load.Stages[i]
				require.Equal(t, want.Kind, st.Kind, "stage %d", i)
				require.Equal(t, run, st.Window, "stage %d covers the run", i)
				require.InDelta(t, want.StartTarget, st.StartTarget, 1e-9, "stage %d", i)
				require.InDelta(t, want.EndTarget, st.EndTarget, 1e-9, "stage %d", i)
				require.Equal(t, tc.held[i], st.Held, "stage %d: %s", i, st.Why)
			}
			require.InDelta(t, tc.requests, load.Stages[len(load.Stages)-1].Requests, 0, "every request falls in a stage")
			require.Contains(t, load.Capacity.Text, tc.capacity)
		})
	}
}

// TestLoadStagesOfInstances cuts the stages of one test run as three instances (execution
// segments) that started 0.7 s apart, as the correlator's grid (1 s, aligned on the last
// instance's end) sees their targets: each instance is visible from its first push, one
// interval after its start, to its end. The sum steps up through partial sums at the start
// and down at the end; cut per instance and laid over each other, the stages are the
// script's three: a hold at 30/s, a ramp to 90/s and a hold at 90/s.
func TestLoadStagesOfInstances(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	const instances, length = 3, 10 * time.Second
	stagger := 700 * time.Millisecond
	target := func(d time.Duration) float64 { // one instance's share, d after its start
		switch s := d.Seconds(); {
		case s < 4:
			return 10
		case s < 6:
			return 10 + 10*(s-4)
		default:
			return 30
		}
	}
	run := timeline.Window{From: start, To: start.Add(time.Duration(instances-1)*stagger + length)}
	var sum timeline.Series
	per := timeline.Set{}
	for i := range instances {
		per = append(per, timeline.Series{Labels: map[string]string{"scenario": "load", "unit": "iterations_per_second", "instance_id": strconv.Itoa(i)}})
	}
	for g := run.To.Add(-12 * time.Second); !g.After(run.To); g = g.Add(time.Second) {
		if g.Before(run.From) {
			continue
		}
		var v float64
		var seen bool
		for i := range instances {
			from := start.Add(time.Duration(i) * stagger)
			d := g.Sub(from)
			if d < time.Second || d > length {
				continue // before its first push, or after its final push's stale marker
			}
			push := d.Truncate(time.Second)
			x := target(push)
			if d == length {
				x = 0 // the final push carries the target after the run
			}
			per[i].Points = append(per[i].Points, timeline.Point{T: g, V: x})
			v += x
			seen = true
		}
		if seen {
			sum.Points = append(sum.Points, timeline.Point{T: g, V: v})
		}
	}
	sum.Labels = map[string]string{"scenario": "load", "unit": "iterations_per_second"}
	tlOf := func(instances timeline.Set) *timeline.Timeline {
		return &timeline.Timeline{
			Run: run, Baseline: timeline.Window{From: start.Add(-time.Minute), To: start},
			After: timeline.Window{From: run.To, To: run.To.Add(time.Second)},
			Step:  time.Second, Resolution: map[string]time.Duration{SourceK6: time.Second},
			Sets: map[string]timeline.Set{QScenarioTarget: {sum}, QScenarioTargetInstances: instances},
		}
	}
	load, _, _ := AnalyzeLoad(tlOf(per), DefaultConfig)
	want := []struct {
		kind     timeline.StageKind
		from, to float64
	}{{timeline.Hold, 30, 30}, {timeline.RampUp, 30, 90}, {timeline.Hold, 90, 90}}
	require.Len(t, load.Stages, len(want), "%+v", load.Stages)
	for i, w := range want {
		st := load.Stages[i]
		require.Equal(t, w.kind, st.Kind, "stage %d", i+1)
		require.InDelta(t, w.from, st.StartTarget, 1e-9, "stage %d", i+1)
		require.InDelta(t, w.to, st.EndTarget, 1e-9, "stage %d", i+1)
	}
	// Planned for less than the summed target while some instances had not started
	// (the first hold) or had ended (the last): each instance counts while it ran.
	for i, band := range [][2]float64{{22, 30}, {50, 70}, {70, 90}} {
		require.Greater(t, load.Stages[i].TargetMean, band[0], "stage %d", i+1)
		require.Less(t, load.Stages[i].TargetMean, band[1], "stage %d", i+1)
		require.InDelta(t, load.Stages[i].TargetMean, load.Stages[i].TargetAvg, 1e-9, "stage %d is judged against what was planned", i+1)
	}
	require.Equal(t, run.From, load.Stages[0].From)
	require.Equal(t, run.To, load.Stages[2].To)
	// The middle instance's boundaries, within a grid step.
	mid := start.Add(stagger)
	require.WithinDuration(t, mid.Add(4*time.Second), load.Stages[1].From, time.Second)
	require.WithinDuration(t, mid.Add(6*time.Second), load.Stages[1].To, time.Second)

	// Without the per-instance targets (a catalog from an older version) the sum is cut:
	// the partial sums at the start are a stage of their own.
	load, _, _ = AnalyzeLoad(tlOf(nil), DefaultConfig)
	require.Greater(t, len(load.Stages), len(want), "the sum alone splits the first hold: %+v", load.Stages)
}
