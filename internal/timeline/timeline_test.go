package timeline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func pts(step time.Duration, vals ...float64) []Point {
	out := make([]Point, len(vals))
	for i, v := range vals {
		out[i] = Point{T: t0.Add(time.Duration(i) * step), V: v}
	}
	return out
}

func TestStages(t *testing.T) {
	t.Parallel()
	type st struct {
		kind     StageKind
		from, to int // point indexes
		a, b     float64
	}
	for _, tc := range []struct {
		name string
		vals []float64
		unit string
		want []st
	}{
		{name: "empty"},
		{name: "single point", vals: []float64{5}, want: []st{{Hold, 0, 0, 5, 5}}},
		{name: "hold", vals: []float64{10, 10, 10, 10}, want: []st{{Hold, 0, 3, 10, 10}}},
		{
			name: "ramp hold ramp-down",
			vals: []float64{0, 5, 10, 10, 10, 5, 0},
			want: []st{{RampUp, 0, 2, 0, 10}, {Hold, 2, 4, 10, 10}, {RampDown, 4, 6, 10, 0}},
		},
		{
			name: "spike is a one-interval ramp",
			vals: []float64{10, 10, 10, 50, 50, 50},
			want: []st{{Hold, 0, 2, 10, 10}, {RampUp, 2, 3, 10, 50}, {Hold, 3, 5, 50, 50}},
		},
		{
			name: "whole VUs jitter on a ramp",
			vals: []float64{0, 1, 3, 4, 6, 7, 9, 10, 10, 10},
			unit: "vus",
			want: []st{{RampUp, 0, 7, 0, 10}, {Hold, 7, 9, 10, 10}},
		},
		{
			name: "two ramps of different slope",
			vals: []float64{0, 10, 20, 30, 35, 40, 45},
			want: []st{{RampUp, 0, 3, 0, 30}, {RampUp, 3, 6, 30, 45}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tol := 0.01 * 50
			if tc.unit == "vus" {
				tol = 1
			}
			got := Stages(Series{Points: pts(time.Second, tc.vals...)}, "s", tc.unit, tol)
			require.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				require.Equal(t, i, got[i].Index)
				require.Equal(t, w.kind, got[i].Kind, "stage %d", i)
				require.Equal(t, t0.Add(time.Duration(w.from)*time.Second), got[i].From, "stage %d from", i)
				require.Equal(t, t0.Add(time.Duration(w.to)*time.Second), got[i].To, "stage %d to", i)
				require.InDelta(t, w.a, got[i].StartTarget, 1e-9)
				require.InDelta(t, w.b, got[i].EndTarget, 1e-9)
			}
		})
	}
}

func TestDeltas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		vals       []float64
		start      time.Duration // the window's start, from the first point
		want       float64
		wantResets int
	}{
		{name: "empty"},
		{name: "monotonic", vals: []float64{1, 4, 9}, want: 8},
		{name: "one reset", vals: []float64{10, 20, 3, 8}, want: 10 + 3 + 5, wantResets: 1},
		{name: "reset to zero", vals: []float64{5, 0, 2}, want: 2, wantResets: 1},
		{name: "there before the start", vals: []float64{7, 9}, start: time.Second, want: 2},
		// Regression: k6 creates a counter at its first sample, so a series born after
		// the window's start counts its first value (Increase, deleted, left it out).
		{name: "born after the start", vals: []float64{7, 9}, start: -time.Second, want: 9},
		{name: "born after the start, one point", vals: []float64{4}, start: -time.Second, want: 4},
		{name: "born after the start, reset", vals: []float64{4, 6, 1}, start: -time.Second, want: 4 + 2 + 1, wantResets: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, resets := Deltas(Series{Points: pts(time.Second, tc.vals...)}, t0.Add(tc.start))
			var sum float64
			for _, p := range d.Points {
				sum += p.V
			}
			require.InDelta(t, tc.want, sum, 1e-9)
			require.Equal(t, tc.wantResets, resets)
		})
	}
}

func TestAtAndBetween(t *testing.T) {
	t.Parallel()
	s := Series{Points: []Point{{T: t0, V: 1}, {T: t0.Add(10 * time.Second), V: 2}, {T: t0.Add(60 * time.Second), V: 3}}}
	for _, tc := range []struct {
		name   string
		at     time.Duration
		maxAge time.Duration
		want   float64
		ok     bool
	}{
		{name: "before first", at: -time.Second},
		{name: "exact", at: 10 * time.Second, want: 2, ok: true},
		{name: "between", at: 30 * time.Second, want: 2, ok: true},
		{name: "stale", at: 30 * time.Second, maxAge: 15 * time.Second},
		{name: "after last", at: time.Hour, want: 3, ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, ok := s.At(t0.Add(tc.at), tc.maxAge)
			require.Equal(t, tc.ok, ok)
			require.InDelta(t, tc.want, v, 0)
		})
	}
	require.Len(t, s.Between(Window{From: t0.Add(5 * time.Second), To: t0.Add(60 * time.Second)}), 2)
	require.Empty(t, s.Between(Window{From: t0.Add(11 * time.Second), To: t0.Add(59 * time.Second)}))
}

func TestGapsAndInterval(t *testing.T) {
	t.Parallel()
	s := Series{Points: append(pts(15*time.Second, 1, 1, 1), Point{T: t0.Add(120 * time.Second), V: 1})}
	w := Window{From: t0, To: t0.Add(150 * time.Second)}
	require.Equal(t, []Window{{From: t0.Add(30 * time.Second), To: t0.Add(120 * time.Second)}, {From: t0.Add(120 * time.Second), To: t0.Add(150 * time.Second)}}, Gaps(s, w, 20*time.Second))
	d, ok := MedianInterval(s.Points)
	require.True(t, ok)
	require.Equal(t, 15*time.Second, d)
	_, ok = MedianInterval(s.Points[:1])
	require.False(t, ok)
}

func TestSetSumAndMatch(t *testing.T) {
	t.Parallel()
	a := Series{Labels: map[string]string{"pod": "a", "ns": "x"}, Points: pts(time.Second, 1, 2, 3)}
	b := Series{Labels: map[string]string{"pod": "b", "ns": "x"}, Points: pts(time.Second, 10, 20)}
	set := Set{a, b}
	sum := set.Sum(0)
	require.Equal(t, []float64{11, 22, 23}, []float64{sum.Points[0].V, sum.Points[1].V, sum.Points[2].V})
	require.Len(t, set.Match(map[string]string{"ns": "x"}), 2)
	require.Equal(t, "b", set.Match(map[string]string{"pod": "b"}).First().Label("pod"))
	require.True(t, set.Match(map[string]string{"pod": "c"}).First().Empty())
	require.Equal(t, `m{a="1", b="2"}`, LabelString(map[string]string{"__name__": "m", "b": "2", "a": "1"}))
}
