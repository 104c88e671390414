package threshold

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Def is one threshold as written in a test: its key, its expression and the abort
// options (k6's `{threshold, abortOnFail, delayAbortEval}` or a bare string), and
// Tidemark's window.
type Def struct {
	Key            string
	Expr           string
	AbortOnFail    bool
	DelayAbortEval time.Duration
	// Window, when set, judges the expression every second over the last Window of
	// the run instead of over the whole run (a Tidemark addition; k6 rejects it).
	Window time.Duration
}

// TypeFunc returns the type and value type of the metric called name, and false when
// there is no such metric.
type TypeFunc func(name string) (metrics.Type, metrics.ValueType, bool)

// Source gives the current aggregate of one (sub-)metric, in Tidemark's units (time
// values in seconds, data in bytes). Value returns false when the aggregate has no such
// value; the threshold then passes, as in k6 (e.g. a Rate with no samples).
//
// The Set asks a counter for Count, a gauge for Value, a rate for Rate and a trend for
// Avg, Min, Max, Med and Percentile; it computes a counter's `rate` itself as Count
// divided by the elapsed time.
type Source interface {
	Value(m Method) (float64, bool)
}

// SourceFunc adapts a function to the Source interface.
type SourceFunc func(m Method) (float64, bool)

// Value calls f(m).
func (f SourceFunc) Value(m Method) (float64, bool) { return f(m) }

var _ Source = SourceFunc(nil)

// Threshold is one parsed threshold of a Set.
type Threshold struct {
	Key  *Key
	Expr Expr
	// Type and Contains are those of the thresholded metric, for formatting Value.
	Type           metrics.Type
	Contains       metrics.ValueType
	AbortOnFail    bool
	DelayAbortEval time.Duration
	// Window is the length of the sliding window the threshold is judged over; 0 for
	// k6's whole-run threshold.
	Window time.Duration
}

// Name is the threshold's expression as written (trimmed) and, for a windowed one,
// " over " and its window: "p(95)<500 over 30s". It names the threshold in the
// summary's maps, whose k6 keys are the expressions.
func (t *Threshold) Name() string {
	return ExprName(t.Expr.Source, t.Window)
}

// ExprName is Threshold.Name of an expression and a window.
func ExprName(expr string, window time.Duration) string {
	expr = strings.TrimSpace(expr)
	if window <= 0 {
		return expr
	}
	return expr + " over " + FormatWindow(window)
}

// metric is a (sub-)metric with thresholds: the unit of evaluation and of the
// "thresholds on metrics ... have been crossed" message.
type metric struct {
	Key        Key
	Type       metrics.Type
	Contains   metrics.ValueType
	Thresholds []*Threshold
}

// Set holds every threshold of a test and evaluates them. Evaluate may be called from
// one goroutine while Last is called from others.
type Set struct {
	metrics []*metric

	mu      sync.Mutex
	last    *Result
	records map[*Threshold]*WindowRecord
}

