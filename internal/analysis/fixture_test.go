package analysis

import (
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// gen samples f every step over [from, to].
func gen(labels map[string]string, from, to time.Time, step time.Duration, f func(d time.Duration) float64) timeline.Series {
	s := timeline.Series{Labels: labels}
	for t := from; !t.After(to); t = t.Add(step) {
		s.Points = append(s.Points, timeline.Point{T: t, V: f(t.Sub(from))})
	}
	return s
}

// stepsAt returns a function that is vals[i] from offsets[i] on.
func stepsAt(offsets []time.Duration, vals []float64) func(time.Duration) float64 {
	return func(d time.Duration) float64 {
		v := vals[0]
		for i, o := range offsets {
			if d >= o {
				v = vals[i]
			}
		}
		return v
	}
}

// integrate turns a rate function into a counter sampled every step.
func integrate(labels map[string]string, from, to time.Time, step time.Duration, rate func(d time.Duration) float64) timeline.Series {
	s := timeline.Series{Labels: labels}
	var acc float64
	for t := from; !t.After(to); t = t.Add(step) {
		d := t.Sub(from)
		if d > 0 {
			acc += rate(d-step) * step.Seconds()
		}
		s.Points = append(s.Points, timeline.Point{T: t, V: acc})
	}
	return s
}

func m(kv ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

const (
	k6Res  = 5 * time.Second
	ksmRes = 15 * time.Second
	rdsRes = time.Minute
)

var (
	runFrom = t0.Add(5 * time.Minute)
	runTo   = runFrom.Add(10 * time.Minute)
	endAll  = runTo.Add(10 * time.Minute)
)

func minutes(d time.Duration) time.Duration { return d * time.Minute }
func sec(d time.Duration) time.Duration     { return d * time.Second }

// spikeTarget: 10/s for 2 min, jump to 50/s, hold to 7 min, ramp to 0 by 9 min, 0 to 10 min.
func spikeTarget(d time.Duration) float64 {
	switch {
	case d <= minutes(2):
		return 10
	case d <= minutes(7):
		return 50
	case d <= minutes(9):
		return 50 * (1 - (d-minutes(7)).Seconds()/120)
	default:
		return 0
	}
}

// failRate fails 20% of requests in [2m, 4m) and 10% in [5m, 6m) of the run.
func failRate(d time.Duration) float64 {
	switch {
	case d >= minutes(2) && d < minutes(4):
		return 0.2 * spikeTarget(d)
	case d >= minutes(5) && d < minutes(6):
		return 0.1 * spikeTarget(d)
	}
	return 0
}

// spike builds story 1's 10→50 RPS spike: HPA order 2→4→5, ready gaps 15 s and 30 s,
// scale-in 5 min after the ramp-down, throttling from the spike, RDS connections 20→41.
func spike() *timeline.Timeline {
	hpa := m("namespace", "shoong", "horizontalpodautoscaler", "order")
	dep := m("namespace", "shoong", "deployment", "order")
	wl := m("namespace", "shoong", "workload", "order")
	rel := func(d time.Duration) time.Duration { return runFrom.Sub(t0) + d } // run offset → series offset
	desired := stepsAt([]time.Duration{0, rel(sec(150)), rel(sec(180)), rel(minutes(12))}, []float64{2, 4, 5, 2})
	current := desired
	ready := stepsAt([]time.Duration{0, rel(sec(165)), rel(sec(210)), rel(minutes(12) + sec(15))}, []float64{2, 4, 5, 2})
	util := stepsAt([]time.Duration{0, rel(sec(135)), rel(sec(240)), rel(minutes(7))}, []float64{30, 111, 80, 20})
	thr := stepsAt([]time.Duration{0, rel(sec(135)), rel(sec(150)), rel(sec(240))}, []float64{0, 0.10, 0.30, 0.02})
	usage := stepsAt([]time.Duration{0, rel(sec(135)), rel(sec(240)), rel(minutes(7))}, []float64{0.03, 0.111, 0.08, 0.02})
	conns := stepsAt([]time.Duration{0, rel(minutes(3)), rel(minutes(4)), rel(minutes(13))}, []float64{20, 35, 41, 22})
	k6 := func(d time.Duration) float64 { return spikeTarget(d) }
	return &timeline.Timeline{
		Run:      timeline.Window{From: runFrom, To: runTo},
		Baseline: timeline.Window{From: t0, To: runFrom},
		After:    timeline.Window{From: runTo, To: endAll},
		Step:     k6Res,
		Resolution: map[string]time.Duration{
			SourceK6: k6Res, SourceKSM: ksmRes, SourceCAdvisor: ksmRes, SourceRDS: rdsRes,
		},
		Sets: map[string]timeline.Set{
			QScenarioTarget: {gen(m("scenario", "spike", "unit", "iterations_per_second"), runFrom, runTo, k6Res, k6)},
			QHTTPReqs:       {integrate(m("scenario", "spike"), runFrom, runTo, k6Res, k6)},
			QHTTPFailures:   {integrate(m("scenario", "spike"), runFrom, runTo, k6Res, failRate)},
			QIterations:     {integrate(m("scenario", "spike"), runFrom, runTo, k6Res, k6)},
			QHTTPReqRate:    {gen(m(), runFrom, runTo, k6Res, k6)},
			QVUs:            {gen(m(), runFrom, runTo, k6Res, func(d time.Duration) float64 { return spikeTarget(d) / 2 })},
			QLatencyP95:     {gen(m(), runFrom, runTo, k6Res, func(d time.Duration) float64 { return 0.2 + d.Minutes()/10 })},
			QHPADeployment:  {gen(m("namespace", "shoong", "horizontalpodautoscaler", "order", "deployment", "order"), t0, endAll, ksmRes, func(time.Duration) float64 { return 1 })},
			QHPACurrent:     {gen(hpa, t0, endAll, ksmRes, current)},
			QHPADesired:     {gen(hpa, t0, endAll, ksmRes, desired)},
			QHPAMin:         {gen(hpa, t0, endAll, ksmRes, func(time.Duration) float64 { return 2 })},
			QHPAMax:         {gen(hpa, t0, endAll, ksmRes, func(time.Duration) float64 { return 5 })},
			QHPATargetMetric: {gen(m("namespace", "shoong", "horizontalpodautoscaler", "order", "metric_name", "cpu", "metric_target_type", "utilization"),
				t0, endAll, ksmRes, func(time.Duration) float64 { return 70 })},
			QHPAStatusMetric: {gen(m("namespace", "shoong", "horizontalpodautoscaler", "order", "metric_name", "cpu", "metric_target_type", "utilization"),
				t0, endAll, ksmRes, util)},
			QDeploymentReady: {gen(dep, t0, endAll, ksmRes, ready)},
			QPodCreated: {
				gen(m("namespace", "shoong", "workload", "order", "pod", "order-a"), t0, endAll, ksmRes, func(time.Duration) float64 { return float64(t0.Add(-time.Hour).Unix()) }),
				gen(m("namespace", "shoong", "workload", "order", "pod", "order-c"), runFrom.Add(sec(150)), endAll, ksmRes, func(time.Duration) float64 { return float64(runFrom.Add(sec(148)).Unix()) }),
				gen(m("namespace", "shoong", "workload", "order", "pod", "order-e"), runFrom.Add(sec(180)), endAll, ksmRes, func(time.Duration) float64 { return float64(runFrom.Add(sec(179)).Unix()) }),
			},
			QPodReadyTime: {
				gen(m("namespace", "shoong", "workload", "order", "pod", "order-c"), runFrom.Add(sec(165)), endAll, ksmRes, func(time.Duration) float64 { return float64(runFrom.Add(sec(160)).Unix()) }),
				gen(m("namespace", "shoong", "workload", "order", "pod", "order-e"), runFrom.Add(sec(210)), endAll, ksmRes, func(time.Duration) float64 { return float64(runFrom.Add(sec(207)).Unix()) }),
			},
			QCPUUsagePod:      {gen(m("namespace", "shoong", "workload", "order", "pod", "order-a"), t0, endAll, ksmRes, usage)},
			QCPURequestPod:    {gen(m("namespace", "shoong", "workload", "order", "pod", "order-a"), t0, endAll, ksmRes, func(time.Duration) float64 { return 0.1 })},
			QCPULimitPod:      {gen(m("namespace", "shoong", "workload", "order", "pod", "order-a"), t0, endAll, ksmRes, func(time.Duration) float64 { return 0.2 })},
			QCPUCFSPeriods:    {gen(wl, t0, endAll, ksmRes, func(time.Duration) float64 { return 10 })},
			QCPUThrottled:     {gen(wl, t0, endAll, ksmRes, thr)},
			QRDSCPU:           {gen(m("dimension_DBInstanceIdentifier", "shoong-db"), t0, endAll, rdsRes, stepsAt([]time.Duration{0, rel(minutes(3))}, []float64{5, 12}))},
			QRDSConnections:   {gen(m("dimension_DBInstanceIdentifier", "shoong-db"), t0, endAll, rdsRes, conns)},
			QRDSCreditBalance: {gen(m("dimension_DBInstanceIdentifier", "shoong-db"), t0, endAll, rdsRes, func(d time.Duration) float64 { return 100 + d.Minutes() })},
			QRDSFreeableMem: {gen(m("dimension_DBInstanceIdentifier", "shoong-db"), t0, endAll, rdsRes, func(d time.Duration) float64 {
				if d == rel(minutes(5)) {
					return 3e8
				}
				return 4e8
			})},
		},
	}
}
