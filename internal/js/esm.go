package js

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/grafana/sobek"
)

// Native ES modules. A source module with import, export or top-level await is a
// sobek module record (p.rec), linked and evaluated by sobek, its evaluation a promise
// the VU's event loop settles. Its imports resolve (loader.resolveRecord) to three
// kinds of record, each one per process, shared by every VU as the compiled code is:
//   - another ES module: its *sobek.SourceTextModuleRecord;
//   - a native module (k6/http): a nativeRecord, whose instance in a runtime is the
//     module's exports in that VU (v.native);
//   - a CommonJS module: a cjsRecord, whose instance is its module.exports, evaluated
//     as require() does.
//
// The other way round, require() of an ES module evaluates it as the root of its
// graph and returns an object of its exports (esmExports); one with top-level await
// cannot be waited for from code that is running (promise jobs run between the
// loop's callbacks only): that is an error saying to import it.

// moduleVU returns the VU whose runtime rt is.
func (l *loader) moduleVU(rt *sobek.Runtime) (*vu, error) {
	v, ok := l.vus.Load(rt)
	if !ok {
		return nil, errors.New("module evaluated in a runtime of no VU")
	}
	return v.(*vu), nil
}

// resolveRecord is sobek's HostResolveImportedModule: the record spec names when
// imported by the module referencing (a record of the loader's).
func (l *loader) resolveRecord(referencing any, spec string) (sobek.ModuleRecord, error) {
	l.mu.Lock()
	parent := l.byRecord[referencing]
	l.mu.Unlock()
	if parent == nil {
		return nil, fmt.Errorf("import %q: from a module the loader does not know", spec)
	}
	t, err := l.resolve(parent, spec)
	if err != nil {
		return nil, l.importError(parent, spec, err)
	}
	if t.native != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		r, ok := l.nativeRecs[t.name]
		if !ok {
			r = &nativeRecord{l: l, t: t}
			l.nativeRecs[t.name] = r
		}
		return r, nil
	}
	p := l.load(t)
	if p.err != nil {
		if _, located := errors.AsType[*ScriptError](p.err); located && p.err.(*ScriptError).File != "" {
			return nil, p.err // a syntax error, at its own place
		}
		return nil, l.importError(parent, spec, p.err)
	}
	if p.rec != nil {
		return p.rec, nil
	}
	return p.cjs, nil
}

// importError is err resolving spec, imported by parent, at the import's place.
func (l *loader) importError(parent *program, spec string, err error) error {
	at := parent.importAt[spec]
	if at == "" {
		at = parent.name
	}
	return &ScriptError{Msg: at + ": " + err.Error(), Err: err}
}

// nativeRecord is a native module imported by an ES module.
type nativeRecord struct {
	l *loader
	t target

	mu    sync.Mutex
	names []string // its export names, known once a VU instantiated it
}

var _ sobek.ModuleRecord = (*nativeRecord)(nil)

// Link does nothing: a native module imports nothing.
func (n *nativeRecord) Link() error { return nil }

// ResolveExport binds any name: a native module's names are its instance's, which the
// code compiled once for every VU cannot know. A name it lacks is undefined.
func (n *nativeRecord) ResolveExport(name string, _ ...sobek.ResolveSetElement) (*sobek.ResolvedBinding, bool) {
	return &sobek.ResolvedBinding{Module: n, BindingName: name}, false
}

// GetExportedNames returns the names of the module's exports (for `import * as`);
// the VU instantiates every native module of its module graph before evaluating it.
func (n *nativeRecord) GetExportedNames(callback func([]string), _ ...sobek.ModuleRecord) bool {
	n.mu.Lock()
	names := n.names
	n.mu.Unlock()
	callback(names)
	return true
}

// Evaluate instantiates the module in rt's VU (once per VU) and resolves to its
// instance.
func (n *nativeRecord) Evaluate(rt *sobek.Runtime) *sobek.Promise {
	p, resolve, reject := rt.NewPromise()
	v, err := n.l.moduleVU(rt)
	if err == nil {
		var obj *sobek.Object
		if obj, err = v.nativeExports(n); err == nil {
			_ = resolve(&exportsInstance{rt: rt, exports: obj, native: true})
			return p
		}
	}
	_ = reject(err)
	return p
}

