package analysis

import (
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// counterDeltas turns every counter series of a set into per-interval increases
// (timeline.Deltas), summed on their timestamps, and counts the resets. A series whose
// first point is more than res after from was born inside the span and counts its
// first value; one that starts within res of from was already there when the span's
// first step was evaluated.
func counterDeltas(set timeline.Set, from time.Time, res time.Duration) (deltas []timeline.Point, resets int) {
	sum := map[time.Time]float64{}
	for _, s := range set {
		d, r := timeline.Deltas(s, from.Add(res))
		resets += r
		for _, p := range d.Points {
			sum[p.T] += p.V
		}
	}
	for t, v := range sum {
		deltas = append(deltas, timeline.Point{T: t, V: v})
	}
	sortPoints(deltas)
	return deltas, resets
}

// sumIn sums the deltas that fall in w (see deltaIn).
func sumIn(ds []timeline.Point, w timeline.Window) float64 {
	var s float64
	for _, p := range ds {
		if deltaIn(p.T, w) {
			s += p.V
		}
	}
	return s
}

// deltaIn reports whether the delta at t falls in w: it is the increase over the
// interval that ends at t, so it counts when from < t <= to.
func deltaIn(t time.Time, w timeline.Window) bool {
	return t.After(w.From) && !t.After(w.To)
}

// deltaInAny reports whether the delta at t falls in any of ws.
func deltaInAny(t time.Time, ws []timeline.Window) bool {
	return slices.ContainsFunc(ws, func(w timeline.Window) bool { return deltaIn(t, w) })
}

func sortPoints(ps []timeline.Point) {
	slices.SortFunc(ps, func(a, b timeline.Point) int { return a.T.Compare(b.T) })
}

// firstAtOrAfter returns the first point at or after t satisfying ok.
func firstAtOrAfter(ps []timeline.Point, t time.Time, ok func(float64) bool) (timeline.Point, int, bool) {
	for i, p := range ps {
		if !p.T.Before(t) && ok(p.V) {
			return p, i, true
		}
	}
	return timeline.Point{}, -1, false
}

// prevTime returns the time of the point before index i (the other edge of the interval
// in which a transition happened), or the point's own time for the first point.
func prevTime(ps []timeline.Point, i int) time.Time {
	if i <= 0 {
		return ps[max(i, 0)].T
	}
	return ps[i-1].T
}
