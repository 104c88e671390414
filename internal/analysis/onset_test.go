package analysis

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// TestOnsetIsSustained: a throttled ratio that crosses the threshold for one rate window
// (a burst of CFS periods) is no onset; one that stays above it for onsetSpan is, from
// its first point; a run that stays above it to the end of the window is too.
func TestOnsetIsSustained(t *testing.T) {
	t.Parallel()
	at := func(vs ...float64) []timeline.Point {
		ps := make([]timeline.Point, len(vs))
		for i, v := range vs {
			ps[i] = timeline.Point{T: t0.Add(time.Duration(i) * 5 * time.Second), V: v}
		}
		return ps
	}
	above := func(v float64) bool { return v > 0.25 }
	for _, tc := range []struct {
		name string
		ps   []timeline.Point
		want int // index of the onset, -1 for none
	}{
		{name: "one burst", ps: at(0.1, 0.3, 0.1, 0.1, 0.1), want: -1},
		{name: "two points", ps: at(0.1, 0.3, 0.4, 0.1, 0.1), want: -1},
		{name: "a burst, then sustained", ps: at(0.3, 0.1, 0.3, 0.4, 0.5, 0.6), want: 2},
		{name: "sustained to the end", ps: at(0.1, 0.1, 0.3, 0.3, 0.3), want: 2},
		{name: "never", ps: at(0.1, 0.2, 0.25), want: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, i, ok := sustainedFrom(tc.ps, above)
			require.Equal(t, tc.want >= 0, ok)
			require.Equal(t, tc.want, i)
			if ok {
				require.Equal(t, tc.ps[tc.want], p)
			}
		})
	}
}

