package js

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/js/modules/webcrypto"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/secretsource"
)

// vu is one JavaScript runtime: a VU of a scenario, or VU 0 (the options-reading init
// run, setup, teardown and handleSummary). It holds only its own state; programs are
// the loader's.
type vu struct {
	r     *Runner
	id    int64
	rt    *sobek.Runtime
	state *modules.State // nil in the init context

	loop    *loop
	initCtx context.Context          // ends the event loop of the init context (top-level await)
	mods    map[string]*sobek.Object // source modules by id: their module objects
	natives map[string]sobek.Value   // native modules by name: their exports
	closers []modules.Closer         // native module instances to close with the VU
	parse   sobek.Callable           // JSON.parse
	iterVal sobek.Value

	fn       sobek.Callable // the scenario's exec function
	data     sobek.Value    // this VU's copy of the setup data
	haveData bool
	iter     int64
	broken   bool // its init failed; the run is being stopped
	// scenarioIters counts the iterations its scenario started on this instance.
	scenarioIters *atomic.Int64
	out           []metrics.Sample

	// mu guards interrupting the runtime from another goroutine (the iteration's
	// context ending) against the VU clearing the interrupt after the iteration.
	mu     sync.Mutex
	active bool
	armed  uint64 // arm's calls, so that a late interrupt finds its own
}

var (
	_ modules.VU      = (*vu)(nil)
	_ modules.LoopVU  = (*vu)(nil)
	_ executor.VU     = (*vu)(nil)
	_ executor.Closer = (*vu)(nil)

	_ modules.FileLoader = (*vu)(nil)
)

// Runtime returns the VU's runtime.
func (v *vu) Runtime() *sobek.Runtime { return v.rt }

// State returns nil in the init context.
func (v *vu) State() *modules.State { return v.state }

// Registry returns the run's metrics registry.
func (v *vu) Registry() *metrics.Registry { return v.r.reg }

// EventLoop returns the VU's event loop, also in the init context (modules.LoopOf).
func (v *vu) EventLoop() modules.Loop { return v.loop }

// Logger returns the run's logger.
func (v *vu) Logger() *slog.Logger { return v.r.logger }

// Secrets returns the run's secret sources (k6/secrets); nil when there are none.
func (v *vu) Secrets() *secretsource.Set { return v.r.cfg.Secrets }

// newVU makes a runtime with k6's globals: global, __ENV (the run's, then the
// scenario's env), __VU, __ITER, open, console, crypto (WebCrypto) and require.
func (r *Runner) newVU(id int64, scenarioEnv ...map[string]string) *vu {
	rt := sobek.New()
	rt.SetFieldNameMapper(sobek.UncapFieldNameMapper())
	v := &vu{r: r, id: id, rt: rt, loop: newLoop(), initCtx: context.Background(), mods: map[string]*sobek.Object{}, natives: map[string]sobek.Value{}}
	rt.SetPromiseRejectionTracker(v.loop.track)
	rt.SetGetImportMetaProperties(v.importMetaOf)
	r.loader.vus.Store(rt, v)
	g := rt.GlobalObject()
	env := rt.NewObject()
	for _, m := range append([]map[string]string{r.cfg.Env}, scenarioEnv...) {
		for k, val := range m {
			_ = env.Set(k, val)
		}
	}
	must := func(err error) {
		if err != nil {
			// Setting a property of a fresh global object cannot fail.
			panic(err)
		}
	}
	must(g.Set("global", g))
	must(g.Set("__ENV", env))
	must(g.Set("__VU", id))
	v.iterVal = rt.ToValue(0)
	must(g.Set("__ITER", v.iterVal))
	must(g.Set("open", v.open))
	must(g.Set("console", v.console()))
	must(g.Set("crypto", webcrypto.Global(v)))
	must(g.Set("require", v.globalRequire))
	for name, fn := range v.timerGlobals() {
		must(g.Set(name, fn))
	}
	parse, _ := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
	v.parse = parse
	return v
}

// globalRequire is the global require(): relative to the ES module whose code calls
// it (sobek's active module), else to the main script.
func (v *vu) globalRequire(call sobek.FunctionCall) sobek.Value {
	parent := v.r.main
	if ref := v.rt.GetActiveScriptOrModule(); ref != nil {
		if p := v.r.loader.programOf(ref); p != nil {
			parent = p
		}
	}
	return v.requireFrom(parent)(call)
}

