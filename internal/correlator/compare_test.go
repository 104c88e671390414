package correlator

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	f := func(v float64) *analysis.Fact { return &analysis.Fact{Value: v, Unit: analysis.UnitSeconds} }
	spike100 := &Result{TestID: "spike-100", Load: analysis.Load{Requests: 35158, Failures: 15824},
		Autoscaling: []analysis.HPA{{Namespace: "shoong", Name: "order", ReactionFromLoadStep: f(20), Steps: []analysis.ScaleStep{{ReadyGap: f(10)}, {ReadyGap: f(40)}}}}}
	spike50 := &Result{TestID: "spike-50", Load: analysis.Load{Requests: 10209, Failures: 1630},
		Autoscaling: []analysis.HPA{{Namespace: "shoong", Name: "order", ReactionFromLoadStep: f(30), Steps: []analysis.ScaleStep{{ReadyGap: f(8)}, {ReadyGap: f(30)}}}},
		CPU:         []analysis.WorkloadCPU{{Namespace: "shoong", Workload: "order", PeakThrottled: &analysis.Fact{Value: 0.3}}}}
	c := Compare(spike100, spike50)
	require.Equal(t, []string{"spike-100", "spike-50"}, c.TestIDs)
	row := func(section, object, fact string) ComparisonRow {
		for _, r := range c.Rows {
			if r.Section == section && r.Object == object && r.Fact == fact {
				return r
			}
		}
		t.Fatalf("no row %s/%s/%s", section, object, fact)
		return ComparisonRow{}
	}
	require.InDelta(t, 35158, row("load", "", "requests").Values[0].Value, 0)
	require.InDelta(t, 10209, row("load", "", "requests").Values[1].Value, 0)
	gap := row("autoscaling", "shoong/order", "max_ready_gap")
	require.InDelta(t, 40, gap.Values[0].Value, 0)
	require.InDelta(t, 30, gap.Values[1].Value, 0)
	thr := row("cpu", "shoong/order", "peak_throttled_ratio")
	require.Nil(t, thr.Values[0], "the first run has no CPU data: no number")
	require.InDelta(t, 0.3, thr.Values[1].Value, 0)
	for _, r := range c.Rows {
		require.Len(t, r.Values, 2)
	}
}
