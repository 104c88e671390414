package js

import (
	"bytes"
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
