package regress

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/facts"
)

const order = "shoong/dev-shoong-order"

var day1 = time.Date(2026, 5, 28, 10, 30, 0, 0, time.UTC)

// spikeRun is one run of the spike: reaction and time to max shifted by
// later seconds (every scale-up later), ready gaps unchanged, resolution ±15 s.
func spikeRun(id string, end time.Time, later float64) Run {
	return Run{TestID: id, Group: Group(id), End: end, Facts: []facts.KeyFact{
		{Name: "requests_total", Value: 30000 + later, Unit: analysis.UnitCount},
		{Name: "hpa_peak_replicas", Labels: map[string]string{"object": order}, Value: 5, Unit: analysis.UnitReplicas},
		{Name: "hpa_reaction_seconds", Labels: map[string]string{"object": order, "from": "load_step"}, Value: 25 + later, Unit: analysis.UnitSeconds, ResolutionSeconds: 15, Resolution: 15},
		{Name: "hpa_time_to_max_seconds", Labels: map[string]string{"object": order}, Value: 60 + later, Unit: analysis.UnitSeconds, ResolutionSeconds: 15, Resolution: 15},
		{Name: "hpa_ready_gap_seconds", Labels: map[string]string{"object": order, "step": "0", "to": "4"}, Value: 30, Unit: analysis.UnitSeconds, ResolutionSeconds: 15, Resolution: 15},
	}}
}

func texts(cs []Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Text)
	}
	return out
}

// TestDetectStory is the story: two runs of one spike a day apart, the second
// with every scale-up 30 s later (resolution ±15 s), then a third equal to the first.
func TestDetectStory(t *testing.T) {
	t.Parallel()
	run1 := spikeRun("spike-50-20260528", day1, 0)
	run2 := spikeRun("spike-50-20260529", day1.Add(24*time.Hour), 30)
	run3 := spikeRun("spike-50-20260530", day1.Add(48*time.Hour), 0)
	require.Equal(t, run1.Group, run2.Group)

	got := Detect([]Run{run1}, run2)
	require.Equal(t, []string{
		"HPA reaction " + order + ": 55 s, was 25 s in spike-50-20260528 (+30 s, resolution ±15 s)",
		"Time to max " + order + ": 1m30s, was 1m0s in spike-50-20260528 (+30 s, resolution ±15 s)",
	}, texts(got))
	c := got[0]
	require.True(t, c.Regression)
	require.InDelta(t, 30.0, c.Delta, 1e-9)
	require.InDelta(t, 25.0, c.Baseline, 1e-9)
	require.Equal(t, "spike-50-20260529", c.TestID)
	require.Equal(t, "spike-50-20260528", c.BaselineTestID)
	require.Equal(t, "hpa_reaction_seconds", c.Fact.Name)
	require.Equal(t, "load_step", c.Fact.Labels["from"])

	// The third run, equal to the first, against both: the history's median (40 s) and
	// spread (MAD 15 s) hold it; it is neither a regression nor an improvement.
	require.Empty(t, Detect([]Run{run2, run1}, run3), "history order does not matter")
	require.Empty(t, Detect([]Run{run1, run2}, run3))
	// Against the first alone it is the same run again.
	require.Empty(t, Detect([]Run{run1}, run3))
}

