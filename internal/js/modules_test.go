package js

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js/modules"
)

// TestRegistry: exact names, longest prefix for names ending in "/", no duplicates.
func TestRegistry(t *testing.T) {
	t.Parallel()
	a := modules.Exports{Named: map[string]any{"who": "a"}}
	b := modules.Exports{Named: map[string]any{"who": "b"}}
	fn := func(e modules.Exports) modules.Module {
		return modules.ModuleFunc(func(modules.VU) (modules.Instance, error) { return e, nil })
	}
	r := modules.NewRegistry(map[string]modules.Module{"k6/x": fn(a), "https://jslib.example/": fn(a), "https://jslib.example/utils/": fn(b)})
	for spec, want := range map[string]bool{"k6/x": true, "k6/x/y": false, "https://jslib.example/a.js": true, "https://jslib.example/utils/1.0/index.js": true, "https://other/": false} {
		_, ok := r.Lookup(spec)
		require.Equal(t, want, ok, spec)
	}
	m, _ := r.Lookup("https://jslib.example/utils/1.0/index.js")
	inst, err := m.NewInstance(nil)
	require.NoError(t, err)
	require.Equal(t, "b", inst.Exports().Named["who"], "the longest prefix wins")
	require.EqualError(t, r.Register("k6/x", fn(b)), `register module "k6/x": already registered`)
	require.Equal(t, []string{"https://jslib.example/", "https://jslib.example/utils/", "k6/x"}, r.Names())
}

// TestNativeModules: a native module gets one instance per runtime, in the init
// context, with named and default exports; a vendored file in --modules.dir wins over
// a native module registered for its URL.
func TestNativeModules(t *testing.T) {
	t.Parallel()
	var inits []bool
	mods := DefaultModules()
	require.NoError(t, mods.Register("k6/x/test", modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		inits = append(inits, vu.State() == nil)
		return modules.Exports{Default: "the default", Named: map[string]any{"twice": func(x int) int { return 2 * x }}}, nil
	})))
	require.NoError(t, mods.Register("https://jslib.example/", modules.ModuleFunc(func(modules.VU) (modules.Instance, error) {
		return modules.Exports{Named: map[string]any{"from": "native"}}, nil
	})))
	dir := writeFiles(t, map[string]string{
		"script.js": `
import { check } from 'k6';
import def, { twice } from 'k6/x/test';
import * as all from 'k6/x/test';
import { from as native } from 'https://jslib.example/native/1.0/index.js';
import { from as vendored } from 'https://jslib.example/vendored/1.0/index.js';
const again = require('k6/x/test');
export default function () {
  check(null, {
    named: () => twice(21) === 42 && all.twice(1) === 2 && again.twice(2) === 4,
    default: () => def === 'the default',
    prefix: () => native === 'native' && vendored === 'file',
  });
}
`,
		"vendor/jslib.example/vendored/1.0/index.js": "export const from = 'file';\n",
	})
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), ModulesDir: filepath.Join(dir, "vendor"), Modules: mods, Logger: promslog.NewNopLogger()})
	require.NoError(t, err)
	c := &collector{}
	h := &harness{r: r, c: c, env: envFor(r, c, nil)}
	for _, v := range h.vus(t, 2) {
		require.True(t, v.Iterate(bg()))
	}
	require.Equal(t, []bool{true, true, true}, inits, "one instance per runtime (VU 0 and two VUs), in the init context")
	for _, s := range c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	require.Len(t, c.of("checks"), 6)
}

// TestK6Module: sleep takes seconds, randomSeed makes Math.random repeatable, fail()
// ends the iteration with its message, group names are checked.
func TestK6Module(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check, group, sleep, fail, randomSeed } from 'k6';
export default function () {
  const t0 = Date.now();
  sleep(0.05);
  randomSeed(7);
  const a = [Math.random(), Math.random()];
  randomSeed(7);
  const b = [Math.random(), Math.random()];
  let groupErr = '';
  try { group('a::b', () => {}); } catch (e) { groupErr = String(e); }
  check(null, {
    'sleep is in seconds': () => Date.now() - t0 >= 45 && Date.now() - t0 < 1000,
    'randomSeed repeats': () => a[0] === b[0] && a[1] === b[1] && a[0] !== a[1],
    'group name': () => groupErr.includes("must not contain '::'"),
  });
  if (__ITER === 1) fail('no session');
}
`})
	v := h.vus(t, 1)[0]
	require.True(t, v.Iterate(bg()))
	require.False(t, v.Iterate(bg()), "fail() interrupts the iteration")
	for _, s := range h.c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	require.Len(t, h.c.of("checks"), 6)
}

// TestSetupInterrupted: SIGINT during setup is exit 105, not a script error.
func TestSetupInterrupted(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": "import { sleep } from 'k6';\nexport function setup() { sleep(30); }\nexport default function () {}\n"})
	h.vus(t, 1)
	ctx, cancel := context.WithTimeout(bg(), 50*time.Millisecond)
	defer cancel()
	err := h.r.Setup(ctx)
	require.ErrorContains(t, err, "setup() interrupted")
	require.Equal(t, exitcode.ExternalAbort, exitcode.Of(err))
}

// optionModule is a module that honours k6's throw option.
type optionModule struct{ modules.ModuleFunc }

func (optionModule) ReadsOptions() []string { return []string{"throw"} }

// TestModuleOptions: a script option reaches modules through State.Options once a
// registered module says it honours it (modules.OptionReader).
func TestModuleOptions(t *testing.T) {
	t.Parallel()
	mods := DefaultModules()
	require.NoError(t, mods.Register("k6/x/batcher", optionModule{modules.ModuleFunc(func(modules.VU) (modules.Instance, error) {
		return modules.Exports{}, nil
	})}))
	dir := writeFiles(t, map[string]string{"script.js": "export const options = { throw: true, batch: 5 };\nexport default function () {}\n"})
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), Modules: mods, Logger: promslog.NewNopLogger()})
	require.NoError(t, err)
	newVU, err := r.Prepare(r.Test().Scenarios[0], envFor(r, &collector{}, nil))
	require.NoError(t, err)
	o := newVU(1).(*vu).state.Options
	require.Equal(t, [2]any{true, 5}, [2]any{o.Throw, o.Batch})
}

// TestOnIterationEnd: a module's end-of-iteration function runs after every
// iteration, complete or not, and after setup.
func TestOnIterationEnd(t *testing.T) {
	t.Parallel()
	var ends []bool
	mods := DefaultModules()
	require.NoError(t, mods.Register("k6/x/ends", modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		registered := false
		return modules.Exports{Named: map[string]any{"touch": func() {
			if st := vu.State(); st != nil && !registered {
				registered = true
				st.OnIterationEnd(func(complete bool) { ends = append(ends, complete) })
			}
		}}}, nil
	})))
	dir := writeFiles(t, map[string]string{"script.js": `
import { touch } from 'k6/x/ends';
export function setup() { touch(); }
export default function () { touch(); if (__ITER === 1) throw new Error('x'); }
`})
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), Modules: mods, Logger: promslog.NewNopLogger()})
	require.NoError(t, err)
	newVU, err := r.Prepare(r.Test().Scenarios[0], envFor(r, &collector{}, nil))
	require.NoError(t, err)
	require.NoError(t, r.Setup(bg()))
	v := newVU(1)
	require.True(t, v.Iterate(bg()))
	require.False(t, v.Iterate(bg()))
	require.Equal(t, []bool{true, true, false}, ends)
}
