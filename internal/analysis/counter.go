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

// increase is a counter's increase over the interval (From, To]: between two of its
// samples. An increase read off the step grid has From equal to To: all of it is dated
// at its step.
type increase struct {
	From, To time.Time
	V        float64
}

// increases are a counter's increases, summed over its series, that stage facts count.
type increases []increase

// gridIncreases are deltas at grid steps (counterDeltas), each dated at its step.
func gridIncreases(ds []timeline.Point) increases {
	out := make(increases, len(ds))
	for i, p := range ds {
		out[i] = increase{From: p.T, To: p.T, V: p.V}
	}
	return out
}

// rawIncreases are the increases between consecutive raw samples of every series of set
// for which keep is true (all when keep is nil). A series' first sample counts whole,
// over the push interval res before it but not before run.From: the raw samples are
// read from the run's start, so a counter's first is everything it counted since the
// start. A reset counts the value after it.
func rawIncreases(set timeline.Set, run timeline.Window, res time.Duration, keep func(map[string]string) bool) increases {
	var out increases
	for _, s := range set {
		if keep != nil && !keep(s.Labels) || len(s.Points) == 0 {
			continue
		}
		first := s.Points[0]
		from := first.T.Add(-res)
		if from.Before(run.From) {
			from = run.From
		}
		if !from.Before(first.T) {
			from = first.T
		}
		out = append(out, increase{From: from, To: first.T, V: first.V})
		for i := 1; i < len(s.Points); i++ {
			d := s.Points[i].V - s.Points[i-1].V
			if d < 0 {
				d = s.Points[i].V
			}
			out = append(out, increase{From: s.Points[i-1].T, To: s.Points[i].T, V: d})
		}
	}
	return out
}

// in sums the increases over w. An increase with an interval counts in proportion to
// the part of it inside w: the counter is taken to rise at a steady rate between two
// samples, so a push whose interval straddles a stage boundary is shared between the
// stages instead of going whole to the one its stamp falls in. One dated at a step
// counts when the step is in w (deltaIn).
func (is increases) in(w timeline.Window) float64 {
	var s float64
	for _, inc := range is {
		if !inc.To.After(inc.From) {
			if deltaIn(inc.To, w) {
				s += inc.V
			}
			continue
		}
		lo, hi := inc.From, inc.To
		if w.From.After(lo) {
			lo = w.From
		}
		if w.To.Before(hi) {
			hi = w.To
		}
		if hi.After(lo) {
			s += inc.V * float64(hi.Sub(lo)) / float64(inc.To.Sub(inc.From))
		}
	}
	return s
}

// failedRequest tells a failed request's series of k6_http_reqs_total by its labels, as
// the catalog's http_failures selects them: expected_response="false", or, without the
// label (k6 without it, responseCallback unset), a status of 0, 4xx or 5xx.
func failedRequest(ls map[string]string) bool {
	switch ls["expected_response"] {
	case "false":
		return true
	case "":
		st := ls["status"]
		return st == "0" || len(st) == 3 && (st[0] == '4' || st[0] == '5') // status=~"0|[45].."
	}
	return false
}

// stageCounter is what a stage's counts of one counter are summed from: the raw samples
// of rawName when the correlator read them (a run k6 made), else the step grid's deltas
// of grid.
func stageCounter(tl *timeline.Timeline, rawName string, match map[string]string, keep func(map[string]string) bool, grid []timeline.Point, res time.Duration) increases {
	raw := tl.Set(rawName)
	if len(match) > 0 {
		raw = raw.Match(match)
	}
	if len(raw) > 0 {
		return rawIncreases(raw, tl.Run, res, keep)
	}
	return gridIncreases(grid)
}
