package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/target"
)

// lastGauges keeps the last value pushed of each gauge.
type lastGauges struct {
	mu   sync.Mutex
	last map[string]float64
}

func (g *lastGauges) Push(ss []metrics.Sample) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range ss {
		if s.Metric.Type == metrics.Gauge {
			g.last[s.Metric.Name] = s.Value
		}
	}
}

func (g *lastGauges) get(name string) float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.last[name]
}

func TestExternallyControlledControls(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	g := &lastGauges{last: map[string]float64{}}
	e := newEngine(t, g, nil, &scenario.Scenario{Name: "ext", Executor: scenario.ExternallyControlled, VUs: 1, MaxVUs: 2, Flow: flowOf(t, url)})
	require.Empty(t, e.Boundaries(), "a scenario that runs until stopped has no end to snapshot at")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	require.Eventually(t, func() bool { return e.Status()[0].VUs == 1 && g.get("vus") == 1 }, 5*time.Second, 5*time.Millisecond)

	require.NoError(t, e.SetVUs(new(int64(3)), new(int64(4))))
	require.Eventually(t, func() bool {
		return g.get("vus") == 3 && g.get("vus_max") == 4 && g.get(ScenarioTargetMetric) == 3
	}, 5*time.Second, 5*time.Millisecond, "the vus, vus_max and target gauges follow")
	require.NoError(t, e.SetPaused(true))
	st := e.Status()[0]
	require.True(t, st.Paused)
	require.Zero(t, st.VUs)
	require.Eventually(t, func() bool { return g.get("vus") == 0 && g.get(ScenarioTargetMetric) == 0 }, 5*time.Second, 5*time.Millisecond)
	require.ErrorIs(t, e.SetPaused(true), executor.ErrPausedAlready)
	require.NoError(t, e.SetPaused(false))
	require.ErrorIs(t, e.SetPaused(false), executor.ErrNotPaused)

	cancel()
	res := <-done
	done <- res
	require.True(t, res.Interrupted)
	require.Len(t, res.Stages, 1)
	require.Equal(t, res.End, res.Stages[0].End, "the window ends with the run")
	require.Positive(t, res.Scenarios[0].Iterations)
}

func TestPauseAndVUsOfOtherExecutors(t *testing.T) {
	t.Parallel()
	e := newEngine(t, newSink(t), nil,
		&scenario.Scenario{Name: "ext", Executor: scenario.ExternallyControlled, VUs: 1, MaxVUs: 1, Duration: time.Second},
		&scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 1, Duration: time.Second})
	err := e.SetPaused(true)
	var np *NotPausableError
	require.ErrorAs(t, err, &np)
	require.EqualError(t, err, "constant-vus executor 'c' doesn't support pause and resume operations after its start")
	require.NoError(t, e.SetVUs(new(int64(0)), nil), "the externally-controlled scenario scales")

	c := newEngine(t, newSink(t), nil, &scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 1, Duration: time.Second})
	require.ErrorIs(t, c.SetVUs(new(int64(2)), nil), ErrNotExternallyControlled)
}
