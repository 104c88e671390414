package js

import (
	"bytes"
	"cmp"
	"context"
	gojson "encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/secretsource"
	"github.com/tidemark/tidemark/internal/summary"
)

// Default lifecycle limits (k6's setupTimeout, teardownTimeout, handleSummaryTimeout).
const (
	DefaultSetupTimeout         = 60 * time.Second
	DefaultTeardownTimeout      = 60 * time.Second
	DefaultHandleSummaryTimeout = 120 * time.Second
)

// Config is one script run.
type Config struct {
	// Context, when set, interrupts the init context when it ends (SIGINT or SIGTERM):
	// a script that never returns from its top level ends with an *InterruptedError
	// (exit code 105), as in k6, not at a second signal.
	Context context.Context
	// Script is the path of the main module (.js, .mjs, .cjs or .ts).
	Script string
	// ModulesDir is --modules.dir: https://host/path imports are read from
	// <ModulesDir>/host/path. Empty: remote imports are errors.
	ModulesDir string
	// Env is __ENV: the process environment and --env values.
	Env map[string]string
	// Environ is the process environment, for k6's K6_* options (K6_VUS, K6_DURATION,
	// K6_ITERATIONS, K6_STAGES); -e values never set options.
	Environ map[string]string
	// Modules are the native modules; nil is DefaultModules.
	Modules *modules.Registry
	// Segment is this instance's execution segment (zero: the whole test).
	Segment pacer.Segment
	// Logger; nil discards.
	Logger *slog.Logger
	// Console receives console.log and the others (--console-output); nil is Logger.
	Console *slog.Logger
	// Secrets are the run's secret sources (--secret-source), which k6/secrets reads;
	// nil has none.
	Secrets *secretsource.Set
	// ConfigOptions are the options of k6's --config file (JSON): they lie under the
	// script's options (k6's precedence: defaults < config file < script options <
	// K6_* environment < flags). Nil: no config file.
	ConfigOptions []byte
}

// Runner is a loaded script: its options decoded into a scenario.Test, and the VUs
// that run it (an engine.VUSource). Its setup, teardown and handleSummary run in one
// runtime of VU 0, the one that read the options.
type Runner struct {
	cfg     Config
	logger  *slog.Logger
	console *slog.Logger
	loader  *loader
	reg     *metrics.Registry
	main    *program
	script  *scenario.Script
	aux     *vu        // VU 0
	archive *extracted // the archive the script runs from, or nil

	setupEnv *engine.VUEnv
	prepared []*prepared // scenarios whose VUs Setup initializes
	// lifeMu serializes the functions VU 0 runs (setup, teardown, handleSummary): the
	// run calls them, and so does the REST API (OnDemand) from its own goroutines.
	lifeMu      sync.Mutex
	setupFailed bool
	tornDown    bool
	// setupJSON is the setup data as JSON ("" for none), under mu: setup() and PUT
	// /v1/setup write it while VUs read it.
	setupJSON string

	nextVU      atomic.Int64
	start       atomic.Pointer[time.Time]
	completed   atomic.Int64
	interrupted atomic.Int64
	active      atomic.Int64
	optionsJSON []byte // test.options
	// moduleOptions are the options modules read, shared read-only by every VU.
	moduleOptions *modules.Options

	mu       sync.Mutex
	cancel   context.CancelFunc
	runErr   error // test.abort() or a VU whose init failed
	failed   *MarkedFailedError
	excLimit limiter
}

var _ engine.VUSource = (*Runner)(nil)

var _ modules.Execution = (*Runner)(nil)

