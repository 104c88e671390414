// Package executor drives the VUs of one scenario with the semantics of k6's
// executors (reference/k6.md §4.1): how many VUs run, when iterations start, when the
// scenario ends, how long running iterations get to finish (gracefulStop,
// gracefulRampDown) and which iterations are dropped.
//
// An executor knows nothing of HTTP: a VU is anything that can run one iteration.
// Open-model executors compute the arrivals due from elapsed time (package pacer) and
// start them in batches, never sleeping once per iteration.
package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
)

// VU is one virtual user as an executor drives it. A VU runs one iteration at a time.
type VU interface {
	// Iterate runs one iteration. ctx is canceled when the iteration must be
	// interrupted (gracefulStop or gracefulRampDown expired); Iterate then returns
	// promptly. It reports whether the iteration completed; an interrupted
	// iteration emits no iterations/iteration_duration samples.
	Iterate(ctx context.Context) bool
}

// Closer is a VU's optional capability: Close releases what the VU holds, such as
// its idle connections. The executor calls it once the scenario has ended and the
// VU will not iterate again.
type Closer interface {
	Close()
}

// NewVUFunc allocates the VU with the given 1-based number within the scenario.
type NewVUFunc func(id int64) VU

// Units of a scenario's target (tidemark_scenario_target{unit}).
const (
	UnitIterationsPerSecond = "iterations_per_second"
	UnitVUs                 = "vus"
)

// Default option values (k6 lib/executor).
const (
	DefaultGracefulStop     = 30 * time.Second
	DefaultGracefulRampDown = 30 * time.Second
	DefaultMaxDuration      = 10 * time.Minute
	DefaultTimeUnit         = time.Second
)

// Config is what an executor needs beyond the scenario itself.
type Config struct {
	// Scenario holds the executor options; zero options take k6's defaults.
	Scenario *scenario.Scenario
	// Segment is this instance's share (zero value: the whole scenario).
	Segment pacer.Segment
	// NewVU allocates VUs; required.
	NewVU NewVUFunc
	// Pusher receives dropped_iterations samples; Dropped is that metric and Tags the
	// scenario's tags (run tags plus scenario). Without a Pusher drops are only
	// counted.
	Pusher  metrics.Pusher
	Dropped *metrics.Metric
	Tags    *metrics.TagSet
}

// StageWindow is one stage of a scenario on the test's time axis.
type StageWindow struct {
	// Index is the stage number, 0-based; non-staged executors have one window.
	Index int
	// Start and End are offsets from the test start (startTime included).
	Start, End time.Duration
	// From and Target are the configured values at the window's start and end, in Unit.
	From, Target float64
	Unit         string
}

// Stats is a point-in-time view of an executor for progress and gauges.
type Stats struct {
	// VUs is the number of active VUs, VUsMax the number allocated.
	VUs, VUsMax int64
	// Iterations completed, Interrupted by a stop, and Dropped (never started).
	Iterations, Interrupted, Dropped int64
	// Done is set once Run has returned.
	Done bool
	// Paused is set while an externally-controlled scenario is paused.
	Paused bool
}

// Executor runs one scenario. Create it with New, call Init once to allocate the
// pre-allocated VUs, then Run.
type Executor struct {
	sc     scenario.Scenario
	cfg    Config
	kind   scenario.Executor
	arr    pacer.Arrivals
	rate   *pacer.Rate
	vusch  *pacer.VUSchedule
	nVUs   int64 // closed-model VUs / pre-allocated VUs
	maxVUs int64
	iters  int64 // shared: total; per-vu: per VU
	dur    time.Duration
	ext    *external // externally-controlled only

	mu  sync.Mutex
	vus []VU

	active, allocated               atomic.Int64
	completed, interrupted, dropped atomic.Int64
	done                            atomic.Bool
}

