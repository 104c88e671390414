package analysis

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// TestIncreasesIn: raw pushes 5 s apart, a stage boundary 1 s after a push's stamp —
// the stamp-dated sum gave the whole next push to the second stage; shared by time,
// each stage gets what accrued in it, and the stages' sum is the counter's total.
func TestIncreasesIn(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	run := timeline.Window{From: t0, To: at(15)}
	// 10/s for 10 s, then 40/s; a restart (reset) between the last two pushes.
	set := timeline.Set{{Labels: map[string]string{"status": "200"}, Points: []timeline.Point{
		{T: at(5), V: 50}, {T: at(10), V: 100}, {T: at(15), V: 200},
	}}, {Labels: map[string]string{"status": "503"}, Points: []timeline.Point{
		{T: at(5), V: 5}, {T: at(10), V: 7}, {T: at(15), V: 3},
	}}}
	all := rawIncreases(set, run, 5*time.Second, nil)
	failed := rawIncreases(set, run, 5*time.Second, failedRequest)
	first, second := timeline.Window{From: t0, To: at(11)}, timeline.Window{From: at(11), To: at(15)}
	require.InDelta(t, 50+50+5+2+(100+3)/5.0, all.in(first), 1e-9)
	require.InDelta(t, (100+3)*4/5.0, all.in(second), 1e-9)
	require.InDelta(t, all.in(run), all.in(first)+all.in(second), 1e-9)
	require.InDelta(t, 5+2+3, failed.in(run), 1e-9, "a reset counts the value after it")

	// Deltas off the step grid are dated at their step, as sumIn dates them.
	grid := gridIncreases([]timeline.Point{{T: at(10), V: 4}, {T: at(15), V: 6}})
	require.InDelta(t, 4, grid.in(first), 1e-9)
	require.InDelta(t, 6, grid.in(second), 1e-9)
}

// TestRawIncreasesFirstSample: a counter's first push counts whole, spread over the push
// interval before it but never before the run's start.
func TestRawIncreasesFirstSample(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	run := timeline.Window{From: t0, To: t0.Add(time.Minute)}
	set := timeline.Set{{Points: []timeline.Point{{T: t0.Add(3 * time.Second), V: 30}}}}
	is := rawIncreases(set, run, 5*time.Second, nil)
	require.Equal(t, increases{{From: t0, To: t0.Add(3 * time.Second), V: 30}}, is)
	require.InDelta(t, 10, is.in(timeline.Window{From: t0, To: t0.Add(time.Second)}), 1e-9)
	// A sample at the run's start has no interval: it is dated at its stamp.
	at := rawIncreases(timeline.Set{{Points: []timeline.Point{{T: t0, V: 2}}}}, run, 5*time.Second, nil)
	require.Equal(t, increases{{From: t0, To: t0, V: 2}}, at)
}

// TestFailedRequest mirrors the catalog's http_failures selectors.
func TestFailedRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{"expected_response": "false", "status": "200"}, true},
		{map[string]string{"expected_response": "true", "status": "503"}, false},
		{map[string]string{"status": "0"}, true},
		{map[string]string{"status": "404"}, true},
		{map[string]string{"status": "503"}, true},
		{map[string]string{"status": "200"}, false},
		{map[string]string{"status": "4000"}, false},
		{map[string]string{}, false},
	} {
		require.Equal(t, tc.want, failedRequest(tc.labels), "%v", tc.labels)
	}
}
