package analysis

import (
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