// requireFrom is the require function of the module parent.
func (v *vu) requireFrom(parent *program) func(sobek.FunctionCall) sobek.Value {
	return func(call sobek.FunctionCall) sobek.Value {
		val, err := v.require(parent, call.Argument(0).String())
		if err != nil {
			if ex, ok := errors.AsType[*sobek.Exception](err); ok {
				panic(ex)
			}
			if ie, ok := errors.AsType[*sobek.InterruptedError](err); ok {
				panic(ie)
			}
			panic(v.rt.NewGoError(err))
		}
		return val
	}
}

// require returns the exports of spec imported by parent, evaluating a source module
// once per runtime and instantiating a native module once per runtime.
func (v *vu) require(parent *program, spec string) (sobek.Value, error) {
	t, err := v.r.loader.resolve(parent, spec)
	if err != nil {
		return nil, err
	}
	if t.native != nil {
		return v.native(t)
	}
	p := v.r.loader.load(t)
	if p.err != nil {
		return nil, p.err
	}
	return v.moduleExports(p)
}

// moduleExports returns the exports of the source module p in this runtime,
// evaluating it on first use.
func (v *vu) moduleExports(p *program) (sobek.Value, error) {
	if m, ok := v.mods[p.id]; ok {
		return m.Get("exports"), nil
	}
	return v.evaluate(p)
}

// evaluate runs a source module's code in this runtime and returns its exports.
func (v *vu) evaluate(p *program) (sobek.Value, error) {
	if p.rec != nil {
		exports, err := v.evaluateESM(p)
		if err != nil {
			return nil, err
		}
		module := v.rt.NewObject()
		_ = module.Set("exports", exports)
		v.mods[p.id] = module
		return exports, nil
	}
	wrapper, err := v.rt.RunProgram(p.prg)
	if err != nil {
		return nil, err
	}
	fn, ok := sobek.AssertFunction(wrapper)
	if !ok {
		return nil, fmt.Errorf("module %s: not a module wrapper", p.name)
	}
	module := v.rt.NewObject()
	exports := v.rt.NewObject()
	if err := module.Set("exports", exports); err != nil {
		return nil, err
	}
	// Registered before it runs, so that an import cycle sees its partial exports.
	v.mods[p.id] = module
	if _, err := fn(sobek.Undefined(), exports, v.rt.ToValue(v.requireFrom(p)), module,
		v.rt.ToValue(p.name), v.rt.ToValue(filepath.Dir(p.name)), v.importMeta(p)); err != nil {
		delete(v.mods, p.id)
		return nil, err
	}
	return module.Get("exports"), nil
}

// importMetaOf is import.meta's properties in an ES module: those of importMeta.
func (v *vu) importMetaOf(rec sobek.ModuleRecord) []sobek.MetaProperty {
	p := v.r.loader.programOf(rec)
	if p == nil {
		return nil
	}
	meta := v.importMeta(p).ToObject(v.rt)
	return []sobek.MetaProperty{{Key: "url", Value: meta.Get("url")}, {Key: "resolve", Value: meta.Get("resolve")}}
}

// importMeta is the module's import.meta: url (file:// or the https:// URL it was
// imported by) and resolve(specifier), a URL relative to the module, for open().
func (v *vu) importMeta(p *program) sobek.Value {
	base := &url.URL{Scheme: "file", Path: filepath.ToSlash(p.file)}
	if strings.HasPrefix(p.id, "https://") || strings.HasPrefix(p.id, "http://") {
		if u, err := url.Parse(p.id); err == nil {
			base = u
		}
	}
	meta := v.rt.NewObject()
	_ = meta.Set("url", base.String())
	_ = meta.Set("resolve", func(call sobek.FunctionCall) sobek.Value {
		ref, err := url.Parse(call.Argument(0).String())
		if err != nil {
			modules.Throw(v.rt, fmt.Errorf("import.meta.resolve: %w", err))
		}
		return v.rt.ToValue(base.ResolveReference(ref).String())
	})
	return meta
}

// native returns the exports of a native module in this runtime.
func (v *vu) native(t target) (sobek.Value, error) {
	if e, ok := v.natives[t.name]; ok {
		return e, nil
	}
	inst, err := t.native.NewInstance(v)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", t.name, err)
	}
	if c, ok := inst.(modules.Closer); ok {
		v.closers = append(v.closers, c)
	}
	ex := inst.Exports()
	obj := v.rt.NewObject()
	for k, val := range ex.Named {
		if err := obj.Set(k, val); err != nil {
			return nil, fmt.Errorf("module %s: export %s: %w", t.name, k, err)
		}
	}
	def := sobek.Value(obj)
	if ex.Default != nil {
		def = v.rt.ToValue(ex.Default)
	}
	// __esModule makes esbuild's interop read `import x from` as the default export.
	if err := obj.DefineDataProperty("__esModule", v.rt.ToValue(true), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE); err != nil {
		return nil, err
	}
	if err := obj.DefineDataProperty("default", def, sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE); err != nil {
		return nil, err
	}
	v.natives[t.name] = obj
	return obj, nil
}

