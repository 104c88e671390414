package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/timeline"
)

// maxPoints is Prometheus' limit of points per series in one range query (11,000);
// the step is widened to stay under it.
const maxPoints = 11000

// Runner renders catalog queries for a run and converts results into timeline sets.
type Runner struct {
	q      Querier
	cat    *Catalog
	logger *slog.Logger
}

// NewRunner returns a Runner over q.
func NewRunner(q Querier, cat *Catalog, logger *slog.Logger) *Runner {
	return &Runner{q: q, cat: cat, logger: logger}
}

// Error is a failed query, with the expression that failed.
type Error struct {
	Query string
	Expr  string
	Err   error
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("query %s (%s): %v", e.Query, e.Expr, e.Err) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Result is one query's outcome.
type Result struct {
	Name     string
	Expr     string
	Set      timeline.Set
	Warnings []string
}

// Range runs a catalog query over w. step is widened when w would exceed Prometheus'
// points limit; the source's lag extends the end.
func (r *Runner) Range(ctx context.Context, name string, v Vars, w timeline.Window, step time.Duration) (Result, error) {
	q, ok := r.cat.Queries[name]
	if !ok {
		return Result{}, fmt.Errorf("run query %q: not in the catalog", name)
	}
	expr, err := r.cat.Render(name, v)
	if err != nil {
		return Result{}, err
	}
	w.To = w.To.Add(time.Duration(r.cat.Sources[q.Source].Lag))
	return r.RangeExpr(ctx, name, expr, w, step)
}

// EffectiveStep is the step a range query over w runs at: whole seconds, at least one,
// widened when w would exceed Prometheus' points limit (with room for one more
// step, so a caller may move w.From back by less than a step to align the grid).
func EffectiveStep(w timeline.Window, step time.Duration) time.Duration {
	// The API takes a step as float seconds and Prometheus truncates its product with
	// 1e9 to milliseconds: "1.001" evaluates every 1000 ms, off the grid AlignEnd
	// computed, and the run's end is missed. Whole seconds survive the trip.
	step = max(step.Round(time.Second), time.Second)
	if n := w.Duration() / step; n > maxPoints-2 {
		step = time.Duration(math.Ceil(float64(w.Duration())/(maxPoints-2)/float64(time.Second))) * time.Second
	}
	return step
}

// AlignEnd moves w.From back (by less than a step) so that at, inside w, falls on the
// step grid of a range query over w: Prometheus evaluates at From, From+step, …, and a
// sample stamped at `at` followed by a stale marker is visible only at a step at `at`
// itself. The step must be EffectiveStep's.
func AlignEnd(w timeline.Window, at time.Time, step time.Duration) timeline.Window {
	if step <= 0 || at.Before(w.From) {
		return w
	}
	n := (at.Sub(w.From) + step - 1) / step
	w.From = at.Add(-n * step)
	return w
}

// RangeExpr runs an already rendered expression over w.
func (r *Runner) RangeExpr(ctx context.Context, name, expr string, w timeline.Window, step time.Duration) (Result, error) {
	step = EffectiveStep(w, step)
	start := time.Now()
	val, warns, err := r.q.QueryRange(ctx, expr, v1.Range{Start: w.From, End: w.To, Step: step})
	r.logger.Debug("Range query", "query", name, "duration_seconds", time.Since(start).Seconds(), "err", err)
	return result(name, expr, val, warns, err)
}

// Instant runs a catalog query at ts.
func (r *Runner) Instant(ctx context.Context, name string, v Vars, ts time.Time) (Result, error) {
	expr, err := r.cat.Render(name, v)
	if err != nil {
		return Result{}, err
	}
	return r.InstantExpr(ctx, name, expr, ts)
}

// InstantExpr runs an already rendered expression at ts.
func (r *Runner) InstantExpr(ctx context.Context, name, expr string, ts time.Time) (Result, error) {
	start := time.Now()
	val, warns, err := r.q.Query(ctx, expr, ts)
	r.logger.Debug("Instant query", "query", name, "duration_seconds", time.Since(start).Seconds(), "err", err)
	return result(name, expr, val, warns, err)
}

// result converts a query's answer into a Result; a failed query or an unsupported
// result becomes an *Error naming the expression.
func result(name, expr string, val model.Value, warns v1.Warnings, err error) (Result, error) {
	if err != nil {
		return Result{}, &Error{Query: name, Expr: expr, Err: err}
	}
	set, err := ToSet(val)
	if err != nil {
		return Result{}, &Error{Query: name, Expr: expr, Err: err}
	}
	return Result{Name: name, Expr: expr, Set: set, Warnings: warns}, nil
}

// ErrNoSamples means a probe found too few raw samples to measure an interval.
var ErrNoSamples = errors.New("too few samples to measure the scrape interval")

// Samples returns the raw samples of a source's probe selector in (ts-lookback, ts],
// with their own timestamps. Unlike an instant or range query's steps, a range selector
// never hides a sample behind the stale marker that follows it (remote write sends one
// 1 ms after a run's final push). A lookback of zero evaluates the plain selector at ts:
// the series still visible then (none once stale markers ended them).
func (r *Runner) Samples(ctx context.Context, source string, v Vars, ts time.Time, lookback time.Duration) (timeline.Set, error) {
	probe, err := r.cat.RenderProbe(source, v)
	if err != nil {
		return nil, err
	}
	expr := probe
	if lookback > 0 {
		expr = fmt.Sprintf("%s[%s]", probe, model.Duration(max(lookback.Round(time.Millisecond), time.Millisecond)))
	}
	res, err := r.InstantExpr(ctx, "probe/"+source, expr, ts)
	if err != nil {
		return nil, err
	}
	return res.Set, nil
}

// MeasureInterval measures a source's sample interval: the median spacing of the raw
// samples its probe selector returns over lookback ending at ts.
func (r *Runner) MeasureInterval(ctx context.Context, source string, v Vars, ts time.Time, lookback time.Duration) (time.Duration, error) {
	c, err := r.MeasureCadence(ctx, source, v, ts, lookback)
	return c.Interval, err
}

// Cadence is when a source samples: every Interval, one sample of it stamped Last.
type Cadence struct {
	Interval time.Duration
	Last     time.Time
}

// MeasureCadence measures a source's sample interval as [Runner.MeasureInterval] does,
// and the time of the last raw sample of the series it measured it on: a grid of range
// queries through that time (plus multiples of the interval) reads each of that series'
// samples at the moment it was taken.
func (r *Runner) MeasureCadence(ctx context.Context, source string, v Vars, ts time.Time, lookback time.Duration) (Cadence, error) {
	lookback = max(lookback.Round(time.Second), time.Minute)
	lookback += time.Duration(r.cat.Sources[source].Lag)
	set, err := r.Samples(ctx, source, v, ts, lookback)
	if err != nil {
		return Cadence{}, err
	}
	if c, ok := cadenceOf(set); ok {
		return c, nil
	}
	// No probe series (kube-state-metrics without an HPA): the source's other metrics
	// are scraped at the same interval. Assuming the catalog's would put its range
	// queries on a coarser grid and date its changes late (an OOM kill 12 s late).
	probe, ok, err := r.cat.RenderDiscoverProbe(source, v)
	if err != nil || !ok {
		return Cadence{}, cmp.Or(err, ErrNoSamples)
	}
	res, err := r.InstantExpr(ctx, "probe/"+source, fmt.Sprintf("%s[%s]", probe, model.Duration(lookback)), ts)
	if err != nil {
		return Cadence{}, err
	}
	if c, ok := cadenceOf(res.Set); ok {
		return c, nil
	}
	return Cadence{}, ErrNoSamples
}

// cadenceOf is the cadence of the first series of set with an interval.
func cadenceOf(set timeline.Set) (Cadence, bool) {
	for _, s := range set {
		if d, ok := timeline.MedianInterval(s.Points); ok {
			return Cadence{Interval: d, Last: s.Points[len(s.Points)-1].T}, true
		}
	}
	return Cadence{}, false
}

// ToSet converts a query result (matrix, vector or scalar) into a timeline set. NaN and
// infinite values (0/0 ratios of idle pods, quantiles without observations) are dropped:
// missing data never becomes a number. Series left without points are dropped too.
func ToSet(v model.Value) (timeline.Set, error) {
	finite := func(f model.SampleValue) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }
	switch m := v.(type) {
	case model.Matrix:
		out := make(timeline.Set, 0, len(m))
		for _, ss := range m {
			s := timeline.Series{Labels: labels(ss.Metric), Points: make([]timeline.Point, 0, len(ss.Values))}
			for _, p := range ss.Values {
				if finite(p.Value) {
					s.Points = append(s.Points, timeline.Point{T: p.Timestamp.Time().UTC(), V: float64(p.Value)})
				}
			}
			if len(s.Points) > 0 {
				out = append(out, s)
			}
		}
		timeline.SortSeries(out)
		return out, nil
	case model.Vector:
		out := make(timeline.Set, 0, len(m))
		for _, smp := range m {
			if finite(smp.Value) {
				out = append(out, timeline.Series{Labels: labels(smp.Metric), Points: []timeline.Point{{T: smp.Timestamp.Time().UTC(), V: float64(smp.Value)}}})
			}
		}
		timeline.SortSeries(out)
		return out, nil
	case *model.Scalar:
		if !finite(m.Value) {
			return nil, nil
		}
		return timeline.Set{{Labels: map[string]string{}, Points: []timeline.Point{{T: m.Timestamp.Time().UTC(), V: float64(m.Value)}}}}, nil
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("unsupported result type %s", v.Type())
	}
}

func labels(m model.Metric) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[string(k)] = string(v)
	}
	return out
}
