package layouts

import (
	"math"
	"slices"
	"time"
)

// Story 1's timeline in seconds from the run start: a ramping-arrival-rate at 10/s for two
// minutes, a jump to 50/s held five minutes, a two-minute ramp to 0, a minute at 0. The
// order HPA scales 2→4→5 with start-up gaps and back to 2 after its five-minute
// stabilisation; CPU throttling starts as the utilisation crosses the HPA target; RDS
// connections grow with the pods. The constants are untyped so that tests can do
// arithmetic with them in seconds.
const (
	K6Step         = 5   // remote-write push interval
	KSMStep        = 15  // kube-state-metrics scrape interval (default)
	KSMOffset      = 7   // KSM scrapes 7 s after the k6 push grid
	CadvisorStep   = 15  // cAdvisor scrape interval (default)
	CadvisorOffset = 3   // cAdvisor scrapes 3 s after the k6 push grid
	RDSStep        = 60  // CloudWatch basic resolution
	RunSeconds     = 600 // the run's length
	LoadStep       = 120 // 10→50/s
	LoadEnd        = 420 // the ramp-down starts
	RampEnd        = 540 // the rate reaches 0
	FailuresEnd    = 240 // 503s at FailureRate from LoadStep until here
	FailureRate    = 10.0
	MetricCrossed  = 135 // CPU utilisation 30% → 111% of request (target 70%)
	ScaleUp1       = 150 // desired 2→4
	Ready1         = 165 // ready 4
	ScaleUp2       = 180 // desired 4→5 (max)
	Ready2         = 210 // ready 5
	ScaleIn        = 720 // desired 5→2
	ScaleInReady   = 735 // ready 2
	BaseRate       = 10  // iterations/s before the load step
	PeakRate       = 50  // iterations/s after it
)

const (
	windowBefore = 600  // fixture series start 10 min before the run
	windowAfter  = 1560 // and end 16 min after it (26 min after its start)
	k6StampLead  = 0.02 // k6 stamps a series with its newest sample, here 20 ms before the push
	// k6GaugeLead is how long before a push k6's gauges (vus, vus_max) were emitted: k6
	// samples them on a 1 s ticker of its own, and a push carries the newest emission
	// (k6 v1.8.1 pushed at x.47 s with vus stamped at (x-1).66 s). So a run's last
	// gauge sample comes up to a second before its last counter sample.
	k6GaugeLead    = 0.8
	hpaTargetPct   = 70   // the order HPA's CPU utilisation target
	throttleOnset1 = 0.05 // the catalog's throttle_onsets
	throttleOnset2 = 0.25
	decoyShift     = 45  // the decoy's cluster events happen 3 scrapes later
	decoyLoad      = 2.0 // at twice the load
	decoyDBExtra   = 100 // with 100 more connections
	hpaName        = "order"
)

// story1Start is the run's start: a Sunday morning, off the minute, so that no source's
// grid hides an off-by-one.
func story1Start() time.Time { return time.Date(2026, 3, 1, 10, 0, 2, 0, time.UTC) }

// story is one copy of story 1: the real one, or the decoy with its events moved.
type story struct {
	start   time.Time
	load    float64 // arrival-rate multiplier
	shift   float64 // seconds added to every cluster-side event
	dbExtra float64
}

func (s story) target(r float64) float64 {
	switch {
	case r < LoadStep:
		return BaseRate * s.load
	case r < LoadEnd:
		return PeakRate * s.load
	case r < RampEnd:
		return PeakRate * s.load * (1 - (r-LoadEnd)/(RampEnd-LoadEnd))
	default:
		return 0
	}
}

func (s story) failures(r float64) float64 {
	if r >= LoadStep && r < FailuresEnd {
		return FailureRate * s.load
	}
	return 0
}

func (s story) ok(r float64) float64 { return s.target(r) - s.failures(r) }

// vus are the run's active VUs: two iterations per VU per second.
func (s story) vus(r float64) float64 { return math.Ceil(s.target(r) / 2) }

// Step points (v0, t1, v1, t2, v2, …) of the cluster-side series, shifted for the decoy.
func (s story) pts(v0 float64, tv ...float64) []float64 {
	out := append([]float64{v0}, tv...)
	for i := 1; i+1 < len(out); i += 2 {
		out[i] += s.shift
	}
	return out
}

func (s story) replicasPts() []float64 {
	return s.pts(2, ScaleUp1, 4, ScaleUp2, 5, ScaleIn, 2)
}

func (s story) readyPts() []float64 {
	return s.pts(2, Ready1, 4, Ready2, 5, ScaleInReady, 2)
}

