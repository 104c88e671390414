package facts_test

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/regress"
	"github.com/tidemark/tidemark/internal/timeline"
)

func TestDirection(t *testing.T) {
	t.Parallel()
	d := facts.Default()
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   facts.Direction
	}{
		{"hpa_reaction_seconds", map[string]string{"from": "load_step"}, facts.UpIsWorse},
		{"hpa_reaction_seconds", map[string]string{"from": "metric_crossed"}, facts.UpIsWorse},
		{"hpa_reaction_seconds", nil, facts.UpIsWorse},
		{"stage_achieved_ratio", nil, facts.DownIsWorse},
		{"hpa_peak_replicas", nil, facts.Neutral},
		{"no_such_fact", nil, facts.Neutral},
	} {
		require.Equal(t, tc.want, d.Direction(facts.KeyFact{Name: tc.name, Labels: tc.labels}), tc.name)
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	d := facts.Default()
	for _, tc := range []struct {
		fact facts.KeyFact
		want string
	}{
		{facts.KeyFact{Name: "hpa_reaction_seconds", Labels: map[string]string{"object": "shoong/order", "from": "load_step"}}, "HPA reaction shoong/order"},
		{facts.KeyFact{Name: "hpa_reaction_seconds", Labels: map[string]string{"object": "shoong/order", "from": "metric_crossed"}}, "HPA reaction after crossing shoong/order"},
		{facts.KeyFact{Name: "hpa_ready_gap_seconds", Labels: map[string]string{"object": "shoong/order", "step": "0", "to": "4"}}, "Start-up gap shoong/order (step 1, to 4 replicas)"},
		{facts.KeyFact{Name: "stage_p95_seconds", Labels: map[string]string{"stage": "1", "scenario": "spike"}}, "Stage 2 (spike) p95 latency"},
		{facts.KeyFact{Name: "throttling_onset_vus", Labels: map[string]string{"object": "shoong/order", "threshold": "0.05"}}, "Throttling onset VUs shoong/order (throttled > 5%)"},
		{facts.KeyFact{Name: "no_such_fact", Labels: map[string]string{"zone": "a"}}, "no such fact (zone=a)"},
	} {
		require.Equal(t, tc.want, d.Title(tc.fact))
	}
}

// TestDefault checks the table's own rules: one fact per name and fixed labels, one
// comparison row per name in a section, and every fact readable and titled.
func TestDefault(t *testing.T) {
	t.Parallel()
	keys := map[string]bool{}
	rows := map[string]bool{}
	for _, f := range facts.Default() {
		id := fmt.Sprint(f.Name, f.Fixed)
		require.False(t, keys[id], "fact %s declared twice", id)
		keys[id] = true
		if f.Compare != "" {
			row := string(f.Section) + "/" + f.Compare
			require.False(t, rows[row], "comparison row %s twice", row)
			rows[row] = true
		}
		require.NotNil(t, f.Read, f.Name)
		require.NotEmpty(t, f.Title, f.Name)
		require.NotEmpty(t, f.Section, f.Name)
		require.True(t, f.Key || f.Compare != "" || f.CompareBy != nil, "%s is neither a key fact nor compared", f.Name)
	}
}

