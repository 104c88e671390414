// Package loadtest runs one load test the way `tidemark run` does. It wires the engine
// to the aggregate store, evaluates the test's thresholds against it (abortOnFail
// included), snapshots the aggregates at every stage boundary, starts and stops the
// run's actors (outputs, REST API, web dashboard, progress), and returns the
// end-of-test summary input with k6's verdict as an error of a verdict kind.
//
// Where the test comes from does not matter here: a YAML scenario and a script both
// decode into a scenario.Test, and a script runtime brings its own VUs through
// Config.VUs.
package loadtest

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/threshold"
	"github.com/tidemark/tidemark/internal/verdict"
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

// Actor is a part of the run besides the engine, with a start and a stop: an output,
// the REST API, the web dashboard, the header and the progress line. Run starts the
// actors in order once the run is prepared, before the first iteration, and stops them
// in order after the last one (and teardown).
type Actor interface {
	// Start must not block, except to hold the start (a paused REST API). Its error
	// ends the run before it starts: the actors started before it are stopped.
	Start(ctx context.Context, p *Plan) error
	// Stop flushes and waits.
	Stop() error
}

// Ender is an optional Actor capability: End is called when the iterations end,
// before teardown, in the reverse order of the actors (a progress line stops, the REST
// API reports the run ended).
type Ender interface {
	End()
}

// Summarizer is an optional Actor capability: lines for the end of the summary, such
// as the samples a remote-write endpoint accepted. It is called after Stop.
type Summarizer interface {
	SummaryLines() []string
}

// Judge is an optional Actor capability: a verdict of its own on the run, such as
// server-side rules (internal/slo). Judge is called once the iterations and teardown
// ended, after the thresholds and before the summary and the actors' stop (the outputs'
// final flush); its rules are shown in the summary beside the thresholds and its error
// (of a verdict kind: verdict.ErrThresholds fails the run with exit code 99) joins the
// run's.
type Judge interface {
	Judge(ctx context.Context, res engine.Result) ([]summary.Rule, error)
}

// Lifecycle is an optional capability of Config.VUs: a script's setup() and
// teardown(data). Setup runs once the actors have started, before the first
// iteration; its error ends the run before it starts (no Result). Teardown runs after
// the last iteration, also when the run was interrupted; its error joins the run's
// verdict.
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

// SinksFunc builds sinks once the run's store and tags (testid included) are known.
type SinksFunc func(agg *aggregate.Store, runTags map[string]string) ([]Sink, error)

// Outputs is the Actor of the sinks build makes: it builds them when the run starts,
// starts them, and stops them in order after the run.
func Outputs(build SinksFunc) Actor { return &outputs{build: build} }

type outputs struct {
	build SinksFunc
	sinks []Sink
}

func (o *outputs) Start(_ context.Context, p *Plan) error {
	sinks, err := o.build(p.Store, p.RunTags)
	if err != nil {
		return err
	}
	o.sinks = sinks
	for _, s := range sinks {
		s.Start()
	}
	return nil
}

func (o *outputs) Stop() error {
	var errs []error
	for _, s := range o.sinks {
		errs = append(errs, s.Stop())
	}
	return errors.Join(errs...)
}

func (o *outputs) SummaryLines() []string {
	var out []string
	for _, s := range o.sinks {
		if sum, ok := s.(Summarizer); ok {
			out = append(out, sum.SummaryLines()...)
		}
	}
	return out
}

// Hook is an Actor of functions: Started when the run starts (nil: nothing), Ended
// when its iterations end (nil: nothing).
type Hook struct {
	Started func(ctx context.Context, p *Plan) error
	Ended   func()
}

// Start calls Started.
func (h Hook) Start(ctx context.Context, p *Plan) error {
	if h.Started == nil {
		return nil
	}
	return h.Started(ctx, p)
}

// Stop does nothing.
func (Hook) Stop() error { return nil }

// End calls Ended.
func (h Hook) End() {
	if h.Ended != nil {
		h.Ended()
	}
}