// New loads the script: it compiles the main module and what it imports, runs the
// init context once in VU 0 to read `export const options` (registering custom
// metrics), and decodes the options. Syntax errors, exceptions in the init context
// and unknown modules are *ScriptError (exit code 107); invalid options
// (scenario.Errors) and a scenario whose exec function (default) is not exported
// are *ConfigError (exit code 104).
func New(cfg Config) (*Runner, error) {
	var arc *extracted
	if IsArchive(cfg.Script) {
		// A k6 archive: its files are unpacked for the loader, which reads every module
		// and open()ed file of the init context once, so the directory goes when the
		// script is loaded. Its options replace the script's and its env is under the
		// run's, as in k6.
		x, err := extractArchive(cfg.Script)
		if err != nil {
			return nil, invalid(err)
		}
		defer func() { _ = os.RemoveAll(x.dir) }() // a temporary directory; nothing to do if it stays
		arc = x
		cfg.Script, cfg.Env = x.main, x.env(cfg.Env)
		cfg.ModulesDir = filepath.Join(x.dir, "https")
	}
	r := &Runner{cfg: cfg, logger: cfg.Logger, reg: metrics.NewRegistry(), archive: arc}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.console = cmp.Or(cfg.Console, r.logger)
	if cfg.Modules == nil {
		r.cfg.Modules = DefaultModules()
	}
	r.excLimit = limiter{every: time.Second, burst: 5}
	metrics.RegisterBuiltin(r.reg)
	r.loader = newLoader(cfg.ModulesDir, r.cfg.Modules)
	t, err := r.loader.resolve(nil, cfg.Script)
	if err != nil {
		return nil, &ScriptError{Msg: err.Error(), Err: err}
	}
	r.main = r.loader.load(t)
	if r.main.err != nil {
		return nil, r.main.err
	}
	r.aux = r.newVU(0)
	disarm := func() {}
	if cfg.Context != nil {
		disarm = r.aux.arm(cfg.Context)
		r.aux.initCtx = cfg.Context
	}
	exports, err := r.aux.evaluate(r.main)
	disarm()
	if err != nil {
		if cfg.Context != nil && cfg.Context.Err() != nil {
			return nil, interrupted(fmt.Errorf("%s: the init context was interrupted: %w", r.main.name, context.Cause(cfg.Context)))
		}
		return nil, initError(err)
	}
	opts, err := r.options(exports)
	if err != nil {
		return nil, err
	}
	if arc != nil {
		opts = arc.options
	}
	if opts, err = scenario.LayerScriptOptions(opts, cfg.ConfigOptions, cfg.Environ); err != nil {
		return nil, invalid(fmt.Errorf("%s: %w", cfg.Script, err))
	}
	r.script, err = scenario.ParseScript(cfg.Script, opts, scenario.ScriptConfig{Registry: r.reg, Environ: cfg.Environ})
	if err != nil {
		return nil, invalid(err)
	}
	if err := applyNoSetupEnv(r.script, cfg.Environ); err != nil {
		return nil, invalid(fmt.Errorf("%s: %w", cfg.Script, err))
	}
	h := r.script.HTTP
	r.moduleOptions = &modules.Options{MaxRedirects: r.script.Test.MaxRedirects, DiscardResponseBodies: h.DiscardResponseBodies,
		Batch: h.Batch, BatchPerHost: h.BatchPerHost, NoCookiesReset: h.NoCookiesReset, Throw: h.Throw, Hosts: r.script.Test.Network.Hosts}
	if err := r.checkModuleOptions(); err != nil {
		return nil, invalid(err)
	}
	if len(r.script.Replaced) > 0 {
		r.logger.Warn("The command line or the environment replaces the script's scenarios", "variables", strings.Join(r.script.Replaced, ","))
	}
	if len(r.script.Ignored) > 0 {
		r.logger.Warn("Ignoring the script's k6 Cloud options in a local run", "options", strings.Join(r.script.Ignored, ","))
	}
	if r.optionsJSON, err = resolvedOptions(opts, r.script); err != nil {
		return nil, &ScriptError{Msg: fmt.Sprintf("%s: options: %v", r.main.name, err), Err: err}
	}
	for _, sc := range r.script.Test.Scenarios {
		name := r.script.ExecOf(sc.Name)
		if _, ok := sobek.AssertFunction(exports.ToObject(r.aux.rt).Get(name)); !ok {
			what := fmt.Sprintf("function %q", name)
			if name == "default" {
				what = "a default function"
			}
			// The options name a function the script lacks: a configuration error, as
			// k6 validates exec against the exports with the options.
			return nil, invalid(fmt.Errorf("%s: %s is not exported; scenario %q runs it each iteration (export default function () { ... })", r.main.name, what, sc.Name))
		}
	}
	return r, nil
}

