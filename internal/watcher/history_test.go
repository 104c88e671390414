package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/regress"
)

// syntheticRun is a run with the key facts of story 1 (about 40, as correlator.KeyFacts
// gives them) and one change.
func syntheticRun(i int) Run {
	var facts []correlator.KeyFact
	for _, name := range []string{"requests_total", "failures_total", "error_ratio", "peak_request_rate", "errors_in_gap_ratio"} {
		facts = append(facts, correlator.KeyFact{Name: name, Value: float64(i), Unit: "count"})
	}
	for st := range 4 {
		for _, name := range []string{"stage_held", "stage_achieved_ratio", "stage_error_ratio", "stage_p95_seconds"} {
			facts = append(facts, correlator.KeyFact{Name: name, Labels: map[string]string{"stage": fmt.Sprint(st), "scenario": "spike"}, Value: 1, Unit: "ratio"})
		}
	}
	for _, name := range []string{"hpa_baseline_replicas", "hpa_peak_replicas", "hpa_time_to_max_seconds", "hpa_held_at_max_seconds", "hpa_scale_in_delay_seconds", "hpa_recovery_seconds"} {
		facts = append(facts, correlator.KeyFact{Name: name, Labels: map[string]string{"object": "shoong/order"}, Value: 30, Unit: "seconds", ResolutionSeconds: 15, Resolution: 15})
	}
	for _, from := range []string{"load_step", "metric_crossed"} {
		facts = append(facts, correlator.KeyFact{Name: "hpa_reaction_seconds", Labels: map[string]string{"object": "shoong/order", "from": from}, Value: 30, Unit: "seconds", ResolutionSeconds: 15, Resolution: 15})
	}
	for step := range 2 {
		facts = append(facts, correlator.KeyFact{Name: "hpa_ready_gap_seconds", Labels: map[string]string{"object": "shoong/order", "step": fmt.Sprint(step), "to": "4"}, Value: 15, Unit: "seconds"})
	}
	end := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	id := fmt.Sprintf("spike-50-%08d", 20260101+i)
	return Run{TestID: id, Group: "spike-50", From: end.Add(-10 * time.Minute), To: end, CorrelatedAt: end.Add(15 * time.Minute),
		Facts: facts, Report: id, Notes: []string{"rds: no RDS series"},
		Changes: []regress.Change{{Fact: facts[len(facts)-3], TestID: id, BaselineTestID: "spike-50-20260101", Baseline: 25, Delta: 5, Text: "HPA reaction shoong/order: 30 s, was 25 s"}}}
}

func TestHistorySaveAndOpen(t *testing.T) {
	dir := t.TempDir()
	h, err := OpenHistory(dir)
	require.NoError(t, err)
	for i := range 3 {
		h.Add(syntheticRun(2 - i)) // out of order: kept by end
	}
	require.NoError(t, h.Save())
	again, err := OpenHistory(dir)
	require.NoError(t, err)
	require.Equal(t, h.Runs(), again.Runs())
	require.Equal(t, "spike-50-20260101", again.Runs()[0].TestID)
	require.True(t, again.Has("spike-50-20260103"))
	require.Len(t, again.Before("spike-50", syntheticRun(2).To), 2)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left behind")
}

func TestOpenHistoryBadState(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, StateFile), []byte("{"), 0o600))
	_, err := OpenHistory(dir)
	require.ErrorContains(t, err, "parse state file")
	require.NoError(t, os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"version":99}`), 0o600))
	_, err = OpenHistory(dir)
	require.ErrorContains(t, err, "version 99, expected 1")
}

func TestReportDir(t *testing.T) {
	require.Equal(t, "spike-50-20260301", reportDir("spike-50-20260301"))
	for _, id := range []string{"../etc", "a/b", "..", "x y"} {
		d := reportDir(id)
		require.Regexp(t, `^[A-Za-z0-9_][A-Za-z0-9._-]*-[0-9a-f]{8}$`, d, id)
	}
	require.NotEqual(t, reportDir("a/b"), reportDir("a_b"))
}

// BenchmarkHistory1000Runs adds 1,000 runs of ~40 key facts each to a history and saves
// it once: bytes/op is what building it allocates, heap-bytes the live heap it holds
// afterwards (after a GC), state-bytes the state file.
func BenchmarkHistory1000Runs(b *testing.B) {
	runs := make([]Run, 1000)
	for i := range runs {
		runs[i] = syntheticRun(i)
	}
	dir := b.TempDir()
	var ms0, ms1 runtime.MemStats
	var h *History
	b.ReportAllocs()
	for b.Loop() {
		h = nil
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		h = &History{path: filepath.Join(dir, StateFile), in: newInterner(), byID: map[string]*record{}}
		for _, r := range runs {
			h.Add(r)
		}
		if err := h.Save(); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms1)
	}
	b.ReportMetric(float64(ms1.HeapAlloc)-float64(ms0.HeapAlloc), "heap-bytes")
	st, err := os.Stat(filepath.Join(dir, StateFile))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size()), "state-bytes")
	runtime.KeepAlive(h)
	runtime.KeepAlive(runs)
}
