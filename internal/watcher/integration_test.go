//go:build integration

package watcher_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/regress"
	"github.com/tidemark/tidemark/internal/watcher"
	"github.com/tidemark/tidemark/internal/watcher/watchertest"
)

// Story 1's spike on three days: the second with every scale-up 30 s later, the third
// equal to the first; and on a fourth day a run whose cluster sources are missing.
var (
	day1    = watchertest.Run{TestID: "spike-50-20260301", Day: 0}
	day2    = watchertest.Run{TestID: "spike-50-20260302", Day: 1, ScaleUpDelay: 30 * time.Second}
	day3    = watchertest.Run{TestID: "spike-50-20260303", Day: 2}
	lonely  = watchertest.Run{TestID: "lonely-20260304", Day: 3, LoadOnly: true}
	allRuns = []watchertest.Run{day1, day2, day3, lonely}
)

const object = "shoong/order"

func newWatcher(t *testing.T, promURL, dir string) *watcher.Watcher {
	t.Helper()
	return newWatcherFrom(t, promURL, dir, day1)
}

// newWatcherFrom is newWatcher with a lookback that reaches back to first's start.
func newWatcherFrom(t *testing.T, promURL, dir string, first watchertest.Run) *watcher.Watcher {
	t.Helper()
	q, err := query.NewPrometheus(promURL, nil, query.WithTimeout(30*time.Second))
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	c := correlator.New(q, cat, promslog.NewNopLogger())
	lookback := time.Since(watchertest.From(t, first)) + 24*time.Hour
	w, err := watcher.New(watcher.Config{Correlation: correlator.Config{Namespace: "shoong"}, Lookback: lookback, StorageDir: dir},
		q, c, promslog.NewNopLogger())
	require.NoError(t, err)
	return w
}

func runByID(t *testing.T, w *watcher.Watcher, id string) watcher.Run {
	t.Helper()
	for _, r := range w.History().Runs() {
		if r.TestID == id {
			return r
		}
	}
	t.Fatalf("run %s not in the history", id)
	return watcher.Run{}
}

func factValue(t *testing.T, r watcher.Run, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	for _, f := range r.Facts {
		if f.Name != name {
			continue
		}
		match := true
		for k, v := range labels {
			match = match && f.Labels[k] == v
		}
		if match {
			return f.Value, true
		}
	}
	return 0, false
}

func scrape(t *testing.T, w *watcher.Watcher) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(w.Collector()))
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, 200, rec.Code, rec.Body.String())
	return rec.Body.String()
}

// TestIntegrationWatcher: one look correlates every run; the second day's HPA reaction
// is a +30 s regression against the first, the third day's is not; the load-only run
// has its load facts and notes for the rest; /metrics passes promtool; Prometheus down
// and back is counted and retried; a new watcher on the same state correlates nothing
// again.
func TestIntegrationWatcher(t *testing.T) {
	prom := watchertest.Load(t, allRuns)
	dir := t.TempDir()
	w := newWatcher(t, prom.URL, dir)
	ctx := context.Background()

	require.Equal(t, len(allRuns), w.Cycle(ctx), "one look correlates every finished run")

	r1, r2, r3 := runByID(t, w, day1.TestID), runByID(t, w, day2.TestID), runByID(t, w, day3.TestID)
	loadStep := map[string]string{"object": object, "from": "load_step"}
	v1, ok := factValue(t, r1, "hpa_reaction_seconds", loadStep)
	require.True(t, ok, "day 1 has an HPA reaction: %+v", r1.Facts)
	v2, ok := factValue(t, r2, "hpa_reaction_seconds", loadStep)
	require.True(t, ok)
	require.InDelta(t, 30, v2-v1, 0.001, "the fixture's scale-ups are 30 s later")

	var reaction *regress.Change
	for i, c := range r2.Changes {
		if c.Fact.Name == "hpa_reaction_seconds" && c.Fact.Labels["from"] == "load_step" {
			reaction = &r2.Changes[i]
		}
	}
	require.NotNil(t, reaction, "day 2's HPA reaction is a change: %+v", r2.Changes)
	require.True(t, reaction.Regression)
	require.Equal(t, day1.TestID, reaction.BaselineTestID)
	require.InDelta(t, 30, reaction.Delta, 0.001)
	require.NotEmpty(t, reaction.Text)
	for _, c := range r3.Changes {
		require.False(t, c.Regression, "day 3 equals day 1: %s", c.Text)
	}

	lone := runByID(t, w, lonely.TestID)
	require.Empty(t, lone.Error)
	_, ok = factValue(t, lone, "requests_total", nil)
	require.True(t, ok, "the load facts of a run without cluster sources: %+v", lone.Facts)
	_, ok = factValue(t, lone, "hpa_reaction_seconds", nil)
	require.False(t, ok, "no HPA facts without kube-state-metrics")
	require.NotEmpty(t, lone.Notes, "the missing sources are named")
	for _, r := range []watcher.Run{r1, r2, r3, lone} {
		require.NotEmpty(t, r.Report, r.TestID)
		require.FileExists(t, dir+"/reports/"+r.Report+"/report.html")
	}

	text := scrape(t, w)
	for _, id := range []string{day1.TestID, day2.TestID} {
		require.Contains(t, text, `tidemark_fact_hpa_reaction_seconds{from="load_step",object="shoong/order",testid="`+id+`"}`)
	}
	require.Contains(t, text, `tidemark_fact_regression{baseline_testid="spike-50-20260301",fact="hpa_reaction_seconds",from="load_step",kind="regression",object="shoong/order",testid="spike-50-20260302"} 30`)
	require.Contains(t, text, "tidemark_exporter_runs_correlated_total 4")
	cmd := exec.Command("/usr/bin/promtool", "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool check metrics:\n%s", out)

	// Prometheus down: the look fails and is counted; the last success stays.
	errs := func() float64 { return sample(t, w, `tidemark_exporter_errors_total{kind="prometheus"}`) }
	lastSuccess := func() float64 { return sample(t, w, "tidemark_exporter_last_success_timestamp_seconds") }
	last := lastSuccess()
	require.Positive(t, last)
	prom.Stop()
	require.Zero(t, w.Cycle(ctx))
	require.Equal(t, 1.0, errs())
	require.Equal(t, last, lastSuccess())
	prom.Restart(t)
	require.Zero(t, w.Cycle(ctx), "nothing new")
	require.Greater(t, lastSuccess(), last)

	// A new process on the same state: the history is there, nothing is correlated again.
	again := newWatcher(t, prom.URL, dir)
	require.Equal(t, len(allRuns), again.History().Len())
	require.Zero(t, again.Cycle(ctx))
	require.Equal(t, r2.Changes, runByID(t, again, day2.TestID).Changes)
	require.Contains(t, scrape(t, again), `tidemark_fact_regression{baseline_testid="spike-50-20260301"`)
}

// sample returns the value of the exposition line of series (name{labels} exactly as
// the exposition writes it).
func sample(t *testing.T, w *watcher.Watcher, series string) float64 {
	t.Helper()
	for l := range strings.SplitSeq(scrape(t, w), "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, l)
			return f
		}
	}
	t.Fatalf("no sample %s", series)
	return 0
}
