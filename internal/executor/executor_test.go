package executor

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
)

// fakeVU sleeps for work per iteration (honouring ctx) and records what it did.
type fakeVU struct {
	id     int64
	work   time.Duration
	rec    *recorder
	iters  atomic.Int64
	busy   atomic.Int64
	closes atomic.Int64
}

// Close records that the executor released the VU, and whether it was iterating.
func (v *fakeVU) Close() {
	if v.busy.Load() != 0 {
		v.rec.closedBusy.Add(1)
	}
	v.closes.Add(1)
	v.rec.closed.Add(1)
}

type recorder struct {
	completed, interrupted atomic.Int64
	closed, closedBusy     atomic.Int64
	running, maxRunning    atomic.Int64
	mu                     sync.Mutex
	ids                    map[int64]int64
}

func newRecorder() *recorder { return &recorder{ids: map[int64]int64{}} }

func (v *fakeVU) Iterate(ctx context.Context) bool {
	v.busy.Add(1)
	defer v.busy.Add(-1)
	n := v.rec.running.Add(1)
	defer v.rec.running.Add(-1)
	for {
		m := v.rec.maxRunning.Load()
		if n <= m || v.rec.maxRunning.CompareAndSwap(m, n) {
			break
		}
	}
	v.iters.Add(1)
	v.rec.mu.Lock()
	v.rec.ids[v.id]++
	v.rec.mu.Unlock()
	if v.work > 0 {
		t := time.NewTimer(v.work)
		defer t.Stop()
		select {
		case <-ctx.Done():
			v.rec.interrupted.Add(1)
			return false
		case <-t.C:
		}
	}
	v.rec.completed.Add(1)
	return true
}

func newExec(t *testing.T, sc scenario.Scenario, work time.Duration, seg pacer.Segment) (*Executor, *recorder, *atomic.Int64) {
	t.Helper()
	rec := newRecorder()
	var droppedSamples atomic.Int64
	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltin(reg)
	tags := metrics.NewTagPool().Intern([]metrics.Tag{{Key: "scenario", Value: sc.Name}})
	e, err := New(Config{
		Scenario: &sc,
		Segment:  seg,
		NewVU:    func(id int64) VU { return &fakeVU{id: id, work: work, rec: rec} },
		Pusher: metrics.PusherFunc(func(ss []metrics.Sample) {
			for _, s := range ss {
				if s.Metric == b.DroppedIterations && s.Tags == tags {
					droppedSamples.Add(int64(s.Value))
				}
			}
		}),
		Dropped: b.DroppedIterations,
		Tags:    tags,
	})
	require.NoError(t, err)
	return e, rec, &droppedSamples
}

func runExec(e *Executor) time.Duration {
	start := time.Now()
	e.Run(context.Background(), start)
	return time.Since(start)
}

