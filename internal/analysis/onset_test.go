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
