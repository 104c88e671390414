package query

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

func TestToSet(t *testing.T) {
	t.Parallel()
	ts := model.TimeFromUnix(1700000000)
	at := ts.Time().UTC()
	for _, tc := range []struct {
		name string
		in   model.Value
		want timeline.Set
	}{
		{name: "nil", in: nil},
		{
			name: "matrix drops NaN and Inf",
			in: model.Matrix{
				{Metric: model.Metric{"pod": "a"}, Values: []model.SamplePair{{Timestamp: ts, Value: 1}, {Timestamp: ts + 15000, Value: model.SampleValue(math.NaN())}, {Timestamp: ts + 30000, Value: model.SampleValue(math.Inf(1))}}},
				{Metric: model.Metric{"pod": "b"}, Values: []model.SamplePair{{Timestamp: ts, Value: model.SampleValue(math.NaN())}}},
			},
			want: timeline.Set{{Labels: map[string]string{"pod": "a"}, Points: []timeline.Point{{T: at, V: 1}}}},
		},
		{
			name: "vector sorted by labels",
			in:   model.Vector{{Metric: model.Metric{"pod": "b"}, Timestamp: ts, Value: 2}, {Metric: model.Metric{"pod": "a"}, Timestamp: ts, Value: 1}},
			want: timeline.Set{
				{Labels: map[string]string{"pod": "a"}, Points: []timeline.Point{{T: at, V: 1}}},
				{Labels: map[string]string{"pod": "b"}, Points: []timeline.Point{{T: at, V: 2}}},
			},
		},
		{name: "scalar", in: &model.Scalar{Timestamp: ts, Value: 3}, want: timeline.Set{{Labels: map[string]string{}, Points: []timeline.Point{{T: at, V: 3}}}}},
		{name: "NaN scalar", in: &model.Scalar{Timestamp: ts, Value: model.SampleValue(math.NaN())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ToSet(tc.in)
			require.NoError(t, err)
			if len(tc.want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
	_, err := ToSet(&model.String{Value: "x"})
	require.ErrorContains(t, err, "unsupported result type")
}

func TestStepGrid(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 2, 9, 39, 792e6, time.UTC)
	end := t0.Add(5*time.Minute + 10096*time.Millisecond) // a run's final push
	for _, tc := range []struct {
		name     string
		w        timeline.Window
		step     time.Duration
		wantStep time.Duration
		wantFrom time.Time
	}{
		{name: "the end lands on the grid", w: timeline.Window{From: t0, To: end.Add(time.Minute)}, step: 5 * time.Second, wantStep: 5 * time.Second, wantFrom: end.Add(-63 * 5 * time.Second)},
		{name: "already on the grid", w: timeline.Window{From: end.Add(-time.Minute), To: end}, step: 5 * time.Second, wantStep: 5 * time.Second, wantFrom: end.Add(-time.Minute)},
		{name: "a step coarser than the window", w: timeline.Window{From: end.Add(-10 * time.Second), To: end.Add(time.Second)}, step: time.Minute, wantStep: time.Minute, wantFrom: end.Add(-time.Minute)},
		{name: "sub-second steps run at a second", w: timeline.Window{From: t0, To: end}, step: 100 * time.Millisecond, wantStep: time.Second, wantFrom: end.Add(-311 * time.Second)},
		// A measured 1.001 s push interval: Prometheus would parse "1.001" as
		// 1000999999 ns and evaluate every 1000 ms, off the aligned grid.
		{name: "whole seconds, which Prometheus parses exactly", w: timeline.Window{From: end.Add(-6 * time.Second), To: end}, step: 1000999999 * time.Nanosecond, wantStep: time.Second, wantFrom: end.Add(-6 * time.Second)},
		{name: "widened under the points limit, with room to align", w: timeline.Window{From: t0, To: t0.Add(30 * 24 * time.Hour)}, step: 15 * time.Second, wantStep: 236 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			step := EffectiveStep(tc.w, tc.step)
			require.Equal(t, tc.wantStep, step)
			at := end
			if tc.w.To.Before(at) {
				at = tc.w.To
			}
			w := AlignEnd(tc.w, at, step)
			require.Equal(t, tc.w.To, w.To)
			require.False(t, w.From.After(tc.w.From))
			require.Less(t, tc.w.From.Sub(w.From), step)
			require.Zero(t, at.Sub(w.From)%step, "the end is a step")
			require.LessOrEqual(t, int(w.Duration()/step), maxPoints-1)
			if !tc.wantFrom.IsZero() {
				require.Equal(t, tc.wantFrom, w.From)
			}
		})
	}
}