func (s story) utilizationPts() []float64 { return s.pts(30, MetricCrossed, 111, 240, 80, 450, 20) }
func (s story) averagePts() []float64     { return s.pts(0.03, MetricCrossed, 0.111, 240, 0.08, 450, 0.02) }
func (s story) usagePts() []float64       { return s.pts(0.03, LoadStep, 0.12, 240, 0.08, LoadEnd, 0.02) }
func (s story) throttledPts() []float64 {
	return s.pts(0, MetricCrossed, 0.1, ScaleUp1, 0.3, 240, 0.02, LoadEnd, 0)
}
func (s story) dbCPUPts() []float64 { return s.pts(5, 180, 12, ScaleIn, 5) }
func (s story) dbConnPts() []float64 {
	p := s.pts(20, 180, 35, 240, 41, 780, 22)
	for i := 0; i < len(p); i += 2 {
		p[i] += s.dbExtra
	}
	return p
}

func (s story) freeable(r float64) float64 {
	if r >= 298+s.shift && r < 358+s.shift {
		return 3e8
	}
	return 4e8
}

func (s story) credit(r float64) float64 { return 100 + math.Floor((r+windowBefore)/60) }

// pod is one application pod.
type pod struct {
	name, rs, node string
	created, ready float64 // offsets; before the window for the long-lived ones
	deleted        float64
	request, limit float64 // cores; limit 0 = none
	deployment     string
}

func (s story) pods() []pod {
	long, inf := -3600.0, math.Inf(1)
	mk := func(name, rs, dep, node string, created, ready, deleted, req, lim float64) pod {
		return pod{name: name, rs: rs, deployment: dep, node: node, created: created, ready: ready, deleted: deleted, request: req, limit: lim}
	}
	return []pod{
		mk("order-7d9f-a", "order-7d9f", "order", "node-1", long, long, inf, 0.1, 0.2),
		mk("order-7d9f-b", "order-7d9f", "order", "node-2", long, long, inf, 0.1, 0.2),
		mk("order-7d9f-c", "order-7d9f", "order", "node-1", ScaleUp1+1+s.shift, Ready1-1+s.shift, ScaleIn+s.shift, 0.1, 0.2),
		mk("order-7d9f-d", "order-7d9f", "order", "node-2", ScaleUp1+1+s.shift, Ready1-1+s.shift, ScaleIn+s.shift, 0.1, 0.2),
		mk("order-7d9f-e", "order-7d9f", "order", "node-1", ScaleUp2+1+s.shift, Ready2-1+s.shift, ScaleIn+s.shift, 0.1, 0.2),
		mk("delivery-5c4b-a", "delivery-5c4b", "delivery", "node-1", long, long, inf, 0.05, 0),
		mk("delivery-5c4b-b", "delivery-5c4b", "delivery", "node-2", long, long, inf, 0.05, 0),
	}
}

// stepFn returns the step function of points v0, t1, v1, t2, v2, …: v0 before t1, v1 from
// t1, and so on.
func stepFn(points ...float64) func(r float64) float64 {
	return func(r float64) float64 {
		v := points[0]
		for i := 1; i+1 < len(points); i += 2 {
			if r >= points[i] {
				v = points[i+1]
			}
		}
		return v
	}
}

// firstAtLeast returns the first time a step function reaches v (ok false if never).
func firstAtLeast(points []float64, v float64) (float64, bool) {
	for i := 1; i+1 < len(points); i += 2 {
		if points[i+1] >= v {
			return points[i], true
		}
	}
	return 0, false
}

// maxOf returns the largest value of a step function.
func maxOf(points []float64) float64 {
	m := points[0]
	for i := 2; i < len(points); i += 2 {
		m = math.Max(m, points[i])
	}
	return m
}

// integral of f over [a, b] with a fine fixed step (the functions are piecewise linear).
func integral(f func(float64) float64, a, b float64) float64 {
	if b <= a {
		return 0
	}
	n := int(math.Ceil((b - a) / 0.01))
	h := (b - a) / float64(n)
	var s float64
	for i := range n {
		s += f(a+(float64(i)+0.5)*h) * h
	}
	return s
}

// Cumulative returns a counter over f starting at start (offsets in seconds), the way
// the fixtures integrate rates into counters; call it with increasing r.
func Cumulative(f func(float64) float64, start float64) func(r float64) float64 {
	last, acc := start, 0.0
	return func(r float64) float64 {
		if r > last {
			acc += integral(f, last, r)
			last = r
		}
		return acc
	}
}

