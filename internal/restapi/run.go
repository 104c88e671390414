package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/scenario"
)

// StatusSource is what Run reads of the engine; *engine.Engine implements it.
type StatusSource interface {
	Status() []engine.ScenarioStatus
}

// Controls is the optional capability of a StatusSource behind a pause, a resume or a
// VU change once the run has started, and a VU change before it (an
// externally-controlled run); *engine.Engine implements it. Its errors are the engine's
// and the executor's (engine.NotPausableError, engine.ErrNotExternallyControlled,
// executor.VUConfigError, executor.ErrPausedAlready, executor.ErrNotPaused), which Run
// answers with k6's status and title.
type Controls interface {
	SetPaused(paused bool) error
	SetVUs(vus, vusMax *int64) error
}

// VUsMaxer is the optional capability of a StatusSource that counts the run's vus-max
// as k6 does (scenarios one after another share their VUs, and k6 initializes them
// before the start); *engine.Engine implements it. Without it vus-max is the sum of
// the scenarios' allocated VUs.
type VUsMaxer interface {
	VUsMax() int64
}

// Snapshotter is what Run reads of the aggregates; *aggregate.Store implements it.
type Snapshotter interface {
	Snapshot() *aggregate.Snapshot
}

var (
	_ StatusSource = (*engine.Engine)(nil)
	_ Controls     = (*engine.Engine)(nil)
	_ VUsMaxer     = (*engine.Engine)(nil)
	_ Snapshotter  = (*aggregate.Store)(nil)
)

// RunOption configures a Run.
type RunOption func(*runOptions)

type runOptions struct {
	now      func() time.Time
	tainted  func() map[string]bool
	setup    SetupRunner
	teardown TeardownRunner
	limits   func() scenario.Limits
}

// WithLimits sets the bound on the VUs a PATCH may add (the default reads this machine's
// available memory at each PATCH: scenario.MachineLimits).
func WithLimits(l func() scenario.Limits) RunOption { return func(o *runOptions) { o.limits = l } }

// WithClock sets the clock counters' rates are computed with; the default is time.Now.
func WithClock(now func() time.Time) RunOption { return func(o *runOptions) { o.now = now } }

// WithTainted sets where Run learns, per metric name, whether its thresholds have
// failed so far; without it no metric is tainted.
func WithTainted(f func() map[string]bool) RunOption {
	return func(o *runOptions) { o.tainted = f }
}

// WithSetup serves /v1/setup from s (the script's runner); without it setup data is
// empty.
func WithSetup(s SetupRunner) RunOption { return func(o *runOptions) { o.setup = s } }

// WithTeardown serves POST /v1/teardown from t; without it the call does nothing.
func WithTeardown(t TeardownRunner) RunOption { return func(o *runOptions) { o.teardown = t } }

// Run is the Controller of a Tidemark run: the --paused gate before the start, a stop,
// and, through the engine's Controls, a pause, a resume or a VU change of an
// externally-controlled run (refused with k6's errors for other executors, or when the
// engine has no Controls).
// The run hands it its parts as they appear: SetStore from the sinks, SetEngine and
// Started once the run is prepared, Ended when the iterations end. It is safe for
// concurrent use.
type Run struct {
	gate     *Pause
	stop     func()
	stopOnce sync.Once
	o        runOptions
	// prepared is closed by SetEngine or Ended: a VU change that arrives while the
	// run is still being prepared waits for it, as k6 starts its API only then.
	prepared     chan struct{}
	preparedOnce sync.Once

	mu      sync.Mutex
	eng     StatusSource
	store   Snapshotter
	started time.Time
	ended   time.Time
	stopped bool
}

var (
	_ Controller     = (*Run)(nil)
	_ MetricsSource  = (*Run)(nil)
	_ GroupsSource   = (*Run)(nil)
	_ SetupRunner    = (*Run)(nil)
	_ TeardownRunner = (*Run)(nil)
)

// NewRun returns the Controller of a run held by gate (NewPause(true) for --paused).
// stop ends the run as PATCH stopped:true asks (k6 exits 103 then); it is called at
// most once.
func NewRun(gate *Pause, stop func(), opts ...RunOption) *Run {
	o := runOptions{now: time.Now, tainted: func() map[string]bool { return nil }, limits: scenario.MachineLimits}
	for _, opt := range opts {
		opt(&o)
	}
	return &Run{gate: gate, stop: stop, o: o, prepared: make(chan struct{})}
}

// SetStore gives Run the run's aggregates, for /v1/metrics and /v1/groups.
func (r *Run) SetStore(s Snapshotter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.store = s
}

// SetEngine gives Run the prepared engine, for the VU counts.
func (r *Run) SetEngine(e StatusSource) {
	r.mu.Lock()
	r.eng = e
	r.mu.Unlock()
	r.preparedOnce.Do(func() { close(r.prepared) })
}

// Started records that the iterations began at t.
func (r *Run) Started(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = t
}

// Ended records that the iterations ended: counters' rates are per second of the
// run from then on.
func (r *Run) Ended() {
	r.mu.Lock()
	r.ended = r.o.now()
	r.mu.Unlock()
	r.preparedOnce.Do(func() { close(r.prepared) })
}

