// Package timeline is the correlation model: the run's window, the query step, the series
// aligned on one time axis and the stages of the load. It is pure: no I/O, no clocks.
package timeline

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Point is one sample: a time and a value.
type Point struct {
	T time.Time `json:"t"`
	V float64   `json:"v"`
}

// Series is one labelled series, its points sorted by time.
type Series struct {
	Labels map[string]string `json:"labels"`
	Points []Point           `json:"points"`
}

// Label returns the value of the label name, or "" when it is absent.
func (s Series) Label(name string) string { return s.Labels[name] }

// String returns the label set in PromQL notation, sorted by label name, for evidence.
func (s Series) String() string {
	return LabelString(s.Labels)
}

// LabelString renders labels as {a="1", b="2"} with the metric name (__name__) in front.
func LabelString(ls map[string]string) string {
	keys := make([]string, 0, len(ls))
	for k := range ls {
		if k != "__name__" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(ls["__name__"])
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteString(`="`)
		b.WriteString(ls[k])
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// Empty reports whether the series has no points.
func (s Series) Empty() bool { return len(s.Points) == 0 }

// At returns the value of the last point at or before t that is not older than maxAge
// (the staleness allowance; 0 means no limit).
func (s Series) At(t time.Time, maxAge time.Duration) (float64, bool) {
	i := sort.Search(len(s.Points), func(i int) bool { return s.Points[i].T.After(t) })
	if i == 0 {
		return 0, false
	}
	p := s.Points[i-1]
	if maxAge > 0 && t.Sub(p.T) > maxAge {
		return 0, false
	}
	return p.V, true
}

// Between returns the points with from <= T <= to. The slice aliases the series.
func (s Series) Between(w Window) []Point {
	lo := sort.Search(len(s.Points), func(i int) bool { return !s.Points[i].T.Before(w.From) })
	hi := sort.Search(len(s.Points), func(i int) bool { return s.Points[i].T.After(w.To) })
	if lo >= hi {
		return nil
	}
	return s.Points[lo:hi]
}

// Stats summarises points: min, max and mean; ok is false without points.
func Stats(ps []Point) (minV, maxV, mean float64, ok bool) {
	if len(ps) == 0 {
		return 0, 0, 0, false
	}
	minV, maxV = math.Inf(1), math.Inf(-1)
	var sum float64
	for _, p := range ps {
		minV = min(minV, p.V)
		maxV = max(maxV, p.V)
		sum += p.V
	}
	return minV, maxV, sum / float64(len(ps)), true
}

// ArgMax returns the point with the largest value (the first one on ties).
func ArgMax(ps []Point) (Point, bool) {
	if len(ps) == 0 {
		return Point{}, false
	}
	best := ps[0]
	for _, p := range ps[1:] {
		if p.V > best.V {
			best = p
		}
	}
	return best, true
}

// Deltas turns a counter into per-interval increases: the point at T holds the increase
// since the previous point, so the sum over a window is the counter's increase in it.
// It is the one counter rule of the correlation, and it returns how many resets it saw.
//
// A drop is a counter reset, as in Prometheus' increase(): the counter restarted from
// zero, so the new value is all increase.
//
// The first point is the baseline, as in increase(), unless the series was born after
// start. k6 creates a counter at its first sample, with no zero sample before it, so
// a series that first appears after start (an instance that began, a scenario that
// started later) counted all of its first value after start: that point holds its
// whole value. Prometheus' increase() estimates the same by extrapolating such a
// series back towards zero; here the contract is known, so it is exact. A series
// already there at start has history before the window, which is not counted.
func Deltas(s Series, start time.Time) (deltas Series, resets int) {
	out := Series{Labels: s.Labels, Points: make([]Point, 0, len(s.Points))}
	if len(s.Points) > 0 && s.Points[0].T.After(start) {
		out.Points = append(out.Points, s.Points[0])
	}
	for i := 1; i < len(s.Points); i++ {
		d := s.Points[i].V - s.Points[i-1].V
		if d < 0 {
			resets++
			d = s.Points[i].V
		}
		out.Points = append(out.Points, Point{T: s.Points[i].T, V: d})
	}
	return out, resets
}

// MedianInterval returns the median spacing of the points, the best estimate of a
// source's scrape interval; ok is false with fewer than two points.
func MedianInterval(ps []Point) (time.Duration, bool) {
	if len(ps) < 2 {
		return 0, false
	}
	ds := make([]time.Duration, 0, len(ps)-1)
	for i := 1; i < len(ps); i++ {
		ds = append(ds, ps[i].T.Sub(ps[i-1].T))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], true
}

// Gaps returns the holes in a series inside w: spans longer than maxGap without a point.
func Gaps(s Series, w Window, maxGap time.Duration) []Window {
	var out []Window
	prev := w.From
	for _, p := range s.Between(w) {
		if p.T.Sub(prev) > maxGap {
			out = append(out, Window{From: prev, To: p.T})
		}
		prev = p.T
	}
	if w.To.Sub(prev) > maxGap {
		out = append(out, Window{From: prev, To: w.To})
	}
	return out
}

// Set is the result of one query: several series.
type Set []Series

// Match returns the series whose labels include every pair in m.
func (s Set) Match(m map[string]string) Set {
	var out Set
outer:
	for _, ser := range s {
		for k, v := range m {
			if ser.Labels[k] != v {
				continue outer
			}
		}
		out = append(out, ser)
	}
	return out
}

// First returns the first series, or an empty one.
func (s Set) First() Series {
	if len(s) == 0 {
		return Series{}
	}
	return s[0]
}

// Sum adds the series point-wise on the union of their timestamps; each series
// contributes its last value not older than maxAge.
func (s Set) Sum(maxAge time.Duration) Series {
	if len(s) == 1 {
		return s[0]
	}
	var ts []time.Time
	for _, ser := range s {
		for _, p := range ser.Points {
			ts = append(ts, p.T)
		}
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	ts = slices.CompactFunc(ts, func(a, b time.Time) bool { return a.Equal(b) })
	out := Series{Labels: map[string]string{}}
	for _, t := range ts {
		var sum float64
		for _, ser := range s {
			if v, ok := ser.At(t, maxAge); ok {
				sum += v
			}
		}
		out.Points = append(out.Points, Point{T: t, V: sum})
	}
	return out
}

// Window is a closed time interval.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Duration is To − From.
func (w Window) Duration() time.Duration { return w.To.Sub(w.From) }

// Contains reports whether From <= t <= To.
func (w Window) Contains(t time.Time) bool { return !t.Before(w.From) && !t.After(w.To) }

// Overlap returns the length of the intersection of w and o.
func (w Window) Overlap(o Window) time.Duration {
	from, to := w.From, w.To
	if o.From.After(from) {
		from = o.From
	}
	if o.To.Before(to) {
		to = o.To
	}
	if to.Before(from) {
		return 0
	}
	return to.Sub(from)
}

// Timeline holds every queried series of one run on one time axis.
type Timeline struct {
	// Run is the load test's own window (first to last sample of its run-info series).
	Run Window
	// Baseline is the quiet window before the run.
	Baseline Window
	// After is the cool-down window after the run in which scale-in is observed.
	After Window
	// Step is the base query step.
	Step time.Duration
	// Sets holds the query results by catalog query name.
	Sets map[string]Set
	// Resolution holds each source's sample interval by source name.
	Resolution map[string]time.Duration
	// Queries holds the rendered expression of each query, for evidence.
	Queries map[string]string
}

// Span is the whole observed window: baseline start to the end of the cool-down.
func (tl *Timeline) Span() Window {
	w := Window{From: tl.Baseline.From, To: tl.After.To}
	if w.From.IsZero() || tl.Run.From.Before(w.From) {
		w.From = tl.Run.From
	}
	if w.To.IsZero() || tl.Run.To.After(w.To) {
		w.To = tl.Run.To
	}
	return w
}

// Set returns the result of a query by name (nil when it was not run or is empty).
func (tl *Timeline) Set(name string) Set { return tl.Sets[name] }

// Res returns a source's resolution, or the step when unknown.
func (tl *Timeline) Res(source string) time.Duration {
	if r, ok := tl.Resolution[source]; ok && r > 0 {
		return r
	}
	return tl.Step
}

// StageKind tells a stage's shape.
type StageKind string

// Stage kinds.
const (
	Hold     StageKind = "hold"
	RampUp   StageKind = "ramp-up"
	RampDown StageKind = "ramp-down"
)

// Stage is one piece of a scenario's target with a constant slope: a hold or a ramp.
type Stage struct {
	Index    int       `json:"index"`
	Scenario string    `json:"scenario"`
	Unit     string    `json:"unit"`
	Kind     StageKind `json:"kind"`
	Window
	StartTarget float64 `json:"start_target"`
	EndTarget   float64 `json:"end_target"`
	// TargetMean, when set, is the mean target over the stage's window as the run's
	// instances were scheduled: a stage of a run spread over instances that started or
	// ended apart is planned for less than its summed target while some of them were not
	// running. Zero means the mean of StartTarget and EndTarget.
	TargetMean float64 `json:"target_mean,omitempty"`
	// Inferred tells that the stage was inferred from what the run achieved (its request
	// rate or VUs), not read from a configured target: its targets are achieved levels.
	Inferred bool `json:"inferred"`
}

// Stages cuts a target series into pieces of constant slope. A point belongs to the
// current piece while it lies within tol of the straight line from the piece's first
// point to the candidate end; tol absorbs quantised targets such as whole VUs.
func Stages(target Series, scenario, unit string, tol float64) []Stage {
	ps := target.Points
	if len(ps) == 0 {
		return nil
	}
	if len(ps) == 1 {
		return []Stage{{Scenario: scenario, Unit: unit, Kind: Hold, Window: Window{From: ps[0].T, To: ps[0].T}, StartTarget: ps[0].V, EndTarget: ps[0].V}}
	}
	fits := func(s, e int) bool {
		a, b := ps[s], ps[e]
		span := b.T.Sub(a.T).Seconds()
		for i := s + 1; i < e; i++ {
			want := a.V + (b.V-a.V)*ps[i].T.Sub(a.T).Seconds()/span
			if math.Abs(ps[i].V-want) > tol {
				return false
			}
		}
		return true
	}
	var out []Stage
	start := 0
	for start < len(ps)-1 {
		end := start + 1
		for end+1 < len(ps) && fits(start, end+1) {
			end++
		}
		a, b := ps[start], ps[end]
		kind := Hold
		switch {
		case b.V-a.V > tol:
			kind = RampUp
		case a.V-b.V > tol:
			kind = RampDown
		}
		st := Stage{Scenario: scenario, Unit: unit, Kind: kind, Window: Window{From: a.T, To: b.T}, StartTarget: a.V, EndTarget: b.V}
		// Merge a hold into the previous hold at the same level (sampling jitter).
		if n := len(out); n > 0 && kind == Hold && out[n-1].Kind == Hold && math.Abs(out[n-1].EndTarget-b.V) <= tol {
			out[n-1].To = b.T
		} else {
			out = append(out, st)
		}
		start = end
	}
	for i := range out {
		out[i].Index = i
	}
	return out
}

// SortSeries orders series by their label string, for deterministic output.
func SortSeries(s Set) {
	slices.SortFunc(s, func(a, b Series) int { return cmp.Compare(a.String(), b.String()) })
}
