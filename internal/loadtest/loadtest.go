// Package loadtest runs one load test the way `tidemark run` does. It wires the engine
// to the aggregate store, evaluates the test's thresholds against it (abortOnFail
// included), snapshots the aggregates at every stage boundary, starts and stops the
// run's sinks, and returns the end-of-test summary input with k6's verdict as an error
// that carries its exit code.
//
// Where the test comes from does not matter here: a YAML scenario and a script both
// decode into a scenario.Test, and a script runtime brings its own VUs through
// Config.VUs.
package loadtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/threshold"
)

// ErrInterrupted is the verdict of a run stopped by its context (SIGINT or SIGTERM):
// running iterations got their gracefulStop and the summary is complete up to then.
var ErrInterrupted = errors.New("interrupted; running iterations got their gracefulStop")

// Sink is a destination that reads the run's aggregate store while the run is live
// (remote write, an exporter). Start must not block; Stop flushes and waits.
type Sink interface {
	Start()
	Stop() error
}

// Summarizer is an optional Sink capability: lines for the end of the summary, such as
// the samples a remote-write endpoint accepted. It is called after Stop.
type Summarizer interface {
	SummaryLines() []string
}

// Lifecycle is an optional capability of Config.VUs: a script's setup() and
// teardown(data). Setup runs once the sinks have started, before the first iteration;
// its error ends the run before it starts (no Result). Teardown runs after the last
// iteration, also when the run was interrupted; its error joins the run's verdict.
type Lifecycle interface {
	Setup(ctx context.Context) error
	Teardown(ctx context.Context) error
}

// PusherSink is an output that takes the engine's samples as they are pushed (k6's
// --out json, --out csv) and passes them on: a metrics.Pusher that must not block, and a
// Sink started and stopped with the run's others.
type PusherSink interface {
	metrics.Pusher
	Sink
}

// SinksFunc builds the run's sinks once its tags (testid included) are known. The sinks
// read agg while the run is live and are stopped in order after it.
type SinksFunc func(agg *aggregate.Store, runTags map[string]string) ([]Sink, error)

// Config is one run.
type Config struct {
	// Test is the loaded test; required.
	Test *scenario.Test
	// Source names where the test came from (a file path); it is the stem of the
	// default test id.
	Source string
	// TestID is the testid tag of every sample. Empty: Tags["testid"], else
	// <source-stem>-<UTC yyyymmdd-hhmmss>.
	TestID string
	// Tags are run tags (k6 --tag); they win over the test's tags.
	Tags map[string]string
	// Segment is this instance's execution segment (zero: the whole test).
	Segment pacer.Segment
	// NoThresholds skips the test's thresholds: the run never fails on them.
	NoThresholds bool
	// HTTP configures every VU's transport. Unless set here, TLS certificates are
	// verified unless InsecureSkipTLSVerify (or the test's insecureSkipTLSVerify) is
	// set, and HTTP_PROXY, HTTPS_PROXY and NO_PROXY are honoured, as k6 does.
	HTTP request.Options
	// InsecureSkipTLSVerify turns off the verification of the system under test's
	// certificates (k6 --insecure-skip-tls-verify).
	InsecureSkipTLSVerify bool
	// Getenv reads the process environment (the proxy variables); nil is os.Getenv.
	Getenv func(string) string
	// UserAgent is sent by requests that set none.
	UserAgent string
	// VUs makes the scenarios' VUs; nil runs each scenario's YAML flow. When it is a
	// Lifecycle (a script), its Setup runs before the first iteration and its Teardown
	// after the last.
	VUs engine.VUSource
	// Registry holds the run's metrics; nil makes a new one. A script passes the
	// registry its init context created custom metrics in.
	Registry *metrics.Registry
	// Sinks builds the run's outputs; nil has none.
	Sinks SinksFunc
	// Outputs, when set, wraps the aggregate store (next) in an output that sees every
	// sample the engine pushes; its error is a configuration error (exit code 104).
	Outputs func(next metrics.Pusher) (PusherSink, error)
	// Started, when set, is called once the run is prepared and its sinks have
	// started, before the first iteration (to print a header and start a progress
	// line). The function it returns, if any, is called when the iterations end.
	Started func(Plan) (ended func())
	// Logger; nil discards.
	Logger *slog.Logger
	// Now is the clock of the default test id; nil is time.Now.
	Now func() time.Time
}

// Plan is a prepared run, as Config.Started sees it.
type Plan struct {
	// TestID is the run's test id.
	TestID string
	// Segment is this instance's execution segment.
	Segment pacer.Segment
	// Engine is the prepared engine (scenarios, durations, live status).
	Engine *engine.Engine
}

// Result is how a run went.
type Result struct {
	// TestID is the run's test id.
	TestID string
	// Run is the engine's account: window, stages, interruption, thresholds.
	Run engine.Result
	// Summary is the input of the end-of-test summary (text, --summary-export,
	// handleSummary data). The caller sets its terminal fields (Color, StdoutTTY,
	// StderrTTY) before writing it.
	Summary summary.Input
}

