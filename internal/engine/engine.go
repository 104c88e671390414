// Package engine runs a load test end to end: it builds the VUs and executors of every
// scenario, pushes k6's built-in samples plus Tidemark's run metadata
// (tidemark_run_info, tidemark_scenario_target) into a metrics.Pusher, evaluates
// thresholds every 2 s and at the end, stops on abortOnFail or on the caller's signal
// while honouring gracefulStop, and reports the run window, stage windows and the
// k6 exit code.
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/threshold"
)

// Names of Tidemark's run metadata metrics. They are gauges and are not k6 metrics:
// sinks must not give them the k6_ prefix.
const (
	RunInfoMetric        = series.RunInfoMetric
	ScenarioTargetMetric = series.ScenarioTargetMetric
	// ThresholdMetric is series.ThresholdMetric: one series per threshold of the run.
	ThresholdMetric = series.ThresholdMetric
)

// Labels only RunInfoMetric carries: the run's test identity, so that runs of one test
// are comparable whatever their testids (tidemark exporter groups them by it).
const (
	// RunInfoTestFileLabel is the base name of the file the test was loaded from
	// (scenario.Test.Source); absent when the test has no source file.
	RunInfoTestFileLabel = "test_file"
	// RunInfoTestHashLabel is TestHash of the resolved test.
	RunInfoTestHashLabel = "test_hash"
)

// Intervals. k6 samples vus/vus_max every 1 s and evaluates thresholds every 2 s. The
// gauges (vus, vus_max, the scenario targets, run info) are sampled every 250 ms: a push
// reads the latest sample, and with a 1 s sample and a 1 s push drifting against each
// other, two pushes could carry the same stale target, which the correlator would cut
// into a one-push stage that the scenario never had.
const (
	gaugeInterval     = 250 * time.Millisecond
	thresholdInterval = 2 * time.Second
)

// Thresholds evaluates a test's thresholds against what has been pushed so far.
// The engine calls it every 2 s during the run and once with final set after every
// sample has been pushed. It reports whether any threshold is crossed and whether an
// abortOnFail threshold asks the run to stop.
type Thresholds interface {
	Evaluate(elapsed time.Duration, final bool) (crossed, abort bool)
}

// ThresholdsFunc adapts a function to Thresholds.
type ThresholdsFunc func(elapsed time.Duration, final bool) (crossed, abort bool)

// Evaluate calls f.
func (f ThresholdsFunc) Evaluate(elapsed time.Duration, final bool) (crossed, abort bool) {
	return f(elapsed, final)
}

var _ Thresholds = ThresholdsFunc(nil)

// Config is one run.
type Config struct {
	// Test is the loaded test; required.
	Test *scenario.Test
	// TestID is added to every sample as the `testid` tag; required.
	TestID string
	// Tags are extra run tags (--tag k=v); they win over the test's tags.
	Tags map[string]string
	// Segment is this instance's execution segment (zero: the whole test).
	Segment pacer.Segment
	// Pusher receives every sample; required. It must not block.
	Pusher metrics.Pusher
	// MaxTagSets bounds the tag sets the engine keeps interned (0: no bound); past it
	// they are made anew for each sample, and the Pusher must cap its series
	// (aggregate.WithMaxSeries).
	MaxTagSets int
	// Registry holds the metrics; nil makes a new one. Share it with thresholds and
	// the summary so metric pointers match.
	Registry *metrics.Registry
	// Thresholds may be nil (no thresholds, or --no-thresholds).
	Thresholds Thresholds
	// ThresholdInterval is how often Thresholds is evaluated during the run; 0 is
	// k6's 2 s. Windowed thresholds are judged every second.
	ThresholdInterval time.Duration
	// Declared are the thresholds Thresholds evaluates, written as ThresholdMetric
	// series with the run's gauges; nil writes none.
	Declared []*threshold.Threshold
	// HTTP configures every VU's transport.
	HTTP request.Options
	// UserAgent is sent by requests that set none.
	UserAgent string
	// VUs makes the VUs of every scenario; nil runs each scenario's YAML flow (Flow).
	VUs VUSource
	// Logger; nil discards.
	Logger *slog.Logger
	// OnBoundary, when set, is called with the offset from the run start at every
	// stage boundary of any scenario that falls inside the run (not at 0), so that
	// the caller can snapshot its aggregates for the per-stage table. Calls come
	// from one goroutine, in order, close to the boundary.
	OnBoundary func(offset time.Duration)
}

