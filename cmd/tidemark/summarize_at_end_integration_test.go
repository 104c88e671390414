//go:build integration

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/target"
)

// wholeRunHeading starts the run's summary in the last instance's output.
const wholeRunHeading = "── the whole run: 3 instance(s)"

// TestIntegrationSummarizeAtEnd runs one test as three `tidemark run --instances 3
// --summarize-at-end` processes into a real Prometheus: exactly one of them (the last to
// finish) prints the whole run's summary, with http_reqs equal to what the target
// served, checks summed across the instances from their counts, and exits 99 for
// `count<400`, which the run crosses although each instance's share passes it; the
// other two exit 0 with their own summary and a line naming that instance.
func TestIntegrationSummarizeAtEnd(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	prom := promtest.StartPrometheus(t)
	tgt, url := startTestTarget(t, target.Config{Latency: target.Latency{Kind: target.Uniform, A: 5 * time.Millisecond, B: 20 * time.Millisecond}})
	file := writeScenario(t, `scenarios:
  load:
    executor: constant-arrival-rate
    rate: 90
    timeUnit: 1s
    duration: 6s
    preAllocatedVUs: 20
    flow:
      - url: `+url+`/
        checks:
          - name: is 200
            status: 200
          - name: is 201
            status: 201
thresholds:
  http_reqs: ["count<400"]
  checks: ["rate>0.4"]
  "checks{check:is 201}": ["rate<0.01"]
`)
	type proc struct {
		code   int
		out    string
		export string
	}
	procs := make([]proc, 3)
	var wg sync.WaitGroup
	for i := range procs {
		procs[i].export = filepath.Join(t.TempDir(), "export.json")
		wg.Go(func() {
			procs[i].code, procs[i].out = execTidemark(t, bin, "run", "--quiet", "--summary-export", procs[i].export, "--remote-write.url", prom.WriteURL(),
				"--remote-write.native-histograms", "--remote-write.push-interval", "1s", "--testid", "atend",
				"--instances", "3", "--instance-index", strconv.Itoa(i), "--barrier.poll-interval", "200ms",
				"--barrier.margin", "2s", "--summarize-at-end", file)
		})
	}
	wg.Wait()
	served := tgt.Stats().Requests
	require.Greater(t, served, int64(400), "the whole run must cross count<400")

	var last []int
	for i, p := range procs {
		if strings.Contains(p.out, wholeRunHeading) {
			last = append(last, i)
		}
	}
	require.Len(t, last, 1, "exactly one instance prints the run's summary:\n%s\n%s\n%s", procs[0].out, procs[1].out, procs[2].out)
	w := procs[last[0]]
	require.Equal(t, exitcode.ThresholdsFailed, w.code, "the last instance exits with the run's verdict:\n%s", w.out)
	run := w.out[strings.Index(w.out, wholeRunHeading):]
	t.Logf("instance %d printed the run's summary:\n%s", last[0], run)
	require.Contains(t, run, "3 instance(s) (0, 1, 2)")
	require.Contains(t, run, "✗ 'count<400' count="+strconv.FormatInt(served, 10), "http_reqs is what the target served:\n%s", run)
	// Each request passes "is 200" and fails "is 201": the counts sum across instances.
	require.Contains(t, run, "✓ 'rate>0.4' rate=50.00%", run)
	require.Regexp(t, `checks_succeeded\.+: 50\.00% `+strconv.FormatInt(served, 10)+` out of `+strconv.FormatInt(2*served, 10), run)
	require.Contains(t, run, "✓ 'rate<0.01' rate=0.00%", run)
	require.NotContains(t, run, "not combined across instances", "Tidemark wrote the checks' counts")
	// The last instance's --summary-export holds the whole run's summary, the others' their own share.
	require.InDelta(t, float64(served), exportedValue(t, w.export, "http_reqs", "count"), 0, "the run's file is the whole run's")
	var shares float64
	for i, p := range procs {
		if i != last[0] {
			shares += exportedValue(t, p.export, "http_reqs", "count")
		}
	}
	require.Less(t, shares, float64(served), "the other instances' files hold their own shares")
	for i, p := range procs {
		if i == last[0] {
			continue
		}
		require.Equal(t, 0, p.code, "instance %d's own share passes its thresholds:\n%s", i, p.out)
		require.Contains(t, p.out, "run summary: instance "+strconv.Itoa(last[0])+" finished last", p.out)
	}
}
