//go:build integration

package correlator

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
)

// The benchmark: a 1-hour run with 5 HPAs and 50 pods at a 15 s step.
var bRunFrom = time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC)

const (
	bTestID = "bench-1h"
	bHPAs   = 5
	bPods   = 10 // per deployment
)

// benchOpenMetrics generates the benchmark fixture (not committed: it is large and only
// its size matters).
func benchOpenMetrics() string {
	w := &omWriter{base: bRunFrom}
	from, to := -600.0, 3600.0+900
	run := 3600.0
	always := func(v float64) func(float64) (float64, bool) { return func(float64) (float64, bool) { return v, true } }
	target := func(r float64) float64 { return 10 + 40*math.Min(r/1800, 1) }
	k6 := fmt.Sprintf(`testid=%q`, bTestID)
	inRun := func(f func(float64) float64) func(float64) (float64, bool) {
		return func(r float64) (float64, bool) { return f(r), r >= 0 && r <= run }
	}
	w.add("tidemark_run_info", k6+`,instance_id="1"`, 0, run, 5, 5, inRun(func(float64) float64 { return 1 }))
	w.add("tidemark_scenario_target", k6+`,scenario="ramp",unit="iterations_per_second"`, 0, run, 5, 5, inRun(target))
	w.add("k6_vus", k6, 0, run, 5, 5, inRun(func(r float64) float64 { return target(r) / 2 }))
	for _, st := range []string{"200", "503"} {
		share := 0.99
		if st == "503" {
			share = 0.01
		}
		w.add("k6_http_reqs_total", k6+fmt.Sprintf(`,scenario="ramp",method="GET",name="api",status=%q,expected_response="%t"`, st, st == "200"), 0, run, 5, 5,
			inRun(layouts.Cumulative(func(r float64) float64 { return share * target(r) }, 0)))
	}
	w.add("k6_iterations_total", k6+`,scenario="ramp"`, 0, run, 5, 5, inRun(layouts.Cumulative(target, 0)))
	w.add("k6_http_req_duration_p95", k6+`,scenario="ramp"`, 0, run, 5, 5, inRun(func(r float64) float64 { return 0.1 + r/36000 }))
	for i := range bHPAs {
		dep := fmt.Sprintf("svc-%d", i)
		rs := dep + "-abc"
		ksm := `job="kube-state-metrics",namespace="bench"`
		hpa := ksm + fmt.Sprintf(`,horizontalpodautoscaler=%q`, dep)
		replicas := func(r float64) float64 { return math.Min(2+math.Floor(math.Max(r, 0)/400), bPods) }
		kAdd := func(name, labels string, f func(float64) (float64, bool)) { w.add(name, labels, from, to, 15, 7, f) }
		kAdd("kube_horizontalpodautoscaler_info", hpa+fmt.Sprintf(`,scaletargetref_kind="Deployment",scaletargetref_name=%q`, dep), always(1))
		kAdd("kube_horizontalpodautoscaler_status_current_replicas", hpa, func(r float64) (float64, bool) { return replicas(r), true })
		kAdd("kube_horizontalpodautoscaler_status_desired_replicas", hpa, func(r float64) (float64, bool) { return replicas(r + 15), true })
		kAdd("kube_horizontalpodautoscaler_spec_min_replicas", hpa, always(2))
		kAdd("kube_horizontalpodautoscaler_spec_max_replicas", hpa, always(bPods))
		kAdd("kube_horizontalpodautoscaler_spec_target_metric", hpa+`,metric_name="cpu",metric_target_type="utilization"`, always(70))
		kAdd("kube_horizontalpodautoscaler_status_target_metric", hpa+`,metric_name="cpu",metric_target_type="utilization"`, func(r float64) (float64, bool) { return 60 + 20*math.Sin(r/300), true })
		kAdd("kube_deployment_spec_replicas", ksm+fmt.Sprintf(`,deployment=%q`, dep), func(r float64) (float64, bool) { return replicas(r), true })
		kAdd("kube_deployment_status_replicas_ready", ksm+fmt.Sprintf(`,deployment=%q`, dep), func(r float64) (float64, bool) { return replicas(r - 30), true })
		kAdd("kube_replicaset_owner", ksm+fmt.Sprintf(`,replicaset=%q,owner_kind="Deployment",owner_name=%q`, rs, dep), always(1))
		for p := range bPods {
			pod := fmt.Sprintf("%s-%d", rs, p)
			created := float64(p-2) * 400 // pods 0 and 1 exist before the run
			pl := ksm + fmt.Sprintf(`,pod=%q,uid="u-%s"`, pod, pod)
			alive := func(v func(float64) float64) func(float64) (float64, bool) {
				return func(r float64) (float64, bool) { return v(r), r >= created }
			}
			at := float64(bRunFrom.Add(time.Duration(created) * time.Second).Unix())
			kAdd("kube_pod_owner", pl+fmt.Sprintf(`,owner_kind="ReplicaSet",owner_name=%q`, rs), alive(func(float64) float64 { return 1 }))
			kAdd("kube_pod_created", pl, alive(func(float64) float64 { return at }))
			kAdd("kube_pod_status_ready", pl+`,condition="true"`, alive(func(r float64) float64 { return b2f(r >= created+25) }))
			kAdd("kube_pod_status_ready_time", pl, func(r float64) (float64, bool) { return at + 25, r >= created+25 })
			kAdd("kube_pod_container_resource_requests", pl+`,container="app",resource="cpu",unit="core"`, alive(func(float64) float64 { return 0.1 }))
			kAdd("kube_pod_container_resource_limits", pl+`,container="app",resource="cpu",unit="core"`, alive(func(float64) float64 { return 0.2 }))
			cad := fmt.Sprintf(`job="kubelet",metrics_path="/metrics/cadvisor",namespace="bench",pod=%q,container="app",image="svc:1"`, pod)
			start := math.Max(created, from)
			for _, m := range []struct {
				name string
				f    func(float64) float64
			}{
				{"container_cpu_usage_seconds_total", func(r float64) float64 { return 0.05 + 0.1*r/3600 }},
				{"container_cpu_cfs_periods_total", func(float64) float64 { return 10 }},
				{"container_cpu_cfs_throttled_periods_total", func(r float64) float64 { return 10 * math.Min(r/3600, 1) * 0.4 }},
			} {
				c := layouts.Cumulative(m.f, start)
				w.add(m.name, cad, from, to, 15, 3, func(r float64) (float64, bool) { return c(r), r >= created })
			}
		}
	}
	rds := `job="yace",dimension_DBInstanceIdentifier="bench-db"`
	for _, m := range []string{"aws_rds_cpuutilization_average", "aws_rds_database_connections_average", "aws_rds_cpucredit_balance_average", "aws_rds_freeable_memory_average"} {
		w.add(m, rds, from, to, 60, 0, func(r float64) (float64, bool) { return 50 + r/100, true })
	}
	return w.String()
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// writeBenchFixture writes the benchmark fixture into dir and returns its path.
func writeBenchFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bench.om")
	require.NoError(t, os.WriteFile(path, []byte(benchOpenMetrics()), 0o600))
	return path
}

