package js

import (
	"bytes"
	"maps"
	"path/filepath"
	"testing"

	"github.com/grafana/sobek"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// asyncModule is a native module whose later(value) returns a promise settled from
// another goroutine through the VU's event loop (modules.LoopOf), as an asynchronous
// API callable in the init context does.
func asyncModule() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		later := func(call sobek.FunctionCall) sobek.Value {
			rt := vu.Runtime()
			val := call.Argument(0).Export()
			p, resolve, _ := rt.NewPromise()
			done := modules.LoopOf(vu).RegisterCallback()
			go done(func() error { return resolve(val) })
			return rt.ToValue(p)
		}
		return modules.Exports{Named: map[string]any{"later": later}}, nil
	})
}

// esmHarness loads dir/main with the default modules and test/async, and prepares
// its first scenario; the log goes to buf.
func esmHarness(t *testing.T, dir, main string, buf *bytes.Buffer) (*harness, error) {
	t.Helper()
	reg := DefaultModules()
	require.NoError(t, reg.Register("test/async", asyncModule()))
	r, err := New(Config{Script: filepath.Join(dir, main), Modules: reg, Logger: promslog.New(&promslog.Config{Writer: buf})})
	if err != nil {
		return nil, err
	}
	c := &collector{}
	return &harness{r: r, c: c, env: envFor(r, c, nil)}, nil
}