// TestAddFact adds a fact in a test-only table and finds it everywhere the table is
// derived: the key facts, the written-back series, compare and the regression detector.
func TestAddFact(t *testing.T) {
	t.Parallel()
	const name = "test_peak_vus"
	table := append(facts.Default(), facts.Fact{
		Name: name, Key: true, Compare: "peak_vus_for_test", Unit: analysis.UnitVUs, Direction: facts.DownIsWorse,
		Title: "Peak VUs held", Section: facts.SectionLoad,
		Read: func(a facts.Analysis) []facts.Value { return []facts.Value{{Fact: a.Load.PeakVUs}} },
	})
	end := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	result := func(id string, vus float64, end time.Time) *correlator.Result {
		return &correlator.Result{TestID: id, Window: correlator.Windows{Run: timeline.Window{From: end.Add(-10 * time.Minute), To: end}},
			Load: analysis.Load{Requests: 100, PeakVUs: &analysis.Fact{Value: vus, Unit: analysis.UnitVUs}}}
	}
	before, after := result("spike-1", 50, end.Add(-time.Hour)), result("spike-2", 20, end)

	// The key facts.
	kfs := table.KeyFacts(after.Analysis())
	want := facts.KeyFact{Name: name, Value: 20, Unit: analysis.UnitVUs}
	require.Contains(t, kfs, want)
	require.NotContains(t, facts.Default().KeyFacts(after.Analysis()), want)
	require.NotContains(t, correlator.KeyFacts(after), want)

	// The written-back series.
	var series []string
	for _, s := range correlator.WriteBackWith(table, after) {
		series = append(series, s.String())
	}
	require.Contains(t, series, `tidemark_fact_test_peak_vus{testid="spike-2"}`)
	for _, s := range correlator.WriteBack(after) {
		require.NotEqual(t, facts.Prefix+name, s.Label("__name__"))
	}

	// compare.
	c := correlator.CompareWith(table, before, after)
	i := slices.IndexFunc(c.Rows, func(r correlator.ComparisonRow) bool { return r.Fact == "peak_vus_for_test" })
	require.NotEqual(t, -1, i, "no comparison row")
	require.Equal(t, "load", c.Rows[i].Section)
	require.InDelta(t, 50, c.Rows[i].Values[0].Value, 0)
	require.InDelta(t, 20, c.Rows[i].Values[1].Value, 0)
	require.False(t, slices.ContainsFunc(correlator.Compare(before, after).Rows, func(r correlator.ComparisonRow) bool { return r.Fact == "peak_vus_for_test" }))

	// The regression detector: down is worse.
	history := []regress.Run{{TestID: before.TestID, End: before.Window.Run.To, Facts: table.KeyFacts(before.Analysis())}}
	current := regress.Run{TestID: after.TestID, End: after.Window.Run.To, Facts: kfs}
	changes := regress.DetectWith(table, history, current)
	j := slices.IndexFunc(changes, func(c regress.Change) bool { return c.Fact.Name == name })
	require.NotEqual(t, -1, j, "no change")
	require.True(t, changes[j].Regression)
	require.InDelta(t, -30, changes[j].Delta, 0)
	require.True(t, strings.HasPrefix(changes[j].Text, "Peak VUs held: 20 VUs, was 50 VUs in spike-1"), changes[j].Text)
	require.False(t, slices.ContainsFunc(regress.Detect(history, current), func(c regress.Change) bool { return c.Fact.Name == name }))
}

