//go:build integration

package process

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/remotewrite"
)

// s3Interval is the scrape and push interval: one second, so a 10 s hold has ten samples.
const s3Interval = time.Second

// s3Scenario is story 3's closed loop: ramping-vus through levels (2 s ramps, 10 s holds),
// every VU polling then deducting with 1 s of think time after each call.
func s3Scenario(levels []int) string {
	var b strings.Builder
	b.WriteString("scenarios:\n  users:\n    executor: ramping-vus\n    startVUs: 0\n    gracefulRampDown: 5s\n    stages:\n")
	for _, l := range levels {
		fmt.Fprintf(&b, "      - { duration: 2s, target: %d }\n      - { duration: 10s, target: %d }\n", l, l)
	}
	b.WriteString(`      - { duration: 2s, target: 0 }
flow:
  - name: poll
    method: GET
    url: ${__ENV.TARGET_URL}/coupons/poll
    timeout: 30s
    sleep: 1
  - name: deduct
    method: POST
    url: ${__ENV.TARGET_URL}/coupons/deduct
    timeout: 30s
    sleep: 1
`)
	return b.String()
}

// TestIntegrationStory3Process runs story 3 for real: the process runtime runs
// examples/cluster-story3-process-{500m,1000m}.yaml (one `tidemark target` process in a
// cgroup with a CFS quota of the limit), a real Prometheus scrapes its kube-state-metrics
// and cAdvisor-named series every second and receives the run's remote write, a closed
// loop steps the users up, and the correlator reads the run. It checks: a throttling
// onset is reported; no request failed; the throttled-period count in Prometheus is the
// kernel's nr_throttled of the pod's cgroup (read after the load, within one scrape); and
// the throttling onset (the first hold throttled in most of its CFS periods) at 1000m is
// at 1.5 times the users of 500m or more (story 3: 20 → 40).
//
// Each user asks for (20 ms + 35 ms) / 2 s = 27.5 ms of CPU per second: 55% of 500m at
// 10 users, 110% at 20; 55% of 1000m at 20 users, 110% at 40.
func TestIntegrationStory3Process(t *testing.T) {
	bin := tidemarkBinary(t)
	onset := map[string]float64{}
	for _, tc := range []struct {
		profile string
		levels  []int
	}{
		{"cluster-story3-process-500m.yaml", []int{10, 20, 30, 40}},
		{"cluster-story3-process-1000m.yaml", []int{10, 20, 30, 40, 60, 80}},
	} {
		// One after the other: the machine has two cores.
		t.Run(tc.profile, func(t *testing.T) {
			onset[tc.profile] = testStory3Process(t, bin, "../../../examples/"+tc.profile, tc.levels)
		})
	}
	if t.Failed() {
		return
	}
	o500, o1000 := onset["cluster-story3-process-500m.yaml"], onset["cluster-story3-process-1000m.yaml"]
	t.Logf("throttling onset at %.0f users at 500m, %.0f at 1000m", o500, o1000)
	require.GreaterOrEqual(t, o1000, 1.5*o500, "the onset moves with the limit")
}

