//go:build integration

package watcher_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/watcher"
	"github.com/tidemark/tidemark/internal/watcher/watchertest"
)

// TestIntegrationIdentityGroups: runs Tidemark made of one scenario file are one group
// by the test identity on their tidemark_run_info, whatever their testids: the second
// run of spike-50.yaml, named like no date, is a +30 s HPA regression against the first;
// a run of the same file with another load shape (another test_hash) is its own group,
// compared with nothing, though its testid has the first run's group's date form.
func TestIntegrationIdentityGroups(t *testing.T) {
	t.Parallel()
	shape := map[string]string{"test_file": "spike-50.yaml", "test_hash": "3f2a9c1b07e4"}
	other := map[string]string{"test_file": "spike-50.yaml", "test_hash": "9999aaaabbbb"}
	monday := watchertest.Run{TestID: "monday-smoke", Day: 0, RunInfo: shape}
	release := watchertest.Run{TestID: "release-1.4", Day: 1, ScaleUpDelay: 30 * time.Second, RunInfo: shape}
	changed := watchertest.Run{TestID: "monday-smoke-20260303", Day: 2, ScaleUpDelay: 30 * time.Second, RunInfo: other}
	prom := watchertest.Load(t, []watchertest.Run{monday, release, changed})
	w := newWatcherFrom(t, prom.URL, t.TempDir(), monday)
	require.Equal(t, 3, w.Cycle(context.Background()))

	r1, r2, r3 := runByID(t, w, monday.TestID), runByID(t, w, release.TestID), runByID(t, w, changed.TestID)
	require.Equal(t, watcher.IdentityGroup("spike-50.yaml", "3f2a9c1b07e4"), r1.Group)
	require.Equal(t, r1.Group, r2.Group)
	require.Equal(t, "spike-50@9999aaaabbbb", r3.Group)
	var found bool
	for _, c := range r2.Changes {
		if c.Fact.Name == "hpa_reaction_seconds" && c.Fact.Labels["from"] == "load_step" {
			found = true
			require.True(t, c.Regression)
			require.Equal(t, monday.TestID, c.BaselineTestID)
			require.InDelta(t, 30, c.Delta, 0.001)
		}
	}
	require.True(t, found, "release-1.4's HPA reaction is compared with monday-smoke's: %+v", r2.Changes)
	require.Empty(t, r3.Changes, "another load shape has no history")
	require.Contains(t, scrape(t, w), `tidemark_fact_regression{baseline_testid="monday-smoke",fact="hpa_reaction_seconds",from="load_step",kind="regression",object="shoong/order",testid="release-1.4"} 30`)
}

// TestIntegrationSameLabelsetProbes is issue 24's exporter stopped for an hour: a run
// written with --remote-write.drop-label scenario has k6_vus and k6_iterations_total
// with the same labels, which made the listing query fail ("vector cannot contain
// metrics with the same labelset") for every run until that one left the lookback. The
// runs before and after it are correlated, and so is it.
func TestIntegrationSameLabelsetProbes(t *testing.T) {
	t.Parallel()
	before := watchertest.Run{TestID: "before", Day: 0}
	dropped := watchertest.Run{TestID: "dropped-scenario", Day: 1, DropLabels: []string{"scenario"}}
	after := watchertest.Run{TestID: "after", Day: 2}
	prom := watchertest.Load(t, []watchertest.Run{before, dropped, after})
	w := newWatcherFrom(t, prom.URL, t.TempDir(), before)
	require.Equal(t, 3, w.Cycle(context.Background()), "every run is listed and correlated")
	for _, id := range []string{before.TestID, dropped.TestID, after.TestID} {
		require.Equal(t, id, runByID(t, w, id).TestID)
	}
}
