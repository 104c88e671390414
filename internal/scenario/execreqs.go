package scenario

import (
	"cmp"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/pacer"
)

// ExecutionRequirements is k6's maxVUs and totalDuration of a test (`k6 inspect
// --execution-requirements`). totalDuration is the latest scenario end: startTime +
// duration (the stages' sum, or maxDuration for the iteration executors) +
// gracefulStop; externally-controlled has no gracefulStop. maxVUs is the most VUs the
// scenarios plan at any one moment, overlapping in time: each holds its VUs from its
// start until its end with gracefulStop, arrival-rate executors max(maxVUs,
// preAllocatedVUs), externally-controlled maxVUs (for ever when its duration is 0),
// ramping-vus its stage targets with gracefulRampDown (rampingPlan). As in k6, the
// changes at one moment apply scenario by scenario, in the order of their startTime
// and then name, and the count between them counts too: a ramp's VU added at the
// moment a later scenario ends overlaps it, a scenario ending when a later one starts
// does not. The numbers were checked against k6 v1.8.1
// (cmd/tidemark/testdata/execreqs/k6.json).
func (t *Test) ExecutionRequirements() (uint64, time.Duration) {
	scens := slices.Clone(t.Scenarios)
	slices.SortStableFunc(scens, func(a, b *Scenario) int {
		return cmp.Or(cmp.Compare(a.StartTime, b.StartTime), cmp.Compare(a.Name, b.Name))
	})
	var (
		total  time.Duration
		events []vuEvent
	)
	for i, sc := range scens {
		start, gs := sc.StartTime, max(sc.GracefulStop, 0)
		hold := func(vus int, dur time.Duration) {
			events = append(events, vuEvent{at: start, ord: i, delta: int64(vus)}, vuEvent{at: start + dur, ord: i, delta: -int64(vus)})
		}
		var end time.Duration
		switch sc.Executor {
		case SharedIterations, PerVUIterations:
			end = sc.MaxDuration + gs
			hold(max(sc.VUs, 1), end)
		case ConstantVUs:
			end = sc.Duration + gs
			hold(max(sc.VUs, 1), end)
		case ConstantArrivalRate, RampingArrivalRate:
			d := sc.Duration
			if sc.Executor == RampingArrivalRate {
				d = 0
				for _, st := range sc.Stages {
					d += max(st.Duration, 0)
				}
			}
			end = d + gs
			hold(max(sc.MaxVUs, sc.PreAllocatedVUs), end)
		case ExternallyControlled:
			end = sc.Duration
			if sc.Duration == 0 {
				// Runs until stopped: its VUs overlap every other scenario.
				events = append(events, vuEvent{at: start, ord: i, delta: int64(sc.MaxVUs)})
			} else {
				hold(sc.MaxVUs, end)
			}
		case RampingVUs:
			steps, d := rampingPlan(sc)
			end = d + gs
			var prev int64
			for _, st := range steps {
				events = append(events, vuEvent{at: start + st.At, ord: i, delta: st.Target - prev})
				prev = st.Target
			}
			events = append(events, vuEvent{at: start + end, ord: i, delta: -prev})
		}
		total = max(total, start+end)
	}
	slices.SortStableFunc(events, func(a, b vuEvent) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.ord, b.ord))
	})
	var cur, peak int64
	for _, e := range events {
		cur += e.delta
		peak = max(peak, cur)
	}
	return uint64(max(peak, 0)), total
}

// vuEvent is a change of the VUs scenario ord (its rank by startTime and name) plans,
// at offset at from the test start.
type vuEvent struct {
	at    time.Duration
	ord   int
	delta int64
}

// rampingPlan is the VUs a ramping-vus scenario plans over time: its stage targets
// one VU at a time, as the run changes them (pacer.NewVUSchedule: ramping 0→10 over
// 10 s adds VU v at v s), a VU that goes held gracefulRampDown longer (the plan at t
// is the most planned over [t-gracefulRampDown, t]), and the last target until the
// end with gracefulStop. It returns the changes, first at 0, and the sum of the
// stages.
func rampingPlan(sc *Scenario) ([]pacer.VUStep, time.Duration) {
	stages := make([]pacer.Stage, 0, len(sc.Stages))
	for _, st := range sc.Stages {
		stages = append(stages, pacer.Stage{Duration: st.Duration, Target: st.Target})
	}
	sched := pacer.NewVUSchedule(int64(sc.StartVUs), stages)
	raw := sched.Steps()
	end := sched.Duration() + max(sc.GracefulStop, 0)
	grd := max(sc.GracefulRampDown, 0)
	// The plan changes only where raw does, or gracefulRampDown after it does.
	var times []time.Duration
	for _, s := range raw {
		times = append(times, s.At, s.At+grd)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var out []pacer.VUStep
	for _, t := range times {
		if t >= end {
			break
		}
		// The most raw plans over [t-grd, t]: the target in force at t-grd, and every
		// change after it up to t.
		v := sched.Target(max(t-grd, 0))
		for _, s := range raw {
			if s.At > t-grd && s.At <= t {
				v = max(v, s.Target)
			}
		}
		if n := len(out); n > 0 && out[n-1].Target == v {
			continue
		}
		out = append(out, pacer.VUStep{At: t, Target: v})
	}
	return out, sched.Duration()
}
