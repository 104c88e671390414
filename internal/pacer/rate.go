package pacer

import (
	"math"
	"time"
)

// Stage is one linear ramp of a schedule: reach Target over Duration. For a rate
// schedule Target is iterations per time unit; for a VU schedule it is a VU count.
type Stage struct {
	Duration time.Duration
	Target   float64
}

// Rate is the arrival schedule of an arrival-rate scenario: a piecewise-linear rate in
// iterations per second, and the arrival times it implies. The zero value has no
// arrivals. A Rate is immutable and safe for concurrent use.
//
// Arrival times follow k6:
//   - constant-arrival-rate: arrival i (0-based) starts at i/rate, for every such time
//     before the duration ends (200/s for 10 s gives 2000 arrivals at 0, 5 ms, …, 9.995 s);
//   - ramping-arrival-rate: arrival i (0-based) starts when the integral of the rate
//     since the start reaches i+1 (k6's `cal`), up to and including the end of the
//     last stage.
type Rate struct {
	constant bool
	perSec   float64 // constant rate, iterations per second
	segs     []rateSeg
	total    int64
	dur      time.Duration
}

// rateSeg is one stage in seconds: the rate goes linearly from `from` to `to`
// (iterations per second) between start and start+dur; before it, `done` arrivals'
// worth of area has accumulated.
type rateSeg struct {
	start, dur float64
	from, to   float64
	done       float64
}

// eps absorbs float rounding when an integral lands exactly on an integer
// (200/s × 10 s must give 2000, not 1999.9999999).
const eps = 1e-9

// NewConstantRate returns the schedule of a constant-arrival-rate scenario: rate
// iterations per timeUnit (default 1 s when zero) for duration.
func NewConstantRate(rate float64, timeUnit, duration time.Duration) *Rate {
	if timeUnit <= 0 {
		timeUnit = time.Second
	}
	perSec := rate / timeUnit.Seconds()
	r := &Rate{constant: true, perSec: perSec, dur: duration}
	if perSec > 0 && duration > 0 {
		// Arrivals at i/perSec strictly before the end.
		n := duration.Seconds() * perSec
		total := max(int64(math.Ceil(n-eps)), 0)
		r.total = total
	}
	return r
}

// NewRampingRate returns the schedule of a ramping-arrival-rate scenario: it starts at
// startRate and ramps linearly to each stage's Target (iterations per timeUnit,
// default 1 s when zero) over the stage's Duration.
func NewRampingRate(startRate float64, timeUnit time.Duration, stages []Stage) *Rate {
	if timeUnit <= 0 {
		timeUnit = time.Second
	}
	unit := timeUnit.Seconds()
	r := &Rate{}
	from := startRate / unit
	var start, done float64
	for _, st := range stages {
		to := st.Target / unit
		d := st.Duration.Seconds()
		r.segs = append(r.segs, rateSeg{start: start, dur: d, from: from, to: to, done: done})
		done += d * (from + to) / 2
		start += d
		r.dur += st.Duration
		from = to
	}
	r.total = int64(math.Floor(done + eps))
	return r
}

// Total returns the number of arrivals of the whole schedule.
func (r *Rate) Total() int64 { return r.total }

// Duration returns the length of the schedule.
func (r *Rate) Duration() time.Duration { return r.dur }

// PerSecond returns the configured rate at t since the start, in iterations per
// second (0 outside the schedule).
func (r *Rate) PerSecond(t time.Duration) float64 {
	if t < 0 || t > r.dur {
		return 0
	}
	if r.constant {
		return r.perSec
	}
	s := t.Seconds()
	for i := range r.segs {
		sg := &r.segs[i]
		if s <= sg.start+sg.dur || i == len(r.segs)-1 {
			if sg.dur == 0 {
				return sg.to
			}
			return sg.from + (sg.to-sg.from)*(s-sg.start)/sg.dur
		}
	}
	return 0
}

// At returns the time of arrival i (0-based) since the start. i must be in
// [0, Total()).
func (r *Rate) At(i int64) time.Duration {
	if r.constant {
		return secs(float64(i) / r.perSec)
	}
	need := float64(i + 1)
	for k := range r.segs {
		sg := &r.segs[k]
		area := sg.dur * (sg.from + sg.to) / 2
		if need > sg.done+area+eps && k < len(r.segs)-1 {
			continue
		}
		c := need - sg.done
		if c < 0 {
			c = 0
		}
		a := (sg.to - sg.from) / (2 * sg.dur)
		b := sg.from
		var tau float64
		switch {
		case sg.dur == 0:
			tau = 0
		case a == 0:
			tau = c / b
		default:
			// a·τ² + b·τ = c, in the form that stays accurate for either sign of a.
			disc := b*b + 4*a*c
			if disc < 0 {
				disc = 0
			}
			den := b + math.Sqrt(disc)
			if den <= 0 {
				tau = sg.dur
			} else {
				tau = 2 * c / den
			}
		}
		if tau > sg.dur {
			tau = sg.dur
		}
		return secs(sg.start + tau)
	}
	return r.dur
}

// Count returns the number of arrivals due by t since the start: those with
// At(i) <= t. It is consistent with At by construction.
func (r *Rate) Count(t time.Duration) int64 {
	if t < 0 || r.total == 0 {
		return 0
	}
	var c int64
	if r.constant {
		c = int64(math.Floor(t.Seconds()*r.perSec+eps)) + 1
	} else {
		c = int64(math.Floor(r.area(t.Seconds()) + eps))
	}
	c = min(max(c, 0), r.total)
	// Float rounding can put the estimate one off; At is the definition.
	for c < r.total && r.At(c) <= t {
		c++
	}
	for c > 0 && r.At(c-1) > t {
		c--
	}
	return c
}

// area is the integral of the rate from 0 to s seconds.
func (r *Rate) area(s float64) float64 {
	var a float64
	for i := range r.segs {
		sg := &r.segs[i]
		if s >= sg.start+sg.dur {
			a = sg.done + sg.dur*(sg.from+sg.to)/2
			continue
		}
		tau := s - sg.start
		if tau <= 0 {
			break
		}
		return sg.done + sg.from*tau + (sg.to-sg.from)*tau*tau/(2*sg.dur)
	}
	return a
}

func secs(s float64) time.Duration {
	return time.Duration(math.Round(s * 1e9))
}