// checkModuleOptions rejects a script option that no registered module honours
// (modules.OptionReader), so that it is never silently ignored. k6/http reads
// maxRedirects, batch, batchPerHost, discardResponseBodies and noCookiesReset from
// test.options and honours throw.
func (r *Runner) checkModuleOptions() error {
	set := map[string]bool{"throw": r.moduleOptions.Throw}
	honoured := map[string]bool{}
	for _, name := range r.cfg.Modules.Names() {
		if m, ok := r.cfg.Modules.Lookup(name); ok {
			if or, ok := m.(modules.OptionReader); ok {
				for _, k := range or.ReadsOptions() {
					honoured[k] = true
				}
			}
		}
	}
	var errs scenario.Errors
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if set[k] && !honoured[k] {
			errs = append(errs, &scenario.Error{File: r.cfg.Script, Field: k, Msg: fmt.Sprintf("k6 option %q is not supported by Tidemark's modules yet; remove it", k)})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// initError is an error of the init context as a ScriptError naming the place: a
// syntax error where it is, an exception where it was thrown (an unknown module: at
// its import).
func initError(err error) error {
	if ab, ok := abortOf(err); ok {
		return &AbortedError{ab}
	}
	se, isSE := errors.AsType[*ScriptError](err)
	if isSE && se.File != "" {
		return se
	}
	if ex, ok := errors.AsType[*sobek.Exception](err); ok {
		return &ScriptError{Msg: describe(ex), Err: err}
	}
	if isSE {
		return se
	}
	return &ScriptError{Msg: err.Error(), Err: err}
}

// describe is "file:line:column: message" of an exception, at its innermost frame
// with a position; errors thrown by native code are their Go message.
func describe(ex *sobek.Exception) string {
	msg := ex.Value().String()
	if u := ex.Unwrap(); u != nil {
		msg = u.Error()
	}
	for _, f := range ex.Stack() {
		if p := f.Position(); p.Filename != "" && p.Line > 0 {
			// Positions come through esbuild's source map, whose columns are 0-based.
			return fmt.Sprintf("%s:%d:%d: %s", p.Filename, p.Line, p.Column+1, msg)
		}
	}
	return msg
}

// stackOf is the exception's JS stack, one "at function (file:line:column)" per
// frame, with the script's positions (1-based columns).
func stackOf(ex *sobek.Exception) string {
	var b strings.Builder
	for _, f := range ex.Stack() {
		fn := f.FuncName()
		if fn == "" {
			fn = "<anonymous>"
		}
		p := f.Position()
		if p.Filename == "" {
			// A native function: its Go name without the import path.
			fmt.Fprintf(&b, "\tat %s (native)\n", fn[strings.LastIndex(fn, "/")+1:])
			continue
		}
		fmt.Fprintf(&b, "\tat %s (%s:%d:%d)\n", fn, p.Filename, p.Line, p.Column+1)
	}
	return b.String()
}

// options returns `export const options` as JSON ({} when not exported).
func (r *Runner) options(exports sobek.Value) ([]byte, error) {
	rt := r.aux.rt
	o := exports.ToObject(rt).Get("options")
	if o == nil || sobek.IsUndefined(o) || sobek.IsNull(o) {
		return []byte("{}"), nil
	}
	b, err := json(rt, o)
	if err != nil {
		return nil, &ScriptError{Msg: fmt.Sprintf("%s: options: %v", r.main.name, err), Err: err}
	}
	if err := checkOptionsJSON(b); err != nil {
		return nil, &ConfigError{Err: fmt.Errorf("%s: options: %w", r.main.name, err)}
	}
	return b, nil
}

// Bounds of a script's options, checked on their JSON before it is decoded: a million
// stages took 1.7 GB and options nested 100,000 levels deep 53 s to decode (the decoder
// is quadratic in the depth). k6's options are a few levels deep (scenarios → a
// scenario → stages → a stage, thresholds → a metric → an object) and a few KB.
const (
	maxOptionsBytes = 4 << 20
	maxOptionsDepth = 32
)

// checkOptionsJSON refuses options over maxOptionsBytes or nested deeper than
// maxOptionsDepth.
func checkOptionsJSON(b []byte) error {
	if len(b) > maxOptionsBytes {
		return fmt.Errorf("%d bytes of options, more than the %d bytes options may take", len(b), maxOptionsBytes)
	}
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxOptionsDepth {
				return fmt.Errorf("options nested more than %d levels deep", maxOptionsDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// json is JSON.stringify(v) in rt.
func json(rt *sobek.Runtime, v sobek.Value) ([]byte, error) {
	stringify, _ := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
	s, err := stringify(sobek.Undefined(), v)
	if err != nil {
		return nil, err
	}
	if sobek.IsUndefined(s) {
		return nil, nil
	}
	return []byte(s.String()), nil
}

// Test returns the test decoded from the script's options.
func (r *Runner) Test() *scenario.Test { return r.script.Test }

// Registry returns the run's metrics registry: k6's built-in metrics and the script's
// custom metrics. The run must use it (loadtest.Config.Registry).
func (r *Runner) Registry() *metrics.Registry { return r.reg }

// Context returns ctx for the run: canceled when test.abort() is called or a VU's
// init fails. Err then says why.
func (r *Runner) Context(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	return ctx
}

// Err returns why the runner stopped the run: an *AbortedError (exit code 108) or a
// *ScriptError of a VU's init (107); nil if it did not.
func (r *Runner) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runErr
}

// MarkFailed records test.fail(reason): the run exits 110 unless it fails otherwise.
func (r *Runner) MarkFailed(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = &MarkedFailedError{Reason: reason} // returned by Failed at the end
	}
}

// Failed returns the *MarkedFailedError of test.fail() (exit code 110), or nil.
func (r *Runner) Failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		return nil
	}
	return r.failed
}

// applyNoSetupEnv applies K6_NO_SETUP and K6_NO_TEARDOWN (run's --no-setup and
// --no-teardown, set as them) over the script's noSetup and noTeardown, as k6 does.
func applyNoSetupEnv(s *scenario.Script, environ map[string]string) error {
	for _, o := range []struct {
		name string
		dst  *bool
	}{{"K6_NO_SETUP", &s.NoSetup}, {"K6_NO_TEARDOWN", &s.NoTeardown}} {
		v := environ[o.name]
		if v == "" {
			continue
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s=%q: expected true or false", o.name, v)
		}
		*o.dst = b
	}
	return nil
}

// abortRun records why the run stops and cancels the run's context.
func (r *Runner) abortRun(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runErr == nil {
		r.runErr = err // returned by Err once the run has stopped
	}
	if r.cancel != nil {
		r.cancel()
	}
}

// Prepare returns the constructor of scenario sc's VUs: each runs the init context in
// its own runtime, then the scenario's exec function per iteration.
func (r *Runner) Prepare(sc *scenario.Scenario, env *engine.VUEnv) (func(id int64) executor.VU, error) {
	r.mu.Lock()
	if r.setupEnv == nil {
		// setup, teardown and handleSummary samples carry the run's tags, no scenario.
		var tags []metrics.Tag
		for _, t := range env.Tags.Tags() {
			if t.Key != "scenario" {
				tags = append(tags, t)
			}
		}
		se := *env
		se.Tags = env.Pool.Intern(tags)
		r.setupEnv = &se
	}
	r.mu.Unlock()
	ps := &prepared{sc: sc}
	exec := r.script.ExecOf(sc.Name)
	iters := &atomic.Int64{}
	ps.make = func() *vu {
		id := r.nextVU.Add(1)
		v := r.newVU(id, sc.Env)
		exports, err := v.evaluate(r.main)
		var fn sobek.Callable
		if err == nil {
			var ok bool
			if fn, ok = sobek.AssertFunction(exports.ToObject(v.rt).Get(exec)); !ok {
				err = fmt.Errorf("function %q is not exported", exec)
			}
		}
		if err != nil {
			v.broken = true
			r.abortRun(initError(err))
			return v
		}
		v.loop.reset() // timers the init context set never fire
		v.fn = fn
		v.state = modules.NewState(env, id, sc, r)
		v.state.Loop = v.loop
		v.state.Options = r.moduleOptions
		v.scenarioIters = iters
		return v
	}
	r.mu.Lock()
	r.prepared = append(r.prepared, ps)
	r.mu.Unlock()
	return func(int64) executor.VU {
		if v := ps.pop(); v != nil {
			return v
		}
		return ps.make()
	}, nil
}

// prepared is one scenario's VU constructor and the VUs initialized before setup.
type prepared struct {
	sc   *scenario.Scenario
	make func() *vu

	mu   sync.Mutex
	pool []*vu
}

// pop returns a VU initialized ahead, or nil.
func (p *prepared) pop() *vu {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.pool) == 0 {
		return nil
	}
	v := p.pool[0]
	p.pool = p.pool[1:]
	return v
}