// NewSet parses defs and checks each method against its metric's type, looked up with
// typeOf. It returns every problem, joined. Thresholds on the same (sub-)metric,
// whatever the order or quoting of the selector's tags, are grouped and evaluated together;
// metrics are ordered by name.
func NewSet(defs []Def, typeOf TypeFunc) (*Set, error) {
	s := &Set{}
	byID := map[string]*metric{}
	var errs []error
	for _, d := range defs {
		k, err := ParseKey(d.Key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e, err := ParseExpr(d.Expr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k.Name, err))
			continue
		}
		if d.Window != 0 {
			if err := ValidateWindow(d.Window); err != nil {
				errs = append(errs, fmt.Errorf("%w %q on %s: %w", ErrSyntax, d.Expr, k.Name, err))
				continue
			}
		}
		if d.DelayAbortEval < 0 {
			errs = append(errs, fmt.Errorf("%w on %s: delayAbortEval %s is negative", ErrSyntax, k.Name, d.DelayAbortEval))
			continue
		}
		typ, vt, ok := typeOf(k.Metric)
		if !ok {
			errs = append(errs, fmt.Errorf("%w on %s: no metric named %q", ErrSyntax, k.Name, k.Metric))
			continue
		}
		if !e.Method.ValidFor(typ) {
			errs = append(errs, fmt.Errorf("%w %q on %s: method %s is not valid for a %s metric; expected one of %s",
				ErrSyntax, d.Expr, k.Name, e.Method, typ, MethodsFor(typ)))
			continue
		}
		m := byID[k.ID()]
		if m == nil {
			m = &metric{Key: k, Type: typ, Contains: vt}
			byID[k.ID()] = m
			s.metrics = append(s.metrics, m)
		}
		th := &Threshold{Key: &m.Key, Expr: e, Type: typ, Contains: vt, AbortOnFail: d.AbortOnFail, DelayAbortEval: d.DelayAbortEval, Window: d.Window}
		m.Thresholds = append(m.Thresholds, th)
		if d.Window > 0 {
			if s.records == nil {
				s.records = map[*Threshold]*WindowRecord{}
			}
			s.records[th] = &WindowRecord{Window: d.Window}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.SliceStable(s.metrics, func(i, j int) bool { return s.metrics[i].Key.Name < s.metrics[j].Key.Name })
	return s, nil
}

// Thresholds returns every threshold of the set: those of one (sub-)metric together,
// in the order of their definitions, the (sub-)metrics ordered by name.
func (s *Set) Thresholds() []*Threshold {
	var out []*Threshold
	for _, m := range s.metrics {
		out = append(out, m.Thresholds...)
	}
	return out
}

// Outcome is the result of one threshold at one evaluation.
type Outcome struct {
	Threshold *Threshold
	// Value is the observed value in k6's units (milliseconds for time metrics);
	// meaningful only when HasValue.
	Value    float64
	HasValue bool
	// Skipped is true when the metric had no samples during the run: k6 skips empty
	// sinks except at the final evaluation.
	Skipped bool
	Passed  bool
	// Window is the record of a windowed threshold's windows so far (a copy), nil for a
	// whole-run threshold. During the run Value and Passed are those of the latest
	// window; at the final evaluation Passed is false when any window failed and Value
	// is the worst window's.
	Window *WindowRecord
}

// Result is one evaluation of a Set.
type Result struct {
	// Outcomes has one entry per threshold: those of one (sub-)metric together, in
	// the order of their definitions, the (sub-)metrics ordered by name.
	Outcomes []Outcome
	// Crossed names the (sub-)metrics with at least one failed threshold, sorted.
	Crossed []string
	// Abort is true when a failed threshold has abortOnFail and its delayAbortEval is
	// shorter than the elapsed time. It is never set by the final evaluation.
	Abort bool
	// Final is true for the end-of-test evaluation.
	Final bool
}

// Err returns nil when no threshold failed, else a *CrossedError.
func (r *Result) Err() error {
	if r == nil || len(r.Crossed) == 0 {
		return nil
	}
	return &CrossedError{Metrics: r.Crossed, Abort: r.Abort}
}

// CrossedError says that thresholds failed; the run exits with code 99.
type CrossedError struct {
	// Metrics are the (sub-)metric names with failed thresholds, sorted.
	Metrics []string
	// Abort is true when the run was stopped early by abortOnFail.
	Abort bool
}

// Error returns k6's message.
func (e *CrossedError) Error() string {
	names := strings.Join(e.Metrics, ", ")
	if e.Abort {
		return "thresholds on metrics '" + names + "' were crossed; at least one has abortOnFail enabled, stopping test prematurely"
	}
	return "thresholds on metrics '" + names + "' have been crossed"
}

// Evaluate checks every threshold. elapsed is the test's running time (it is the
// divisor of a counter's rate and decides whether delayAbortEval has passed); final is
// true for the end-of-test evaluation. source returns the aggregate of a (sub-)metric,
// or nil when it has no samples yet: during the run such metrics are skipped, and at the
// final evaluation they count as empty (counter 0, gauge 0, trend stats 0, rate without
// a value, which passes), as in k6. The engine calls it every 2 s and once at the end.
//
// Windowed thresholds need a WindowFunc: Evaluate skips them (EvaluateLive judges them).
func (s *Set) Evaluate(elapsed time.Duration, final bool, source func(*Key) Source) *Result {
	return s.EvaluateLive(elapsed, final, source, nil)
}

// Windowed reports whether the set has a windowed threshold, which the run must
// evaluate every second with EvaluateLive.
func (s *Set) Windowed() bool { return len(s.records) > 0 }

// EvaluateLive is Evaluate that also judges windowed thresholds over the window that
// window gives, keeping each one's record (the worst window, the first failing one,
// the spans of failing windows). A failing window of an abortOnFail threshold aborts
// as a failing whole-run threshold does. The engine calls it every second when the set
// has windowed thresholds, and once at the end, when a windowed threshold fails if
// any of its windows failed.
func (s *Set) EvaluateLive(elapsed time.Duration, final bool, source func(*Key) Source, window WindowFunc) *Result {
	r := s.evaluate(elapsed, final, source, window, true)
	s.mu.Lock()
	s.last = r
	s.mu.Unlock()
	return r
}

// EvaluateWindow checks every threshold against the aggregates of one window of the
// run, such as a stage, with the rules of the final evaluation: elapsed is the window's
// length (the divisor of a counter's rate), and a metric without samples in the window
// counts as empty (counter 0, gauge 0, trend stats 0; a rate has no value and passes).
// It never aborts and is not recorded as Last.
//
// Windowed thresholds are left out of the window's judgement (Skipped and passed) and
// carry their record: WindowRecord.FailedBetween says whether they failed in it.
func (s *Set) EvaluateWindow(elapsed time.Duration, source func(*Key) Source) *Result {
	return s.evaluate(elapsed, true, source, nil, false)
}

// Records returns a copy of every windowed threshold's record.
func (s *Set) Records() map[*Threshold]*WindowRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[*Threshold]*WindowRecord, len(s.records))
	for th, r := range s.records {
		out[th] = r.clone()
	}
	return out
}

