package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/target"
)

// TestVUsMaxPlannedThenAllocated: before the start VUsMax is k6's count of the VUs it
// initializes (scenario a hands its 2 VUs over to b, which starts when a's
// gracefulStop has passed; c overlaps both), and once arrival-rate scenarios allocate
// VUs beyond preAllocatedVUs it grows by those, as k6's vus-max does. The vus_max
// gauge says the same.
func TestVUsMaxPlannedThenAllocated(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 100 * time.Millisecond}})
	g := &lastGauges{last: map[string]float64{}}
	e := newEngine(t, g, nil,
		&scenario.Scenario{Name: "a", Executor: scenario.ConstantVUs, VUs: 2, Duration: 100 * time.Millisecond, GracefulStop: 100 * time.Millisecond, Flow: flowOf(t, url)},
		&scenario.Scenario{Name: "b", Executor: scenario.ConstantVUs, VUs: 3, Duration: 100 * time.Millisecond, StartTime: 200 * time.Millisecond, Flow: flowOf(t, url)},
		&scenario.Scenario{Name: "c", Executor: scenario.ConstantArrivalRate, Rate: 100, Duration: time.Second, PreAllocatedVUs: 1, MaxVUs: 4, Flow: flowOf(t, url)},
	)
	require.Equal(t, int64(4), e.VUsMax(), "before the start: max(2, 3) + 1")
	res := e.Run(context.Background())
	require.Equal(t, int64(4), res.Scenarios[2].VUsMax, "c allocated up to its maxVUs")
	require.Equal(t, int64(4+3), e.VUsMax(), "c's 3 VUs beyond its preAllocatedVUs")
	require.InDelta(t, 7, g.get("vus_max"), 0)
}