func TestExecutorIterationCounts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		sc          scenario.Scenario
		work        time.Duration
		seg         string
		completed   int64
		tolerance   int64
		dropped     int64
		maxRunning  int64
		minDuration time.Duration
	}{
		{
			name:      "shared-iterations shares a total",
			sc:        scenario.Scenario{Name: "s", Executor: scenario.SharedIterations, VUs: 5, Iterations: 100},
			work:      time.Millisecond,
			completed: 100, maxRunning: 5,
		},
		{
			name:      "shared-iterations defaults to 1 VU 1 iteration",
			sc:        scenario.Scenario{Name: "s", Executor: scenario.SharedIterations},
			completed: 1,
		},
		{
			name:      "per-vu-iterations runs each VU's own",
			sc:        scenario.Scenario{Name: "p", Executor: scenario.PerVUIterations, VUs: 3, Iterations: 7},
			work:      time.Millisecond,
			completed: 21, maxRunning: 3,
		},
		{
			name:      "shared-iterations maxDuration drops the rest",
			sc:        scenario.Scenario{Name: "m", Executor: scenario.SharedIterations, VUs: 2, Iterations: 1000, MaxDuration: 200 * time.Millisecond, GracefulStop: time.Second},
			work:      10 * time.Millisecond,
			completed: 40, tolerance: 8, dropped: -1, maxRunning: 2,
		},
		{
			name: "constant-arrival-rate 1000/s for 1s",
			// Enough VUs that a loaded CI machine (1 ms sleeps waking 10–100 ms late) still
			// has a free VU for every arrival: the count must then be exact.
			sc:        scenario.Scenario{Name: "c", Executor: scenario.ConstantArrivalRate, Rate: 1000, Duration: time.Second, PreAllocatedVUs: 50, MaxVUs: 300, GracefulStop: time.Second},
			work:      time.Millisecond,
			completed: 1000, minDuration: time.Second,
		},
		{
			name:      "constant-arrival-rate with timeUnit",
			sc:        scenario.Scenario{Name: "c", Executor: scenario.ConstantArrivalRate, Rate: 30, TimeUnit: 100 * time.Millisecond, Duration: 500 * time.Millisecond, PreAllocatedVUs: 50},
			completed: 150,
		},
		{
			name: "ramping-arrival-rate integrates the stages",
			sc: scenario.Scenario{Name: "r", Executor: scenario.RampingArrivalRate, StartRate: 0, PreAllocatedVUs: 50,
				Stages: []scenario.Stage{{Duration: 500 * time.Millisecond, Target: 400}, {Duration: 500 * time.Millisecond, Target: 400}}},
			completed: 300, minDuration: time.Second,
		},
		{
			name:      "segment takes its half of the arrivals",
			sc:        scenario.Scenario{Name: "c", Executor: scenario.ConstantArrivalRate, Rate: 301, Duration: time.Second, PreAllocatedVUs: 100},
			seg:       "1/2:1",
			completed: 150, // the first half owns arrival 0 and every other one: 151
		},
		{
			// The first half gets VUs 0 and 2 of 3, and so 2/3 of the iterations
			// (k6 divides them among the segments in proportion to their VUs).
			name:      "segment scales shared iterations",
			sc:        scenario.Scenario{Name: "s", Executor: scenario.SharedIterations, VUs: 3, Iterations: 11},
			seg:       "0:1/2",
			work:      10 * time.Millisecond,
			completed: 7, maxRunning: 2,
		},
		{
			name:      "segment scales shared iterations: the other half",
			sc:        scenario.Scenario{Name: "s", Executor: scenario.SharedIterations, VUs: 3, Iterations: 11},
			seg:       "1/2:1",
			completed: 4, maxRunning: 1,
		},
		{
			// k6 -i 10 --execution-segment 0:1/2 with one VU runs all 10 (issue 25).
			name:      "the segment with the only VU runs every shared iteration",
			sc:        scenario.Scenario{Name: "s", Executor: scenario.SharedIterations, VUs: 1, Iterations: 10},
			seg:       "0:1/2",
			completed: 10, maxRunning: 1,
		},
		{
			name: "a segment without VUs runs no shared iteration",
			sc:   scenario.Scenario{Name: "s", Executor: scenario.SharedIterations, VUs: 1, Iterations: 10},
			seg:  "1/2:1",
		},
		{
			name:      "segment scales per-VU iterations by VUs only",
			sc:        scenario.Scenario{Name: "p", Executor: scenario.PerVUIterations, VUs: 3, Iterations: 4},
			seg:       "1/2:1",
			completed: 4, maxRunning: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seg := pacer.Segment{}
			if tc.seg != "" {
				var err error
				seg, err = pacer.ParseSegment(tc.seg, "")
				require.NoError(t, err)
			}
			e, rec, droppedSamples := newExec(t, tc.sc, tc.work, seg)
			took := runExec(e)
			st := e.Stats()
			if tc.tolerance > 0 {
				// A sleep never ends early, so a loaded machine completes fewer
				// iterations, never more: bound from above, and require some work.
				require.LessOrEqual(t, rec.completed.Load(), tc.completed+tc.tolerance, "stats %+v", e.Stats())
				require.GreaterOrEqual(t, rec.completed.Load(), tc.maxRunning, "stats %+v", e.Stats())
			} else {
				require.Equal(t, tc.completed, rec.completed.Load(), "stats %+v", e.Stats())
			}
			require.Equal(t, rec.completed.Load(), st.Iterations)
			switch {
			case tc.dropped >= 0:
				require.Equal(t, tc.dropped, st.Dropped)
			default:
				// Every iteration of the total is either started or dropped.
				require.Equal(t, int64(tc.sc.Iterations), st.Dropped+rec.completed.Load()+rec.interrupted.Load())
			}
			require.Equal(t, st.Dropped, droppedSamples.Load())
			if tc.maxRunning > 0 {
				require.Equal(t, tc.maxRunning, rec.maxRunning.Load())
			}
			require.GreaterOrEqual(t, took, tc.minDuration)
			require.True(t, st.Done)
			require.Zero(t, st.VUs)
		})
	}
}

