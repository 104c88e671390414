package correlator

import (
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/timeline"
)

func TestWriteBack(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	at := end.Add(-5 * time.Minute)
	r := &Result{
		TestID: "spike-50",
		Window: Windows{Run: timeline.Window{From: end.Add(-10 * time.Minute), To: end}},
		Events: []analysis.Event{{At: at, Kind: analysis.EventScaleUp, Object: "shoong/order"}},
		Autoscaling: []analysis.HPA{{Namespace: "shoong", Name: "order",
			ReactionFromLoadStep: &analysis.Fact{Value: 30},
			Steps:                []analysis.ScaleStep{{To: 4, ReadyGap: &analysis.Fact{Value: 15}}, {To: 5, NeverReady: true}}}},
	}
	got := map[string]timeline.Series{}
	for _, s := range WriteBack(r) {
		require.Equal(t, "spike-50", s.Label("testid"))
		require.Len(t, s.Points, 1)
		// Every name and label set is valid for remote write.
		_, err := parser.NewParser(parser.Options{}).ParseMetric(s.String())
		require.NoError(t, err, s.String())
		got[s.String()] = s
	}
	ev := got[`tidemark_event{kind="scale_up", object="shoong/order", testid="spike-50"}`]
	require.Equal(t, []timeline.Point{{T: at, V: 1}}, ev.Points)
	gap := got[`tidemark_fact_hpa_ready_gap_seconds{object="shoong/order", step="0", testid="spike-50", to="4"}`]
	require.Equal(t, []timeline.Point{{T: end, V: 15}}, gap.Points)
	require.NotContains(t, got, `tidemark_fact_hpa_ready_gap_seconds{object="shoong/order", step="1", testid="spike-50", to="5"}`, "never ready: no number")
	require.Contains(t, got, `tidemark_fact_hpa_reaction_seconds{from="load_step", object="shoong/order", testid="spike-50"}`)
	require.NotContains(t, got, `tidemark_fact_hpa_reaction_seconds{from="metric_crossed", object="shoong/order", testid="spike-50"}`)
}

func TestKeyFacts(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	onset := end.Add(-4 * time.Minute)
	vus := timeline.Series{Labels: map[string]string{}}
	for i := range 20 {
		vus.Points = append(vus.Points, timeline.Point{T: onset.Add(time.Duration(i-10) * 5 * time.Second), V: float64(10 + i)})
	}
	stage := analysis.StageFacts{Stage: timeline.Stage{Index: 1, Scenario: "spike", Window: timeline.Window{From: end.Add(-8 * time.Minute), To: end.Add(-3 * time.Minute)}},
		AchievedRatio: &analysis.Fact{Value: 0.9, Unit: analysis.UnitRatio, ResolutionSeconds: 15},
		P95:           &analysis.Fact{Value: 0.25, Unit: analysis.UnitSeconds, ResolutionSeconds: 15}}
	r := &Result{
		TestID: "spike-50",
		Window: Windows{Run: timeline.Window{From: end.Add(-10 * time.Minute), To: end}},
		Load:   analysis.Load{Requests: 100, Stages: []analysis.StageFacts{stage}},
		Autoscaling: []analysis.HPA{{Namespace: "shoong", Name: "order",
			ReactionFromLoadStep: &analysis.Fact{Value: 30, Unit: analysis.UnitSeconds, ResolutionSeconds: 20}}},
		CPU: []analysis.WorkloadCPU{{Namespace: "shoong", Workload: "order", Onsets: []analysis.Onset{{Threshold: 0.05,
			At:  &analysis.Fact{Unit: analysis.UnitTime, At: onset, ResolutionSeconds: 10},
			VUs: &analysis.Fact{Value: 20, Unit: analysis.UnitVUs, ResolutionSeconds: 5}}}}},
		Series: map[string]timeline.Set{analysis.QVUs: {vus}},
	}
	byName := map[string]facts.KeyFact{}
	for _, k := range KeyFacts(r) {
		require.NotContains(t, k.Labels, "testid")
		byName[k.Name] = k
	}
	require.Equal(t, facts.KeyFact{Name: "hpa_reaction_seconds", Labels: map[string]string{"object": "shoong/order", "from": "load_step"},
		Value: 30, Unit: analysis.UnitSeconds, ResolutionSeconds: 20, Resolution: 20}, byName["hpa_reaction_seconds"], "a span's resolution is its own")
	require.InDelta(t, 0.0, byName["stage_p95_seconds"].Resolution, 1e-12, "a latency has no resolution in seconds")
	require.InDelta(t, 0.9*2*15/300, byName["stage_achieved_ratio"].Resolution, 1e-12, "both ends of the 5 min stage ±15 s")
	// The onset lies within 10 s before its sample: VUs 18…20 there.
	require.InDelta(t, 2.0, byName["throttling_onset_vus"].Resolution, 1e-12)
	require.Equal(t, map[string]string{"object": "shoong/order", "threshold": "0.05"}, byName["throttling_onset_vus"].Labels)
	require.InDelta(t, 0.0, byName["requests_total"].Resolution, 1e-12)

	// WriteBack writes exactly the key facts, at the run's end.
	var facts []string
	for _, s := range WriteBack(r) {
		if s.Label("__name__") != EventMetric {
			facts = append(facts, s.String())
			require.Equal(t, end, s.Points[0].T)
		}
	}
	var want []string
	for _, k := range KeyFacts(r) {
		want = append(want, timeline.Series{Labels: k.Series("spike-50")}.String())
	}
	require.Equal(t, want, facts)
}

