package watcher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/regress"
)

// syntheticRun is a run with the key facts of story 1 (about 40, as correlator.KeyFacts
// gives them) and one change.
func syntheticRun(i int) Run {
	var kfs []facts.KeyFact
	for _, name := range []string{"requests_total", "failures_total", "error_ratio", "peak_request_rate", "errors_in_gap_ratio"} {
		kfs = append(kfs, facts.KeyFact{Name: name, Value: float64(i), Unit: "count"})
	}
	for st := range 4 {
		for _, name := range []string{"stage_held", "stage_achieved_ratio", "stage_error_ratio", "stage_p95_seconds"} {
			kfs = append(kfs, facts.KeyFact{Name: name, Labels: map[string]string{"stage": fmt.Sprint(st), "scenario": "spike"}, Value: 1, Unit: "ratio"})
		}
	}
	for _, name := range []string{"hpa_baseline_replicas", "hpa_peak_replicas", "hpa_time_to_max_seconds", "hpa_held_at_max_seconds", "hpa_scale_in_delay_seconds", "hpa_recovery_seconds"} {
		kfs = append(kfs, facts.KeyFact{Name: name, Labels: map[string]string{"object": "shoong/order"}, Value: 30, Unit: "seconds", ResolutionSeconds: 15, Resolution: 15})
	}
	for _, from := range []string{"load_step", "metric_crossed"} {
		kfs = append(kfs, facts.KeyFact{Name: "hpa_reaction_seconds", Labels: map[string]string{"object": "shoong/order", "from": from}, Value: 30, Unit: "seconds", ResolutionSeconds: 15, Resolution: 15})
	}
	for step := range 2 {
		kfs = append(kfs, facts.KeyFact{Name: "hpa_ready_gap_seconds", Labels: map[string]string{"object": "shoong/order", "step": fmt.Sprint(step), "to": "4"}, Value: 15, Unit: "seconds"})
	}
	end := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	id := fmt.Sprintf("spike-50-%08d", 20260101+i)
	return Run{TestID: id, Group: "spike-50", From: end.Add(-10 * time.Minute), To: end, CorrelatedAt: end.Add(15 * time.Minute),
		Facts: kfs, Report: id, Notes: []string{"rds: no RDS series"}, Bottleneck: "startup",
		Changes: []regress.Change{{Fact: kfs[len(kfs)-3], TestID: id, BaselineTestID: "spike-50-20260101", Baseline: 25, Delta: 5, Text: "HPA reaction shoong/order: 30 s, was 25 s"}}}
}

// clockAfter returns a clock an hour after syntheticRun(n-1) ended.
func clockAfter(n int) func() time.Time {
	t := syntheticRun(n - 1).To.Add(time.Hour)
	return func() time.Time { return t }
}

func openHistory(t testing.TB, dir string, cfg HistoryConfig, now func() time.Time) *History {
	t.Helper()
	h, err := OpenHistory(dir, cfg, now)
	require.NoError(t, err)
	return h
}

func TestHistorySaveAndOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := openHistory(t, dir, HistoryConfig{}, clockAfter(3))
	for i := range 3 {
		require.NoError(t, h.Add(syntheticRun(2-i))) // out of order: kept by end
	}
	again := openHistory(t, dir, HistoryConfig{}, clockAfter(3))
	require.Equal(t, h.Runs(), again.Runs())
	require.Equal(t, "spike-50-20260101", again.Runs()[0].TestID)
	require.True(t, again.Has("spike-50-20260103"))
	require.Len(t, again.Before("spike-50", syntheticRun(2).To), 2)
	require.Equal(t, 3, again.Len())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the log: no state file before the first compaction, no temporary file")
	require.Equal(t, LogFile, entries[0].Name())
}

func TestOpenHistoryBadState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, StateFile), []byte("{"), 0o600))
	_, err := OpenHistory(dir, HistoryConfig{}, nil)
	require.ErrorContains(t, err, "parse state file")
	require.NoError(t, os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"version":99}`), 0o600))
	_, err = OpenHistory(dir, HistoryConfig{}, nil)
	require.ErrorContains(t, err, "version 99, expected 1")
	require.NoError(t, os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"version":1,"runs":[]}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, LogFile), []byte("{\"testid\":\"a\"}\nnot json\n{\"testid\":\"b\"}\n"), 0o600))
	_, err = OpenHistory(dir, HistoryConfig{}, nil)
	require.ErrorContains(t, err, "parse state log "+filepath.Join(dir, LogFile)+" line 2")
}

// pageIDs returns the testids of the whole history on disk, newest first.
func pageIDs(t *testing.T, h *History) []string {
	t.Helper()
	runs, total, err := h.Page(0, 1000)
	require.NoError(t, err)
	require.Len(t, runs, total)
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.TestID)
	}
	return ids
}

// TestHistoryLogAndCompaction: every run is appended to the log; every CompactAfter runs
// the log is merged into the state file and emptied; a line torn by kill -9 is dropped
// and cut off; a crash after the state file was replaced but before the log was emptied
// counts no run twice.
func TestHistoryLogAndCompaction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := HistoryConfig{CompactAfter: 4}
	h := openHistory(t, dir, cfg, clockAfter(10))
	var want []string
	for i := range 10 {
		require.NoError(t, h.Add(syntheticRun(i)))
		want = append([]string{syntheticRun(i).TestID}, want...)
	}
	var st struct{ Runs []Run }
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	require.Len(t, st.Runs, 8, "compacted twice")
	require.Equal(t, syntheticRun(0), st.Runs[0], "runs round-trip through the state file")
	logged, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	require.Equal(t, 2, bytes.Count(logged, []byte("\n")), "two runs since")
	require.Equal(t, want, pageIDs(t, h))

	// kill -9 in the middle of an append: the torn line is dropped and cut off.
	require.NoError(t, os.WriteFile(filepath.Join(dir, LogFile), append(logged, []byte(`{"testid":"spike-50-2026`)...), 0o600))
	again := openHistory(t, dir, cfg, clockAfter(10))
	require.Equal(t, 10, again.Len())
	require.False(t, again.Has("spike-50-2026"))
	after, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	require.Equal(t, logged, after, "the torn line is cut off, the next append starts a line")
	require.Equal(t, want, pageIDs(t, again))

	// A crash between replacing the state file and emptying the log: the log's runs are
	// in both; each is counted and listed once.
	require.NoError(t, again.Compact())
	require.NoError(t, os.WriteFile(filepath.Join(dir, LogFile), logged, 0o600))
	third := openHistory(t, dir, cfg, clockAfter(10))
	require.Equal(t, 10, third.Len())
	require.Equal(t, want, pageIDs(t, third))
	runs, total, err := third.Page(8, 5)
	require.NoError(t, err)
	require.Equal(t, 10, total)
	require.Len(t, runs, 2)
	require.Equal(t, syntheticRun(1).TestID, runs[0].TestID)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "state file and log, no temporary file")
}