var (
	_ Actor      = (*outputs)(nil)
	_ Summarizer = (*outputs)(nil)
	_ Actor      = Hook{}
	_ Ender      = Hook{}
)

// Config is one run.
type Config struct {
	// Test is the loaded test; required.
	Test *scenario.Test
	// SeriesWarning is where the warning about unique series starts; zero is
	// SeriesWarning's value.
	SeriesWarning int
	// MaxSeries caps the run's unique series (metric and tag set); 0 sets no cap. Past
	// it, samples of new tag sets count in their metric's totals through an overflow
	// series (aggregate.WithMaxSeries), and the end of the run says how many.
	MaxSeries int
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
	// Env is the process environment, for the proxy variables; nil reads the
	// process's own.
	Env map[string]string
	// UserAgent is sent by requests that set none.
	UserAgent string
	// VUs makes the scenarios' VUs; nil runs each scenario's YAML flow. When it is a
	// Lifecycle (a script), its Setup runs before the first iteration and its Teardown
	// after the last.
	VUs engine.VUSource
	// Registry holds the run's metrics; nil makes a new one. A script passes the
	// registry its init context created custom metrics in.
	Registry *metrics.Registry
	// Outputs, when set, wraps the aggregate store (next) in an output that sees every
	// sample the engine pushes (--out json, csv); its error is a configuration error.
	Outputs func(next metrics.Pusher) (PusherSink, error)
	// Actors are started in order before the first iteration and stopped in order
	// after the run.
	Actors []Actor
	// Report, when set, is called with the run's Result once its verdict is known and
	// before the actors stop, so that the summary is shown before the outputs' final
	// flush, which may take up to its timeout (a pod's grace period is short). Its
	// error joins the run's. The Result's Summary.Extra is then still empty: the
	// actors' summary lines are known only once they have stopped (Result.Delivery).
	Report func(ctx context.Context, res *Result) error
	// Logger; nil discards.
	Logger *slog.Logger
	// Now is the clock of the default test id; nil is time.Now.
	Now func() time.Time
}

// Plan is a prepared run, as the actors see it.
type Plan struct {
	// Test is the run's test.
	Test *scenario.Test
	// Store is the run's aggregate store, which outputs read while the run is live.
	Store *aggregate.Store
	// RunTags are the run's tags, testid included.
	RunTags map[string]string
	// TestID is the run's test id.
	TestID string
	// Segment is this instance's execution segment.
	Segment pacer.Segment
	// Engine is the prepared engine (scenarios, durations, live status).
	Engine *engine.Engine
	// Registry holds the run's metrics, and Pusher takes samples into the run's
	// series (the aggregate store the outputs read, through --out's outputs): an actor
	// that writes series of its own (server-side rule results) registers its metrics in
	// Registry and pushes their samples, tagged with the engine's RunTags, to Pusher.
	Registry *metrics.Registry
	Pusher   metrics.Pusher
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
	// Delivery are the actors' summary lines (what the outputs delivered), known once
	// they have stopped; without Config.Report they are also Summary.Extra.
	Delivery []string
}

// Run prepares and runs the test, stops its actors, and returns the summary input.
//
// An error before the run starts is returned with a nil Result; configuration errors
// are of kind verdict.ErrInvalid. Once the run has happened the Result is always
// returned, with the run's verdict as the error: ErrInterrupted (kind
// verdict.ErrInterrupted), a *threshold.CrossedError (verdict.ErrThresholds), or an
// actor that failed to flush, joined in that order. The caller prints the summary and
// then the error.
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
	// windows keeps the aggregates the windowed thresholds read; nil without them.
	windows *windows
	// results writes the thresholds' outcomes as series; pusher takes them.
	results *results
	pusher  metrics.Pusher
	eng     *engine.Engine
	outputs PusherSink // --out's file outputs, or nil
	started []Actor

	snapMu sync.Mutex
	snaps  map[time.Duration]*aggregate.Snapshot
	// vusAt are each scenario's own active VUs at the moment of each snapshot of snaps.
	vusAt map[time.Duration]map[string]int64
}

