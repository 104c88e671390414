package pacer

import (
	"math"
	"time"
)

// VUStep is a change of a ramping-vus scenario's VU target: from At on, Target VUs.
type VUStep struct {
	At     time.Duration
	Target int64
}

// VUSchedule is the VU target of a ramping-vus scenario over time. It is immutable and
// safe for concurrent use.
//
// As in k6, a ramp from a to b over d changes the target one VU at a time, exactly when
// the linear interpolation reaches the next integer: ramping 0→10 over 10 s adds the
// first VU at 1 s and the tenth at 10 s; ramping 10→0 removes the first at 1 s. A
// zero-duration stage jumps at once.
type VUSchedule struct {
	steps []VUStep // steps[0].At == 0
	dur   time.Duration
	max   int64
}

// NewVUSchedule returns the schedule that starts at startVUs and ramps to each stage's
// Target (rounded down to whole VUs) over its Duration.
func NewVUSchedule(startVUs int64, stages []Stage) *VUSchedule {
	s := &VUSchedule{steps: []VUStep{{At: 0, Target: startVUs}}, max: startVUs}
	from := startVUs
	var start time.Duration
	add := func(at time.Duration, v int64) {
		last := &s.steps[len(s.steps)-1]
		if last.At == at {
			last.Target = v
		} else if last.Target != v {
			s.steps = append(s.steps, VUStep{At: at, Target: v})
		}
		s.max = max(s.max, v)
	}
	for _, st := range stages {
		to := int64(math.Floor(st.Target))
		d := st.Duration
		switch {
		case d <= 0 || to == from:
			add(start+max(d, 0), to)
		case to > from:
			for v := from + 1; v <= to; v++ {
				add(start+time.Duration(float64(d)*float64(v-from)/float64(to-from)), v)
			}
		default:
			for v := from - 1; v >= to; v-- {
				add(start+time.Duration(float64(d)*float64(from-v)/float64(from-to)), v)
			}
		}
		start += max(d, 0)
		from = to
	}
	s.dur = start
	return s
}

// Steps returns the target changes, first at 0. The caller must not modify the slice.
func (s *VUSchedule) Steps() []VUStep { return s.steps }

// Duration returns the length of the schedule (the sum of the stage durations).
func (s *VUSchedule) Duration() time.Duration { return s.dur }

// Max returns the largest target of the schedule.
func (s *VUSchedule) Max() int64 { return s.max }

// Target returns the VU target at t since the start.
func (s *VUSchedule) Target(t time.Duration) int64 {
	lo, hi := 0, len(s.steps)
	for lo+1 < hi {
		m := (lo + hi) / 2
		if s.steps[m].At <= t {
			lo = m
		} else {
			hi = m
		}
	}
	return s.steps[lo].Target
}

// Scaled returns the schedule of this instance's share under seg: every target v
// becomes seg.Scale(v), and steps that no longer change the target are dropped.
func (s *VUSchedule) Scaled(seg Segment) *VUSchedule {
	out := &VUSchedule{dur: s.dur, max: seg.Scale(s.max)}
	for _, st := range s.steps {
		v := seg.Scale(st.Target)
		if n := len(out.steps); n > 0 && out.steps[n-1].Target == v {
			continue
		}
		out.steps = append(out.steps, VUStep{At: st.At, Target: v})
	}
	return out
}
