package loadtest

import (
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/threshold"
)

// windows keeps, for every (sub-)metric with a windowed threshold, its cumulative
// aggregate at each live evaluation, as far back as the longest window on it. The
// aggregate of a window is the newest point less the one at the window's start, so
// memory per (sub-)metric is constant: one merged sink per second of its longest
// window, whatever the run's length. It is used from one goroutine at a time (the
// engine's, then the run's after the engine returned).
type windows struct {
	rings map[string]*ring
}

// ring is the kept points of one (sub-)metric, oldest first.
type ring struct {
	key     threshold.Key
	longest time.Duration
	points  []point
}

// point is the cumulative aggregate of a (sub-)metric at an offset from the run start;
// ok is false when it had no samples yet.
type point struct {
	at   time.Duration
	vals aggregate.Values
	ok   bool
}

// newWindows returns the windows of set's windowed thresholds, nil when it has none.
func newWindows(set *threshold.Set) *windows {
	if set == nil || !set.Windowed() {
		return nil
	}
	w := &windows{rings: map[string]*ring{}}
	for _, th := range set.Thresholds() {
		if th.Window <= 0 {
			continue
		}
		id := th.Key.ID()
		r := w.rings[id]
		if r == nil {
			r = &ring{key: *th.Key}
			w.rings[id] = r
		}
		r.longest = max(r.longest, th.Window)
	}
	return w
}

// record adds the aggregates of snap, taken at offset at, and drops the points no
// window needs any more: those before the newest one at or before at-longest (it
// or the next one is the nearest to the longest window's start).
func (w *windows) record(at time.Duration, snap *aggregate.Snapshot) {
	for _, r := range w.rings {
		se, ok := snap.Submetric(r.key.Metric, r.key.Tags)
		r.points = append(r.points, point{at: at, vals: se.Values, ok: ok})
		for len(r.points) > 1 && r.points[1].at <= at-r.longest {
			r.points[0] = point{}
			r.points = r.points[1:]
		}
	}
}

// source returns the WindowFunc of the evaluation at elapsed, which record has just
// seen. A window needs the run to be as old as it, except at the final evaluation,
// when a run shorter than the window is judged as one window.
func (w *windows) source(elapsed time.Duration, final bool) threshold.WindowFunc {
	return func(k *threshold.Key, win time.Duration) (threshold.Source, time.Duration, bool) {
		r := w.rings[k.ID()]
		if r == nil || len(r.points) == 0 {
			return nil, 0, false
		}
		last := r.points[len(r.points)-1]
		start := elapsed - win
		if start < 0 && !final {
			return nil, 0, false
		}
		// The window starts at the kept point nearest its nominal start, or at the
		// run's start (nothing yet): its length is off by at most half the time
		// between two evaluations.
		var base point
		for _, p := range r.points[:len(r.points)-1] {
			if (p.at - start).Abs() < (base.at - start).Abs() {
				base = p
			}
		}
		span := elapsed - base.at
		if !last.ok {
			return nil, span, true
		}
		vals := last.vals
		if base.ok {
			v, err := last.vals.Since(base.vals)
			if err != nil {
				return nil, 0, false // not an earlier state: cannot happen for one store
			}
			vals = v
		}
		return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
			v, err := vals.Threshold(m.String(), span)
			return v, err == nil
		}), span, true
	}
}