// evaluate judges every threshold; live is false for the window of a stage, where
// windowed thresholds only report their record.
func (s *Set) evaluate(elapsed time.Duration, final bool, source func(*Key) Source, window WindowFunc, live bool) *Result {
	r := &Result{Final: final}
	for _, m := range s.metrics {
		src := source(&m.Key)
		failed := false
		for _, th := range m.Thresholds {
			o := Outcome{Threshold: th, Passed: true}
			if th.Window > 0 {
				o = s.evaluateWindowed(m, th, elapsed, final && live, window)
				if !o.Passed {
					failed = true
				}
				if !o.Passed && th.AbortOnFail && !final && th.DelayAbortEval < elapsed {
					r.Abort = true
				}
				r.Outcomes = append(r.Outcomes, o)
				continue
			}
			switch {
			case src == nil && !final:
				o.Skipped = true
			default:
				o.Value, o.HasValue = value(m, th.Expr.Method, src, elapsed)
				if o.HasValue {
					o.Passed = th.Expr.Pass(o.Value)
				}
			}
			if !o.Passed {
				failed = true
				if th.AbortOnFail && !final && th.DelayAbortEval < elapsed {
					r.Abort = true
				}
			}
			r.Outcomes = append(r.Outcomes, o)
		}
		if failed {
			r.Crossed = append(r.Crossed, m.Key.Name)
		}
	}
	sort.Strings(r.Crossed)
	return r
}

// evaluateWindowed judges th over the window that ends at elapsed and adds it to th's
// record; without window it only reports the record.
func (s *Set) evaluateWindowed(m *metric, th *Threshold, elapsed time.Duration, final bool, window WindowFunc) Outcome {
	o := Outcome{Threshold: th, Passed: true, Skipped: true}
	var w WindowValue
	judged := false
	if window != nil {
		if src, span, ok := window(&m.Key, th.Window); ok && (src != nil || final) {
			w = WindowValue{Start: elapsed - span, End: elapsed, Passed: true}
			w.Value, w.HasValue = value(m, th.Expr.Method, src, span)
			if w.HasValue {
				w.Passed = th.Expr.Pass(w.Value)
			}
			judged = true
		}
	}
	s.mu.Lock()
	rec := s.records[th]
	if judged {
		rec.observe(th.Expr, w)
	}
	o.Window = rec.clone()
	s.mu.Unlock()
	switch {
	case final:
		o.Skipped = false
		o.Passed = !rec.Failed
		o.Value, o.HasValue = rec.Worst.Value, rec.Worst.HasValue
	case judged:
		o.Skipped = false
		o.Passed = w.Passed
		o.Value, o.HasValue = w.Value, w.HasValue
	}
	return o
}

// Last returns the most recent result of Evaluate, or nil before the first.
func (s *Set) Last() *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// msPerSecond converts Tidemark's seconds to k6's milliseconds for time metrics.
const msPerSecond = 1000

// value reads one method from src (nil means an empty metric) and converts it to k6's
// units.
func value(m *metric, meth Method, src Source, elapsed time.Duration) (float64, bool) {
	var (
		v  float64
		ok bool
	)
	switch {
	case m.Type == metrics.Counter && meth.Agg == Rate:
		if src != nil {
			v, ok = src.Value(Method{Agg: Count})
		} else {
			ok = true
		}
		if !ok {
			return 0, false
		}
		if elapsed <= 0 {
			// k6 divides by the run time; before any time has passed there is no rate.
			return 0, false
		}
		v /= elapsed.Seconds()
	case src != nil:
		v, ok = src.Value(meth)
		if !ok {
			return 0, false
		}
	case m.Type == metrics.Rate:
		// An empty rate has no value: the threshold passes (k6 #2520).
		return 0, false
	default:
		v = 0
	}
	if m.Contains == metrics.Time && m.Type != metrics.Rate {
		v *= msPerSecond
	}
	return v, true
}

// RegistryTypes returns a TypeFunc that looks metrics up in r.
func RegistryTypes(r *metrics.Registry) TypeFunc {
	return func(name string) (metrics.Type, metrics.ValueType, bool) {
		m := r.Get(name)
		if m == nil {
			return 0, 0, false
		}
		return m.Type, m.Contains, true
	}
}
