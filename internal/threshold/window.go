package threshold

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// MinWindow is the shortest window a windowed threshold takes: windows are evaluated
// every second, so a shorter one would skip samples between two evaluations.
const MinWindow = time.Second

// maxFailSpans bounds WindowRecord.Fails: a threshold that flaps every second of a
// long run keeps constant memory; Truncated says spans were dropped.
const maxFailSpans = 100

// WindowFunc gives the aggregate of a (sub-)metric over the window of length w that
// ends now: src is nil when the metric has had no samples in the run, and span is the
// window's real length (the divisor of a counter's rate), which may differ from w by
// the jitter of the evaluations. ok is false when there is no window to judge yet
// (the run is younger than w); at the final evaluation of a run shorter than w it
// gives the whole run.
type WindowFunc func(k *Key, w time.Duration) (src Source, span time.Duration, ok bool)

// WindowValue is one evaluated window of a windowed threshold: it covers Start to End,
// offsets from the run's start.
type WindowValue struct {
	Start, End time.Duration
	// Value is the observed value in k6's units; meaningful only when HasValue.
	Value    float64
	HasValue bool
	Passed   bool
}

// Span is a run of consecutive failing windows: First and Last are the ends of the
// first and of the last of them, offsets from the run's start.
type Span struct {
	First, Last time.Duration
}

// WindowRecord is what a windowed threshold saw over the run's windows so far.
type WindowRecord struct {
	// Window is the threshold's window.
	Window time.Duration
	// Evaluated counts the windows judged.
	Evaluated int
	// Failed is true when any window failed; the threshold then fails the run.
	Failed bool
	// Worst is the window with the worst value (a failing one before any passing one,
	// then the farthest on the failing side of the expression: the highest for `<`
	// and `<=`, the lowest for `>` and `>=`); HasValue is false when no window had a
	// value.
	Worst WindowValue
	// FirstFailure is the first failing window; meaningful only when Failed.
	FirstFailure WindowValue
	// Fails are the runs of consecutive failing windows, in time order, at most
	// maxFailSpans of them; Truncated is true when later ones were dropped.
	Fails     []Span
	Truncated bool

	prevFailed bool
}

// observe adds one window's outcome.
func (r *WindowRecord) observe(e Expr, w WindowValue) {
	r.Evaluated++
	if w.HasValue && (!r.Worst.HasValue || worse(e, w, r.Worst)) {
		r.Worst = w
	}
	if w.Passed {
		r.prevFailed = false
		return
	}
	if !r.Failed {
		r.FirstFailure = w
	}
	r.Failed = true
	switch {
	case r.prevFailed && len(r.Fails) > 0:
		r.Fails[len(r.Fails)-1].Last = w.End
	case len(r.Fails) < maxFailSpans:
		r.Fails = append(r.Fails, Span{First: w.End, Last: w.End})
	default:
		r.Truncated = true
	}
	r.prevFailed = true
}

// FailedBetween reports whether a failing window ended in (from, to]: the windows
// judged the samples of that part of the run, so a stage covering it is where the
// threshold failed.
func (r *WindowRecord) FailedBetween(from, to time.Duration) bool {
	for _, s := range r.Fails {
		if s.Last > from && s.First <= to {
			return true
		}
	}
	return false
}

// clone returns a copy that does not share Fails.
func (r *WindowRecord) clone() *WindowRecord {
	c := *r
	c.Fails = append([]Span(nil), r.Fails...)
	return &c
}

// worse reports whether window a is worse than b for expression e: failing before
// passing, then farther on the failing side.
func worse(e Expr, a, b WindowValue) bool {
	if a.Passed != b.Passed {
		return !a.Passed
	}
	switch e.Op {
	case Less, LessEqual:
		return a.Value > b.Value
	case Greater, GreaterEqual:
		return a.Value < b.Value
	case NotEqual:
		return math.Abs(a.Value-e.Value) < math.Abs(b.Value-e.Value)
	default: // Equal, StrictEqual
		return math.Abs(a.Value-e.Value) > math.Abs(b.Value-e.Value)
	}
}

// FormatWindow writes a window as written in options: "30s", "1m30s", "2m".
func FormatWindow(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ValidateWindow checks a threshold's window: at least MinWindow.
func ValidateWindow(d time.Duration) error {
	if d < MinWindow {
		return fmt.Errorf("window %s is shorter than %s; windows are evaluated every second", d, MinWindow)
	}
	return nil
}