// requireChecksPass asserts n checks, all passed.
func requireChecksPass(t *testing.T, h *harness, n int) {
	t.Helper()
	checks := h.c.of("checks")
	for _, s := range checks {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	require.Len(t, checks, n)
}

// esmFiles is a script whose modules await at their top level: over a timer and over
// a native module's promise, in .js and .ts, imported by the main module, by a module
// compiled as CommonJS (no top-level await) and with import * as; live bindings.
var esmFiles = map[string]string{
	"main.js": `
import { check } from 'k6';
import { later } from 'test/async';
import { ready, count, inc } from './lib/timer.js';
import { typed } from './lib/typed.ts';
import { viaCJS } from './lib/plain.js';
import * as ns from './lib/timer.js';
import * as k6ns from 'k6';

export const options = { iterations: 2, tags: { from: await later('options') } };
const fromNative = await later(42);
const fromTimer = await new Promise((resolve) => setTimeout(() => resolve('timer'), 5));
export function setup() { return { s: fromNative }; }
export default async function (data) {
  const before = count;
  inc();
  const v = await later('iteration');
  check(null, {
    'native promise in init': () => fromNative === 42 && data.s === 42,
    'timer in init': () => fromTimer === 'timer',
    'imported module awaited first': () => ready === 'lib' && typed === 'ts:7',
    'live binding': () => count === before + 1 && ns.count === count,
    'cjs-compiled importer': () => viaCJS === 'lib/7',
    'native namespace': () => typeof k6ns.check === 'function' && k6ns.default.check === check,
    'async iteration': () => v === 'iteration',
    'import.meta.url': () => import.meta.url.endsWith('/main.js') && import.meta.resolve('./x.csv').endsWith('/x.csv'),
  });
}
`,
	"lib/timer.js": `
export let count = 0;
export function inc() { count++; }
export const ready = await new Promise((resolve) => setTimeout(() => resolve('lib'), 1));
`,
	"lib/typed.ts": `
import { later } from 'test/async';
const n: number = await later(7);
export const typed: string = 'ts:' + n;
`,
	"lib/plain.js": `
import { ready } from './timer.js';
import { typed } from './typed.ts';
export const viaCJS = ready + '/' + typed.slice(3);
`,
}

// TestTopLevelAwait: top-level await waits on the VU's event loop in the init
// context (timers, a native module's promise) in the main module and in imported
// .js and .ts modules; their exports are live bindings; options, setup and the
// async default function come from the module as from any other.
func TestTopLevelAwait(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	h, err := esmHarness(t, writeFiles(t, esmFiles), "main.js", &buf)
	require.NoError(t, err, buf.String())
	require.Equal(t, "options", h.r.script.Test.Tags["from"])
	vus := h.vus(t, 2)
	require.NoError(t, h.r.Setup(bg()))
	for _, v := range vus {
		require.True(t, v.Iterate(bg()), buf.String())
		require.True(t, v.Iterate(bg()), buf.String())
	}
	requireChecksPass(t, h, 8*4)
}

// TestTopLevelAwaitImportedOnly: a main module without top-level await (compiled as
// CommonJS) that imports one, in TypeScript, still waits for it before its own code
// runs; a function of the awaiting module keeps its .ts positions in stack traces.
func TestTopLevelAwaitImportedOnly(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	dir := writeFiles(t, map[string]string{
		"main.ts": `
import { check } from 'k6';
import { value, fail } from './lib.ts';
const seen: string = value;
export default function () {
  check(null, { 'awaited before main ran': () => seen === 'late' });
  if (__ITER === 1) fail();
}
`,
		"lib.ts": `
export const value: string = await new Promise<string>((resolve) => setTimeout(() => resolve('late'), 2));
export function fail(): void {
  throw new Error('from lib');
}
`,
	})
	h, err := esmHarness(t, dir, "main.ts", &buf)
	require.NoError(t, err, buf.String())
	v := h.vus(t, 1)[0]
	require.True(t, v.Iterate(bg()), buf.String())
	require.False(t, v.Iterate(bg()))
	requireChecksPass(t, h, 2)
	require.Contains(t, buf.String(), "lib.ts:4:9")
}

// TestTopLevelAwaitErrors: an exception after a top-level await fails the init with
// the file, line and column of the .ts source; an import of a module that does not
// exist names it.
func TestTopLevelAwaitErrors(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"main.js": "import { x } from './lib.ts';\nexport default function () {}\n",
		"lib.ts": `
type T = { a: number };
const t: T = await Promise.resolve({ a: 1 });
export const x: number = t.a;
if (x === 1) {
  throw new Error('init boom');
}
`,
		"missing.js": "await null;\nimport { y } from './nope.js';\nexport default function () {}\n",
		"throws.js":  "await null;\nexport default function () {}\nif (true) {\n    throw new Error('js boom');\n}\n",
	})
	var buf bytes.Buffer
	_, err := esmHarness(t, dir, "main.js", &buf)
	require.ErrorContains(t, err, "init boom")
	require.ErrorContains(t, err, "lib.ts:6:9")
	_, err = esmHarness(t, dir, "throws.js", &buf)
	require.ErrorContains(t, err, "throws.js:4:11: Error: js boom")
	_, err = esmHarness(t, dir, "missing.js", &buf)
	require.ErrorContains(t, err, "nope.js")
	require.ErrorContains(t, err, "file does not exist")
}

// TestUncaughtRejections: a promise rejected with no handler fails its iteration with
// k6's "Uncaught (in promise)" error, also when the function itself returned; one
// handled in the same job does not; the next iteration starts clean.
func TestUncaughtRejections(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	dir := writeFiles(t, map[string]string{"main.js": `
import { check } from 'k6';
export default function () {
  if (__ITER === 0) { Promise.reject(new Error('lost')); return; }
  if (__ITER === 1) { setTimeout(() => { Promise.reject('in a timer'); }, 1); return; }
  const p = Promise.reject(new Error('caught'));
  p.catch(() => {});
  check(null, { clean: () => true });
}
`})
	h, err := esmHarness(t, dir, "main.js", &buf)
	require.NoError(t, err)
	v := h.vus(t, 1)[0]
	require.False(t, v.Iterate(bg()))
	require.False(t, v.Iterate(bg()))
	require.True(t, v.Iterate(bg()), buf.String())
	require.Contains(t, buf.String(), `err="Uncaught (in promise) Error: lost"`)
	require.Contains(t, buf.String(), `err="Uncaught (in promise) in a timer"`)
	require.NotContains(t, buf.String(), "caught\"")
	requireChecksPass(t, h, 1)
	require.Len(t, h.c.of("iterations"), 3, "an iteration an uncaught rejection failed still counts, as an exception's does")
}