// TestLabels reads every fact of the table from a run that has them all, and checks each
// value carries the labels its fact declares.
func TestLabels(t *testing.T) {
	t.Parallel()
	f := func(v float64, u string) *analysis.Fact {
		return &analysis.Fact{Value: v, Unit: u, ResolutionSeconds: 5}
	}
	end := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	held := 0
	a := facts.Analysis{
		Load: analysis.Load{Requests: 100, ErrorRate: f(0.1, analysis.UnitRatio), PeakRate: f(50, analysis.UnitPerSec), PeakVUs: f(10, analysis.UnitVUs), P95: f(0.3, analysis.UnitSeconds),
			Stages: []analysis.StageFacts{{Stage: timeline.Stage{Index: 0, Scenario: "spike", Window: timeline.Window{From: end.Add(-time.Minute), To: end}, EndTarget: 10},
				AchievedRatio: f(0.9, analysis.UnitRatio), ErrorRate: f(0.1, analysis.UnitRatio), P95: f(0.2, analysis.UnitSeconds)}},
			Capacity: analysis.Capacity{LastHeld: &held, FirstBroke: &held}},
		Autoscaling: []analysis.HPA{{Namespace: "shoong", Name: "order", Baseline: f(1, analysis.UnitReplicas), Peak: f(4, analysis.UnitReplicas),
			ReactionFromLoadStep: f(10, analysis.UnitSeconds), ReactionFromCrossing: f(5, analysis.UnitSeconds), TimeToMax: f(30, analysis.UnitSeconds),
			HeldAtMax: f(60, analysis.UnitSeconds), ScaleInDelay: f(100, analysis.UnitSeconds), RecoveryAfterLoadEnd: f(200, analysis.UnitSeconds),
			Steps: []analysis.ScaleStep{{To: 4, ReadyGap: f(7, analysis.UnitSeconds)}}}},
		CPU: []analysis.WorkloadCPU{{Namespace: "shoong", Workload: "order", PeakUsageOfRequest: f(1.2, analysis.UnitRatio), PeakUsageOfLimit: f(0.9, analysis.UnitRatio),
			PeakThrottled: f(0.3, analysis.UnitRatio), Onsets: []analysis.Onset{{Threshold: 0.05, VUs: f(20, analysis.UnitVUs), RequestRate: f(30, analysis.UnitPerSec)}},
			StageOnset: &analysis.HoldThrottling{Stage: 0, Target: 20, Unit: analysis.StageUnitVUs, Share: f(0.9, analysis.UnitRatio), RequestRate: f(18, analysis.UnitPerSec)}}},
		Database: []analysis.Database{{Instance: "db", CPUPeak: f(50, analysis.UnitPercent), ConnectionsPeak: f(20, analysis.UnitCount),
			ConnectionsGrowth: f(10, analysis.UnitCount), FreeableMin: f(1e9, analysis.UnitBytes)}},
		Connections: analysis.Connections{
			Servers: []analysis.DBServer{{Engine: analysis.EnginePostgres, Server: "db:5432", MaxConnections: f(100, analysis.UnitCount),
				ConnectionsPeak: f(30, analysis.UnitCount), PeakShare: f(0.3, analysis.UnitRatio)}},
			Pools: []analysis.Pool{{Namespace: "shoong", Pod: "order-a", Pool: "HikariPool-1", BusyShare: f(0.5, analysis.UnitRatio), PendingPeak: f(2, analysis.UnitCount)}},
			Total: &analysis.Pool{BusyPeak: f(5, analysis.UnitCount), BusyShare: f(0.5, analysis.UnitRatio), PendingPeak: f(2, analysis.UnitCount),
				WaitersAfterStart: f(42, analysis.UnitSeconds)},
		},
		Errors: analysis.Errors{InGapShare: f(0.4, analysis.UnitRatio), Bursts: []analysis.Burst{{Share: 0.5}}},
	}
	for _, fact := range facts.Default() {
		values := fact.Read(a)
		require.NotEmpty(t, values, fact.Name)
		for _, v := range values {
			require.NotNil(t, v.Fact, "%s: the run has every fact", fact.Name)
			require.ElementsMatch(t, fact.Labels, slices.Collect(maps.Keys(v.Labels)), fact.Name)
		}
	}
}

// TestDirectionsDocumented checks docs/regressions.md lists every key fact under its
// direction, and nothing else.
func TestDirectionsDocumented(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docs/regressions.md")
	require.NoError(t, err)
	_, doc, ok := strings.Cut(string(raw), "## Directions")
	require.True(t, ok, "docs/regressions.md has no Directions section")
	doc, _, _ = strings.Cut(doc, "\n## ")
	documented := map[string]facts.Direction{}
	name := regexp.MustCompile("`([a-z0-9_]+)`")
	for line := range strings.SplitSeq(doc, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 || !strings.Contains(line, "`") {
			continue
		}
		for i, dir := range []facts.Direction{facts.UpIsWorse, facts.DownIsWorse, facts.Neutral} {
			for _, m := range name.FindAllStringSubmatch(cells[i], -1) {
				documented[m[1]] = dir
			}
		}
	}
	want := map[string]facts.Direction{}
	for _, f := range facts.Default() {
		if f.Key {
			want[f.Name] = f.Direction
		}
	}
	require.Equal(t, want, documented)
}