// initVUs runs the init context of the VUs every scenario starts with, before setup
// as k6 does, on every CPU at once: each scenario's executor counts them (the same
// rule that allocates them when the run starts), and the run's executors then take
// these VUs. A VU whose init fails stops here, before setup, with its error.
func (r *Runner) initVUs(ctx context.Context) error {
	r.mu.Lock()
	all := r.prepared
	r.prepared = nil
	r.mu.Unlock()
	for _, ps := range all {
		n := 0
		ex, err := executor.New(executor.Config{Scenario: ps.sc, Segment: r.cfg.Segment, NewVU: func(int64) executor.VU {
			n++
			return nil // counted only; the executor is thrown away
		}})
		if err != nil {
			// The engine accepted the scenario; it allocates the VUs itself.
			continue
		}
		if err := ex.Init(ctx); err != nil {
			return interrupted(err)
		}
		vus := make([]*vu, n)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), n) {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < int64(n) && ctx.Err() == nil && r.Err() == nil; i = next.Add(1) - 1 {
					vus[i] = ps.make()
				}
			})
		}
		wg.Wait()
		if err := r.Err(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return interrupted(fmt.Errorf("initialize VUs of scenario %q: %w", ps.sc.Name, err))
		}
		ps.mu.Lock()
		ps.pool = append(ps.pool, vus...)
		ps.mu.Unlock()
	}
	return nil
}

