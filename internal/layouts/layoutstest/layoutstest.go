// Package layoutstest loads layouts fixtures into a real Prometheus for integration tests:
// each fixture's OpenMetrics text becomes TSDB blocks through `promtool tsdb
// create-blocks-from openmetrics`, and Prometheus is (re)started on them.
//
//	f, _ := layouts.Story1(layouts.Options{Layout: layouts.PrometheusChart})
//	prom := layoutstest.Load(t, []*layouts.Fixture{f})
//	// query prom.URL at f.Truth.RunFrom …
package layoutstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/promtest"
)

// PromtoolBinary is the Debian prometheus package's promtool.
const PromtoolBinary = "/usr/bin/promtool"

// loadTimeout bounds the wait for the blocks to answer queries. Prometheus opens the blocks
// it finds at start before it reports ready, so this is a safety margin for a busy machine.
const loadTimeout = 30 * time.Second

// Load starts a Prometheus (promtest.StartPrometheus with opts) holding the fixtures, and
// returns once a query at each fixture's run start sees its k6 series. Fixtures may
// overlap in time (Prometheus ≥ 2.39 merges overlapping blocks); give them distinct
// namespaces and testids to tell them apart. A missing promtool or prometheus fails the
// test.
func Load(t testing.TB, fixtures []*layouts.Fixture, opts ...promtest.Option) *promtest.Server {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, f := range fixtures {
		path := filepath.Join(dir, fmt.Sprintf("%02d-%s.om", i, f.Options))
		if err := os.WriteFile(path, []byte(f.OpenMetrics()), 0o600); err != nil {
			t.Fatalf("layoutstest: write fixture: %v", err)
		}
		files = append(files, path)
	}
	prom := LoadFiles(t, files, opts...)
	for _, f := range fixtures {
		WaitForRun(t, prom, f.TestID(), f.Truth.RunFrom.Add(time.Minute))
	}
	return prom
}

// LoadFiles starts a Prometheus (promtest.StartPrometheus with opts) holding the
// samples of OpenMetrics files (timestamps in seconds), as Load does for fixtures.
// Wait for the data with WaitForRun.
func LoadFiles(t testing.TB, files []string, opts ...promtest.Option) *promtest.Server {
	t.Helper()
	if _, err := os.Stat(PromtoolBinary); err != nil {
		t.Fatalf("layoutstest: %s is required (apt-get install --no-install-recommends prometheus): %v", PromtoolBinary, err)
	}
	blocks := filepath.Join(t.TempDir(), "blocks")
	for _, path := range files {
		out, err := exec.Command(PromtoolBinary, "tsdb", "create-blocks-from", "openmetrics", "--quiet", path, blocks).CombinedOutput()
		if err != nil {
			t.Fatalf("layoutstest: promtool create-blocks-from openmetrics %s: %v\n%s", path, err, out)
		}
	}
	// Start, stop, move the blocks into the data directory, start again: the TSDB opens
	// them at start (a running server would pick them up only on its minute reload).
	prom := promtest.StartPrometheus(t, opts...)
	prom.Stop()
	entries, err := os.ReadDir(blocks)
	if err != nil || len(entries) == 0 {
		t.Fatalf("layoutstest: promtool wrote no blocks: %v", err)
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(blocks, e.Name()), filepath.Join(prom.DataDir, e.Name())); err != nil {
			t.Fatalf("layoutstest: move block: %v", err)
		}
	}
	prom.Restart(t)
	return prom
}

// WaitForRun returns once a query at at sees k6 series of testid in prom.
func WaitForRun(t testing.TB, prom *promtest.Server, testid string, at time.Time) {
	t.Helper()
	expr := fmt.Sprintf(`count({__name__=~"k6_.+", testid=%q})`, testid)
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer cancel()
	if err := waitNonEmpty(ctx, prom.URL, expr, at); err != nil {
		t.Fatalf("layoutstest: run %s not queryable: %v\nprometheus log:\n%s", testid, err, prom.Log())
	}
}

func waitNonEmpty(ctx context.Context, url, expr string, at time.Time) error {
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for {
		v, err := promtest.Query(ctx, url, expr, at)
		if err == nil && promtest.NonEmpty(v) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("query %s at %s: %w", expr, at, errors.Join(ctx.Err(), err))
		case <-ticker.C:
		}
	}
}