// open is k6's open(path, [mode]): a file's content as a string, or an ArrayBuffer
// with mode "b". Init context only; a relative path is relative to the main script.
func (v *vu) open(call sobek.FunctionCall) sobek.Value {
	if err := modules.InitOnly(v, "open"); err != nil {
		modules.Throw(v.rt, err)
	}
	name := call.Argument(0).String()
	if name == "" || sobek.IsUndefined(call.Argument(0)) {
		modules.Throw(v.rt, errors.New("open: expected a file path"))
	}
	_, b, err := v.LoadFile(name)
	if err != nil {
		modules.Throw(v.rt, fmt.Errorf("open %s: %w", name, err))
	}
	if call.Argument(1).String() == "b" {
		return v.rt.ToValue(v.rt.NewArrayBuffer(append([]byte(nil), b...)))
	}
	return v.rt.ToValue(string(b))
}

// LoadFile is open()'s file loading (modules.FileLoader): name relative to the main
// script, read once per process and kept for archives.
func (v *vu) LoadFile(name string) (string, []byte, error) {
	p := strings.TrimPrefix(name, "file://")
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(v.r.main.file), p)
	}
	b, err := v.r.loader.readFile(p)
	return p, b, err
}

// console logs to the run's console logger (Config.Console, else its logger) as k6
// does: the text as the message with source=console; log and info at Info, debug at
// Debug, warn at Warn, error at Error.
func (v *vu) console() *sobek.Object {
	c := v.rt.NewObject()
	stringify, _ := sobek.AssertFunction(v.rt.Get("JSON").ToObject(v.rt).Get("stringify"))
	for name, level := range map[string]slog.Level{
		"log": slog.LevelInfo, "info": slog.LevelInfo, "debug": slog.LevelDebug,
		"warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		_ = c.Set(name, func(call sobek.FunctionCall) sobek.Value {
			parts := make([]string, 0, len(call.Arguments))
			for _, a := range call.Arguments {
				parts = append(parts, format(a, stringify))
			}
			// k6's console line: the text is the message, with source=console.
			//nolint:sloglint // k6's console line: the script's text is the message.
			v.r.console.Log(context.Background(), level, strings.Join(parts, " "), "source", "console")
			return sobek.Undefined()
		})
	}
	return c
}

// format is one console argument as text: objects as JSON, others as strings.
func format(a sobek.Value, stringify sobek.Callable) string {
	if o, ok := a.(*sobek.Object); ok {
		if _, isFn := sobek.AssertFunction(a); !isFn && o.ClassName() != "Error" {
			if s, err := stringify(sobek.Undefined(), a); err == nil && !sobek.IsUndefined(s) {
				return s.String()
			}
		}
	}
	return a.String()
}

// arm interrupts the runtime when ctx ends, until disarm.
func (v *vu) arm(ctx context.Context) (disarm func()) {
	v.mu.Lock()
	v.active = true
	v.armed++
	gen := v.armed
	v.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		v.mu.Lock()
		// gen: a late call for an earlier iteration (stop does not wait for one
		// already started) must not interrupt the next.
		if v.active && v.armed == gen {
			v.rt.Interrupt(context.Cause(ctx))
		}
		v.mu.Unlock()
	})
	return func() {
		stop()
		v.mu.Lock()
		v.active = false
		v.rt.ClearInterrupt()
		v.mu.Unlock()
	}
}

// setupData returns this VU's copy of setup()'s result (JSON-copied once per VU).
func (v *vu) setupData() sobek.Value {
	if v.haveData {
		return v.data
	}
	v.haveData = true
	v.data = sobek.Undefined()
	if d := v.r.setupData(); d != "" {
		if val, err := v.parse(sobek.Undefined(), v.rt.ToValue(d)); err == nil {
			v.data = val
		}
	}
	return v.data
}