// TestStart returns when the first iteration started.
func (r *Runner) TestStart() time.Time {
	if t := r.start.Load(); t != nil {
		return *t
	}
	return time.Time{}
}

func (r *Runner) markStart() {
	if r.start.Load() == nil {
		now := time.Now()
		r.start.CompareAndSwap(nil, &now)
	}
}

// Counts returns the completed and interrupted iterations, the initialized VUs and the
// VUs running an iteration now.
func (r *Runner) Counts() (completed, interrupted, vusInitialized, vusActive int64) {
	return r.completed.Load(), r.interrupted.Load(), r.nextVU.Load(), r.active.Load()
}

// SingleInstance reports whether the run has no execution segment.
func (r *Runner) SingleInstance() bool { return r.cfg.Segment.IsFull() }

// Options returns test.options: the script's options with the resolved scenarios.
func (r *Runner) Options() []byte { return r.optionsJSON }

// lifecycle calls the exported function name in VU 0 with args, within timeout.
func (r *Runner) lifecycle(ctx context.Context, name string, timeout time.Duration, args ...sobek.Value) (sobek.Value, bool, error) {
	v := r.aux
	fn, ok := sobek.AssertFunction(r.aux.mods[r.main.id].Get("exports").ToObject(v.rt).Get(name))
	if !ok {
		return nil, false, nil
	}
	if v.state == nil {
		env := r.setupEnv
		if env == nil {
			return nil, false, fmt.Errorf("%s: the run has no scenario", name)
		}
		v.loop.reset() // timers the init context set never fire
		v.state = modules.NewState(env, 0, nil, r)
		v.state.Loop = v.loop
		v.state.Options = r.moduleOptions
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, &TimeoutError{Func: name, Timeout: timeout})
	defer cancel()
	v.state.SetContext(ctx)
	// As k6, setup's and teardown's samples carry group ::setup and ::teardown.
	group := ""
	if name == "setup" || name == "teardown" {
		group = "::" + name
	}
	v.state.SetGroup(group)
	disarm := v.arm(ctx)
	res, err := fn(sobek.Undefined(), args...)
	if err == nil {
		err = v.loop.run(ctx)
	}
	v.loop.reset()
	disarm()
	if err == nil {
		res, err = settled(res)
	}
	v.state.EndIteration(err == nil)
	// setup and teardown are not iterations: k6 v1.8.1 and later emit neither
	// iterations nor iteration_duration for them (its requests still count, tagged
	// group ::setup or ::teardown), so iteration_duration's min is a real iteration's.
	if err == nil && ctx.Err() != nil {
		// A sleep or request the deadline cut short: the function did not finish.
		err = context.Cause(ctx)
	}
	if err != nil {
		if ab, ok := abortOf(err); ok {
			return nil, true, &AbortedError{ab}
		}
		if cause := context.Cause(ctx); ctx.Err() != nil {
			if te, ok := errors.AsType[*TimeoutError](cause); ok {
				return nil, true, te
			}
			// SIGINT or SIGTERM while it ran.
			return nil, true, interrupted(fmt.Errorf("%s() interrupted: %w", name, cause))
		}
		if ex, ok := errors.AsType[*sobek.Exception](err); ok {
			return nil, true, &ScriptError{Msg: name + ": " + describe(ex), Err: err}
		}
		if rej, ok := errors.AsType[*rejection](err); ok {
			return nil, true, &ScriptError{Msg: name + ": " + rej.msg, Err: err}
		}
		return nil, true, scriptError(name, err)
	}
	return res, true, nil
}

