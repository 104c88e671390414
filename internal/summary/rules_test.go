package summary

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

// TestTextServerSideRules: the run's server-side rules get their own section before the
// total results, beside the thresholds: ✗ for a failing rule that fired, ! for a
// warning that fired, ✓ for one that did not.
func TestTextServerSideRules(t *testing.T) {
	t.Parallel()
	r := newRun()
	r.store.Push([]metrics.Sample{{Metric: r.b.Iterations, Tags: r.tags("scenario", "default"), Time: r.start, Value: 1}})
	out := text(t, Input{Snapshot: r.store.Snapshot(), Duration: time.Second, Rules: []Rule{
		{Name: "CPUThrottlingHigh", Severity: "error", Fired: true, Text: `fired 12s in: 0.6 {pod="api-1"}`},
		{Name: "FailuresInStartupGap", Severity: "warning", Fired: true, Text: "fired 3s in: 1"},
		{Name: "PodRestarted", Severity: "critical", Text: "did not fire (4 evaluations)"},
	}})
	require.Contains(t, out, "\n\n  █ SERVER-SIDE RULES \n\n"+
		"    ✗ CPUThrottlingHigh [error] fired 12s in: 0.6 {pod=\"api-1\"}\n"+
		"    ! FailuresInStartupGap [warning] fired 3s in: 1\n"+
		"    ✓ PodRestarted [critical] did not fire (4 evaluations)\n"+
		"\n\n  █ TOTAL RESULTS \n")
}