// New validates the executor options it needs and returns the executor.
func New(cfg Config) (*Executor, error) {
	if cfg.Scenario == nil || cfg.NewVU == nil {
		return nil, fmt.Errorf("new executor: scenario and NewVU are required")
	}
	e := &Executor{sc: *cfg.Scenario, cfg: cfg, kind: cfg.Scenario.Executor}
	sc := &e.sc
	if sc.GracefulStop < 0 {
		sc.GracefulStop = 0
	}
	if sc.TimeUnit <= 0 {
		sc.TimeUnit = DefaultTimeUnit
	}
	seg := cfg.Segment
	switch e.kind {
	case scenario.SharedIterations, scenario.PerVUIterations:
		if sc.MaxDuration <= 0 {
			sc.MaxDuration = DefaultMaxDuration
		}
		e.nVUs = seg.Scale(int64(max(sc.VUs, 1)))
		if e.kind == scenario.SharedIterations {
			// k6 divides the iterations among the segments that got VUs, in
			// proportion to their VUs: a segment without VUs runs none.
			if within, ok := seg.Within(int64(max(sc.VUs, 1))); ok {
				e.iters = within.Scale(int64(max(sc.Iterations, 1)))
			}
		} else {
			e.iters = int64(max(sc.Iterations, 1))
		}
		e.dur = sc.MaxDuration
	case scenario.ConstantVUs:
		if sc.Duration <= 0 {
			return nil, fmt.Errorf("scenario %q: constant-vus needs a duration > 0", sc.Name)
		}
		e.nVUs = seg.Scale(int64(max(sc.VUs, 1)))
		e.dur = sc.Duration
	case scenario.RampingVUs:
		if len(sc.Stages) == 0 {
			return nil, fmt.Errorf("scenario %q: ramping-vus needs stages", sc.Name)
		}
		if sc.GracefulRampDown < 0 {
			sc.GracefulRampDown = 0
		}
		e.vusch = pacer.NewVUSchedule(int64(sc.StartVUs), pacerStages(sc.Stages)).Scaled(seg)
		e.nVUs = e.vusch.Max()
		e.dur = e.vusch.Duration()
	case scenario.ExternallyControlled:
		if sc.Duration < 0 {
			return nil, fmt.Errorf("scenario %q: externally-controlled needs a duration >= 0 (0 runs until stopped)", sc.Name)
		}
		if sc.VUs < 0 || sc.MaxVUs < sc.VUs {
			return nil, fmt.Errorf("scenario %q: externally-controlled needs 0 <= vus <= maxVUs, got vus %d and maxVUs %d", sc.Name, sc.VUs, sc.MaxVUs)
		}
		// k6 allows no gracefulStop here: a stop interrupts the running iterations.
		sc.GracefulStop = 0
		e.nVUs = seg.Scale(int64(sc.MaxVUs))
		e.ext = newExternal(seg.Scale(int64(sc.VUs)), e.nVUs)
		e.dur = sc.Duration
	case scenario.ConstantArrivalRate, scenario.RampingArrivalRate:
		if e.kind == scenario.ConstantArrivalRate {
			if sc.Duration <= 0 {
				return nil, fmt.Errorf("scenario %q: constant-arrival-rate needs a duration > 0", sc.Name)
			}
			e.rate = pacer.NewConstantRate(sc.Rate, sc.TimeUnit, sc.Duration)
		} else {
			if len(sc.Stages) == 0 {
				return nil, fmt.Errorf("scenario %q: ramping-arrival-rate needs stages", sc.Name)
			}
			e.rate = pacer.NewRampingRate(sc.StartRate, sc.TimeUnit, pacerStages(sc.Stages))
		}
		e.arr = pacer.Striped{Rate: e.rate, Seg: seg}
		e.nVUs = seg.Scale(int64(sc.PreAllocatedVUs))
		e.maxVUs = seg.Scale(int64(max(sc.MaxVUs, sc.PreAllocatedVUs)))
		e.dur = e.rate.Duration()
	default:
		return nil, fmt.Errorf("scenario %q: unknown executor %q", sc.Name, sc.Executor)
	}
	if e.maxVUs < e.nVUs {
		e.maxVUs = e.nVUs
	}
	return e, nil
}

func pacerStages(st []scenario.Stage) []pacer.Stage {
	out := make([]pacer.Stage, len(st))
	for i, s := range st {
		out[i] = pacer.Stage{Duration: s.Duration, Target: s.Target}
	}
	return out
}

// Kind returns the executor kind.
func (e *Executor) Kind() scenario.Executor { return e.kind }

// StartTime returns the scenario's start offset from the test start.
func (e *Executor) StartTime() time.Duration { return e.sc.StartTime }

// Duration returns the scheduled length of the scenario without gracefulStop: the
// duration, the sum of the stages, or maxDuration for the iteration executors (which
// usually end sooner). It is 0 for an externally-controlled scenario that runs until
// stopped, whose duration also leaves out the time it is paused.
func (e *Executor) Duration() time.Duration { return e.dur }

// MaxEnd returns the latest offset from the test start at which the scenario can
// still be running: startTime + duration + gracefulStop, or the longest
// time.Duration when that sum does not fit in one.
func (e *Executor) MaxEnd() time.Duration {
	end := e.sc.StartTime
	for _, d := range []time.Duration{e.dur, e.sc.GracefulStop} {
		if end > math.MaxInt64-d {
			return math.MaxInt64
		}
		end += d
	}
	return end
}

// Unit returns the unit of Target: iterations per second for arrival-rate
// executors, VUs otherwise.
func (e *Executor) Unit() string {
	if e.rate != nil {
		return UnitIterationsPerSecond
	}
	return UnitVUs
}

