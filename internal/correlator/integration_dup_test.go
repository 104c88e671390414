//go:build integration

package correlator

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
)

// story1WithKSMTargets is story 1's fixture with every kube-state-metrics sample
// exported by each of the given scrape targets (instance label), sample by sample, as
// two unsharded replicas (or the first demo's exporter, still inside the lookback of the
// second) give.
func story1WithKSMTargets(instances ...string) string {
	var b strings.Builder
	for line := range strings.SplitAfterSeq(story1OpenMetrics(), "\n") {
		name, rest, ok := strings.Cut(line, "{")
		if !ok || !strings.HasPrefix(name, "kube_") {
			b.WriteString(line)
			continue
		}
		for _, inst := range instances {
			b.WriteString(name + `{instance="` + inst + `",` + rest)
		}
	}
	return b.String()
}

// startWithFixture starts a real Prometheus that holds one OpenMetrics fixture as
// promtool-created blocks, loaded at start-up (a restart), not on the once-a-minute
// reload.
func startWithFixture(t *testing.T, om string) *promtest.Server {
	t.Helper()
	promtool := "/usr/bin/promtool"
	_, err := os.Stat(promtool)
	require.NoError(t, err, "promtool is required (apt-get install prometheus)")
	dir := t.TempDir()
	f := filepath.Join(dir, "fixture.om")
	require.NoError(t, os.WriteFile(f, []byte(om), 0o644))
	blocks := filepath.Join(dir, "blocks")
	out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "--quiet", f, blocks).CombinedOutput()
	require.NoError(t, err, "promtool: %s", out)
	prom := promtest.StartPrometheus(t)
	prom.Stop()
	entries, err := os.ReadDir(blocks)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		require.NoError(t, os.Rename(filepath.Join(blocks, e.Name()), filepath.Join(prom.DataDir, e.Name())))
	}
	prom.Restart(t)
	promtest.Poll(t, 30*time.Second, 200*time.Millisecond, func() (bool, error) {
		v, err := promtest.Query(context.Background(), prom.URL, `count(tidemark_run_info)`, fxRunFrom.Add(time.Minute))
		return err == nil && promtest.NonEmpty(v), nil
	})
	return prom
}

// TestDuplicateKSMTargetLeavesFactsUnchanged is issue 12's regression: story 1 scraped
// from one kube-state-metrics target and from two (every object exported twice under
// another instance) gives the same facts, CPU request and limit included, and only the
// duplicated run says that duplicates were collapsed.
func TestDuplicateKSMTargetLeavesFactsUnchanged(t *testing.T) {
	fixtures := map[string]string{
		"one target":  story1WithKSMTargets("ksm-a:8080"),
		"two targets": story1WithKSMTargets("ksm-a:8080", "ksm-b:8080"),
	}
	results := map[string]*Result{}
	var mu sync.Mutex
	t.Run("correlate", func(t *testing.T) {
		for name, om := range fixtures {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				prom := startWithFixture(t, om)
				q, err := query.NewPrometheus(prom.URL, nil)
				require.NoError(t, err)
				cat, err := query.Default()
				require.NoError(t, err)
				res, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), Config{
					TestID: fxTestID, Namespace: "shoong", Lookback: time.Since(fxFrom) + time.Hour,
					Params: map[string]float64{"db_pool_per_pod": 8},
				})
				require.NoError(t, err)
				for _, qi := range res.Queries {
					require.Empty(t, qi.Error, qi.Name)
				}
				mu.Lock()
				defer mu.Unlock()
				results[name] = res
			})
		}
	})
	one, two := results["one target"], results["two targets"]
	require.NotNil(t, one)
	require.NotNil(t, two)

	// The facts are the fixture's (order: 100m request, 200m limit; not doubled) and equal.
	for _, r := range []*Result{one, two} {
		var order *analysis.WorkloadCPU
		for i := range r.CPU {
			if r.CPU[i].Workload == "order" {
				order = &r.CPU[i]
			}
		}
		require.NotNil(t, order)
		require.NotNil(t, order.Request)
		require.NotNil(t, order.Limit)
		require.InDelta(t, 0.1, order.Request.Value, 1e-9)
		require.InDelta(t, 0.2, order.Limit.Value, 1e-9)
	}
	require.NotEmpty(t, one.Autoscaling)
	require.Equal(t, factsJSON(t, one), factsJSON(t, two))

	// Only the duplicated run has the note, and it names both targets.
	dupNotes := func(r *Result) []analysis.Note {
		var ns []analysis.Note
		for _, n := range r.Notes {
			if strings.Contains(n.Text, "were deduplicated") {
				ns = append(ns, n)
			}
		}
		return ns
	}
	require.Empty(t, dupNotes(one))
	ns := dupNotes(two)
	require.Len(t, ns, 1)
	require.Contains(t, ns[0].Text, "series of 2 scrape targets")
	require.Contains(t, ns[0].Text, `instance="ksm-a:8080"`)
	require.Contains(t, ns[0].Text, `instance="ksm-b:8080"`)
	require.Equal(t, analysis.SourceKSM, ns[0].Object)
}

// factsJSON is the facts part of a result (everything but the notes, the queries and the
// generation time) as JSON values, floats rounded to 12 significant digits: Prometheus
// adds a sum's inputs in the order it meets them, and a join over twice the series
// may meet them in another order (0.19595505617977532 vs 0.1959550561797753).
func factsJSON(t *testing.T, r *Result) any {
	t.Helper()
	// The fixture's throttled ratio is a plateau of 0.3 over three steps: which of them
	// is the peak is decided by that last bit, so the peak's value is compared, not its time.
	cpu := slices.Clone(r.CPU)
	for i, w := range cpu {
		if w.PeakThrottled != nil {
			f := *w.PeakThrottled
			f.At, f.Evidence = time.Time{}, nil
			cpu[i].PeakThrottled = &f
		}
	}
	b, err := json.Marshal(map[string]any{
		"window": r.Window, "load": r.Load, "autoscaling": r.Autoscaling, "cpu": cpu, "database": r.Database,
		"errors": r.Errors, "findings": r.Findings, "events": r.Events, "series": r.Series,
	})
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	var round func(any) any
	round = func(v any) any {
		switch v := v.(type) {
		case float64:
			f, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
			require.NoError(t, err)
			return f
		case []any:
			for i := range v {
				v[i] = round(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = round(v[k])
			}
		}
		return v
	}
	return round(v)
}