// Status returns the run's state: active VUs summed over the scenarios (0 while
// --paused holds the start, as in k6), and vus-max as k6 counts it (VUsMaxer), also
// before the start.
func (r *Run) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := Status{Paused: r.gate.Paused(), Stopped: r.stopped}
	if r.eng != nil {
		for _, s := range r.eng.Status() {
			st.VUs += s.VUs
			st.VUsMax += s.VUsMax
			st.Paused = st.Paused || s.Paused
		}
		if m, ok := r.eng.(VUsMaxer); ok {
			st.VUsMax = m.VUsMax()
		}
	}
	switch {
	case !r.ended.IsZero():
		st.Stage = StatusEnded
	case !r.started.IsZero():
		st.Stage, st.Running = StatusRunning, true
	default:
		// k6 reports 4 before the start, also in the answer to the resume.
		st.Stage = StatusPausedBeforeRun
	}
	for _, failed := range r.o.tainted() {
		st.Tainted = st.Tainted || failed
	}
	return st
}

// SetStatus stops the run, resumes it from --paused, or passes a pause, a resume after
// the start and a VU change to the engine's Controls; without them, or for executors
// other than externally-controlled, they are refused with k6's errors. A VU change
// that arrives before SetEngine waits for it (or for Ended, or ctx).
func (r *Run) SetStatus(ctx context.Context, u StatusUpdate) error {
	if u.Stopped != nil && *u.Stopped {
		r.mu.Lock()
		r.stopped = true
		r.mu.Unlock()
		r.stopOnce.Do(r.stop)
		return nil
	}
	if u.VUs != nil || u.VUsMax != nil {
		select {
		case <-r.prepared:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.mu.Lock()
	started := !r.started.IsZero()
	var kind, name string
	ctl, _ := r.eng.(Controls)
	if r.eng != nil {
		if sc := r.eng.Status(); len(sc) > 0 {
			kind, name = string(sc[0].Executor), sc[0].Name
		}
	}
	r.mu.Unlock()
	if u.Paused != nil {
		switch {
		case started && ctl == nil:
			return NotPausableError(kind, name)
		case started:
			if err := ctl.SetPaused(*u.Paused); err != nil {
				return controlError(err)
			}
		case *u.Paused && r.gate.Paused():
			return PauseError(ErrAlreadyPaused)
		case !*u.Paused:
			r.gate.Resume()
		}
	}
	if u.VUs != nil || u.VUsMax != nil {
		if ctl == nil {
			return ExecutionConfigError(ErrNotExternallyControlled)
		}
		// The VUs a larger vus-max allocates at once must fit in the memory left now,
		// as a scenario's VUs must fit when the options are loaded.
		if u.VUsMax != nil {
			if added := *u.VUsMax - r.Status().VUsMax; added > 0 {
				if err := r.o.limits().CheckVUs(added); err != nil {
					return ConfigError(fmt.Errorf("vus-max %d: %w", *u.VUsMax, err))
				}
			}
		}
		if err := ctl.SetVUs(u.VUs, u.VUsMax); err != nil {
			return controlError(err)
		}
	}
	return nil
}

// controlError gives an error of the engine's Controls k6's status and title.
func controlError(err error) error {
	var notPausable *engine.NotPausableError
	var vuErr *executor.VUConfigError
	switch {
	case errors.As(err, &notPausable), errors.Is(err, executor.ErrPausedAlready), errors.Is(err, executor.ErrNotPaused):
		return PauseError(err)
	case errors.As(err, &vuErr):
		return ConfigError(err)
	case errors.Is(err, engine.ErrNotExternallyControlled):
		return ExecutionConfigError(err)
	}
	return err
}

// Metrics converts the aggregates now. Before the engine's first vus and vus_max
// samples it reports them from the status, as k6 lists them from its start.
func (r *Run) Metrics() []Metric {
	r.mu.Lock()
	store, started, ended := r.store, r.started, r.ended
	r.mu.Unlock()
	if store == nil {
		return nil
	}
	var elapsed time.Duration
	if !started.IsZero() {
		end := ended
		if end.IsZero() {
			end = r.o.now()
		}
		elapsed = end.Sub(started)
	}
	out := MetricsFromSnapshot(store.Snapshot(), elapsed, r.o.tainted())
	st := r.Status()
	for _, g := range []struct {
		name  string
		value int64
	}{{"vus", st.VUs}, {"vus_max", st.VUsMax}} {
		if !slices.ContainsFunc(out, func(m Metric) bool { return m.Name == g.name }) {
			out = append(out, Metric{Name: g.name, Type: "gauge", Contains: "default", Sample: map[string]float64{"value": float64(g.value)}})
		}
	}
	slices.SortFunc(out, func(a, b Metric) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Groups builds the group tree from the aggregates now.
func (r *Run) Groups() *Group {
	r.mu.Lock()
	store := r.store
	r.mu.Unlock()
	if store == nil {
		return &Group{}
	}
	return GroupsFromSnapshot(store.Snapshot())
}

// Setup runs setup through WithSetup's runner.
func (r *Run) Setup(ctx context.Context) (json.RawMessage, error) {
	if r.o.setup == nil {
		return nil, nil
	}
	return r.o.setup.Setup(ctx)
}

// SetupData returns WithSetup's runner's data.
func (r *Run) SetupData() json.RawMessage {
	if r.o.setup == nil {
		return nil
	}
	return r.o.setup.SetupData()
}

// SetSetupData replaces WithSetup's runner's data; without one it is dropped.
func (r *Run) SetSetupData(data json.RawMessage) error {
	if r.o.setup == nil {
		return nil
	}
	return r.o.setup.SetSetupData(data)
}

// Teardown runs teardown through WithTeardown's runner.
func (r *Run) Teardown(ctx context.Context) error {
	if r.o.teardown == nil {
		return nil
	}
	return r.o.teardown.Teardown(ctx)
}