// TestTimerOrder: timers fire in the order they are due and, due together, in the
// order they were set, whatever the order their Go timers fire in; microtasks run
// between them.
func TestTimerOrder(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	dir := writeFiles(t, map[string]string{"main.js": `
import { check } from 'k6';
import { setTimeout as st, clearInterval as ci, setInterval as si } from 'k6/timers';
export default async function () {
  const order = [];
  await new Promise((resolve) => {
    setTimeout(() => order.push('early'), 1);
    for (let i = 0; i < 20; i++) st(() => { order.push(i); Promise.resolve().then(() => order.push('m' + i)); }, 3);
    let n = 0;
    const id = si(() => { if (++n === 2) { ci(id); } }, 1);
    setTimeout(resolve, 10);
  });
  const want = ['early'];
  for (let i = 0; i < 20; i++) want.push(i, 'm' + i);
  check(order, { ordered: (o) => o.join() === want.join() });
}
`})
	h, err := esmHarness(t, dir, "main.js", &buf)
	require.NoError(t, err)
	v := h.vus(t, 1)[0]
	for range 10 {
		require.True(t, v.Iterate(bg()), buf.String())
	}
	requireChecksPass(t, h, 10)
}

// TestLiveBindingsCommonJS: imports are live bindings; require() in an ES module is
// relative to that module; a require() of a module with top-level await from running
// code is an init error saying to import it.
func TestLiveBindingsCommonJS(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"main.js": `
import { check } from 'k6';
import { count, inc, fromSub } from './counter.js';
import { same } from './sub/c.js';
export default function () {
  const before = count;
  inc();
  check(null, { live: () => count === before + 1, 'require relative to its module': () => fromSub === 'relative', 'default of a CommonJS string': () => same === true });
}
`,
		"counter.js": "export let count = 0;\nexport function inc() { count++; }\nexport const fromSub = require('./sub/a.js').word;\n",
		"sub/a.js":   "export const word = require('./b.js');\n",
		"sub/b.js":   "module.exports = 'relative';\n",
		"sub/c.js":   "import b from './b.js';\nexport const same = b === 'relative';\n",
		"req.js":     "const lib = require('./tla.js');\nexport default function () {}\n",
		"tla.js":     "export const v = await new Promise((r) => setTimeout(() => r(1), 1));\n",
	})
	var buf bytes.Buffer
	h, err := esmHarness(t, dir, "main.js", &buf)
	require.NoError(t, err)
	v := h.vus(t, 1)[0]
	require.True(t, v.Iterate(bg()), buf.String())
	require.True(t, v.Iterate(bg()))
	requireChecksPass(t, h, 6)
	_, err = esmHarness(t, dir, "req.js", &buf)
	require.ErrorContains(t, err, "import it")
}

// TestModuleGraphConcurrentInit: the VUs a scenario starts with initialize in
// parallel (before setup), linking and evaluating the same module records at once.
func TestModuleGraphConcurrentInit(t *testing.T) {
	t.Parallel()
	files := maps.Clone(esmFiles)
	files["main.js"] = `import { check } from 'k6';
import * as http from 'k6/http';
import { later } from 'test/async';
import { ready, count, inc } from './lib/timer.js';
import { viaCJS } from './lib/plain.js';
export const options = { vus: 8, iterations: 8 };
const n = await later(3);
export default function () {
  inc();
  check(null, { graph: () => n === 3 && ready === 'lib' && viaCJS === 'lib/7' && count >= 1 && typeof http.get === 'function' });
}
`
	var buf bytes.Buffer
	h, err := esmHarness(t, writeFiles(t, files), "main.js", &buf)
	require.NoError(t, err, buf.String())
	newVU, err := h.r.Prepare(h.r.Test().Scenarios[0], h.env)
	require.NoError(t, err)
	require.NoError(t, h.r.Setup(bg()), buf.String())
	for i := range 8 {
		require.True(t, newVU(int64(i+1)).Iterate(bg()), buf.String())
	}
	requireChecksPass(t, h, 8)
}
