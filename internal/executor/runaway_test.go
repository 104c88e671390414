package executor

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/scenario"
)

// startVU is a no-op VU that records when its last iteration started.
type startVU struct{ last *atomic.Int64 }

func (v startVU) Iterate(context.Context) bool {
	now := time.Now().UnixNano()
	for {
		old := v.last.Load()
		if now <= old || v.last.CompareAndSwap(old, now) {
			return true
		}
	}
}

// TestExecutorArrivalRateEndsByDuration is the regression case of issue 12: a rate
// no VU pool keeps up with (10^9/s) kept the dispatcher starting iterations long
// after its duration, and the scenario never ended.
func TestExecutorArrivalRateEndsByDuration(t *testing.T) {
	t.Parallel()
	const dur, grace = 200 * time.Millisecond, time.Second
	for _, tc := range []struct {
		name string
		sc   scenario.Scenario
	}{
		{name: "constant-arrival-rate", sc: scenario.Scenario{Name: "c", Executor: scenario.ConstantArrivalRate, Rate: 1e9, Duration: dur,
			PreAllocatedVUs: 2, MaxVUs: 4, GracefulStop: grace}},
		{name: "ramping-arrival-rate", sc: scenario.Scenario{Name: "r", Executor: scenario.RampingArrivalRate, StartRate: 1e9, PreAllocatedVUs: 2, MaxVUs: 4, GracefulStop: grace,
			Stages: []scenario.Stage{{Duration: dur / 2, Target: 1e9}, {Duration: dur / 2, Target: 1e9}}}},
		{name: "a nanosecond time unit", sc: scenario.Scenario{Name: "n", Executor: scenario.ConstantArrivalRate, Rate: 1, TimeUnit: time.Nanosecond, Duration: dur,
			PreAllocatedVUs: 2, MaxVUs: 4, GracefulStop: grace}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var last atomic.Int64
			sc := tc.sc
			e, err := New(Config{Scenario: &sc, NewVU: func(int64) VU { return startVU{last: &last} }})
			require.NoError(t, err)
			start := time.Now()
			e.Run(context.Background(), start)
			took := time.Since(start)
			// Generous: the bound is the scenario's maximum duration plus slack
			// for a loaded machine; before the fix it ran for minutes.
			require.Less(t, took, dur+grace+3*time.Second)
			// A VU may begin an iteration handed out just before the end a little
			// later; nothing is handed out after it.
			require.Less(t, time.Duration(last.Load()-start.UnixNano()), dur+500*time.Millisecond, "an iteration started after the duration")
			st := e.Stats()
			require.Equal(t, e.arr.Total(), st.Iterations+st.Dropped, "every arrival is started or dropped")
			require.Positive(t, st.Dropped)
		})
	}
}

// TestExecutorStopDuringInit cancels the context while a million VUs are being
// allocated: allocation stops and Run returns at once.
func TestExecutorStopDuringInit(t *testing.T) {
	t.Parallel()
	const n = 1_000_000
	for _, sc := range []scenario.Scenario{
		{Name: "c", Executor: scenario.ConstantVUs, VUs: n, Duration: time.Hour, GracefulStop: time.Hour},
		{Name: "r", Executor: scenario.RampingVUs, Stages: []scenario.Stage{{Duration: time.Hour, Target: n}}, GracefulStop: time.Hour},
		{Name: "s", Executor: scenario.SharedIterations, VUs: n, Iterations: n, MaxDuration: time.Hour, GracefulStop: time.Hour},
		{Name: "a", Executor: scenario.ConstantArrivalRate, Rate: 1, Duration: time.Hour, PreAllocatedVUs: n, GracefulStop: time.Hour},
	} {
		t.Run(string(sc.Executor), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var last atomic.Int64
			e, err := New(Config{Scenario: &sc, NewVU: func(id int64) VU {
				if id == 1000 {
					cancel() // SIGTERM while the VUs start
				}
				return startVU{last: &last}
			}})
			require.NoError(t, err)
			done := make(chan struct{})
			go func() {
				defer close(done)
				e.Run(ctx, time.Now())
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return within 5s of the cancel")
			}
			st := e.Stats()
			require.Less(t, st.VUsMax, int64(n))
			require.Zero(t, st.Iterations)
			require.ErrorIs(t, e.Init(ctx), context.Canceled)
		})
	}
}

// TestExecutorMaxEndSaturates is a case FuzzExecutorOptions found: startTime +
// duration + gracefulStop overflowed time.Duration and MaxEnd was negative.
func TestExecutorMaxEndSaturates(t *testing.T) {
	t.Parallel()
	const long = time.Duration(1 << 62)
	sc := scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 1, Duration: long, GracefulStop: long}
	e, err := New(Config{Scenario: &sc, NewVU: func(int64) VU { return nopVU{} }})
	require.NoError(t, err)
	require.Equal(t, time.Duration(math.MaxInt64), e.MaxEnd())
	sc.Duration, sc.GracefulStop = time.Second, 2*time.Second
	e, err = New(Config{Scenario: &sc, NewVU: func(int64) VU { return nopVU{} }})
	require.NoError(t, err)
	require.Equal(t, 3*time.Second, e.MaxEnd())
}
