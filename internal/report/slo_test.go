package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/timeline"
)

// TestStagesNameTheRulesThatFired: the Load section's Stages table names, in each
// stage's verdict, the server-side rules that fired in that stage (most severe first).
func TestStagesNameTheRulesThatFired(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	stage := func(i int) analysis.StageFacts {
		return analysis.StageFacts{Stage: timeline.Stage{Index: i, Window: timeline.Window{From: from.Add(time.Duration(i) * time.Minute), To: from.Add(time.Duration(i+1) * time.Minute)}}}
	}
	s0, s1 := stage(0), stage(1)
	s0.Why, s1.Why = "held", "held"
	r := &correlator.Result{Window: correlator.Windows{Run: timeline.Window{From: from, To: from.Add(2 * time.Minute)}},
		Load: analysis.Load{Stages: []analysis.StageFacts{s0, s1}},
		SLO: &slo.Report{Stages: []slo.Span{
			{Name: "stage 0", Outcomes: []slo.Outcome{{Alert: "CPUThrottlingHigh", Severity: "error"}}},
			{Name: "stage 1", Outcomes: []slo.Outcome{{Alert: "PodRestarted", Severity: "warning", Fired: true}, {Alert: "CPUThrottlingHigh", Severity: "error", Fired: true}}},
		}}}
	rows := loadSection(r).Tables[0].Rows
	require.Len(t, rows, 2)
	require.Equal(t, "held", rows[0][len(rows[0])-1])
	require.Equal(t, "held; server-side rules fired: CPUThrottlingHigh [error], PodRestarted [warning]", rows[1][len(rows[1])-1])
}