func prepare(cfg Config) (*run, error) {
	if cfg.Test == nil {
		return nil, errors.New("prepare the run: no test")
	}
	r := &run{cfg: cfg, logger: cfg.Logger, reg: cfg.Registry, agg: aggregate.New(aggregate.WithMaxSeries(cfg.MaxSeries)), snaps: map[time.Duration]*aggregate.Snapshot{}, vusAt: map[time.Duration]map[string]int64{}}
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
			return nil, verdict.Invalid(r.sourced(err))
		}
		r.thresholds = set
		r.windows = newWindows(set)
		if r.results, err = newResults(r.reg); err != nil {
			return nil, verdict.Invalid(err)
		}
		evaluate = engine.ThresholdsFunc(r.evaluate)
	}
	var evalEvery time.Duration // the engine's default, k6's 2 s
	if r.windows != nil {
		evalEvery = threshold.MinWindow // windows are judged every second
	}
	var pusher metrics.Pusher = r.agg
	var outputs PusherSink
	if cfg.Outputs != nil {
		o, err := cfg.Outputs(r.agg)
		if err != nil {
			return nil, verdict.Invalid(err)
		}
		outputs, pusher = o, o
	}
	r.pusher = pusher
	eng, err := engine.New(engine.Config{
		Test:       cfg.Test,
		TestID:     r.testID,
		Tags:       tags,
		Segment:    cfg.Segment,
		Pusher:     pusher,
		Registry:   r.reg,
		Thresholds: evaluate,
		// Windowed thresholds are judged every second.
		ThresholdInterval: evalEvery,
		Declared:          r.declared(),
		HTTP:              httpOptions(cfg),
		UserAgent:         cfg.UserAgent,
		VUs:               cfg.VUs,
		Logger:            r.logger,
		OnBoundary:        r.snapshot,
		MaxTagSets:        cfg.MaxSeries,
	})
	if err != nil {
		if outputs != nil {
			_ = outputs.Stop() // closes its files
		}
		return nil, verdict.Invalid(r.sourced(err))
	}
	r.eng = eng
	r.outputs = outputs
	// Every snapshot (a push, a stage boundary, the summary) reads the gauges of its
	// own moment.
	r.agg.BeforeSnapshot(eng.EmitGauges)
	r.agg.BeforeSnapshot(r.warnSeries())
	return r, nil
}

// foldedNote is the summary's line on the samples folded into overflow series past
// MaxSeries, also logged; none when there were none.
func (r *run) foldedNote() []string {
	n := r.agg.Folded()
	if n == 0 {
		return nil
	}
	r.logger.Warn("Samples of tag sets past the series limit were counted in their metric's totals only, under an overflow series",
		"samples", n, "limit", r.cfg.MaxSeries, "tag", aggregate.OverflowTag+`="true"`)
	return []string{fmt.Sprintf("series: over the limit of %d (--max-series), %d samples were counted under %s=\"true\" without their own tags (url, name…)",
		r.cfg.MaxSeries, n, aggregate.OverflowTag)}
}

// DefaultMaxSeries is --max-series' default: twice the series k6 warns of
// (SeriesWarning). A series takes about 1 KB in the aggregates and about 7 KB across
// the run's outputs (27,500 URLs made about 300,000 series and 2.2 GB), so this bounds
// a run to about 1.5 GB.
const DefaultMaxSeries = 2 * SeriesWarning

// SeriesWarning is the number of unique series (metric and tag set) past which a run is
// warned, once, as k6 warns: each series holds memory until the run ends and is sent at
// every push, and a tag of unique values (a URL with an id) makes one per request (27,500
// distinct URLs took 2.2 GB without a word).
const SeriesWarning = 100_000