// Setup initializes the VUs every scenario starts with (their init context, as k6
// runs it before setup), then runs the script's setup() once, if exported, and keeps
// its result (as JSON) for every VU and teardown. An exception is a *ScriptError;
// teardown is then skipped.
func (r *Runner) Setup(ctx context.Context) error {
	r.lifeMu.Lock()
	defer r.lifeMu.Unlock()
	if err := r.initVUs(ctx); err != nil {
		r.setupFailed = true
		return err
	}
	if r.script.NoSetup {
		return nil
	}
	data, ran, err := r.setup(ctx)
	if err != nil {
		if _, aborted := errors.AsType[*AbortedError](err); aborted {
			// test.abort() in setup still runs teardown (k6); the run does not start.
			err = errors.Join(err, r.teardown(ctx))
		}
		r.setupFailed = true
		return err
	}
	if ran {
		// As k6: a setup() that returns nothing also clears what PUT /v1/setup set;
		// without a setup() the data PUT set stays.
		r.setSetupJSON(string(data))
	}
	return nil
}

// setup calls the script's setup() in VU 0 and returns its result as JSON (nil when
// it returns undefined) and whether the script exports one. The caller holds lifeMu.
func (r *Runner) setup(ctx context.Context) ([]byte, bool, error) {
	res, ran, err := r.lifecycle(ctx, "setup", r.script.SetupTimeout)
	if err != nil || !ran {
		return nil, ran, err
	}
	if res == nil || sobek.IsUndefined(res) {
		return nil, true, nil
	}
	// As k6 copies it: the exported Go value through encoding/json (a Date becomes its
	// RFC 3339 time, undefined null; a function fails the run, exit 255), not
	// JSON.stringify.
	b, err := gojson.Marshal(res.Export())
	if err != nil {
		return nil, true, fmt.Errorf("setup: error marshaling setup() data to JSON: %w", err)
	}
	return b, true, nil
}

// setSetupJSON replaces the setup data every VU that has not read it yet gets.
func (r *Runner) setSetupJSON(data string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setupJSON = data
}

// setupData returns the setup data as JSON, "" for none.
func (r *Runner) setupData() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.setupJSON
}

// Teardown runs the script's teardown(data) once, if exported and setup did not throw.
// It first says how many exceptions in iterations the rate limit kept from the log.
func (r *Runner) Teardown(ctx context.Context) error {
	r.lifeMu.Lock()
	defer r.lifeMu.Unlock()
	return r.teardown(ctx)
}

// teardown is Teardown; the caller holds lifeMu.
func (r *Runner) teardown(ctx context.Context) error {
	if n := r.excLimit.takeDropped(); n > 0 {
		r.logger.Warn("Exceptions in iterations not logged (at most 5 a second are)", "count", n)
	}
	if r.setupFailed || r.tornDown || r.script.NoTeardown {
		return nil
	}
	r.tornDown = true
	// A fresh context: teardown runs after test.abort() and SIGINT too.
	ctx = context.WithoutCancel(ctx)
	_, _, err := r.lifecycle(ctx, "teardown", r.script.TeardownTimeout, r.aux.copyData())
	return err
}

// copyData is a fresh copy of the setup data in VU 0.
func (v *vu) copyData() sobek.Value {
	v.haveData = false
	return v.setupData()
}