func TestWriteBackBottleneck(t *testing.T) {
	end := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	r := &Result{TestID: "t1", Window: Windows{Run: timeline.Window{From: end.Add(-10 * time.Minute), To: end}},
		Bottleneck: analysis.Bottleneck{Resource: analysis.ResourceLoadGenerator}}
	var found []timeline.Series
	for _, s := range WriteBack(r) {
		if s.Labels["__name__"] == BottleneckMetric {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s series, want 1", len(found), BottleneckMetric)
	}
	s := found[0]
	if s.Labels["resource"] != "load-generator" || s.Labels["testid"] != "t1" || len(s.Points) != 1 || !s.Points[0].T.Equal(end) || s.Points[0].V != 1 {
		t.Errorf("got %+v", s)
	}
}

// TestWriteBackSLO: with --slo, every rule's state at each evaluation over the run is
// written back as tidemark_slo_rule_firing{judge="correlate"}; two rules of one name
// and severity are one series, firing when either fires.
func TestWriteBackSLO(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return from.Add(time.Duration(s) * time.Second) }
	r := &Result{TestID: "slo-1", Window: Windows{Run: timeline.Window{From: from, To: at(15)}}, SLO: &slo.Report{Run: slo.Span{Outcomes: []slo.Outcome{
		{Alert: "CPUThrottlingHigh", Severity: "error", Points: []slo.Point{{T: at(5), V: 0}, {T: at(10), V: 1}, {T: at(15), V: 1}}},
		{Alert: "CPUThrottlingHigh", Severity: "error", Points: []slo.Point{{T: at(5), V: 1}, {T: at(10), V: 0}, {T: at(15), V: 0}}},
		{Alert: "Never", Severity: "warning"},
	}}}}
	var got []timeline.Series
	for _, s := range WriteBack(r) {
		if s.Label("__name__") == "tidemark_slo_rule_firing" {
			got = append(got, s)
		}
	}
	require.Len(t, got, 1, "a rule never evaluated has no series")
	require.Equal(t, `tidemark_slo_rule_firing{alertname="CPUThrottlingHigh", judge="correlate", severity="error", testid="slo-1"}`, got[0].String())
	require.Equal(t, []timeline.Point{{T: at(5), V: 1}, {T: at(10), V: 1}, {T: at(15), V: 1}}, got[0].Points)
}