// warnSeries returns a check, run before every snapshot, that logs once when the run's
// series pass SeriesWarning.
func (r *run) warnSeries() func() {
	var once sync.Once
	return func() {
		if n := r.agg.Len(); n > cmp.Or(r.cfg.SeriesWarning, SeriesWarning) {
			once.Do(func() {
				r.logger.Warn("The test has generated metrics with more unique time series than the suggested limit, which could cause high memory usage. "+
					"Consider not using high-cardinality values like unique IDs as metric tags or, if you need them in the URL, use the name metric tag or URL grouping",
					"series", n, "limit", cmp.Or(r.cfg.SeriesWarning, SeriesWarning))
			})
		}
	}
}

// httpOptions completes cfg.HTTP with the TLS and proxy settings.
func httpOptions(cfg Config) request.Options {
	opts := cfg.HTTP
	if opts.Net == nil {
		opts.Net = netOptions(cfg.Test.Network)
	}
	if opts.TLS == nil && (cfg.InsecureSkipTLSVerify || cfg.Test.InsecureSkipTLSVerify) {
		opts.TLS = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // asked for by insecureSkipTLSVerify
	}
	opts.TLS = request.TLSConfig(opts.TLS, cfg.Test.TLS)
	if opts.Proxy == nil {
		getenv := os.Getenv
		if cfg.Env != nil {
			getenv = func(k string) string { return cfg.Env[k] }
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

// netOptions are a test's transport options for its requests; nil for k6's defaults.
func netOptions(nw scenario.Network) *request.Net {
	n := &request.Net{Limiter: request.NewLimiter(nw.RPS), Blacklist: nw.BlacklistIPs, BlockHostnames: nw.BlockHostnames,
		LocalIPs: request.NewLocalIPs(nw.LocalIPs), NoConnectionReuse: nw.NoConnectionReuse, Hosts: nw.Hosts}
	if nw.DNS != scenario.DefaultDNS() && nw.DNS != (scenario.DNS{}) {
		// Only an explicit dns option resolves through the cache: the system resolver
		// otherwise, as before (k6 caches for 5 m by default).
		n.Resolver = request.NewResolver(nw.DNS.TTL, nw.DNS.Select, nw.DNS.Policy)
	}
	if n.Limiter == nil && len(n.Blacklist) == 0 && len(n.BlockHostnames) == 0 && n.LocalIPs == nil && !n.NoConnectionReuse && n.Resolver == nil && len(n.Hosts) == 0 {
		return nil
	}
	return n
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

// start starts the outputs and the actors in order; on an error it stops those
// started and returns it, a configuration error unless it has a kind of its own.
func (r *run) start(ctx context.Context) error {
	if r.outputs != nil {
		r.outputs.Start()
	}
	runTags := map[string]string{}
	for _, t := range r.eng.RunTags().Tags() {
		runTags[t.Key] = t.Value
	}
	plan := &Plan{Test: r.cfg.Test, Store: r.agg, RunTags: runTags, TestID: r.testID, Segment: r.cfg.Segment, Engine: r.eng,
		Registry: r.reg, Pusher: r.pusher}
	for _, a := range r.cfg.Actors {
		if err := a.Start(ctx, plan); err != nil {
			r.end()
			// An actor that could not start keeps its own kind (ErrListen for the REST API).
			return errors.Join(verdict.Or(verdict.ErrInvalid, err), r.stop(nil))
		}
		r.started = append(r.started, a)
	}
	return nil
}

// end tells the started actors that the iterations ended, last first.
func (r *run) end() {
	for _, a := range slices.Backward(r.started) {
		if e, ok := a.(Ender); ok {
			e.End()
		}
	}
}

// stop stops the outputs and the started actors in order, and collects their summary
// lines into extra.
func (r *run) stop(extra *[]string) error {
	var errs []error
	stop := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("flush the run's %s: %w", name, err))
		}
	}
	if r.outputs != nil {
		stop("outputs", r.outputs.Stop())
	}
	for _, a := range r.started {
		stop("outputs", a.Stop())
		if sum, ok := a.(Summarizer); ok && extra != nil {
			*extra = append(*extra, sum.SummaryLines()...)
		}
	}
	return errors.Join(errs...)
}

func (r *run) run(ctx context.Context) (*Result, error) {
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	lc, _ := r.cfg.VUs.(Lifecycle)
	if lc != nil {
		if err := lc.Setup(ctx); err != nil {
			r.end()
			return nil, errors.Join(err, r.stop(nil))
		}
	}
	res := r.eng.Run(ctx)
	r.end()

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
		errs = append(errs, verdict.As(verdict.ErrInterrupted, ErrInterrupted))
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
			errs = append(errs, verdict.As(verdict.ErrThresholds, err))
		}
	}
	var rules []summary.Rule
	for _, a := range r.started {
		if j, ok := a.(Judge); ok {
			rs, err := j.Judge(ctx, res)
			rules = append(rules, rs...)
			errs = append(errs, err)
		}
	}
	final := r.agg.Snapshot()
	out := &Result{
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
			Rules:        rules,
			Extra:        r.foldedNote(),
		},
	}
	if r.cfg.Report != nil {
		errs = append(errs, r.cfg.Report(ctx, out))
	}
	errs = append(errs, r.stop(&out.Delivery))
	if r.cfg.Report == nil {
		out.Summary.Extra = append(out.Summary.Extra, out.Delivery...)
	}
	return out, errors.Join(errs...)
}

