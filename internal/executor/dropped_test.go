package executor

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
)

// TestExecutorDroppedFromZero checks that an arrival-rate scenario pushes a
// dropped_iterations sample of 0 with its tags at its start, so that the series
// exists when nothing is dropped; closed-model scenarios push none.
func TestExecutorDroppedFromZero(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sc   scenario.Scenario
		want int
	}{
		{sc: scenario.Scenario{Name: "c", Executor: scenario.ConstantArrivalRate, Rate: 10, Duration: 100 * time.Millisecond, PreAllocatedVUs: 2}, want: 1},
		{sc: scenario.Scenario{Name: "r", Executor: scenario.RampingArrivalRate, PreAllocatedVUs: 2, Stages: []scenario.Stage{{Duration: 100 * time.Millisecond, Target: 10}}}, want: 1},
		{sc: scenario.Scenario{Name: "v", Executor: scenario.ConstantVUs, VUs: 1, Duration: 50 * time.Millisecond}, want: 0},
	} {
		t.Run(string(tc.sc.Executor), func(t *testing.T) {
			t.Parallel()
			reg := metrics.NewRegistry()
			b := metrics.RegisterBuiltin(reg)
			tags := metrics.NewTagPool().Intern([]metrics.Tag{{Key: "scenario", Value: tc.sc.Name}})
			var got []metrics.Sample
			var last atomic.Int64
			sc := tc.sc
			e, err := New(Config{
				Scenario: &sc, Segment: pacer.Segment{},
				NewVU:   func(int64) VU { return startVU{last: &last} },
				Pusher:  metrics.PusherFunc(func(ss []metrics.Sample) { got = append(got, ss...) }),
				Dropped: b.DroppedIterations, Tags: tags,
			})
			require.NoError(t, err)
			e.Run(context.Background(), time.Now())
			require.Zero(t, e.Stats().Dropped)
			require.Len(t, got, tc.want)
			for _, s := range got {
				require.Equal(t, b.DroppedIterations, s.Metric)
				require.Same(t, tags, s.Tags)
				require.Zero(t, s.Value)
			}
		})
	}
}
