package analysis

import (
	"fmt"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// benchTimeline is a 1-hour run with 5 HPAs and 50 pods at a 15 s step (k6 at 5 s).
func benchTimeline() *timeline.Timeline {
	from, to := t0, t0.Add(75*time.Minute)
	run := timeline.Window{From: t0.Add(5 * time.Minute), To: t0.Add(65 * time.Minute)}
	tl := &timeline.Timeline{Run: run, Baseline: timeline.Window{From: from, To: run.From}, After: timeline.Window{From: run.To, To: to},
		Step: 5 * time.Second, Resolution: map[string]time.Duration{SourceK6: 5 * time.Second, SourceKSM: 15 * time.Second, SourceCAdvisor: 15 * time.Second, SourceRDS: time.Minute},
		Sets: map[string]timeline.Set{}}
	target := func(d time.Duration) float64 { return 10 + 40*min(d.Minutes()/30, 1) }
	tl.Sets[QScenarioTarget] = timeline.Set{gen(m("scenario", "ramp", "unit", "iterations_per_second"), run.From, run.To, 5*time.Second, target)}
	tl.Sets[QHTTPReqs] = timeline.Set{integrate(m("scenario", "ramp"), run.From, run.To, 5*time.Second, target)}
	tl.Sets[QHTTPFailures] = timeline.Set{integrate(m("scenario", "ramp"), run.From, run.To, 5*time.Second, func(d time.Duration) float64 { return target(d) / 100 })}
	tl.Sets[QIterations] = tl.Sets[QHTTPReqs]
	tl.Sets[QHTTPReqRate] = timeline.Set{gen(m(), run.From, run.To, 5*time.Second, target)}
	tl.Sets[QVUs] = timeline.Set{gen(m(), run.From, run.To, 5*time.Second, target)}
	for i := range 5 {
		dep := fmt.Sprintf("svc-%d", i)
		hpa := m("namespace", "bench", "horizontalpodautoscaler", dep)
		replicas := func(d time.Duration) float64 { return min(2+float64(int(d.Seconds())/400), 10) }
		tl.Sets[QHPADeployment] = append(tl.Sets[QHPADeployment], constant(m("namespace", "bench", "horizontalpodautoscaler", dep, "deployment", dep), 1))
		tl.Sets[QHPACurrent] = append(tl.Sets[QHPACurrent], gen(hpa, from, to, 15*time.Second, replicas))
		tl.Sets[QHPADesired] = append(tl.Sets[QHPADesired], gen(hpa, from, to, 15*time.Second, replicas))
		tl.Sets[QHPAMin] = append(tl.Sets[QHPAMin], constant(hpa, 2))
		tl.Sets[QHPAMax] = append(tl.Sets[QHPAMax], constant(hpa, 10))
		tl.Sets[QDeploymentReady] = append(tl.Sets[QDeploymentReady], gen(m("namespace", "bench", "deployment", dep), from, to, 15*time.Second, func(d time.Duration) float64 { return replicas(d - 30*time.Second) }))
		for p := range 10 {
			pl := m("namespace", "bench", "workload", dep, "pod", fmt.Sprintf("%s-%d", dep, p))
			tl.Sets[QPodCreated] = append(tl.Sets[QPodCreated], gen(pl, from, to, 15*time.Second, func(time.Duration) float64 { return float64(from.Add(time.Duration(p*400) * time.Second).Unix()) }))
			tl.Sets[QPodReadyTime] = append(tl.Sets[QPodReadyTime], gen(pl, from, to, 15*time.Second, func(time.Duration) float64 { return float64(from.Add(time.Duration(p*400+25) * time.Second).Unix()) }))
			tl.Sets[QCPUUsagePod] = append(tl.Sets[QCPUUsagePod], gen(pl, from, to, 15*time.Second, func(d time.Duration) float64 { return 0.05 + d.Hours()/10 }))
			tl.Sets[QCPURequestPod] = append(tl.Sets[QCPURequestPod], constant(pl, 0.1))
			tl.Sets[QCPULimitPod] = append(tl.Sets[QCPULimitPod], constant(pl, 0.2))
		}
		wl := m("namespace", "bench", "workload", dep)
		tl.Sets[QCPUThrottled] = append(tl.Sets[QCPUThrottled], gen(wl, from, to, 15*time.Second, func(d time.Duration) float64 { return d.Hours() / 2 }))
		tl.Sets[QCPUCFSPeriods] = append(tl.Sets[QCPUCFSPeriods], constant(wl, 10))
	}
	return tl
}

func BenchmarkAnalyze(b *testing.B) {
	tl := benchTimeline()
	b.ResetTimer()
	for b.Loop() {
		a := Analyze(tl, DefaultConfig)
		if len(a.Autoscaling) != 5 {
			b.Fatal("want 5 HPAs")
		}
	}
}