// Iterate runs the scenario's exec function once. An exception ends the iteration as
// interrupted (logged with its JS stack, rate-limited) and, as in k6, still counts it
// in iterations and iteration_duration; test.abort() stops the run.
func (v *vu) Iterate(ctx context.Context) bool {
	if v.broken {
		<-ctx.Done()
		return false
	}
	r := v.r
	r.markStart()
	r.active.Add(1)
	defer r.active.Add(-1)
	start := time.Now()
	st := v.state
	st.SetContext(ctx)
	st.Iteration = v.iter
	st.ScenarioIteration = v.scenarioIters.Add(1) - 1
	st.SetGroup("")
	_ = v.rt.GlobalObject().Set("__ITER", v.iter)
	v.iter++
	data := v.setupData()
	disarm := v.arm(ctx)
	res, err := v.fn(sobek.Undefined(), data)
	if err == nil {
		err = v.loop.run(ctx)
	}
	v.loop.reset()
	disarm()
	if _, ok := errors.AsType[*sobek.InterruptedError](err); ok {
		unwindInterrupted(v.rt)
	}
	if err == nil {
		_, err = settled(res)
	}
	st.SetContext(context.Background())
	complete := err == nil && ctx.Err() == nil
	// An iteration an exception ended ran to its end all the same: k6 counts it in
	// iterations and iteration_duration (it is still reported as interrupted). One
	// that test.abort() or the end of its context cut short is not counted.
	counted := complete
	if err != nil && ctx.Err() == nil {
		if ab, ok := abortOf(err); ok {
			r.abortRun(&AbortedError{ab})
		} else {
			r.logException(v, err)
			counted = true
		}
	}
	// An exception inside group() leaves the root group: the iteration's samples
	// carry the VU's tags only.
	st.SetGroup("")
	st.EndIteration(complete)
	if least := r.script.MinIterationDuration; complete && least > 0 {
		// minIterationDuration: a short iteration waits out the rest, as part of it.
		if left := least - time.Since(start); left > 0 {
			t := time.NewTimer(left)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
	}
	if complete {
		r.completed.Add(1)
	} else {
		r.interrupted.Add(1)
	}
	if counted {
		now := time.Now()
		b := st.Env.Metrics
		s := append(v.out[:0],
			metrics.Sample{Metric: b.Iterations, Tags: st.Tags(), Time: now, Value: 1, Metadata: st.Metadata()},
			metrics.Sample{Metric: b.IterationDuration, Tags: st.Tags(), Time: now, Value: now.Sub(start).Seconds(), Metadata: st.Metadata()},
		)
		st.Env.Pusher.Push(s)
		v.out = s[:0]
	}
	return complete
}

// errPending is an async function whose promise is still pending once the VU's event
// loop has nothing left to run: it awaits something nothing will settle.
var errPending = errors.New("its promise is still pending with nothing left on the event loop to settle it")

// rejection is the rejected promise of an async function.
type rejection struct {
	msg, stack string
}

// newRejection is the rejection of a promise with val, as k6 reports one no handler
// took: "Uncaught (in promise) " and the value, with its stack if it is an error.
func newRejection(val sobek.Value) *rejection {
	r := &rejection{msg: "Uncaught (in promise) " + valueString(val)}
	if o, ok := val.(*sobek.Object); ok {
		if st := o.Get("stack"); st != nil && !sobek.IsUndefined(st) {
			r.stack = st.String()
		}
	}
	return r
}

// valueString is val as text; undefined for nil.
func valueString(val sobek.Value) string {
	if val == nil {
		return "undefined"
	}
	return val.String()
}

// Error returns the rejection's value as a string.
func (e *rejection) Error() string { return e.msg }

// settled returns an async function's result, once the event loop has run: a
// fulfilled promise's value, the rejection of a rejected one, errPending for a pending
// one; other values as they are. sobek runs promise jobs before each call returns.
func settled(res sobek.Value) (sobek.Value, error) {
	if res == nil {
		return res, nil
	}
	p, ok := res.Export().(*sobek.Promise)
	if !ok {
		return res, nil
	}
	switch p.State() {
	case sobek.PromiseStateRejected:
		return nil, newRejection(p.Result())
	case sobek.PromiseStatePending:
		return nil, errPending
	}
	return p.Result(), nil
}

// Close releases the VU's runtime state once its scenario has ended.
func (v *vu) Close() {
	for _, c := range v.closers {
		c.Close()
	}
	v.closers = nil
	v.r.loader.vus.Delete(v.rt)
	v.mods, v.natives, v.fn, v.data = nil, nil, nil, nil
}
