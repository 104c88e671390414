package analysis

import (
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// counterDeltas turns every counter series of a set into per-interval increases, summed
// on their timestamps. A series that appears inside the span (after from+res) counts its
// first value as increase, since k6 counters start at their first sample. Resets are
// handled as restarts from zero and counted.
func counterDeltas(set timeline.Set, from time.Time, res time.Duration) (deltas []timeline.Point, resets int) {
	sum := map[time.Time]float64{}
	for _, s := range set {
		if len(s.Points) == 0 {
			continue
		}
		if s.Points[0].T.Sub(from) > res {
			sum[s.Points[0].T] += s.Points[0].V
		}
		for i := 1; i < len(s.Points); i++ {
			d := s.Points[i].V - s.Points[i-1].V
			if d < 0 {
				resets++
				d = s.Points[i].V
			}
			sum[s.Points[i].T] += d
		}
	}
	for t, v := range sum {
		deltas = append(deltas, timeline.Point{T: t, V: v})
	}
	sortPoints(deltas)
	return deltas, resets
}

// sumIn sums deltas with from < T <= to.
func sumIn(ds []timeline.Point, w timeline.Window) float64 {
	var s float64
	for _, p := range ds {
		if p.T.After(w.From) && !p.T.After(w.To) {
			s += p.V
		}
	}
	return s
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