// Run prepares and runs the test, stops its sinks, and returns the summary input.
//
// An error before the run starts is returned with a nil Result; configuration errors
// carry exit code 104. Once the run has happened the Result is always returned, with
// the run's verdict as the error: ErrInterrupted (exit code 105), a
// *threshold.CrossedError (99), or a sink that failed to flush (255), joined in that
// order. The caller prints the summary and then the error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	r, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// run is a prepared run.
type run struct {
	cfg        Config
	testID     string
	logger     *slog.Logger
	reg        *metrics.Registry
	agg        *aggregate.Store
	thresholds *threshold.Set
	eng        *engine.Engine
	sinks      []Sink

	snapMu sync.Mutex
	snaps  map[time.Duration]*aggregate.Snapshot
}

func prepare(cfg Config) (*run, error) {
	if cfg.Test == nil {
		return nil, errors.New("prepare the run: no test")
	}
	r := &run{cfg: cfg, logger: cfg.Logger, reg: cfg.Registry, agg: aggregate.New(), snaps: map[time.Duration]*aggregate.Snapshot{}}
	if r.reg == nil {
		r.reg = metrics.NewRegistry()
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.testID = testID(cfg)
	tags := map[string]string{}
	for k, v := range cfg.Tags {
		if k != "testid" {
			tags[k] = v
		}
	}
	metrics.RegisterBuiltin(r.reg)
	var evaluate engine.Thresholds
	if !cfg.NoThresholds && len(cfg.Test.Thresholds) > 0 {
		// The engine's own metrics must exist before thresholds name them.
		for _, n := range []string{engine.RunInfoMetric, engine.ScenarioTargetMetric} {
			if _, err := r.reg.New(n, metrics.Gauge, metrics.Default); err != nil {
				return nil, err
			}
		}
		set, err := cfg.Test.ThresholdSet(threshold.RegistryTypes(r.reg))
		if err != nil {
			return nil, exitcode.Invalid(r.sourced(err))
		}
		r.thresholds = set
		evaluate = engine.ThresholdsFunc(r.evaluate)
	}
	var pusher metrics.Pusher = r.agg
	var outputs PusherSink
	if cfg.Outputs != nil {
		o, err := cfg.Outputs(r.agg)
		if err != nil {
			return nil, exitcode.Invalid(err)
		}
		outputs, pusher = o, o
	}
	eng, err := engine.New(engine.Config{
		Test:       cfg.Test,
		TestID:     r.testID,
		Tags:       tags,
		Segment:    cfg.Segment,
		Pusher:     pusher,
		Registry:   r.reg,
		Thresholds: evaluate,
		Declared:   r.declared(),
		HTTP:       httpOptions(cfg),
		UserAgent:  cfg.UserAgent,
		VUs:        cfg.VUs,
		Logger:     r.logger,
		OnBoundary: r.snapshot,
	})
	if err != nil {
		if outputs != nil {
			_ = outputs.Stop() // closes its files
		}
		return nil, exitcode.Invalid(r.sourced(err))
	}
	r.eng = eng
	if outputs != nil {
		r.sinks = append(r.sinks, outputs)
	}
	// Every snapshot (a push, a stage boundary, the summary) reads the gauges of its
	// own moment.
	r.agg.BeforeSnapshot(eng.EmitGauges)
	if cfg.Sinks != nil {
		runTags := map[string]string{}
		for _, t := range eng.RunTags().Tags() {
			runTags[t.Key] = t.Value
		}
		sinks, err := cfg.Sinks(r.agg, runTags)
		if err != nil {
			if outputs != nil {
				_ = outputs.Stop()
			}
			// A sink that could not start keeps its own code (106 for the REST API).
			return nil, exitcode.Or(exitcode.InvalidConfig, err)
		}
		r.sinks = append(r.sinks, sinks...)
	}
	return r, nil
}

// httpOptions completes cfg.HTTP with the TLS and proxy settings.
func httpOptions(cfg Config) request.Options {
	opts := cfg.HTTP
	if opts.TLS == nil && (cfg.InsecureSkipTLSVerify || cfg.Test.InsecureSkipTLSVerify) {
		opts.TLS = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // asked for by insecureSkipTLSVerify
	}
	if opts.Proxy == nil {
		getenv := cfg.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
			if getenv(k) != "" {
				// Set only when asked for, so that requests skip the per-request lookup.
				opts.Proxy = http.ProxyFromEnvironment
				break
			}
		}
	}
	return opts
}