func testStory3Process(t *testing.T, bin, profile string, levels []int) float64 {
	ctx := context.Background()
	logger := promslog.NewNopLogger()
	p, err := sim.LoadProfile(profile)
	require.NoError(t, err)
	rt, err := New(p, logger, WithBinary(bin))
	require.NoError(t, err)
	require.NoError(t, rt.Start(ctx))
	t.Cleanup(func() {
		require.NoError(t, rt.Stop())
		require.False(t, rt.Hierarchy().Open(rt.Subtree()).Exists(), "the run's cgroup is removed")
	})
	target, err := rt.FirstServiceURL()
	require.NoError(t, err)
	cfg, err := rt.ScrapeConfig(s3Interval)
	require.NoError(t, err)
	prom := promtest.StartPrometheus(t, promtest.WithConfig(cfg))
	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	require.NoError(t, query.WaitForSeries(ctx, q,
		fmt.Sprintf(`count_over_time(container_cpu_cfs_periods_total{namespace=%q}[1m]) >= 3`, p.Namespace), time.Minute), prom.Log())
	simStart := time.Now()

	testID := "story3-" + p.Name
	test, err := scenario.Parse(p.Name+".yaml", []byte(s3Scenario(levels)), map[string]string{"TARGET_URL": target})
	require.NoError(t, err)
	every, native := s3Interval, true
	_, rw, err := remotewrite.Compose(remotewrite.Overrides{URLs: []string{prom.WriteURL()}, PushInterval: &every, NativeHistograms: &native, TestID: testID})
	require.NoError(t, err)
	run, err := loadtest.Run(ctx, loadtest.Config{
		Test: test, Source: p.Name + ".yaml", TestID: testID, Logger: logger,
		Actors: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
			c, err := remotewrite.NewClient(rw[0], series.FromAggregate(agg), logger, prometheus.NewRegistry())
			return []loadtest.Sink{c}, err
		})},
	})
	require.NoError(t, err)
	runEnd := time.Now()

	// The kernel's count for the pod's cgroup, after the load (idle: it no longer moves),
	// then the store's after a later scrape.
	snap := rt.Snapshot()
	require.Len(t, snap.Pods, 1)
	pod := snap.Pods[0]
	kernel, err := rt.Hierarchy().Open(rt.Subtree() + "/" + pod.Name).Stat()
	require.NoError(t, err)
	read := time.Now()
	promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(`timestamp(container_cpu_cfs_throttled_periods_total{pod=%q}) > %f`,
		pod.Name, float64(read.Add(s3Interval).UnixMilli())/1000), time.Minute, promtest.NonEmpty)
	v, err := promtest.Query(ctx, prom.URL, fmt.Sprintf(`container_cpu_cfs_throttled_periods_total{pod=%q}`, pod.Name), time.Now())
	require.NoError(t, err)
	vec := v.(model.Vector)
	require.Len(t, vec, 1)
	t.Logf("kernel cpu.stat of %s: %d periods, %d throttled, %s throttled, %s used; store: %v throttled periods",
		pod.Name, kernel.Periods, kernel.Throttled, kernel.ThrottledTime, kernel.Usage, vec[0].Value)
	require.InDelta(t, float64(kernel.Throttled), float64(vec[0].Value), 0, "the store's throttled periods are the kernel's nr_throttled")
	require.Positive(t, kernel.Throttled)

	cat, err := query.Default()
	require.NoError(t, err)
	res, err := correlator.New(q, cat, logger).Correlate(ctx, correlator.Config{
		TestID: testID, Namespace: p.Namespace,
		Baseline: max(run.Summary.Start.Sub(simStart)-s3Interval, s3Interval), After: time.Since(runEnd),
	})
	require.NoError(t, err)
	require.Positive(t, res.Load.Requests)
	require.InDelta(t, 0, res.Load.Failures, 0, "no request failed")
	require.Len(t, res.CPU, 1)
	c := res.CPU[0]
	for _, o := range c.Onsets {
		vus := "-"
		if o.VUs != nil {
			vus = fmt.Sprintf("%.1f", o.VUs.Value)
		}
		t.Logf("onset > %.0f%% at %.1fs: ratio %.1f%%, %s VUs", 100*o.Threshold, o.At.At.Sub(run.Summary.Start).Seconds(), 100*o.Ratio, vus)
	}
	for _, h := range c.Holds {
		t.Logf("hold of %.0f %s: throttled in %.1f%% of its CFS periods", h.Target, h.Unit, 100*h.Share.Value)
	}
	// Story 3's conclusion on real cgroups: the CPU (throttled) limited the load, at 0%
	// errors, whether a latency threshold broke a stage or the p95 rose past
	// latency_rise while every stage held.
	t.Logf("bottleneck: %s; evidence %q; ruled out %+v; not checked %+v", res.Bottleneck.Text, res.Bottleneck.Evidence, res.Bottleneck.RuledOut, res.Bottleneck.NotChecked)
	require.Equal(t, analysis.ResourceCPU, res.Bottleneck.Resource)
	// The pods' cgroups are the cpu controller's only: cAdvisor serves a working set of
	// 0, which is no measurement. Memory is not checked, never ruled out with zeros.
	require.False(t, slices.ContainsFunc(res.Bottleneck.RuledOut, func(o analysis.RuledOut) bool { return o.Resource == analysis.ResourceMemory }),
		"memory ruled out with zeros: %+v", res.Bottleneck.RuledOut)
	require.True(t, slices.ContainsFunc(res.Bottleneck.NotChecked, func(n analysis.NotChecked) bool {
		return n.Resource == analysis.ResourceMemory && strings.Contains(n.Missing, "a working set of 0 in every sample")
	}), "memory not checked: %+v", res.Bottleneck.NotChecked)
	// Story 3's onset is where throttling takes over: the report's throttling onset, the
	// first hold throttled in most of its CFS periods (the catalog's
	// throttle_stage_onset), whatever the host's load made of the bursts below it.
	require.NotNil(t, c.StageOnset, "a throttling onset is reported")
	require.Equal(t, analysis.StageUnitVUs, c.StageOnset.Unit, "the holds are of users")
	require.Contains(t, levels, int(c.StageOnset.Target), "the onset is one of the levels")
	return c.StageOnset.Target
}