func TestExecutorDropsWhenMaxVUsTooSmall(t *testing.T) {
	t.Parallel()
	// 200/s for 0.5 s = 100 arrivals; 2 VUs that take 50 ms each can start ~20.
	sc := scenario.Scenario{Name: "d", Executor: scenario.ConstantArrivalRate, Rate: 200, Duration: 500 * time.Millisecond, PreAllocatedVUs: 1, MaxVUs: 2, GracefulStop: time.Second}
	e, rec, droppedSamples := newExec(t, sc, 50*time.Millisecond, pacer.Segment{})
	runExec(e)
	st := e.Stats()
	require.Equal(t, int64(100), st.Iterations+st.Dropped, "every arrival is started or dropped")
	require.Greater(t, st.Dropped, int64(60))
	require.Equal(t, st.Dropped, droppedSamples.Load())
	require.Equal(t, int64(2), st.VUsMax, "VUs are added mid-test up to maxVUs")
	require.Equal(t, int64(2), rec.maxRunning.Load())
}

func TestExecutorGracefulStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                   string
		graceful               time.Duration
		completed, interrupted int64
	}{
		{name: "iterations longer than gracefulStop are interrupted", graceful: 50 * time.Millisecond, interrupted: 3},
		{name: "gracefulStop lets running iterations finish", graceful: 2 * time.Second, completed: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := scenario.Scenario{Name: "g", Executor: scenario.ConstantVUs, VUs: 3, Duration: 100 * time.Millisecond, GracefulStop: tc.graceful}
			e, rec, _ := newExec(t, sc, 400*time.Millisecond, pacer.Segment{})
			took := runExec(e)
			require.Equal(t, tc.completed, rec.completed.Load())
			require.Equal(t, tc.interrupted, rec.interrupted.Load())
			require.Equal(t, tc.completed, e.Stats().Iterations)
			require.Equal(t, tc.interrupted, e.Stats().Interrupted)
			require.Less(t, took, time.Second)
		})
	}
}

func TestExecutorExternalStopHonoursGracefulStop(t *testing.T) {
	t.Parallel()
	sc := scenario.Scenario{Name: "x", Executor: scenario.ConstantVUs, VUs: 2, Duration: time.Hour, GracefulStop: time.Second}
	e, rec, _ := newExec(t, sc, 200*time.Millisecond, pacer.Segment{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	e.Run(ctx, start)
	require.Less(t, time.Since(start), 2*time.Second)
	require.Zero(t, rec.interrupted.Load(), "running iterations finish within gracefulStop")
	require.InDelta(t, 4, rec.completed.Load(), 2)
}

// TestExecutorAbortInterrupts: a Run context canceled with ErrAbort (an
// abortOnFail threshold) interrupts the running iterations at once, also during
// the grace period of a stop that came before.
func TestExecutorAbortInterrupts(t *testing.T) {
	t.Parallel()
	for _, stopFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("stopped before=%v", stopFirst), func(t *testing.T) {
			t.Parallel()
			sc := scenario.Scenario{Name: "x", Executor: scenario.ConstantVUs, VUs: 2, Duration: time.Hour, GracefulStop: time.Minute}
			if stopFirst {
				sc.Duration = 100 * time.Millisecond // ends, then waits for gracefulStop
			}
			e, rec, _ := newExec(t, sc, time.Hour, pacer.Segment{})
			ctx, cancel := context.WithCancelCause(context.Background())
			time.AfterFunc(300*time.Millisecond, func() { cancel(ErrAbort) })
			start := time.Now()
			e.Run(ctx, start)
			require.Less(t, time.Since(start), 2*time.Second)
			require.Equal(t, int64(2), rec.interrupted.Load())
		})
	}
}