// Engine is a prepared run.
type Engine struct {
	cfg     Config
	logger  *slog.Logger
	reg     *metrics.Registry
	builtin *metrics.Builtin
	runInfo *metrics.Metric
	// infoTags are the run tags plus the test identity, RunInfoMetric's only.
	infoTags *metrics.TagSet
	target   *metrics.Metric
	// declared holds one ThresholdMetric sample per declared threshold, their tags
	// interned once.
	declared []metrics.Sample
	pool     *metrics.TagPool
	runTags  *metrics.TagSet
	scens    []*scenarioRun
	started  time.Time
	startMu  sync.Mutex
	// live is true from the run's start until its final gauges: EmitGauges samples
	// only then.
	live atomic.Bool
	// abort is closed by Abort.
	abort     chan struct{}
	abortOnce sync.Once
}

type scenarioRun struct {
	sc         *scenario.Scenario
	exec       *executor.Executor
	tags       *metrics.TagSet // run tags + scenario tags + scenario
	targetTags *metrics.TagSet // run tags + scenario + unit
	// vus are the scenario's active VUs as the vus gauge last counted them.
	vus atomic.Int64
}

// New validates and prepares a run: it compiles every step and builds the executors.
// Its errors are configuration errors (exit code 104).
func New(cfg Config) (*Engine, error) {
	if cfg.Test == nil || cfg.Pusher == nil {
		return nil, errors.New("new engine: test and pusher are required")
	}
	if cfg.TestID == "" {
		return nil, errors.New("new engine: empty test id")
	}
	e := &Engine{cfg: cfg, logger: cfg.Logger, reg: cfg.Registry, abort: make(chan struct{}),
		pool: metrics.NewBoundedTagPool(cfg.MaxTagSets).DropKeys(scenario.DroppedSystemTags(cfg.Test.SystemTags))}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	if e.reg == nil {
		e.reg = metrics.NewRegistry()
	}
	e.builtin = metrics.RegisterBuiltin(e.reg)
	var err error
	if e.runInfo, err = e.reg.New(RunInfoMetric, metrics.Gauge, metrics.Default); err != nil {
		return nil, fmt.Errorf("new engine: %w", err)
	}
	if e.target, err = e.reg.New(ScenarioTargetMetric, metrics.Gauge, metrics.Default); err != nil {
		return nil, fmt.Errorf("new engine: %w", err)
	}
	run := make([]metrics.Tag, 0, len(cfg.Test.Tags)+len(cfg.Tags)+1)
	for k, v := range cfg.Test.Tags {
		run = append(run, metrics.Tag{Key: k, Value: v})
	}
	for k, v := range cfg.Tags {
		run = append(run, metrics.Tag{Key: k, Value: v})
	}
	run = append(run, metrics.Tag{Key: "testid", Value: cfg.TestID})
	e.runTags = e.pool.Intern(run)
	e.infoTags = e.pool.With(e.runTags, testIdentity(cfg.Test)...)
	if len(cfg.Declared) > 0 {
		m, err := e.reg.New(ThresholdMetric, metrics.Gauge, metrics.Default)
		if err != nil {
			return nil, fmt.Errorf("new engine: %w", err)
		}
		for _, th := range cfg.Declared {
			e.declared = append(e.declared, metrics.Sample{Metric: m, Value: 1, Tags: e.pool.With(e.runTags,
				metrics.Tag{Key: "metric", Value: th.Key.Name},
				metrics.Tag{Key: "threshold", Value: strings.TrimSpace(th.Expr.Source)},
				metrics.Tag{Key: "type", Value: th.Type.String()},
				metrics.Tag{Key: "contains", Value: th.Contains.String()})})
		}
	}
	if e.cfg.VUs == nil {
		e.cfg.VUs = Flow{}
	}

	var errs []error
	for _, sc := range cfg.Test.Scenarios {
		sr, err := e.prepare(sc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e.scens = append(e.scens, sr)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(e.scens) == 0 {
		return nil, errors.New("new engine: the test has no scenarios")
	}
	return e, nil
}

func (e *Engine) prepare(sc *scenario.Scenario) (*scenarioRun, error) {
	base := append([]metrics.Tag(nil), e.runTags.Tags()...)
	for k, v := range sc.Tags {
		base = append(base, metrics.Tag{Key: k, Value: v})
	}
	base = append(base, metrics.Tag{Key: "scenario", Value: sc.Name})
	sr := &scenarioRun{sc: sc}
	sr.tags = e.pool.Intern(base)
	newVU, err := e.cfg.VUs.Prepare(sc, &VUEnv{
		Pusher: e.cfg.Pusher, Metrics: e.builtin, Pool: e.pool, Tags: sr.tags,
		HTTP: e.cfg.HTTP, UserAgent: e.cfg.UserAgent, Logger: e.logger,
	})
	if err != nil {
		return nil, err
	}
	ex, err := executor.New(executor.Config{
		Scenario: sc,
		Segment:  e.cfg.Segment,
		NewVU:    newVU,
		Pusher:   e.cfg.Pusher,
		Dropped:  e.builtin.DroppedIterations,
		Tags:     sr.tags,
	})
	if err != nil {
		return nil, err
	}
	sr.exec = ex
	sr.targetTags = e.pool.With(e.runTags, metrics.Tag{Key: "scenario", Value: sc.Name}, metrics.Tag{Key: "unit", Value: ex.Unit()})
	return sr, nil
}

// RunTags returns the tags of every sample (test tags, --tag tags, testid).
func (e *Engine) RunTags() *metrics.TagSet { return e.runTags }

// MaxDuration returns the longest the run can take: the latest scenario end with
// gracefulStop.
func (e *Engine) MaxDuration() time.Duration {
	var d time.Duration
	for _, s := range e.scens {
		d = max(d, s.exec.MaxEnd())
	}
	return d
}

// ScenarioStatus is one scenario's progress.
type ScenarioStatus struct {
	Name     string
	Executor scenario.Executor
	// Elapsed since the scenario's own start (0 before it), and its planned
	// Duration.
	Elapsed, Duration time.Duration
	// Target is the configured target now, in Unit.
	Target float64
	Unit   string
	executor.Stats
}

// Status returns every scenario's progress, in the test's order.
func (e *Engine) Status() []ScenarioStatus {
	e.startMu.Lock()
	started := e.started
	e.startMu.Unlock()
	var now time.Duration
	if !started.IsZero() {
		now = time.Since(started)
	}
	out := make([]ScenarioStatus, 0, len(e.scens))
	for _, s := range e.scens {
		el := s.exec.Elapsed(now)
		out = append(out, ScenarioStatus{
			Name: s.sc.Name, Executor: s.exec.Kind(), Elapsed: el, Duration: s.exec.Duration(),
			Target: s.exec.Target(now), Unit: s.exec.Unit(), Stats: s.exec.Stats(),
		})
	}
	return out
}

// ErrNotExternallyControlled is k6's answer to a change of VUs in a run without an
// externally-controlled scenario.
var ErrNotExternallyControlled = errors.New("an externally-controlled executor needs to be configured for live configuration updates")

// NotPausableError is k6's answer to a pause or resume of a run with a scenario whose
// executor cannot pause once started (every executor but externally-controlled).
type NotPausableError struct {
	Executor scenario.Executor
	Scenario string
}

// Error returns k6's text.
func (e *NotPausableError) Error() string {
	return fmt.Sprintf("%s executor '%s' doesn't support pause and resume operations after its start", e.Executor, e.Scenario)
}

// SetPaused pauses or resumes the run, as k6's REST API does: only a run whose every
// scenario is externally-controlled can (a *NotPausableError names the first that is
// not). Paused, no iteration starts and running ones finish; the scenarios' durations
// leave out the paused time. Pausing a paused run returns executor.ErrPausedAlready,
// resuming a running one executor.ErrNotPaused.
func (e *Engine) SetPaused(paused bool) error {
	for _, s := range e.scens {
		if s.exec.Kind() != scenario.ExternallyControlled {
			return &NotPausableError{Executor: s.exec.Kind(), Scenario: s.sc.Name}
		}
	}
	for i, s := range e.scens {
		if err := s.exec.SetPaused(paused); err != nil {
			if i > 0 {
				// The scenarios pause together: one that differs is a bug.
				return fmt.Errorf("pause scenario %q: %w", s.sc.Name, err)
			}
			return err
		}
	}
	return nil
}

// SetVUs changes the active VUs and the most VUs of the run's externally-controlled
// scenario (the first, when there are several); nil keeps a value. It returns
// ErrNotExternallyControlled without one, and the executor's *executor.VUConfigError
// for an invalid change.
func (e *Engine) SetVUs(vus, vusMax *int64) error {
	for _, s := range e.scens {
		if s.exec.Kind() == scenario.ExternallyControlled {
			return s.exec.SetVUs(vus, vusMax)
		}
	}
	return ErrNotExternallyControlled
}

// StageWindow is one stage of one scenario, in wall-clock time.
type StageWindow struct {
	Scenario     string
	Index        int
	Start, End   time.Time
	From, Target float64
	Unit         string
}

// Result is how a run went.
type Result struct {
	TestID     string
	Start, End time.Time
	// Interrupted is true when the caller's context ended the run (k6: exit code 105).
	Interrupted bool
	// Aborted is true when an abortOnFail threshold stopped the run early.
	Aborted bool
	// Crossed is true when a threshold failed at the final evaluation (k6: exit code 99).
	Crossed bool
	// Stages are the stage windows that began before the run ended, clipped to it.
	Stages []StageWindow
	// Scenarios is every scenario's final status.
	Scenarios []ScenarioStatus
}

// Run runs the test and returns once every scenario has stopped and the final
// thresholds have been evaluated. Canceling ctx stops the run like SIGINT in k6: no
// new iterations, running ones get gracefulStop; the result is then Interrupted.
func (e *Engine) Run(ctx context.Context) Result {
	for _, s := range e.scens {
		if s.exec.Init(ctx) != nil {
			// Stopped during VU start-up: each executor's Run then returns at once.
			break
		}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := time.Now()
	e.startMu.Lock()
	e.started = start
	e.startMu.Unlock()
	e.logger.Debug("Run started", "testid", e.cfg.TestID, "scenarios", len(e.scens))

	var wg sync.WaitGroup
	for _, s := range e.scens {
		wg.Go(func() { s.exec.Run(runCtx, start) })
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()

	if e.cfg.OnBoundary != nil {
		stopB := make(chan struct{})
		var bwg sync.WaitGroup
		bwg.Go(func() { e.boundaries(start, stopB) })
		defer func() {
			close(stopB)
			bwg.Wait()
		}()
	}

	res := Result{TestID: e.cfg.TestID, Start: start}
	e.emitGauges(start, time.Now())
	e.live.Store(true)
	tick := time.NewTicker(gaugeInterval)
	defer tick.Stop()
	lastEval := start
	evalEvery := thresholdInterval
	if e.cfg.ThresholdInterval > 0 {
		evalEvery = e.cfg.ThresholdInterval
	}
	abort := e.abort
loop:
	for {
		select {
		case <-done:
			break loop
		case <-abort:
			abort = nil
			if !res.Aborted {
				res.Aborted = true
				e.logger.Warn("Run aborted by a server-side rule, stopping the run")
				cancel(executor.ErrAbort) // as abortOnFail: no gracefulStop
			}
		case <-tick.C:
			// The time read now, not the tick's: a tick received late would push
			// the target of a moment already past.
			now := time.Now()
			e.emitGauges(start, now)
			if e.cfg.Thresholds != nil && !res.Aborted && now.Sub(lastEval) >= evalEvery-gaugeInterval/2 {
				lastEval = now
				if _, abort := e.cfg.Thresholds.Evaluate(now.Sub(start), false); abort {
					res.Aborted = true
					e.logger.Warn("Threshold with abortOnFail crossed, stopping the run")
					// k6 interrupts the running iterations (their sleeps and
					// requests) at once: no gracefulStop.
					cancel(executor.ErrAbort)
				}
			}
		}
	}
	e.live.Store(false)
	end := time.Now()
	e.emitGauges(start, end)
	res.End = end
	res.Interrupted = ctx.Err() != nil
	if e.cfg.Thresholds != nil {
		res.Crossed, _ = e.cfg.Thresholds.Evaluate(end.Sub(start), true)
	}
	res.Stages = e.stages(start, end)
	res.Scenarios = e.Status()
	e.logger.Debug("Run finished", "testid", e.cfg.TestID, "duration_seconds", end.Sub(start).Seconds(),
		"interrupted", res.Interrupted, "crossed", res.Crossed, "aborted", res.Aborted)
	return res
}

// Abort stops the run as an abortOnFail threshold does (k6's abort semantics: the
// running iterations are interrupted at once, no gracefulStop; Result.Aborted is set).
// A server-side rule of severity critical calls it. It is safe to call at any time and
// more than once.
func (e *Engine) Abort() { e.abortOnce.Do(func() { close(e.abort) }) }

// Boundaries returns the distinct stage boundaries of every scenario as offsets
// from the run start, after 0, sorted.
func (e *Engine) Boundaries() []time.Duration {
	seen := map[time.Duration]bool{}
	var out []time.Duration
	for _, s := range e.scens {
		for _, w := range s.exec.Stages() {
			for _, b := range []time.Duration{w.Start, w.End} {
				// An externally-controlled scenario that runs until stopped ends
				// at no known offset (math.MaxInt64).
				if b > 0 && b != math.MaxInt64 && !seen[b] {
					seen[b] = true
					out = append(out, b)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func (e *Engine) boundaries(start time.Time, stop <-chan struct{}) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for _, b := range e.Boundaries() {
		t.Reset(time.Until(start.Add(b)))
		select {
		case <-stop:
			return
		case <-t.C:
			e.cfg.OnBoundary(b)
		}
	}
}

// EmitGauges pushes vus, vus_max, tidemark_run_info and every scenario's target as they
// are now, while the run is live (a no-op before and after): a reader of the pushed
// samples calls it before it reads them (aggregate.Store.BeforeSnapshot), so that what it
// reads is of that moment even when the engine's own 250 ms sampling runs late.
func (e *Engine) EmitGauges() {
	if !e.live.Load() {
		return
	}
	e.startMu.Lock()
	start := e.started
	e.startMu.Unlock()
	e.emitGauges(start, time.Now())
}

// ScenarioVUs returns each scenario's active VUs by name, as the vus gauge last counted
// them: k6 writes vus without a scenario label, as their sum, so a scenario's own VUs
// (a browser scenario's beside the load's) are known only from here.
func (e *Engine) ScenarioVUs() map[string]int64 {
	out := make(map[string]int64, len(e.scens))
	for _, s := range e.scens {
		out[s.sc.Name] = s.vus.Load()
	}
	return out
}

// emitGauges pushes vus and vus_max (run tags only, as k6), tidemark_run_info and
// every scenario's target.
func (e *Engine) emitGauges(start, now time.Time) {
	var vus int64
	vusMax := e.VUsMax() // k6's: scenarios one after another share their VUs
	samples := make([]metrics.Sample, 0, 3+len(e.scens)+len(e.declared))
	for _, s := range e.scens {
		st := s.exec.Stats()
		vus += st.VUs
		s.vus.Store(st.VUs)
		samples = append(samples, metrics.Sample{Metric: e.target, Tags: s.targetTags, Time: now, Value: s.exec.Target(now.Sub(start))})
	}
	samples = append(samples,
		metrics.Sample{Metric: e.builtin.VUs, Tags: e.runTags, Time: now, Value: float64(vus)},
		metrics.Sample{Metric: e.builtin.VUsMax, Tags: e.runTags, Time: now, Value: float64(vusMax)},
		metrics.Sample{Metric: e.runInfo, Tags: e.infoTags, Time: now, Value: 1},
	)
	for _, d := range e.declared {
		d.Time = now
		samples = append(samples, d)
	}
	e.cfg.Pusher.Push(samples)
}

func (e *Engine) stages(start, end time.Time) []StageWindow {
	var out []StageWindow
	for _, s := range e.scens {
		for _, w := range s.exec.Stages() {
			ws, we := start.Add(w.Start), start.Add(w.End)
			if !ws.Before(end) {
				continue
			}
			if we.After(end) {
				we = end
			}
			out = append(out, StageWindow{Scenario: s.sc.Name, Index: w.Index, Start: ws, End: we, From: w.From, Target: w.Target, Unit: w.Unit})
		}
	}
	return out
}

// testIdentity returns RunInfoMetric's identity tags of t: its file's base name, when
// it has one, and its TestHash. A run tag of the same name (a --tag) is replaced.
func testIdentity(t *scenario.Test) []metrics.Tag {
	var out []metrics.Tag
	if t.Source != "" {
		out = append(out, metrics.Tag{Key: RunInfoTestFileLabel, Value: filepath.Base(t.Source)})
	}
	if h := TestHash(t); h != "" {
		out = append(out, metrics.Tag{Key: RunInfoTestHashLabel, Value: h})
	}
	return out
}

// TestHash is a short hash (12 hex digits of SHA-256) of the resolved test's options as
// `tidemark inspect` prints them (scenarios with their executors, stages and targets,
// thresholds, tags …), the same for every instance of a distributed run and for every
// run of one unchanged test; empty if they cannot be encoded.
func TestHash(t *scenario.Test) string {
	b, err := json.Marshal(t.K6Options(nil)) // map keys are sorted: stable
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// DefaultTestID returns `<scenario-file-stem>-<UTC yyyymmdd-hhmmss>`.
func DefaultTestID(path string, now time.Time) string {
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if stem == "" || stem == "." {
		stem = "run"
	}
	return stem + "-" + now.UTC().Format("20060102-150405")
}