// HandleSummary calls the script's handleSummary(data), if exported, with the data
// --summary-file writes, and writes what it returns: `stdout`, `stderr` and file
// paths, each a string or an ArrayBuffer. It reports whether the script has one (the
// default summary is then not printed).
func (r *Runner) HandleSummary(ctx context.Context, in summary.Input, stdout, stderr io.Writer) (bool, error) {
	r.lifeMu.Lock()
	defer r.lifeMu.Unlock()
	if _, ok := sobek.AssertFunction(r.aux.mods[r.main.id].Get("exports").ToObject(r.aux.rt).Get("handleSummary")); !ok {
		return false, nil
	}
	if in.SetupData == nil {
		in.SetupData = r.OnDemand().SetupData() // k6's data.setup_data
	}
	var buf bytes.Buffer
	if err := summary.WriteData(&buf, in); err != nil {
		return true, fmt.Errorf("handleSummary: build its data: %w", err)
	}
	data, err := r.aux.parse(sobek.Undefined(), r.aux.rt.ToValue(buf.String()))
	if err != nil {
		return true, fmt.Errorf("handleSummary: parse its data: %w", err)
	}
	// A signal while handleSummary runs interrupts it, as in k6; after a run a signal
	// already stopped, it runs to its end (or its timeout), and a second signal ends the
	// process.
	lctx := ctx
	if ctx.Err() != nil {
		lctx = context.WithoutCancel(ctx)
	}
	res, _, err := r.lifecycle(lctx, "handleSummary", r.script.HandleSummaryTimeout, data)
	if err != nil {
		if lctx.Err() != nil && errors.Is(context.Cause(lctx), context.Canceled) {
			return true, interrupted(fmt.Errorf("handleSummary was interrupted: %w", err))
		}
		return true, err
	}
	if res == nil || sobek.IsUndefined(res) || sobek.IsNull(res) {
		return true, nil
	}
	rt := r.aux.rt
	obj := res.ToObject(rt)
	var errs []error
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		var b []byte
		if ab, ok := val.Export().(sobek.ArrayBuffer); ok {
			b = ab.Bytes()
		} else {
			b = []byte(val.String())
		}
		switch k {
		case "stdout":
			_, err = stdout.Write(b)
		case "stderr":
			_, err = stderr.Write(b)
		default:
			err = os.WriteFile(k, b, 0o644) //nolint:gosec // a report file the user asked for
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("handleSummary: write %s: %w", k, err))
		}
	}
	return true, errors.Join(errs...)
}

// logException logs an exception that ended an iteration, with its JS stack, at most
// burst times per second; the count of those not logged goes with the next one.
func (r *Runner) logException(v *vu, err error) {
	ok, dropped := r.excLimit.allow(time.Now())
	if !ok {
		return
	}
	msg, stack := err.Error(), ""
	if ex, isEx := errors.AsType[*sobek.Exception](err); isEx {
		msg, stack = describe(ex), stackOf(ex)
	}
	if rej, isRej := errors.AsType[*rejection](err); isRej {
		msg, stack = rej.msg, rej.stack
	}
	if errors.Is(err, errPending) {
		msg = "async function: " + msg
	}
	attrs := []any{"err", msg, "vu", v.id, "iter", v.iter - 1, "stack", stack}
	if v.state != nil && v.state.Scenario != nil {
		attrs = append(attrs, "scenario", v.state.Scenario.Name)
	}
	if dropped > 0 {
		attrs = append(attrs, "not_logged", dropped)
	}
	r.logger.Error("Exception in iteration", attrs...)
}

// limiter allows burst events per interval and counts the others.
type limiter struct {
	every time.Duration
	burst int

	mu      sync.Mutex
	window  time.Time
	n       int
	dropped int
}

// takeDropped returns the events not logged since the last allowed one, and forgets
// them.
func (l *limiter) takeDropped() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.dropped
	l.dropped = 0
	return d
}

// allow reports whether an event at now may be logged, and how many were not logged
// since the last allowed one.
func (l *limiter) allow(now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.window) >= l.every {
		l.window, l.n = now, 0
	}
	if l.n >= l.burst {
		l.dropped++
		return false, 0
	}
	l.n++
	d := l.dropped
	l.dropped = 0
	return true, d
}