func TestExecutorRampingVUs(t *testing.T) {
	t.Parallel()
	sc := scenario.Scenario{
		Name: "rv", Executor: scenario.RampingVUs, StartVUs: 0, GracefulRampDown: 20 * time.Millisecond,
		Stages: []scenario.Stage{{Duration: 200 * time.Millisecond, Target: 4}, {Duration: 200 * time.Millisecond, Target: 4}, {Duration: 0, Target: 1}, {Duration: 200 * time.Millisecond, Target: 1}},
	}
	e, rec, _ := newExec(t, sc, 30*time.Millisecond, pacer.Segment{})
	var atHold int64
	rampedDown := time.Duration(-1) // when the VUs were first seen down to 1 after 400 ms
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		time.Sleep(time.Until(start.Add(300 * time.Millisecond)))
		atHold = e.Stats().VUs
		time.Sleep(time.Until(start.Add(400 * time.Millisecond)))
		for time.Since(start) < 600*time.Millisecond {
			if e.Stats().VUs == 1 {
				rampedDown = time.Since(start)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	e.Run(context.Background(), start)
	<-done
	require.Equal(t, int64(4), rec.maxRunning.Load())
	require.Equal(t, int64(4), e.Stats().VUsMax)
	require.Equal(t, int64(4), atHold, "the hold at 4 VUs")
	// The drop to 1 at 400 ms, once the 3 VUs' iterations got their 20 ms of
	// gracefulRampDown: within the last stage (a loaded machine saw 3 at a fixed 500 ms).
	require.Positive(t, rampedDown, "down to 1 VU before the last stage ended")
	require.Positive(t, rec.interrupted.Load()+rec.completed.Load())
	require.GreaterOrEqual(t, time.Since(start), 600*time.Millisecond)
}

func TestExecutorRampDownInterruptsAfterGrace(t *testing.T) {
	t.Parallel()
	// Two VUs for 100 ms, then one; each iteration takes 300 ms, longer than the
	// 50 ms gracefulRampDown, so the removed VU's iteration is interrupted while the
	// remaining one completes within gracefulStop.
	sc := scenario.Scenario{
		Name: "rd", Executor: scenario.RampingVUs, StartVUs: 2, GracefulRampDown: 50 * time.Millisecond, GracefulStop: time.Second,
		Stages: []scenario.Stage{{Duration: 100 * time.Millisecond, Target: 2}, {Duration: 0, Target: 1}, {Duration: 100 * time.Millisecond, Target: 1}},
	}
	e, rec, _ := newExec(t, sc, 300*time.Millisecond, pacer.Segment{})
	runExec(e)
	require.Equal(t, int64(1), rec.interrupted.Load())
	require.Equal(t, int64(1), rec.completed.Load())
}

func TestExecutorTargetsAndStages(t *testing.T) {
	t.Parallel()
	sc := scenario.Scenario{Name: "t", Executor: scenario.RampingArrivalRate, StartTime: 10 * time.Second, StartRate: 10, TimeUnit: time.Second, PreAllocatedVUs: 1,
		Stages: []scenario.Stage{{Duration: 10 * time.Second, Target: 30}, {Duration: 10 * time.Second, Target: 50}}}
	e, _, _ := newExec(t, sc, 0, pacer.Segment{})
	require.Equal(t, UnitIterationsPerSecond, e.Unit())
	require.Zero(t, e.Target(5*time.Second))
	require.InDelta(t, 20, e.Target(15*time.Second), 1e-9)
	require.InDelta(t, 50, e.Target(30*time.Second), 1e-9)
	require.Equal(t, []StageWindow{
		{Index: 0, Start: 10 * time.Second, End: 20 * time.Second, From: 10, Target: 30, Unit: UnitIterationsPerSecond},
		{Index: 1, Start: 20 * time.Second, End: 30 * time.Second, From: 30, Target: 50, Unit: UnitIterationsPerSecond},
	}, e.Stages())
	require.Equal(t, 30*time.Second, e.MaxEnd(), "startTime + stages + gracefulStop (0 here)")

	cv, _, _ := newExec(t, scenario.Scenario{Name: "v", Executor: scenario.ConstantVUs, VUs: 7, Duration: time.Minute}, 0, pacer.Segment{})
	require.Equal(t, UnitVUs, cv.Unit())
	require.InDelta(t, 7, cv.Target(time.Second), 1e-9)
	require.Equal(t, []StageWindow{{Start: 0, End: time.Minute, From: 7, Target: 7, Unit: UnitVUs}}, cv.Stages())
}

func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sc      scenario.Scenario
		wantErr string
	}{
		{sc: scenario.Scenario{Name: "a", Executor: scenario.ConstantVUs}, wantErr: `scenario "a": constant-vus needs a duration > 0`},
		{sc: scenario.Scenario{Name: "b", Executor: scenario.RampingVUs}, wantErr: `scenario "b": ramping-vus needs stages`},
		{sc: scenario.Scenario{Name: "c", Executor: "nope"}, wantErr: `scenario "c": unknown executor "nope"`},
	} {
		_, err := New(Config{Scenario: &tc.sc, NewVU: func(int64) VU { return nil }})
		require.EqualError(t, err, tc.wantErr)
	}
}

