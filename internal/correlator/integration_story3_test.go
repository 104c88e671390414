//go:build integration

package correlator

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
)

// Story 3: one pod with cpu request = limit 500m, VUs stepping 10→20→30→40 every two
// minutes, 0% errors, p95 growing with CFS throttling. Offsets are seconds from the run start.
var (
	s3RunFrom = time.Date(2026, 3, 2, 10, 0, 1, 0, time.UTC)
	s3RunTo   = s3RunFrom.Add(500 * time.Second)
)

const s3TestID = "throttle-500m"

// s3VUs is the configured VU target: 10-VU steps every 120 s, each a 10 s ramp.
func s3VUs(r float64) float64 {
	switch {
	case r < 0:
		return 0
	case r >= 490:
		return 0
	case r >= 480:
		return 40 * (1 - (r-480)/10)
	}
	level := math.Min(math.Floor(r/120), 3)
	in := r - level*120
	if in < 10 {
		return level*10 + in // ramp from the previous level
	}
	return (level + 1) * 10
}

func s3Throttled(r float64) float64 {
	switch v := s3VUs(r); {
	case v <= 10:
		return 0.01
	case v <= 20:
		return 0.08
	case v <= 30:
		return 0.35
	default:
		return 0.6
	}
}

func s3Latency(r float64) float64 {
	switch v := s3VUs(r); {
	case v <= 10:
		return 0.1
	case v <= 20:
		return 0.15
	case v <= 30:
		return 0.6
	default:
		return 1.3
	}
}

func story3OpenMetrics() string {
	w := &omWriter{base: s3RunFrom}
	from, to := -600.0, 500.0+900
	run := s3RunTo.Sub(s3RunFrom).Seconds()
	inRun := func(f func(float64) float64) func(float64) (float64, bool) {
		return func(r float64) (float64, bool) { return f(r), r >= 0 && r <= run }
	}
	always := func(v float64) func(float64) (float64, bool) { return func(float64) (float64, bool) { return v, true } }
	k6 := fmt.Sprintf(`testid=%q`, s3TestID)
	rate := func(r float64) float64 { return s3VUs(r) / (1 + s3Latency(r)) }
	w.add("tidemark_run_info", k6+`,instance_id="1",version="dev"`, 0, run, 5, 5, inRun(func(float64) float64 { return 1 }))
	w.add("tidemark_scenario_target", k6+`,scenario="ramp",unit="vus"`, 0, run, 5, 5, inRun(s3VUs))
	w.add("k6_vus", k6, 0, run, 5, 5, inRun(func(r float64) float64 { return math.Round(s3VUs(r)) }))
	w.add("k6_http_reqs_total", k6+`,scenario="ramp",method="POST",name="deduct",status="200",expected_response="true"`, 0, run, 5, 5, inRun(layouts.Cumulative(rate, 0)))
	w.add("k6_iterations_total", k6+`,scenario="ramp"`, 0, run, 5, 5, inRun(layouts.Cumulative(rate, 0)))
	w.add("k6_http_req_duration_p95", k6+`,scenario="ramp",method="POST",name="deduct",status="200",expected_response="true"`, 0, run, 5, 5, inRun(s3Latency))

	ksm := `job="kube-state-metrics",namespace="bank"`
	pod := ksm + `,pod="deduct-6b8c-a",uid="uid-a"`
	kAdd := func(name, labels string, f func(float64) (float64, bool)) { w.add(name, labels, from, to, 30, 11, f) }
	kAdd("kube_deployment_spec_replicas", ksm+`,deployment="deduct"`, always(1))
	kAdd("kube_deployment_status_replicas_ready", ksm+`,deployment="deduct"`, always(1))
	kAdd("kube_replicaset_owner", ksm+`,replicaset="deduct-6b8c",owner_kind="Deployment",owner_name="deduct",owner_is_controller="true"`, always(1))
	kAdd("kube_pod_owner", pod+`,owner_kind="ReplicaSet",owner_name="deduct-6b8c",owner_is_controller="true"`, always(1))
	kAdd("kube_pod_container_resource_requests", pod+`,container="app",node="n1",resource="cpu",unit="core"`, always(0.5))
	kAdd("kube_pod_container_resource_limits", pod+`,container="app",node="n1",resource="cpu",unit="core"`, always(0.5))

	cad := `job="kubelet",metrics_path="/metrics/cadvisor",namespace="bank",pod="deduct-6b8c-a",container="app",image="deduct:1",id="/kubepods/a/app"`
	cAdd := func(name string, f func(float64) float64) {
		c := layouts.Cumulative(f, from)
		w.add(name, cad, from, to, 15, 4, func(r float64) (float64, bool) { return c(r), true })
	}
	cAdd("container_cpu_usage_seconds_total", func(r float64) float64 { return math.Min(0.02*s3VUs(r), 0.44) + 0.005 })
	cAdd("container_cpu_cfs_periods_total", func(float64) float64 { return 10 })
	cAdd("container_cpu_cfs_throttled_periods_total", func(r float64) float64 { return 10 * s3Throttled(r) })
	return w.String()
}