// declared are the thresholds the run evaluates, for the run's metadata series
// (tidemark_threshold), from which `tidemark summarize` and the correlator judge a run
// and its stages again. Windowed thresholds are left out: their windows are judged
// from the run's own aggregates every second, which the pushed series cannot give
// back; their results are in tidemark_threshold_result and tidemark_threshold_result_pass.
func (r *run) declared() []*threshold.Threshold {
	if r.thresholds == nil {
		return nil
	}
	var out []*threshold.Threshold
	for _, th := range r.thresholds.Thresholds() {
		if th.Window == 0 {
			out = append(out, th)
		}
	}
	return out
}

// evaluate evaluates the thresholds against a fresh snapshot of the aggregates, the
// windowed ones against the windows kept since, and pushes their outcomes as series.
func (r *run) evaluate(elapsed time.Duration, final bool) (crossed, abort bool) {
	snap := r.agg.Snapshot()
	var window threshold.WindowFunc
	if r.windows != nil {
		r.windows.record(elapsed, snap)
		window = r.windows.source(elapsed, final)
	}
	res := r.thresholds.EvaluateLive(elapsed, final, func(k *threshold.Key) threshold.Source {
		se, ok := snap.Submetric(k.Metric, k.Tags)
		if !ok {
			return nil
		}
		return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
			v, err := se.Threshold(m.String(), elapsed)
			return v, err == nil
		})
	}, window)
	if r.results != nil && r.eng != nil {
		r.pusher.Push(r.results.samples(res, r.eng.RunTags(), time.Now()))
	}
	return len(res.Crossed) > 0, res.Abort
}

// snapshot keeps the aggregates at a stage boundary, offset from the run start.
func (r *run) snapshot(offset time.Duration) {
	s := r.agg.Snapshot()
	vus := r.eng.ScenarioVUs() // as the snapshot's vus gauge counted them
	r.snapMu.Lock()
	r.snaps[offset] = s
	r.vusAt[offset] = vus
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
		vus := r.vusAt[w.End.Sub(res.Start)]
		if st.To == nil || !w.End.Before(res.End) {
			st.To, vus = final, r.eng.ScenarioVUs()
		}
		if v, ok := vus[w.Scenario]; ok {
			st.VUs = new(float64(v))
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
		out[k] = append(out[k], summary.Threshold{Expr: o.Threshold.Expr.Source, OK: o.Passed, Value: o.Value,
			Window: o.Threshold.Window, Record: o.Window})
	}
	return out
}