func TestExternalStopDropsNothing(t *testing.T) {
	t.Parallel()
	sc := scenario.Scenario{Name: "s", Executor: scenario.SharedIterations, VUs: 2, Iterations: 1000, MaxDuration: time.Hour, GracefulStop: time.Second}
	e, rec, dropped := newExec(t, sc, 10*time.Millisecond, pacer.Segment{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	e.Run(ctx, time.Now())
	require.Positive(t, rec.completed.Load())
	require.Less(t, rec.completed.Load(), int64(1000))
	require.Zero(t, e.Stats().Dropped, "an interrupted run drops nothing")
	require.Zero(t, dropped.Load())
}

// Every VU the executor allocated is closed once, after its last iteration, however
// the scenario ends.
func TestExecutorClosesVUs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		sc     scenario.Scenario
		cancel time.Duration // cancel the run after this long; 0 never
	}{
		{name: "shared iterations", sc: scenario.Scenario{Name: "s", Executor: scenario.SharedIterations, VUs: 3, Iterations: 9}},
		{name: "arrival rate grows past preAllocatedVUs", sc: scenario.Scenario{Name: "a", Executor: scenario.ConstantArrivalRate, Rate: 200, Duration: 200 * time.Millisecond, PreAllocatedVUs: 1, MaxVUs: 5}},
		{name: "ramping VUs", sc: scenario.Scenario{Name: "r", Executor: scenario.RampingVUs, GracefulRampDown: 10 * time.Millisecond,
			Stages: []scenario.Stage{{Duration: 100 * time.Millisecond, Target: 3}, {Duration: 100 * time.Millisecond, Target: 0}}}},
		{name: "stopped before its startTime", sc: scenario.Scenario{Name: "late", Executor: scenario.ConstantVUs, VUs: 2, Duration: time.Second, StartTime: time.Hour}, cancel: 20 * time.Millisecond},
		{name: "stopped while iterating", sc: scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 2, Duration: time.Hour, GracefulStop: 10 * time.Millisecond}, cancel: 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var vus []*fakeVU
			rec := newRecorder()
			sc := tc.sc
			e, err := New(Config{Scenario: &sc, NewVU: func(id int64) VU {
				v := &fakeVU{id: id, work: 20 * time.Millisecond, rec: rec}
				mu.Lock()
				vus = append(vus, v)
				mu.Unlock()
				return v
			}})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel > 0 {
				time.AfterFunc(tc.cancel, cancel)
			}
			e.Run(ctx, time.Now())
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, vus)
			for _, v := range vus {
				require.Equal(t, int64(1), v.closes.Load(), "VU %d", v.id)
			}
			require.Zero(t, rec.closedBusy.Load(), "no VU is closed while it iterates")
		})
	}
}

// TestArrivalRateVUsAreTheBusyOnes: under an arrival-rate executor the active VUs (k6's
// vus) are those running an iteration, not the pre-allocated ones waiting for one;
// vus_max counts those.
func TestArrivalRateVUsAreTheBusyOnes(t *testing.T) {
	t.Parallel()
	// 20/s of 5 ms iterations needs one VU at a time; 30 are pre-allocated.
	sc := scenario.Scenario{Name: "a", Executor: scenario.ConstantArrivalRate, Rate: 20, TimeUnit: time.Second,
		Duration: 600 * time.Millisecond, PreAllocatedVUs: 30, MaxVUs: 30, GracefulStop: time.Second}
	e, _, _ := newExec(t, sc, 5*time.Millisecond, pacer.Segment{})
	done := make(chan struct{})
	var most, allocated atomic.Int64
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for !e.Stats().Done {
			st := e.Stats()
			most.Store(max(most.Load(), st.VUs))
			allocated.Store(max(allocated.Load(), st.VUsMax))
			<-tick.C
		}
	}()
	runExec(e)
	<-done
	require.Equal(t, int64(30), allocated.Load(), "vus_max: the allocated VUs")
	require.Less(t, most.Load(), int64(10), "vus: the VUs running an iteration")
	require.Equal(t, int64(0), e.Stats().VUs)
}
