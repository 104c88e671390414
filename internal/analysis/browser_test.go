package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// TestBrowserScenarioIsNotLoad: a hybrid run, story 1's spike plus a 1-VU browser
// scenario (constant-vus, k6/browser series with its scenario label) that holds from the
// run's start, is analysed as the spike alone: the browser hold is no stage of the load,
// not the throttling onset (though it is the first hold, and throttled), not the
// capacity's last held stage, and its VU is not counted in the load's VUs; a note names
// it. A run of the browser scenario alone keeps its stage: it is all the load there is.
func TestBrowserScenarioIsNotLoad(t *testing.T) {
	t.Parallel()
	const pageVUs = 3
	build := func(browser bool) *timeline.Timeline {
		tl := spike()
		tl.Sets[QCPUThrottled] = timeline.Set{gen(m("namespace", "shoong", "workload", "order"), t0, endAll, ksmRes, func(time.Duration) float64 { return 0.7 })}
		if browser {
			tl.Sets[QScenarioTarget] = append(timeline.Set{gen(m("scenario", "page", "unit", "vus"), runFrom, runTo, k6Res, func(time.Duration) float64 { return pageVUs })},
				tl.Sets[QScenarioTarget]...)
			tl.Sets[QVUs] = timeline.Set{gen(m(), runFrom, runTo, k6Res, func(d time.Duration) float64 { return spikeTarget(d)/2 + pageVUs })}
			tl.Sets[QBrowserScenarios] = timeline.Set{gen(m("scenario", "page"), runFrom, runTo, k6Res, func(time.Duration) float64 { return 1 })}
		}
		return tl
	}
	want, got := Analyze(build(false), DefaultConfig), Analyze(build(true), DefaultConfig)

	for _, st := range got.Load.Stages {
		require.NotEqual(t, "page", st.Scenario)
	}
	require.Equal(t, want.Load.Stages, got.Load.Stages)
	require.Equal(t, want.Load.Capacity, got.Load.Capacity)
	require.Equal(t, want.Load.PeakVUs, got.Load.PeakVUs)
	require.Equal(t, want.Load.LoadSteps, got.Load.LoadSteps)
	require.Equal(t, want.CPU, got.CPU)
	require.Equal(t, want.Bottleneck, got.Bottleneck)
	require.Len(t, got.CPU, 1)
	onset := got.CPU[0].StageOnset
	require.NotNil(t, onset, "the spike's first hold is throttled in 70%% of its periods")
	require.Equal(t, "iterations_per_second", onset.Unit)
	require.InDelta(t, 10, onset.Target, 0)
	for _, o := range got.CPU[0].Onsets {
		require.NotNil(t, o.Target)
		require.Equal(t, "iterations_per_second", o.Target.Unit, "the browser scenario's VUs are not added to the load's target")
	}
	require.Contains(t, notesText(got.Notes), "browser scenario(s) page left out of the load's stages")

	// The browser scenario alone: its hold is the run's one stage.
	alone := build(true)
	alone.Sets[QScenarioTarget] = alone.Sets[QScenarioTarget][:1]
	a := Analyze(alone, DefaultConfig)
	require.Len(t, a.Load.Stages, 1)
	require.Equal(t, "page", a.Load.Stages[0].Scenario)
	require.Equal(t, timeline.Hold, a.Load.Stages[0].Kind)
}

func notesText(ns []Note) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(n.Text + "\n")
	}
	return b.String()
}