// testStory3 checks story 3: throttling onset at 20 VUs (> 5%) and 30 VUs (> 25%), the
// first hold throttled in most periods at 40 VUs, with 0% errors, no HPA and no database.
func testStory3(t *testing.T, prom *promtest.Server) {
	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	res, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), Config{
		TestID: s3TestID, Namespace: "bank", Lookback: time.Since(s3RunFrom) + time.Hour,
	})
	require.NoError(t, err)
	for _, n := range res.Notes {
		t.Logf("note: %s/%s %s: %s", n.Section, n.Object, n.Level, n.Text)
	}
	require.Equal(t, s3RunFrom, res.Window.Run.From)
	require.Equal(t, s3RunTo, res.Window.Run.To)

	// Stages come from the VU target: four holds at 10, 20, 30, 40.
	var holds []float64
	for _, st := range res.Load.Stages {
		require.Equal(t, "vus", st.Unit)
		if st.Kind == "hold" && st.EndTarget > 0 {
			holds = append(holds, st.EndTarget)
		}
	}
	require.Equal(t, []float64{10, 20, 30, 40}, holds)
	require.InDelta(t, 0, res.Load.Failures, 0)
	require.Nil(t, res.Load.Capacity.FirstBroke, "0%% errors: every stage held (%s)", res.Load.Capacity.Text)
	require.Equal(t, "no failed requests", res.Errors.Text)

	require.Len(t, res.CPU, 1)
	c := res.CPU[0]
	require.Equal(t, "deduct", c.Workload)
	require.InDelta(t, 0.5, c.Limit.Value, 0)
	require.Len(t, c.Onsets, 2)
	require.InDelta(t, 20, c.Onsets[0].VUs.Value, 0, "throttling > 5%% starts at 20 users")
	require.InDelta(t, 30, c.Onsets[1].VUs.Value, 0, "throttling > 25%% starts at 30 users")
	require.InDelta(t, 20, c.Onsets[0].Target.Value, 0)
	// The throttling onset of the report's key facts: the first hold throttled in more
	// than half of its CFS periods. The fixture's levels are throttled in 1%, 8%, 35% and
	// 60% of their periods, which the rates inside each hold give exactly.
	require.Len(t, c.Holds, 4, "a throttled share per hold: %+v", c.Holds)
	for i, want := range []float64{0.01, 0.08, 0.35, 0.6} {
		require.InDelta(t, 10*float64(i+1), c.Holds[i].Target, 0)
		require.InDelta(t, want, c.Holds[i].Share.Value, 0.005, "hold at %.0f VUs", c.Holds[i].Target)
	}
	require.NotNil(t, c.StageOnset)
	require.InDelta(t, 40, c.StageOnset.Target, 0, "throttled in most periods from 40 users")
	// The load named at an onset is the load at that moment (issue 12): within 10% of the
	// achieved request rate of the stage it falls in, which a rate() over 1m of series
	// pushed every 5 s missed by half (7.7/s against 19.5/s on the simulator).
	for _, o := range c.Onsets {
		var stage *analysis.StageFacts
		for i := range res.Load.Stages {
			if st := &res.Load.Stages[i]; st.Contains(o.At.At) {
				stage = st
			}
		}
		require.NotNil(t, stage, "onset at %s is in a stage", o.At.At)
		require.NotNil(t, o.RequestRate)
		t.Logf("onset > %.0f%% at %s: %.2f req/s; stage %s %s–%s: %.2f req/s", 100*o.Threshold, o.At.At.Sub(s3RunFrom),
			o.RequestRate.Value, stage.Kind, stage.From.Sub(s3RunFrom), stage.To.Sub(s3RunFrom), stage.RequestRate.Value)
		require.InEpsilon(t, stage.RequestRate.Value, o.RequestRate.Value, 0.1, "load at the onset of throttling > %.0f%%", 100*o.Threshold)
	}
	require.Less(t, c.PeakUsageOfLimit.Value, 0.9, "average CPU stays below the limit")
	require.InDelta(t, 0.6, c.PeakThrottled.Value, 0.01)

	require.Empty(t, res.Autoscaling)
	require.Empty(t, res.Database)
	texts := map[string]bool{}
	for _, n := range res.Notes {
		texts[n.Text] = true
	}
	require.True(t, texts["no kube_horizontalpodautoscaler_* series in the window — is kube-state-metrics scraped, and is there an HPA in the namespace?"])
	require.True(t, texts["no RDS (YACE/cloudwatch_exporter) series in the window — is it scraped?"])

	rules := map[string]bool{}
	for _, f := range res.Findings {
		rules[f.Rule] = true
	}
	require.True(t, rules["throttled_below_limit"], "%v", keys(rules))
	require.True(t, rules["latency_rising_no_errors_throttled"], "%v", keys(rules))
	require.False(t, rules["hpa_at_max_with_errors"])
	logBottleneck(t, res.Bottleneck)
	// Story 3's conclusion: the latency rose at 0% errors because deduct's CPU was
	// throttled, in the hold at 30 users; memory was not read, so it is not ruled out.
	b := res.Bottleneck
	require.Equal(t, analysis.ResourceCPU, b.Resource)
	require.Equal(t, "bank/deduct", b.Object)
	require.True(t, res.Load.Stages[b.Stage-1].Contains(c.Onsets[1].At.At), "stage %d holds the > 25%% onset", b.Stage)
	require.InDelta(t, 30, b.Load.VUs.Value, 0)
	requireRuledOutWithNumbers(t, b, analysis.ResourceStartup, analysis.ResourceReplicas)
	require.Contains(t, b.NotChecked, analysis.NotChecked{Resource: analysis.ResourceMemory, Missing: analysis.MemoryRule(analysis.RuleInput{}).Missing})

	// The same run without cAdvisor (a selector no series matches, discovery included):
	// the CPU that limited it cannot be read, so the verdict is unknown, in the same
	// stage, and names the missing source; it never guesses.
	const cadvisorSel = `selector: 'job="kubelet", metrics_path="/metrics/cadvisor", namespace=~"{{.Namespace}}"'`
	def := string(query.DefaultYAML())
	require.Contains(t, def, cadvisorSel)
	noCAdvisor, err := query.Parse([]byte(strings.Replace(def, cadvisorSel, strings.TrimSuffix(cadvisorSel, "'")+`, pod="no-such-pod"'`, 1)))
	require.NoError(t, err)
	res, err = New(q, noCAdvisor, promslog.NewNopLogger()).Correlate(context.Background(), Config{
		TestID: s3TestID, Namespace: "bank", Lookback: time.Since(s3RunFrom) + time.Hour,
	})
	require.NoError(t, err)
	for _, c := range res.CPU {
		require.Empty(t, c.Usage.Points, "no cAdvisor series (%s's limit is kube-state-metrics')", c.Workload)
	}
	u := res.Bottleneck
	logBottleneck(t, u)
	require.Equal(t, analysis.ResourceUnknown, u.Resource, u.Text)
	require.Positive(t, u.Stage, "the stage whose latency rose")
	require.LessOrEqual(t, u.Stage, b.Stage, "the stage whose latency rose")
	require.Nil(t, u.At, "no moment is guessed")
	cpuMissing := analysis.CPURule(analysis.RuleInput{Analysis: &analysis.Analysis{}}).Missing
	require.Contains(t, u.NotChecked, analysis.NotChecked{Resource: analysis.ResourceCPU, Missing: cpuMissing})
	require.Contains(t, u.Text, "cpu ("+cpuMissing+")")
	require.False(t, slices.ContainsFunc(u.RuledOut, func(o analysis.RuledOut) bool { return o.Resource == analysis.ResourceCPU }), "the CPU is not ruled out")
}