// nativeExports instantiates n in v (once) and records its export names.
func (v *vu) nativeExports(n *nativeRecord) (*sobek.Object, error) {
	val, err := v.native(n.t)
	if err != nil {
		return nil, err
	}
	obj := val.ToObject(v.rt)
	n.mu.Lock()
	if n.names == nil {
		n.names = slices.DeleteFunc(obj.Keys(), func(k string) bool { return k == "__esModule" })
		n.names = append(n.names, "default")
	}
	n.mu.Unlock()
	return obj, nil
}

// cjsRecord is a CommonJS module (no import or export of its own) imported by an ES
// module: a cyclic record without requested modules (its imports are its require()
// calls), whose code runs when sobek evaluates it in the importer's order.
type cjsRecord struct {
	l *loader
	p *program
}

var _ sobek.CyclicModuleRecord = (*cjsRecord)(nil)

// Link does nothing: the module imports with require().
func (c *cjsRecord) Link() error { return nil }

// RequestedModules is empty: the module imports with require().
func (c *cjsRecord) RequestedModules() []string { return nil }

// InitializeEnvironment does nothing: the module was compiled when loaded.
func (c *cjsRecord) InitializeEnvironment() error { return nil }

// Instantiate returns the module's instance in rt, before its code runs.
func (c *cjsRecord) Instantiate(rt *sobek.Runtime) (sobek.CyclicModuleInstance, error) {
	return &cjsInstance{c: c, rt: rt}, nil
}

// Evaluate evaluates the module (and what it imports) in rt.
func (c *cjsRecord) Evaluate(rt *sobek.Runtime) *sobek.Promise {
	return rt.CyclicModuleRecordEvaluate(c, c.l.resolveRecord)
}

// ResolveExport binds any name to the module's exports object.
func (c *cjsRecord) ResolveExport(name string, _ ...sobek.ResolveSetElement) (*sobek.ResolvedBinding, bool) {
	return &sobek.ResolvedBinding{Module: c, BindingName: name}, false
}

// GetExportedNames is default (module.exports): a CommonJS module declares no names.
// Named imports still read module.exports' properties (ResolveExport).
func (c *cjsRecord) GetExportedNames(callback func([]string), _ ...sobek.ModuleRecord) bool {
	callback([]string{"default"})
	return true
}

// cjsInstance is a CommonJS-compiled module in one runtime.
type cjsInstance struct {
	c  *cjsRecord
	rt *sobek.Runtime
	exportsInstance
}

// HasTLA is false: a CommonJS-compiled module does not await at its top level.
func (i *cjsInstance) HasTLA() bool { return false }

// ExecuteModule runs the module's code in rt's VU (once per VU).
func (i *cjsInstance) ExecuteModule(rt *sobek.Runtime, _, _ func(any) error) (sobek.CyclicModuleInstance, error) {
	v, err := i.c.l.moduleVU(rt)
	if err != nil {
		return nil, err
	}
	exports, err := v.moduleExports(i.c.p)
	if err != nil {
		return nil, err
	}
	obj := rt.NewObject() // module.exports = null has no properties to import
	if !sobek.IsUndefined(exports) && !sobek.IsNull(exports) {
		obj = exports.ToObject(rt)
	}
	i.exportsInstance = exportsInstance{rt: rt, exports: obj, value: exports}
	return i, nil
}

// exportsInstance is a native or CommonJS module in one runtime: its exports object.
type exportsInstance struct {
	rt      *sobek.Runtime
	exports *sobek.Object
	value   sobek.Value // module.exports as it is (a CommonJS module may export a string)
	native  bool
}

// GetBindingValue reads the export name now (bindings are live). default is the
// default export of an ES module compiled as CommonJS, else module.exports.
func (e *exportsInstance) GetBindingValue(name string) sobek.Value {
	if name == "default" && !e.native {
		if es := e.exports.Get("__esModule"); es == nil || !es.ToBoolean() {
			return e.value
		}
	}
	if v := e.exports.Get(name); v != nil {
		return v
	}
	return sobek.Undefined()
}