// testBenchmark: correlating a 1-hour window with 5 HPAs and 50 pods at a 15 s step
// against real Prometheus takes < 3 s (best of three, the machine is shared).
func testBenchmark(t *testing.T, prom *promtest.Server) {
	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	c := New(q, cat, promslog.NewNopLogger())
	best := time.Hour
	var res *Result
	for range 3 {
		start := time.Now()
		res, err = c.Correlate(context.Background(), Config{TestID: bTestID, Namespace: "bench", Lookback: time.Since(bRunFrom) + time.Hour, Step: 15 * time.Second})
		require.NoError(t, err)
		best = min(best, time.Since(start))
	}
	t.Logf("1 h, %d HPAs, %d pods: best of 3 %s", bHPAs, bHPAs*bPods, best)
	require.Len(t, res.Autoscaling, bHPAs)
	require.Len(t, res.CPU, bHPAs)
	pods := 0
	for _, h := range res.Autoscaling {
		pods += len(h.Pods)
		require.NotEmpty(t, h.Steps)
	}
	require.Equal(t, bHPAs*(bPods-2), pods, "pods created in the window")
	if raceEnabled {
		t.Logf("race detector on: the 3 s budget is checked only without -race")
		return
	}
	require.Less(t, best, 3*time.Second)
}
