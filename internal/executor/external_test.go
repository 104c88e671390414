package executor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
)

func extScenario(vus, maxVUs int, dur time.Duration) scenario.Scenario {
	return scenario.Scenario{Name: "ext", Executor: scenario.ExternallyControlled, VUs: vus, MaxVUs: maxVUs, Duration: dur}
}

// startExec runs e in the background until the test ends; the returned channel is
// closed when Run returns.
func startExec(t *testing.T, e *Executor) (context.CancelFunc, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx, time.Now())
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return cancel, done
}

func TestExternalVUChanges(t *testing.T) {
	t.Parallel()
	// Iterations longer than the test: a removed VU's iteration can only end by
	// being interrupted.
	e, rec, _ := newExec(t, extScenario(2, 4, 0), time.Hour, pacer.Segment{})
	_, done := startExec(t, e)
	require.Eventually(t, func() bool { return rec.running.Load() == 2 }, 5*time.Second, time.Millisecond)
	require.Equal(t, Stats{VUs: 2, VUsMax: 4}, e.Stats())
	require.InDelta(t, 2, e.Target(0), 0)

	require.NoError(t, e.SetVUs(new(int64(4)), nil))
	require.Equal(t, int64(4), e.Stats().VUs, "the new count at once, as k6 answers")
	require.Eventually(t, func() bool { return rec.running.Load() == 4 }, 5*time.Second, time.Millisecond)

	require.NoError(t, e.SetVUs(new(int64(1)), nil))
	require.Equal(t, int64(1), e.Stats().VUs)
	require.Eventually(t, func() bool { return rec.running.Load() == 1 && rec.interrupted.Load() == 3 }, 5*time.Second, time.Millisecond,
		"removed VUs are interrupted at once (no gracefulStop)")

	require.NoError(t, e.SetVUs(new(int64(6)), new(int64(6))))
	require.Equal(t, int64(6), e.Stats().VUsMax, "a larger maxVUs is allocated before the answer")
	require.Eventually(t, func() bool { return rec.running.Load() == 6 }, 5*time.Second, time.Millisecond)

	require.NoError(t, e.SetVUs(new(int64(0)), nil))
	require.Eventually(t, func() bool { return rec.running.Load() == 0 }, 5*time.Second, time.Millisecond)
	require.Zero(t, e.Stats().VUs)
	w := e.Stages()
	require.Len(t, w, 1)
	require.InDelta(t, 2, w[0].From, 0, "the configured vus")
	require.InDelta(t, 6, w[0].Target, 0, "the most VUs asked for")
	select {
	case <-done:
		t.Fatal("0 VUs ended a scenario that runs until stopped")
	default:
	}
}

func TestExternalVUErrors(t *testing.T) {
	t.Parallel()
	e, _, _ := newExec(t, extScenario(2, 5, time.Minute), 0, pacer.Segment{})
	for _, tc := range []struct {
		vus, max *int64
		want     string
	}{
		{vus: new(int64(-1)), want: "invalid configuration supplied: the number of VUs can't be negative"},
		{vus: new(int64(9)), want: "invalid configuration supplied: the number of active VUs (9) must be less than or equal to the number of maxVUs (5)"},
		{max: new(int64(1)), want: "invalid configuration supplied: the number of active VUs (2) must be less than or equal to the number of maxVUs (1)"},
		{max: new(int64(3)), want: "the new number of max VUs cannot be lower than the starting number of max VUs (5)"},
		{vus: new(int64(7)), max: new(int64(6)), want: "invalid configuration supplied: the number of active VUs (7) must be less than or equal to the number of maxVUs (6)"},
	} {
		err := e.SetVUs(tc.vus, tc.max)
		var cfgErr *VUConfigError
		require.ErrorAs(t, err, &cfgErr)
		require.EqualError(t, err, tc.want)
	}

	c, _, _ := newExec(t, scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 1, Duration: time.Second}, 0, pacer.Segment{})
	require.ErrorIs(t, c.SetVUs(new(int64(1)), nil), ErrNotExternal)
	require.ErrorIs(t, c.SetPaused(true), ErrNotExternal)
}

// TestExternalChangesBeforeStart: a change before the start applies at the start, as
// k6 applies one made while --paused holds the run.
func TestExternalChangesBeforeStart(t *testing.T) {
	t.Parallel()
	e, rec, _ := newExec(t, extScenario(1, 2, 0), time.Hour, pacer.Segment{})
	require.NoError(t, e.SetVUs(new(int64(3)), new(int64(5))))
	require.Zero(t, e.Stats().VUs, "no VU is active before the start")
	startExec(t, e)
	require.Eventually(t, func() bool { return rec.running.Load() == 3 }, 5*time.Second, time.Millisecond)
	require.Equal(t, Stats{VUs: 3, VUsMax: 5}, e.Stats())
}

