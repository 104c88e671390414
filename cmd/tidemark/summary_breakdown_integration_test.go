//go:build integration

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/target"
)

// TestIntegrationSummaryBreakdownAcrossInstances runs one test as three `tidemark run
// --instances 3 --summarize-at-end --summary-breakdown name` processes into a real
// Prometheus: the last instance's summary and export hold a row per endpoint with the
// requests the target served for it across all instances, and trend rows with
// percentiles from the instances' native histograms.
func TestIntegrationSummaryBreakdownAcrossInstances(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	prom := promtest.StartPrometheus(t)
	tgt, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, `scenarios:
  load: { executor: constant-arrival-rate, rate: 30, timeUnit: 1s, duration: 3s, preAllocatedVUs: 6 }
flow:
  - { name: /a, url: '`+url+`/a' }
  - { name: /b, url: '`+url+`/b?status=201' }
  - { name: /b, url: '`+url+`/b?status=201' }
`)
	type proc struct {
		code        int
		out, export string
	}
	procs := make([]proc, 3)
	var wg sync.WaitGroup
	for i := range procs {
		procs[i].export = filepath.Join(t.TempDir(), "export.json")
		wg.Go(func() {
			procs[i].code, procs[i].out = execTidemark(t, bin, "run", "--quiet", "--summary-export", procs[i].export, "--remote-write.url", prom.WriteURL(),
				"--remote-write.native-histograms", "--remote-write.push-interval", "1s", "--testid", "brk",
				"--instances", "3", "--instance-index", strconv.Itoa(i), "--barrier.poll-interval", "200ms",
				"--barrier.margin", "2s", "--summarize-at-end", "--summary-breakdown", "name", "--summary-trend-stats", "avg,p(95),count", file)
		})
	}
	wg.Wait()
	served := tgt.Stats().ByStatus
	require.Positive(t, served["200"])
	require.Equal(t, 2*served["200"], served["201"], "each iteration hits /a once and /b twice")

	last := -1
	for i, p := range procs {
		require.Equal(t, exitcode.OK, p.code, "instance %d:\n%s", i, p.out)
		if strings.Contains(p.out, wholeRunHeading) {
			require.Equal(t, -1, last, "one instance prints the run's summary")
			last = i
		}
	}
	require.NotEqual(t, -1, last, "one instance prints the run's summary:\n%s\n%s\n%s", procs[0].out, procs[1].out, procs[2].out)
	w := procs[last]
	run := w.out[strings.Index(w.out, wholeRunHeading):]
	t.Logf("instance %d printed the run's summary:\n%s", last, run)
	for name, status := range map[string]string{"/a": "200", "/b": "201"} {
		want := float64(served[status])
		require.InDelta(t, want, exportedValue(t, w.export, "http_reqs{name:"+name+"}", "count"), 0, "http_reqs row %s sums the instances", name)
		require.InDelta(t, want, exportedValue(t, w.export, "http_req_duration{name:"+name+"}", "count"), 0, "http_req_duration row %s", name)
		require.Positive(t, exportedValue(t, w.export, "http_req_duration{name:"+name+"}", "p(95)"), "p95 of row %s from native histograms", name)
		require.InDelta(t, want, exportedValue(t, w.export, "http_req_failed{name:"+name+"}", "fails"), 0, "http_req_failed row %s", name)
		require.Regexp(t, `\{ name:`+name+` \}\.+: `+strconv.FormatFloat(want, 'f', -1, 64)+` `, run)
	}
}