// TestStageOnsetIsTheFirstHoldThrottledInMostPeriods: the throttling onset is the first
// hold of the load whose active CFS periods were throttled in more than the threshold's
// share, over the rates whose window lies inside the hold; shares below the limit that
// sit on the 5% and 25% edges (story 3 at 55% of the limit), bursts, and short holds do
// not move it.
func TestStageOnsetIsTheFirstHoldThrottledInMostPeriods(t *testing.T) {
	t.Parallel()
	const (
		ramp = 2 * time.Second
		hold = 16 * time.Second
		res  = time.Second
	)
	wl := m("namespace", "loadtest", "workload", "api")
	type level struct {
		target float64
		hold   time.Duration
		// ratio is the throttled ratio at d into the hold; periods the active periods per second (0: 10).
		ratio   func(d time.Duration) float64
		periods func(d time.Duration) float64
	}
	flat := func(v float64) func(time.Duration) float64 { return func(time.Duration) float64 { return v } }
	// build returns the timeline and the load of a step ramp through levels: a 2 s ramp
	// then the level's hold, the ratio 0 on ramps, scraped every second. A hold's share is
	// read from its points 2 s to 16 s in (15 points).
	build := func(levels []level) (*timeline.Timeline, Load) {
		var load Load
		var thr, periods timeline.Series
		thr.Labels, periods.Labels = wl, wl
		at, prev := t0, 0.0
		add := func(kind timeline.StageKind, d time.Duration, from, to float64, ratio, per func(time.Duration) float64) {
			st := StageFacts{Stage: timeline.Stage{Index: len(load.Stages), Kind: kind, Unit: UnitVUs, StartTarget: from, EndTarget: to,
				Window: timeline.Window{From: at, To: at.Add(d)}}}
			load.Stages = append(load.Stages, st)
			// A rate read at T is over (T−2 s, T]: the stage's values are at its
			// scrapes after its start, up to and including its end.
			for x := res; x <= d; x += res {
				v := 10.0
				if per != nil {
					v = per(x)
				}
				thr.Points = append(thr.Points, timeline.Point{T: at.Add(x), V: ratio(x)})
				periods.Points = append(periods.Points, timeline.Point{T: at.Add(x), V: v})
			}
			at = at.Add(d)
		}
		for _, l := range levels {
			add(timeline.RampUp, ramp, prev, l.target, flat(0), nil)
			add(timeline.Hold, l.hold, l.target, l.target, l.ratio, l.periods)
			prev = l.target
		}
		add(timeline.RampDown, ramp, prev, 0, flat(0), nil)
		load.LoadEnd = at.Add(-ramp)
		tl := &timeline.Timeline{Run: timeline.Window{From: t0, To: at}, Step: res,
			Resolution: map[string]time.Duration{SourceCAdvisor: res, SourceK6: res},
			Sets:       map[string]timeline.Set{QCPUThrottled: {thr}, QCPUCFSPeriods: {periods}}}
		return tl, load
	}
	story3 := func(at10 func(time.Duration) float64) []level {
		return []level{{10, hold, at10, nil}, {20, hold, flat(0.8), nil}, {30, hold, flat(1), nil}, {40, hold, flat(1), nil}}
	}
	for _, tc := range []struct {
		name   string
		levels []level
		want   float64   // the onset's target, 0 for none
		shares []float64 // every hold's share, in order
	}{
		{
			name:   "story 3, 55% of the limit at 10 users on the 5% edge",
			levels: story3(func(d time.Duration) float64 { return []float64{0.04, 0.07}[int(d/res)%2] }),
			want:   20, shares: []float64{(8*0.04 + 7*0.07) / 15, 0.8, 1, 1},
		},
		{
			name: "story 3, a burst of 90% for one rate window at 10 users",
			levels: story3(func(d time.Duration) float64 {
				return map[bool]float64{true: 0.9, false: 0.15}[d >= 8*res && d < 10*res]
			}),
			want: 20, shares: []float64{0.15 + 2*0.75/15, 0.8, 1, 1},
		},
		{
			name: "the first rate window of a hold reaches back into the ramp",
			levels: story3(func(d time.Duration) float64 {
				if d < 2*res {
					return 1
				}
				return 0.2
			}),
			want: 20, shares: []float64{0.2, 0.8, 1, 1},
		},
		{
			name: "weighted by active periods: an idle half of the hold counts for less",
			levels: []level{{10, hold, func(d time.Duration) float64 { return map[bool]float64{true: 0.9, false: 0}[d < hold/2] },
				func(d time.Duration) float64 { return map[bool]float64{true: 10, false: 1}[d < hold/2] }}},
			// 0.9 over 10 periods/s at 2–7 s, 0 over 1 period/s at 8–16 s: 54 ÷ 69 (the
			// plain mean of the ratio is 0.36).
			want: 10, shares: []float64{(6 * 9.0) / (6*10 + 9*1)},
		},
		{
			name:   "a hold of two rate windows has no share",
			levels: []level{{10, hold, flat(0.1), nil}, {20, 3 * res, flat(0.9), nil}, {30, hold, flat(0.7), nil}},
			want:   30, shares: []float64{0.1, 0.7},
		},
		{
			name:   "never throttled in most periods",
			levels: []level{{10, hold, flat(0.1), nil}, {20, hold, flat(0.45), nil}},
			want:   0, shares: []float64{0.1, 0.45},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tl, load := build(tc.levels)
			cfg := DefaultConfig
			cfg.RateWindows = map[string]time.Duration{SourceCAdvisor: 2 * res}
			cpu, _, _ := AnalyzeCPU(tl, load, nil, cfg)
			require.Len(t, cpu, 1)
			c := cpu[0]
			require.InDelta(t, 0.5, c.StageOnsetShare, 0)
			got := make([]float64, len(c.Holds))
			for i, h := range c.Holds {
				got[i] = h.Share.Value
				require.Equal(t, timeline.Hold, load.Stages[h.Stage].Kind)
				require.InDelta(t, load.Stages[h.Stage].EndTarget, h.Target, 0)
				require.Equal(t, load.Stages[h.Stage].To, h.Share.At)
			}
			require.InDeltaSlice(t, tc.shares, got, 1e-9)
			if tc.want == 0 {
				require.Nil(t, c.StageOnset)
				return
			}
			require.NotNil(t, c.StageOnset)
			require.InDelta(t, tc.want, c.StageOnset.Target, 0)
			require.Equal(t, UnitVUs, c.StageOnset.Unit)
		})
	}
}