func TestDetect(t *testing.T) {
	t.Parallel()
	base := spikeRun("spike-50-20260528", day1, 0)
	at := func(d int) time.Time { return day1.Add(time.Duration(d) * 24 * time.Hour) }
	fact := func(name string, v, res float64, unit string, labels ...string) facts.KeyFact {
		f := facts.KeyFact{Name: name, Value: v, Unit: unit, ResolutionSeconds: res, Resolution: res}
		if len(labels) > 0 {
			f.Labels = map[string]string{}
			for i := 0; i+1 < len(labels); i += 2 {
				f.Labels[labels[i]] = labels[i+1]
			}
		}
		return f
	}
	run := func(id string, day int, fs ...facts.KeyFact) Run {
		return Run{TestID: id, Group: "g", End: at(day), Facts: fs}
	}
	for _, tc := range []struct {
		name    string
		history []Run
		current Run
		want    []string
		regress []bool
	}{
		{
			name:    "noise within the resolution is nothing",
			history: []Run{base},
			current: spikeRun("spike-50-20260529", at(1), 14),
		},
		{
			name:    "exactly the resolution is nothing",
			history: []Run{base},
			current: spikeRun("spike-50-20260529", at(1), 15),
		},
		{
			name:    "an improvement is not a regression",
			history: []Run{spikeRun("spike-50-20260528", day1, 30)},
			current: spikeRun("spike-50-20260529", at(1), 0),
			want: []string{
				"HPA reaction " + order + ": 25 s, was 55 s in spike-50-20260528 (−30 s, resolution ±15 s)",
				"Time to max " + order + ": 1m0s, was 1m30s in spike-50-20260528 (−30 s, resolution ±15 s)",
			},
			regress: []bool{false, false},
		},
		{
			name:    "a steady history flags the same regression again; the baseline is a run at the median",
			history: []Run{base, spikeRun("spike-50-20260529", at(1), 0), spikeRun("spike-50-20260530", at(2), 30)},
			current: spikeRun("spike-50-20260531", at(3), 30),
			want: []string{
				"HPA reaction " + order + ": 55 s, was 25 s in spike-50-20260529 (+30 s, resolution ±15 s)",
				"Time to max " + order + ": 1m30s, was 1m0s in spike-50-20260529 (+30 s, resolution ±15 s)",
			},
			regress: []bool{true, true},
		},
		{
			name: "a noisy history's spread holds a change larger than the resolution",
			history: []Run{
				run("a", 0, fact("hpa_reaction_seconds", 20, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
				run("b", 1, fact("hpa_reaction_seconds", 40, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
				run("c", 2, fact("hpa_reaction_seconds", 30, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
			},
			current: run("d", 3, fact("hpa_reaction_seconds", 55, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
		},
		{
			name: "outside a noisy history's spread",
			history: []Run{
				run("a", 0, fact("hpa_reaction_seconds", 20, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
				run("b", 1, fact("hpa_reaction_seconds", 24, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
				run("c", 2, fact("hpa_reaction_seconds", 22, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
			},
			current: run("d", 3, fact("hpa_reaction_seconds", 40, 5, analysis.UnitSeconds, "object", order, "from", "load_step")),
			want:    []string{"HPA reaction " + order + ": 40 s, was 22 s in c (+18 s, resolution ±5 s, outside 22 s ± 9 s of the last 3 runs)"},
			regress: []bool{true},
		},
		{
			name:    "down is worse for a throttling onset",
			history: []Run{run("a", 0, fact("throttling_onset_vus", 40, 2, analysis.UnitVUs, "object", order, "threshold", "0.05"))},
			current: run("b", 1, fact("throttling_onset_vus", 20, 2, analysis.UnitVUs, "object", order, "threshold", "0.05")),
			want:    []string{"Throttling onset VUs " + order + " (throttled > 5%): 20 VUs, was 40 VUs in a (−20 VUs, resolution ±2 VUs)"},
			regress: []bool{true},
		},
		{
			name:    "a fact without resolution: changes under the relative floor are noise",
			history: []Run{run("a", 0, fact("stage_p95_seconds", 0.200, 0, analysis.UnitSeconds, "stage", "1", "scenario", "spike"))},
			current: run("b", 1, fact("stage_p95_seconds", 0.209, 0, analysis.UnitSeconds, "stage", "1", "scenario", "spike")),
		},
		{
			name:    "a fact without resolution: over the relative floor",
			history: []Run{run("a", 0, fact("stage_p95_seconds", 0.200, 0, analysis.UnitSeconds, "stage", "1", "scenario", "spike"))},
			current: run("b", 1, fact("stage_p95_seconds", 0.300, 0, analysis.UnitSeconds, "stage", "1", "scenario", "spike")),
			want:    []string{"Stage 2 (spike) p95 latency: 300 ms, was 200 ms in a (+100 ms)"},
			regress: []bool{true},
		},
		{
			name:    "ratios change in percentage points",
			history: []Run{run("a", 0, fact("error_ratio", 0.01, 0, analysis.UnitRatio))},
			current: run("b", 1, fact("error_ratio", 0.05, 0, analysis.UnitRatio)),
			want:    []string{"Error rate: 5.00%, was 1.00% in a (+4.00 pp)"},
			regress: []bool{true},
		},
		{
			name:    "label sets must match: stage 1 of a two-stage run is not stage 1 of a three-stage run",
			history: []Run{run("a", 0, fact("stage_held", 1, 0, analysis.UnitCount, "stage", "1", "scenario", "ramp"))},
			current: run("b", 1, fact("stage_held", 0, 0, analysis.UnitCount, "stage", "1", "scenario", "spike")),
		},
		{
			name:    "neutral facts are not reported",
			history: []Run{run("a", 0, fact("hpa_peak_replicas", 5, 0, analysis.UnitReplicas, "object", order))},
			current: run("b", 1, fact("hpa_peak_replicas", 10, 0, analysis.UnitReplicas, "object", order)),
		},
		{
			name:    "the current run and later runs in the history are ignored",
			history: []Run{spikeRun("spike-50-20260529", at(1), 30), spikeRun("spike-50-20260530", at(2), 30)},
			current: spikeRun("spike-50-20260529", at(1), 0),
		},
		{
			name:    "no history",
			current: base,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Detect(tc.history, tc.current)
			if tc.want == nil {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tc.want, texts(got))
			for i, c := range got {
				require.Equal(t, tc.regress[i], c.Regression, c.Text)
			}
		})
	}
}

// TestDetectHistoryWindow: only the last HistoryWindow runs count, so an old level is
// forgotten.
func TestDetectHistoryWindow(t *testing.T) {
	t.Parallel()
	var history []Run
	for i := range 15 {
		later := 0.0
		if i >= 5 {
			later = 30 // the last 10 runs are at the new level
		}
		history = append(history, spikeRun("spike-50-"+day1.Add(time.Duration(i)*24*time.Hour).Format("20060102"), day1.Add(time.Duration(i)*24*time.Hour), later))
	}
	cur := spikeRun("spike-50-20260620", day1.Add(30*24*time.Hour), 30)
	require.Empty(t, Detect(history, cur))
}

func TestNewRun(t *testing.T) {
	t.Parallel()
	end := day1
	r := &correlator.Result{TestID: "spike-50-20260528", Window: correlator.Windows{}}
	r.Window.Run.To = end
	r.Autoscaling = []analysis.HPA{{Namespace: "shoong", Name: "dev-shoong-order", ReactionFromLoadStep: &analysis.Fact{Value: 25, Unit: analysis.UnitSeconds, ResolutionSeconds: 15}}}
	run := NewRun(r)
	require.Equal(t, "spike-50", run.Group)
	require.Equal(t, end, run.End)
	require.Contains(t, run.Facts, facts.KeyFact{Name: "hpa_reaction_seconds", Labels: map[string]string{"object": order, "from": "load_step"},
		Value: 25, Unit: analysis.UnitSeconds, ResolutionSeconds: 15, Resolution: 15})
}