// TestHistoryBounded: memory holds each group's last runs within the retention (at least
// regress.HistoryWindow), /metrics the last MaxRunsPerGroup; testids are remembered for
// KnownFor; the disk keeps every run.
func TestHistoryBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := clockAfter(30)
	cfg := HistoryConfig{MaxRunsPerGroup: 3, Retention: 20 * time.Hour, KnownFor: 5 * time.Hour}
	h := openHistory(t, dir, cfg, now)
	for i := range 30 {
		require.NoError(t, h.Add(syntheticRun(i)))
	}
	other := syntheticRun(29)
	other.TestID, other.Group = "soak-1", "soak"
	require.NoError(t, h.Add(other))
	require.Equal(t, 31, h.Len())
	require.Len(t, pageIDs(t, h), 31)
	for _, hh := range []*History{h, openHistory(t, dir, cfg, now)} {
		runs := hh.Runs()
		require.Len(t, runs, regress.HistoryWindow+1)
		require.Equal(t, syntheticRun(20).TestID, runs[0].TestID, "the group's last 10")
		require.Len(t, hh.Before("spike-50", syntheticRun(29).To), regress.HistoryWindow-1)
		var exposed []string
		hh.mu.RLock()
		hh.exposed(func(r *record) { exposed = append(exposed, r.testID) })
		hh.mu.RUnlock()
		require.ElementsMatch(t, []string{syntheticRun(27).TestID, syntheticRun(28).TestID, syntheticRun(29).TestID, "soak-1"}, exposed)
		require.True(t, hh.Has(syntheticRun(26).TestID), "ended 4 h before now")
		require.False(t, hh.Has(syntheticRun(24).TestID), "ended 6 h before now: it cannot be listed again")
	}

	// Retention: runs that ended more than 20 h ago are neither held nor exposed.
	cfg.MaxRunsPerGroup = 30
	h = openHistory(t, dir, cfg, now)
	runs := h.Runs()
	require.Len(t, runs, 21, "20 h of spike-50 and soak-1")
	require.Equal(t, syntheticRun(10).TestID, runs[0].TestID, "ended 20 h before now")
}

func TestReportDir(t *testing.T) {
	t.Parallel()
	require.Equal(t, "spike-50-20260301", reportDir("spike-50-20260301"))
	for _, id := range []string{"../etc", "a/b", "..", "x y"} {
		d := reportDir(id)
		require.Regexp(t, `^[A-Za-z0-9_][A-Za-z0-9._-]*-[0-9a-f]{8}$`, d, id)
	}
	require.NotEqual(t, reportDir("a/b"), reportDir("a_b"))
}

// BenchmarkHistory1000Runs adds 1,000 runs of ~40 key facts each, all of one group, to
// a history (each appended to the log and fsynced, the log compacted every 64 runs):
// heap-bytes is the live heap it holds afterwards (after a GC), heap-bytes-100 the same
// after the first 100 runs (flat: memory holds each group's last runs, not the
// history), exposed-runs the runs /metrics shows, state-bytes the files on disk.
func BenchmarkHistory1000Runs(b *testing.B) {
	runs := make([]Run, 1000)
	for i := range runs {
		runs[i] = syntheticRun(i)
	}
	var ms0, ms100, ms1 runtime.MemStats
	var h *History
	var dir string
	b.ReportAllocs()
	for b.Loop() {
		h = nil
		dir = b.TempDir()
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		var now time.Time
		h = openHistory(b, dir, HistoryConfig{}, func() time.Time { return now })
		for i, r := range runs {
			now = r.To.Add(15 * time.Minute) // correlated after its cool-down
			if err := h.Add(r); err != nil {
				b.Fatal(err)
			}
			if i == 99 {
				runtime.GC()
				runtime.ReadMemStats(&ms100)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms1)
	}
	b.ReportMetric(float64(ms1.HeapAlloc)-float64(ms0.HeapAlloc), "heap-bytes")
	b.ReportMetric(float64(ms100.HeapAlloc)-float64(ms0.HeapAlloc), "heap-bytes-100")
	n := 0
	h.mu.RLock()
	h.exposed(func(*record) { n++ })
	h.mu.RUnlock()
	b.ReportMetric(float64(n), "exposed-runs")
	var size int64
	for _, f := range []string{StateFile, LogFile} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	b.ReportMetric(float64(size), "state-bytes")
	runtime.KeepAlive(h)
	runtime.KeepAlive(runs)
}
