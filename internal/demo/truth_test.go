package demo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sim"
)

// TestTruth: the simulator's count in one sentence, and the share of failures inside
// start-up gaps (0 without failures).
func TestTruth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		in        sim.Responses
		wantShare float64
		want      string
		limit     string
	}{
		{name: "none failed", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 10}}, want: "10 answers, none failed", limit: "none"},
		{name: "failures", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 200, Failed: 20, FailedInStartupGap: 15}, StartupGap: 3 * time.Second}, wantShare: 0.75,
			want: "200 answers, 20 failed (10.0%); 15 of the failures (75.0%) while Ready lagged the HPA's current replicas", limit: "startup"},
		{name: "failures outside the gaps", in: sim.Responses{ResponseTotals: sim.ResponseTotals{Total: 200, Failed: 20, FailedInStartupGap: 9}}, wantShare: 0.45,
			want: "200 answers, 20 failed (10.0%); 9 of the failures (45.0%) while Ready lagged the HPA's current replicas"},
		{name: "nothing answered", in: sim.Responses{}, want: "0 answers, none failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			truth := truthOf(tc.in)
			require.InDelta(t, tc.wantShare, truth.InGapShare(), 1e-9)
			require.Equal(t, tc.want, truth.String())
			require.InDelta(t, tc.in.StartupGap.Seconds(), truth.StartupGapSeconds, 1e-9)
			require.Equal(t, tc.limit, truth.Limit)
		})
	}
}