// Target returns the configured target at offset t from the test start: this
// instance's iterations per second for arrival-rate executors, VUs otherwise; 0
// before the start and after the scheduled end.
func (e *Executor) Target(t time.Duration) float64 {
	t -= e.sc.StartTime
	if e.ext != nil {
		return e.externalTarget()
	}
	if t < 0 || t > e.dur {
		return 0
	}
	switch {
	case e.rate != nil:
		return e.rate.PerSecond(t) * e.cfg.Segment.Fraction()
	case e.vusch != nil:
		return float64(e.vusch.Target(t))
	default:
		return float64(e.nVUs)
	}
}

// Stages returns the scenario's stage windows on the test's time axis. Executors
// without stages have one window spanning their scheduled duration.
func (e *Executor) Stages() []StageWindow {
	st := e.sc.StartTime
	if e.ext != nil {
		// One window from the start until the duration has passed unpaused, or, to
		// run until stopped, until the run ends (the engine clips it); from the
		// configured vus to the most VUs asked for over the REST API.
		first, peak := e.ext.span()
		end := time.Duration(math.MaxInt64)
		if e.dur > 0 {
			end = st + e.dur + e.ext.pausedTime()
		}
		return []StageWindow{{Start: st, End: end, From: float64(first), Target: float64(peak), Unit: e.Unit()}}
	}
	if len(e.sc.Stages) == 0 || (e.kind != scenario.RampingVUs && e.kind != scenario.RampingArrivalRate) {
		v := e.Target(st)
		return []StageWindow{{Start: st, End: st + e.dur, From: v, Target: v, Unit: e.Unit()}}
	}
	out := make([]StageWindow, 0, len(e.sc.Stages))
	at := st
	for i, s := range e.sc.Stages {
		w := StageWindow{Index: i, Start: at, End: at + s.Duration, Unit: e.Unit()}
		if e.rate != nil {
			w.From = e.rate.PerSecond(at-st) * e.cfg.Segment.Fraction()
			w.Target = s.Target / e.sc.TimeUnit.Seconds() * e.cfg.Segment.Fraction()
		} else {
			w.From = float64(e.vusch.Target(at - st))
			w.Target = float64(e.vusch.Target(at + s.Duration - st))
		}
		if i == 0 && e.rate != nil {
			w.From = e.sc.StartRate / e.sc.TimeUnit.Seconds() * e.cfg.Segment.Fraction()
		}
		out = append(out, w)
		at += s.Duration
	}
	return out
}

// Stats returns the executor's counters.
func (e *Executor) Stats() Stats {
	st := Stats{
		VUs: e.active.Load(), VUsMax: e.allocated.Load(),
		Iterations: e.completed.Load(), Interrupted: e.interrupted.Load(), Dropped: e.dropped.Load(),
		Done: e.done.Load(),
	}
	if e.ext != nil {
		e.externalStats(&st)
	}
	return st
}

// Elapsed returns how far the scenario has got at offset t from the test start: the
// time since its startTime, capped at its duration; for an externally-controlled
// scenario the time it has run unpaused.
func (e *Executor) Elapsed(t time.Duration) time.Duration {
	if e.ext != nil {
		return e.externalElapsed()
	}
	return min(max(t-e.sc.StartTime, 0), e.dur)
}

// Init allocates the VUs the executor needs before it starts (k6 initializes them
// before the test: vus, the largest ramping-vus target, or preAllocatedVUs). It
// stops allocating once ctx is done and returns ctx's error; a later call goes on
// where it stopped.
func (e *Executor) Init(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for int64(len(e.vus)) < e.nVUs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("initialize VUs of scenario %q: %w", e.sc.Name, err)
		}
		e.allocLocked()
	}
	return nil
}

func (e *Executor) allocLocked() VU {
	vu := e.cfg.NewVU(int64(len(e.vus)) + 1)
	e.vus = append(e.vus, vu)
	e.allocated.Add(1)
	return vu
}

// closeVUs closes the VUs that are Closers; every VU has stopped.
func (e *Executor) closeVUs() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, vu := range e.vus {
		if c, ok := vu.(Closer); ok {
			c.Close()
		}
	}
}

// vu returns VU i (0-based), allocating up to it.
func (e *Executor) vu(i int64) VU {
	e.mu.Lock()
	defer e.mu.Unlock()
	for int64(len(e.vus)) <= i {
		e.allocLocked()
	}
	return e.vus[i]
}