func TestExternalPauseResume(t *testing.T) {
	t.Parallel()
	e, rec, _ := newExec(t, extScenario(2, 2, 0), 50*time.Millisecond, pacer.Segment{})
	startExec(t, e)
	require.Eventually(t, func() bool { return rec.running.Load() == 2 }, 5*time.Second, time.Millisecond)

	require.NoError(t, e.SetPaused(true))
	st := e.Stats()
	require.True(t, st.Paused)
	require.Zero(t, st.VUs, "k6 reports no active VU at once on a pause")
	require.Zero(t, e.Target(time.Second))
	require.ErrorIs(t, e.SetPaused(true), ErrPausedAlready)
	require.Eventually(t, func() bool { return rec.running.Load() == 0 }, 5*time.Second, time.Millisecond)
	require.Zero(t, rec.interrupted.Load(), "a pause lets running iterations finish")
	iters := rec.completed.Load()
	require.Never(t, func() bool { return rec.completed.Load() != iters || rec.running.Load() != 0 }, 200*time.Millisecond, 5*time.Millisecond,
		"no iteration starts while paused")

	require.NoError(t, e.SetPaused(false))
	require.ErrorIs(t, e.SetPaused(false), ErrNotPaused)
	require.False(t, e.Stats().Paused)
	require.Eventually(t, func() bool { return rec.completed.Load() > iters+2 }, 5*time.Second, time.Millisecond)
}

// TestExternalDurationLeavesOutPauses: the duration counts only unpaused time, and
// the scenario ends by itself once it has passed.
func TestExternalDurationLeavesOutPauses(t *testing.T) {
	t.Parallel()
	const dur = 300 * time.Millisecond
	e, rec, _ := newExec(t, extScenario(1, 1, dur), 5*time.Millisecond, pacer.Segment{})
	require.Equal(t, dur, e.MaxEnd(), "no gracefulStop")
	require.NoError(t, e.SetPaused(true))
	start := time.Now()
	_, done := startExec(t, e)
	require.Never(t, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}, 2*dur, 10*time.Millisecond, "a paused scenario does not run out its duration")
	require.Zero(t, rec.completed.Load())
	require.NoError(t, e.SetPaused(false))
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the scenario did not end at its duration")
	}
	// The paused 2*dur plus the duration, less the moment the executor ran before it
	// saw it was paused (tenths of a millisecond on a loaded machine: 899.9 ms seen).
	const slack = 10 * time.Millisecond
	require.GreaterOrEqual(t, time.Since(start), 3*dur-slack)
	require.Positive(t, rec.completed.Load())
	st := e.Stats()
	require.True(t, st.Done)
	require.Zero(t, st.VUs)
	require.Equal(t, dur, e.Elapsed(time.Hour))
	w := e.Stages()
	require.Len(t, w, 1)
	require.GreaterOrEqual(t, w[0].End, 3*dur-slack, "the stage window ends after the paused time")
}

func TestExternalStopInterrupts(t *testing.T) {
	t.Parallel()
	e, rec, _ := newExec(t, extScenario(3, 3, 0), time.Hour, pacer.Segment{})
	require.Zero(t, e.Duration())
	require.Zero(t, e.MaxEnd(), "until stopped: k6 prints 0s max duration")
	w := e.Stages()
	require.Len(t, w, 1)
	require.Equal(t, time.Duration(1<<63-1), w[0].End, "no known end")
	cancel, done := startExec(t, e)
	require.Eventually(t, func() bool { return rec.running.Load() == 3 }, 5*time.Second, time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the stop did not end the scenario")
	}
	require.Equal(t, int64(3), rec.interrupted.Load())
	require.Equal(t, int64(3), rec.closed.Load(), "the VUs are closed at the end")
}

func TestExternalNewChecksOptions(t *testing.T) {
	t.Parallel()
	for _, sc := range []scenario.Scenario{extScenario(1, 1, -time.Second), extScenario(3, 2, time.Second), extScenario(-1, 2, time.Second)} {
		_, err := New(Config{Scenario: &sc, NewVU: func(int64) VU { return nil }})
		require.Error(t, err)
	}
}
