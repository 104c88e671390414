package demo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sim"
)

// TestTruth: the simulator's count in one sentence, the share of failures inside
// start-up gaps (0 without failures), and its limit: the cause of the most failures from
// its first one, or (without causes, as the process runtime) start-up from half of the
// failures inside start-up gaps.
func TestTruth(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		in        sim.Responses
		wantShare float64
		want      string
		limit     string
		limitAt   time.Time
	}{
		{name: "none failed", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 10}}, want: "10 answers, none failed", limit: "none"},
		{name: "failures", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 200, Failed: 20, FailedInStartupGap: 15}, StartupGap: 3 * time.Second}, wantShare: 0.75,
			want: "200 answers, 20 failed (10.0%); 15 of the failures (75.0%) while Ready lagged the HPA's current replicas", limit: "startup"},
		{name: "failures outside the gaps", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 200, Failed: 20, FailedInStartupGap: 9}}, wantShare: 0.45,
			want: "200 answers, 20 failed (10.0%); 9 of the failures (45.0%) while Ready lagged the HPA's current replicas"},
		{name: "nothing answered", in: sim.Responses{}, want: "0 answers, none failed"},
		{name: "causes: the most failures", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 100, Failed: 30, FailedInStartupGap: 5}, Failures: []sim.FailureCount{
			{Service: "api", Reason: sim.ReasonTimeout, Cause: sim.CauseStartup, Count: 5, First: t0},
			{Service: "api", Reason: sim.ReasonTimeout, Cause: sim.CauseReplicas, Count: 20, First: t0.Add(3 * time.Second)},
			{Service: "api", Reason: sim.ReasonQueueFull, Cause: sim.CauseReplicas, Count: 5, First: t0.Add(time.Second)},
		}}, wantShare: 1.0 / 6, limit: "replicas", limitAt: t0.Add(time.Second),
			want: "100 answers, 30 failed (30.0%); 5 of the failures (16.7%) while Ready lagged the HPA's current replicas; by cause: replicas 25, startup 5; limited by replicas from 10:00:01"},
		{name: "causes: a tie goes to the earliest", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 100, Failed: 20}, Failures: []sim.FailureCount{
			{Service: "api", Reason: sim.ReasonPoolTimeout, Cause: sim.CausePool, Count: 10, First: t0.Add(2 * time.Second)},
			{Service: "api", Reason: sim.ReasonOOMKilled, Cause: sim.CauseMemory, Count: 10, First: t0},
		}}, limit: "memory", limitAt: t0,
			want: "100 answers, 20 failed (20.0%); 0 of the failures (0.0%) while Ready lagged the HPA's current replicas; by cause: memory 10, pool 10; limited by memory from 10:00:00"},
		{name: "causes: other does not tell", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 10, Failed: 2}, Failures: []sim.FailureCount{
			{Service: "api", Reason: sim.ReasonPodTerminated, Cause: sim.CauseOther, Count: 2, First: t0},
		}}, want: "10 answers, 2 failed (20.0%); 0 of the failures (0.0%) while Ready lagged the HPA's current replicas; by cause: other 2"},
		{name: "process runtime: the pool's timeouts", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 100, Failed: 12}, Failures: []sim.FailureCount{
			{Service: "orders", Reason: sim.ReasonPoolTimeout, Cause: sim.CausePool, Count: 11, First: t0.Add(9 * time.Second)},
			{Service: "orders", Reason: "status_503", Cause: sim.CauseOther, Count: 1, First: t0},
		}}, limit: "pool", limitAt: t0.Add(9 * time.Second),
			want: "100 answers, 12 failed (12.0%); 0 of the failures (0.0%) while Ready lagged the HPA's current replicas; by cause: pool 11, other 1; limited by pool from 10:00:09"},
		{name: "process runtime: other failures, most inside the gaps", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 100, Failed: 4, FailedInStartupGap: 3}, Failures: []sim.FailureCount{
			{Service: "api", Reason: "upstream_error", Cause: sim.CauseOther, Count: 4, First: t0},
		}}, wantShare: 0.75, limit: "startup",
			want: "100 answers, 4 failed (4.0%); 3 of the failures (75.0%) while Ready lagged the HPA's current replicas; by cause: other 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			truth := truthOf(tc.in)
			require.InDelta(t, tc.wantShare, truth.InGapShare(), 1e-9)
			require.Equal(t, tc.want, truth.String())
			require.InDelta(t, tc.in.StartupGap.Seconds(), truth.StartupGapSeconds, 1e-9)
			require.Equal(t, tc.limit, truth.Limit)
			if tc.limitAt.IsZero() {
				require.Nil(t, truth.LimitAt)
			} else {
				require.NotNil(t, truth.LimitAt)
				require.Equal(t, tc.limitAt, *truth.LimitAt)
			}
		})
	}
}