// testID is the flag, else the testid tag, else <source-stem>-<UTC time>.
func testID(cfg Config) string {
	if cfg.TestID != "" {
		return cfg.TestID
	}
	if id := cfg.Tags["testid"]; id != "" {
		return id
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	return engine.DefaultTestID(cfg.Source, now())
}

// sourced prefixes err with the test's source, when it has one.
func (r *run) sourced(err error) error {
	if r.cfg.Source == "" {
		return err
	}
	return fmt.Errorf("%s: %w", r.cfg.Source, err)
}

func (r *run) run(ctx context.Context) (*Result, error) {
	for _, s := range r.sinks {
		s.Start()
	}
	var ended func()
	if r.cfg.Started != nil {
		ended = r.cfg.Started(Plan{TestID: r.testID, Segment: r.cfg.Segment, Engine: r.eng})
	}
	lc, _ := r.cfg.VUs.(Lifecycle)
	if lc != nil {
		if err := lc.Setup(ctx); err != nil {
			if ended != nil {
				ended()
			}
			for _, s := range r.sinks {
				err = errors.Join(err, s.Stop())
			}
			return nil, err
		}
	}
	res := r.eng.Run(ctx)
	if ended != nil {
		ended()
	}

	var errs []error
	if lc != nil {
		if err := lc.Teardown(ctx); err != nil {
			errs = append(errs, err)
		}
		if r.thresholds != nil {
			// teardown's samples count, as in k6: the verdict is judged after it.
			r.evaluate(res.End.Sub(res.Start), true)
		}
	}
	if res.Interrupted {
		errs = append(errs, exitcode.With(exitcode.ExternalAbort, ErrInterrupted))
	}
	var thresholds map[string][]summary.Threshold
	if r.thresholds != nil {
		last := r.thresholds.Last()
		thresholds = thresholdInputs(last)
		if err := last.Err(); err != nil {
			// The final evaluation never aborts; say that abortOnFail stopped the run.
			if ce, ok := errors.AsType[*threshold.CrossedError](err); ok && res.Aborted {
				ce.Abort = true
			}
			errs = append(errs, exitcode.With(exitcode.ThresholdsFailed, err))
		}
	}
	var extra []string
	for _, s := range r.sinks {
		if err := s.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("flush the run's outputs: %w", err))
		}
		if sum, ok := s.(Summarizer); ok {
			extra = append(extra, sum.SummaryLines()...)
		}
	}
	final := r.agg.Snapshot()
	return &Result{
		TestID: r.testID,
		Run:    res,
		Summary: summary.Input{
			Test:       r.cfg.Test,
			Snapshot:   final,
			Registry:   r.reg,
			Start:      res.Start,
			Duration:   res.End.Sub(res.Start),
			Stages:     r.stages(res, final),
			Thresholds: thresholds,
			// The STAGES verdict evaluates the same thresholds in every stage window.
			ThresholdSet: r.thresholds,
			Extra:        extra,
		},
	}, errors.Join(errs...)
}

// evaluate evaluates the thresholds against a fresh snapshot of the aggregates.
// declared are the thresholds the run evaluates, for the run's metadata series.
func (r *run) declared() []*threshold.Threshold {
	if r.thresholds == nil {
		return nil
	}
	return r.thresholds.Thresholds()
}

func (r *run) evaluate(elapsed time.Duration, final bool) (crossed, abort bool) {
	snap := r.agg.Snapshot()
	res := r.thresholds.Evaluate(elapsed, final, func(k *threshold.Key) threshold.Source {
		se, ok := snap.Submetric(k.Metric, k.Tags)
		if !ok {
			return nil
		}
		return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
			v, err := se.Threshold(m.String(), elapsed)
			return v, err == nil
		})
	})
	return len(res.Crossed) > 0, res.Abort
}

// snapshot keeps the aggregates at a stage boundary, offset from the run start.
func (r *run) snapshot(offset time.Duration) {
	s := r.agg.Snapshot()
	r.snapMu.Lock()
	r.snaps[offset] = s
	r.snapMu.Unlock()
}

// stages pairs every stage window with the snapshots taken at its boundaries.
func (r *run) stages(res engine.Result, final *aggregate.Snapshot) []summary.Stage {
	r.snapMu.Lock()
	defer r.snapMu.Unlock()
	var out []summary.Stage
	for _, w := range res.Stages {
		st := summary.Stage{Scenario: w.Scenario, Index: w.Index, Start: w.Start, End: w.End, StartTarget: w.From, Target: w.Target}
		if w.Unit == "iterations_per_second" {
			st.TimeUnit = time.Second
		}
		if d := w.Start.Sub(res.Start); d > 0 {
			st.From = r.snaps[d]
			if st.From == nil {
				continue // the run ended before this window's start was snapshotted
			}
		}
		st.To = r.snaps[w.End.Sub(res.Start)]
		if st.To == nil || !w.End.Before(res.End) {
			st.To = final
		}
		out = append(out, st)
	}
	return out
}

func thresholdInputs(r *threshold.Result) map[string][]summary.Threshold {
	if r == nil {
		return nil
	}
	out := map[string][]summary.Threshold{}
	for _, o := range r.Outcomes {
		k := o.Threshold.Key.Name
		out[k] = append(out[k], summary.Threshold{Expr: o.Threshold.Expr.Source, OK: o.Passed, Value: o.Value})
	}
	return out
}