// at returns the absolute time of an offset in seconds, to the millisecond.
func (s story) at(r float64) time.Time {
	return s.start.Add(time.Duration(math.Round(r*1000)) * time.Millisecond)
}

// stages are the scenario as configured: k6 ramping-arrival-rate stages.
func stages() (startRate float64, st []Stage) {
	sec := func(v float64) time.Duration { return time.Duration(v) * time.Second }
	return BaseRate, []Stage{
		{sec(LoadStep), BaseRate},
		{0, PeakRate},
		{sec(LoadEnd - LoadStep), PeakRate},
		{sec(RampEnd - LoadEnd), 0},
		{sec(RunSeconds - RampEnd), 0},
	}
}

// truth computes the story's truth, without the k6 side's instances (added by the k6
// writer's plan).
func (s story) truth(o Options, cluster string) Truth {
	t := Truth{
		Namespace: o.Namespace, TestID: o.TestID, Cluster: cluster,
		PushInterval: K6Step * time.Second, KSMInterval: o.KSMInterval, CadvisorInterval: o.CadvisorInterval,
		RDSInterval: RDSStep * time.Second,
		LoadStep:    s.at(LoadStep), LoadEnd: s.at(LoadEnd),
		Requests: integral(s.target, 0, RunSeconds),
		Failures: integral(s.failures, 0, RunSeconds),
	}
	start, st := stages()
	t.StartRate, t.Stages = start*s.load, scaleStages(st, s.load)

	rep, rdy := s.replicasPts(), s.readyPts()
	h := HPA{Name: hpaName, Deployment: hpaName, Min: 2, Max: 5, Baseline: rep[0], TargetUtilization: hpaTargetPct,
		Startups: map[string]time.Duration{}}
	for i := 1; i+1 < len(rep); i += 2 {
		from, to := rep[i-1], rep[i+1]
		st := ScaleStep{From: from, To: to, DesiredAt: s.at(rep[i])}
		for j := 1; j+1 < len(rdy); j += 2 {
			if rdy[j] >= rep[i] && ((to > from && rdy[j+1] >= to) || (to < from && rdy[j+1] <= to)) {
				st.ReadyAt = s.at(rdy[j])
				break
			}
		}
		if to > from {
			st.Gap = st.ReadyAt.Sub(st.DesiredAt)
		}
		h.Steps = append(h.Steps, st)
	}
	if c, ok := firstAtLeast(s.utilizationPts(), hpaTargetPct+1e-9); ok {
		h.MetricCrossedAt = s.at(c)
	}
	for _, p := range s.pods() {
		if p.deployment == h.Deployment && p.created >= 0 {
			h.Startups[p.name] = time.Duration(math.Round(p.ready-p.created)) * time.Second
		}
	}
	t.HPAs = []HPA{h}

	for _, dep := range []string{"order", "delivery"} {
		w := Workload{Name: dep}
		for _, p := range s.pods() {
			if p.deployment == dep {
				w.Request, w.Limit = p.request, p.limit
			}
		}
		if dep == "order" {
			w.PeakUsage, w.PeakThrottled = maxOf(s.usagePts()), maxOf(s.throttledPts())
			w.HPATarget = w.Request * hpaTargetPct / 100
			for _, th := range []float64{throttleOnset1, throttleOnset2} {
				if at, ok := firstAtLeast(s.throttledPts(), th); ok {
					w.Onsets = append(w.Onsets, Onset{Threshold: th, At: s.at(at), VUs: s.vus(at)})
				}
			}
		} else {
			w.PeakUsage = 0.01
		}
		t.Workloads = append(t.Workloads, w)
	}

	conn, cpu := s.dbConnPts(), s.dbCPUPts()
	t.DB = DB{
		Instance:            o.Namespace + "-db",
		ConnectionsBaseline: conn[0], ConnectionsPeak: maxOf(conn),
		CPUBaseline: cpu[0], CPUPeak: maxOf(cpu),
		FreeableMin: 3e8, CreditTrend: "rising",
	}
	t.DB.ConnectionsGrowth = t.DB.ConnectionsPeak - t.DB.ConnectionsBaseline

	desired, ready := stepFn(rep...), stepFn(rdy...)
	t.FailuresInGaps = integral(func(r float64) float64 {
		if desired(r) > ready(r) {
			return s.failures(r)
		}
		return 0
	}, 0, RunSeconds)
	return t
}

func scaleStages(st []Stage, f float64) []Stage {
	out := slices.Clone(st)
	for i := range out {
		out[i].Target *= f
	}
	return out
}