// Run waits for the scenario's startTime (measured from start), runs it and returns
// once every VU has stopped. Canceling ctx stops the scenario early: no new
// iterations start, running ones get gracefulStop to finish and are then
// interrupted.
func (e *Executor) Run(ctx context.Context, start time.Time) {
	defer e.done.Store(true)
	defer e.closeVUs()
	if e.Init(ctx) != nil {
		// Stopped while allocating: no VU has started, so there is nothing to wait for.
		return
	}
	if d := time.Until(start.Add(e.sc.StartTime)); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	dur := e.dur
	if e.rate != nil || e.ext != nil {
		// The dispatcher ends an arrival-rate scenario itself, after the last
		// arrival due at the end has been handed out; an externally-controlled
		// one ends once its duration has passed unpaused.
		dur = -1
	}
	s := newStopper(ctx, dur, e.sc.GracefulStop)
	defer s.finish()
	switch e.kind {
	case scenario.SharedIterations, scenario.PerVUIterations:
		e.runIterations(s)
	case scenario.ConstantVUs:
		e.runConstantVUs(s)
	case scenario.RampingVUs:
		e.runRampingVUs(s)
	case scenario.ExternallyControlled:
		e.runExternal(s)
	default:
		e.runArrivalRate(s)
	}
}

// iterate runs one iteration of vu and counts its outcome.
func (e *Executor) iterate(ctx context.Context, vu VU) {
	if vu.Iterate(ctx) {
		e.completed.Add(1)
	} else {
		e.interrupted.Add(1)
	}
}

func (e *Executor) drop(n int64) {
	if n <= 0 {
		return
	}
	e.dropped.Add(n)
	e.pushDropped(n)
}

// pushDropped pushes a dropped_iterations sample of n with the scenario's tags.
func (e *Executor) pushDropped(n int64) {
	if e.cfg.Pusher != nil && e.cfg.Dropped != nil {
		e.cfg.Pusher.Push([]metrics.Sample{{Metric: e.cfg.Dropped, Tags: e.cfg.Tags, Time: time.Now(), Value: float64(n)}})
	}
}

// ErrAbort is the cause (context.Cause) of a Run context canceled to abort the
// test: running iterations are interrupted at once, without gracefulStop, as
// k6 interrupts them when an abortOnFail threshold fails. Any other cause is a
// stop that honours gracefulStop (k6's SIGINT).
var ErrAbort = errors.New("test aborted")

// stopper owns a scenario's two stop signals: stopping (start no new iterations:
// the scheduled end, or the caller's ctx) and the iteration context, canceled
// gracefulStop after stopping unless every VU has returned first.
type stopper struct {
	ext      context.Context // the caller's context: done on an external stop
	begin    time.Time
	end      chan struct{} // closed by stop
	endOnce  sync.Once
	stopping chan struct{}
	iterCtx  context.Context
	cancel   context.CancelFunc
	finished chan struct{}
	wg       sync.WaitGroup
}

// newStopper starts the stop logic; a negative dur means the scenario ends only by
// stop (or ctx).
func newStopper(ctx context.Context, dur, graceful time.Duration) *stopper {
	s := &stopper{ext: ctx, begin: time.Now(), end: make(chan struct{}), stopping: make(chan struct{}), finished: make(chan struct{})}
	// The iteration context does not derive from ctx: an external stop must honour
	// gracefulStop, not interrupt iterations at once.
	s.iterCtx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.wg.Go(func() {
		var endC <-chan time.Time
		if dur >= 0 {
			end := time.NewTimer(dur)
			defer end.Stop()
			endC = end.C
		}
		select {
		case <-ctx.Done():
		case <-endC:
		case <-s.end:
		case <-s.finished:
		}
		close(s.stopping)
		s.graceful(ctx, graceful)
	})
	return s
}

// graceful waits for every VU to return, for at most graceful, and then
// interrupts the running iterations; an abort (ErrAbort) interrupts them at
// once, even during the grace period of an earlier stop.
func (s *stopper) graceful(ctx context.Context, graceful time.Duration) {
	grace := time.NewTimer(graceful)
	defer grace.Stop()
	done := ctx.Done()
	for {
		if done != nil && ctx.Err() != nil {
			if errors.Is(context.Cause(ctx), ErrAbort) {
				s.cancel()
				return
			}
			done = nil // a stop that honours gracefulStop
		}
		select {
		case <-grace.C:
			s.cancel()
			return
		case <-s.finished:
			return
		case <-done:
		}
	}
}

// stop ends the scenario: no new iterations from now on.
func (s *stopper) stop() { s.endOnce.Do(func() { close(s.end) }) }

// isStopping reports whether new iterations must not start.
func (s *stopper) isStopping() bool {
	// The caller's context first: its cancellation is visible at once, while the
	// goroutine that closes stopping may not have run yet (a VU that called
	// test.abort() would start its next iteration).
	if s.ext.Err() != nil {
		return true
	}
	select {
	case <-s.stopping:
		return true
	default:
		return false
	}
}

// finish is called once every VU has returned.
func (s *stopper) finish() {
	close(s.finished)
	s.wg.Wait()
	s.cancel()
}
