package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/regress"
)

// TestCompareChanges: compare uses the regression rule, each later run against the
// first given (even when the first ran later), and compare.json lists the changes next
// to the comparison's fields.
func TestCompareChanges(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC)
	result := func(id string, end time.Time, reaction float64) *correlator.Result {
		r := &correlator.Result{TestID: id}
		r.Window.Run.To = end
		r.Autoscaling = []analysis.HPA{{Namespace: "shoong", Name: "dev-shoong-order",
			ReactionFromLoadStep: &analysis.Fact{Value: reaction, Unit: analysis.UnitSeconds, ResolutionSeconds: 15}}}
		return r
	}
	// The baseline is given first but ran last.
	rs := []*correlator.Result{
		result("spike-50-20260530", day.Add(48*time.Hour), 25),
		result("spike-50-20260528", day, 55),
		result("spike-50-20260529", day.Add(24*time.Hour), 30),
	}
	changes := regress.AgainstFirst(rs)
	require.Len(t, changes, 1, "30 s is within ±15 s of 25 s")
	require.Equal(t, "HPA reaction shoong/dev-shoong-order: 55 s, was 25 s in spike-50-20260530 (+30 s, resolution ±15 s)", changes[0].Text)
	require.True(t, changes[0].Regression)

	raw, err := json.Marshal(comparisonJSON{Comparison: correlator.Compare(rs...), Changes: changes})
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Contains(t, got, "rows")
	require.Contains(t, got, "testids")
	require.Len(t, got["changes"], 1)

	require.Empty(t, regress.AgainstFirst(rs[:1]))
}