// evaluateRecord links and evaluates rec (p's record: an ES module, or a CommonJS-
// compiled module whose imports await at their top level) in v as the root of a
// module graph, running the VU's event loop until the evaluation settles.
func (v *vu) evaluateRecord(p *program, rec sobek.CyclicModuleRecord) error {
	if err := v.linkNatives(rec, map[sobek.ModuleRecord]bool{}); err != nil {
		return err
	}
	if err := recovered(rec.Link); err != nil {
		return err
	}
	var prom *sobek.Promise
	err := recovered(func() error {
		prom = v.rt.CyclicModuleRecordEvaluate(rec, v.r.loader.resolveRecord)
		return nil
	})
	if err != nil {
		return err
	}
	v.handled(prom)
	if err := v.loop.runUntil(v.initCtx, func() bool { return prom.State() != sobek.PromiseStatePending }); err != nil {
		return err
	}
	switch prom.State() {
	case sobek.PromiseStatePending:
		return fmt.Errorf("%s: top-level await: %w (a require() of a module with top-level await cannot wait for it: import it)", p.name, errPending)
	case sobek.PromiseStateRejected:
		return rejectionError(prom.Result())
	}
	return v.loop.uncaught()
}

// evaluateESM evaluates the ES module p in v and returns its exports object.
func (v *vu) evaluateESM(p *program) (sobek.Value, error) {
	if err := v.evaluateRecord(p, p.rec); err != nil {
		return nil, err
	}
	return v.esmExports(p.rec), nil
}

// linkNatives instantiates, in v, every native module rec's graph imports, so that
// their export names are known before any namespace object of them is made.
func (v *vu) linkNatives(rec sobek.ModuleRecord, seen map[sobek.ModuleRecord]bool) error {
	if seen[rec] {
		return nil
	}
	seen[rec] = true
	switch r := rec.(type) {
	case *nativeRecord:
		_, err := v.nativeExports(r)
		return err
	case sobek.CyclicModuleRecord:
		for _, spec := range r.RequestedModules() {
			dep, err := v.r.loader.resolveRecord(r, spec)
			if err != nil {
				return err
			}
			if err := v.linkNatives(dep, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// esmExports is an object of rec's exports, read live through getters, with
// __esModule set, as a CommonJS-compiled importer (and the runner) reads exports.
func (v *vu) esmExports(rec *sobek.SourceTextModuleRecord) *sobek.Object {
	ns := v.rt.NamespaceObjectFor(rec)
	obj := v.rt.NewObject()
	_ = obj.DefineDataProperty("__esModule", v.rt.ToValue(true), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE)
	for _, k := range ns.Keys() {
		get := v.rt.ToValue(func(sobek.FunctionCall) sobek.Value { return ns.Get(k) })
		_ = obj.DefineAccessorProperty(k, get, nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE)
	}
	return obj
}

// recovered runs f, turning sobek's panics with an error (an import it cannot resolve
// while linking) into that error.
func recovered(f func() error) (err error) {
	defer func() {
		if x := recover(); x != nil {
			e, ok := x.(error)
			if !ok {
				panic(x)
			}
			err = e
		}
	}()
	return f()
}

// rejectionError is the error of a module evaluation rejected with val: the exception
// or Go error it carries, else the value as an uncaught rejection.
func rejectionError(val sobek.Value) error {
	if val != nil {
		if err, ok := val.Export().(error); ok {
			return err
		}
	}
	return newRejection(val)
}

// handled adds a handler to p: the runtime reads its rejection itself, so it is not
// an uncaught one.
func (v *vu) handled(p *sobek.Promise) {
	obj := v.rt.ToValue(p).ToObject(v.rt)
	if then, ok := sobek.AssertFunction(obj.Get("then")); ok {
		noop := v.rt.ToValue(func(sobek.FunctionCall) sobek.Value { return sobek.Undefined() })
		_, _ = then(obj, noop, noop)
	}
}
