package js

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/k6log"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/summary"
)

// TestLifecycle: the init context runs once for the options and once per VU; setup
// once, its result JSON-copied to every VU and to teardown; default per iteration.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
export const options = { vus: 2, iterations: 4, thresholds: { checks: ['rate==1'] } };
globalThis.inits = (globalThis.inits || 0) + 1;
let setups = 0;
export function setup() { setups++; return { n: 1, list: [1, 2], when: new Date(0), none: undefined }; }
export default function (data) {
  data.n++; // a VU's changes are its own
  check(data, {
    // As k6 copies it (Go's encoding/json of the exported value).
    'copied': (d) => d.n === 2 + __ITER && d.list.length === 2 && d.when === '1970-01-01T00:00:00Z' && d.none === null,
    'vu': () => __VU >= 1 && __VU <= 2,
    'env': () => __ENV.NAME === 'tidemark',
    'one init per runtime': () => globalThis.inits === 1,
  });
}
export function teardown(data) {
  if (setups !== 1 || data.n !== 1) throw new Error('teardown got ' + JSON.stringify(data) + ' after ' + setups + ' setups');
}
`})
	test := h.r.Test()
	require.Len(t, test.Scenarios, 1)
	require.Equal(t, scenario.SharedIterations, test.Scenarios[0].Executor)
	require.Equal(t, 2, test.Scenarios[0].VUs)
	require.Equal(t, 4, test.Scenarios[0].Iterations)
	require.Contains(t, test.Thresholds, "checks")
	// The engine's order: Prepare, then Setup (which initializes the scenario's two
	// VUs first, as k6), then the executor allocates the VUs.
	newVU, err := h.r.Prepare(test.Scenarios[0], h.env)
	require.NoError(t, err)
	require.NoError(t, h.r.Setup(bg()))
	_, _, inited, _ := h.r.Counts()
	require.Equal(t, int64(2), inited, "VUs are initialized before setup")
	vus := []executor.VU{newVU(1), newVU(2)}
	for range 2 {
		for _, v := range vus {
			require.True(t, v.Iterate(bg()))
		}
	}
	require.NoError(t, h.r.Teardown(bg()))
	checks := h.c.of("checks")
	require.Len(t, checks, 16)
	require.Len(t, h.c.of("iterations"), 4)
	for _, s := range checks {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	require.Len(t, h.c.of("iterations"), 4)
	// Four iterations; setup and teardown are not iterations (k6 v1.8.1 and later):
	// no iteration_duration of theirs pulls its min down to microseconds.
	var groups []string
	for _, s := range h.c.of("iteration_duration") {
		g, _ := s.Tags.Get("group")
		groups = append(groups, g)
	}
	require.Equal(t, []string{"", "", "", ""}, groups)
	c, in, n, _ := h.r.Counts()
	require.Equal(t, [3]int64{4, 0, 2}, [3]int64{c, in, n})
}

// TestTeardownSkippedWhenSetupThrows is k6's rule; the error names setup.
func TestTeardownSkippedWhenSetupThrows(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
export function setup() { throw new Error('no token'); }
export default function () {}
export function teardown() { throw new Error('teardown must not run'); }
`})
	h.vus(t, 1)
	err := h.r.Setup(bg())
	require.ErrorContains(t, err, "setup: ")
	require.ErrorContains(t, err, "script.js:2:33: Error: no token")
	require.Equal(t, exitcode.ScriptException, exitcode.Of(err))
	require.NoError(t, h.r.Teardown(bg()))
}

// TestExecFunctions: each scenario runs the function its exec names, with its env in
// __ENV.
func TestExecFunctions(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
import exec from 'k6/execution';
export const options = { scenarios: {
  browse: { executor: 'constant-vus', vus: 1, duration: '1s', exec: 'browse' },
  buy: { executor: 'per-vu-iterations', vus: 1, iterations: 1, exec: 'buy', startTime: '1s', env: { ROLE: 'buyer' } },
} };
export function browse() { check(exec.scenario.name, { browse: (n) => n === 'browse' && exec.scenario.iterationInInstance === __ITER && __ENV.ROLE === undefined }); }
export function buy() { check(exec.scenario.executor, { buy: (e) => e === 'per-vu-iterations' && __ENV.ROLE === 'buyer' && __ENV.NAME === 'tidemark' }); }
`})
	sc := h.r.Test().Scenarios
	require.Len(t, sc, 2)
	for _, s := range sc {
		newVU, err := h.r.Prepare(s, h.env)
		require.NoError(t, err)
		require.True(t, newVU(1).Iterate(bg()))
	}
	checks := h.c.of("checks")
	require.Len(t, checks, 2)
	for _, s := range checks {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
}

// TestModuleLoading: ES imports and require by relative path, TypeScript, https://
// imports from --modules.dir (relative imports inside them too), cycles; each module
// is compiled once for every VU.
func TestModuleLoading(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"script.ts": `
import { check } from 'k6';
import { add } from './lib/math.js';
import { mul } from './lib/mul.ts';
import { pad } from 'https://jslib.example.com/pad/1.0.0/index.js';
import { a } from './cycle/a.js';
const legacy = require('./lib/legacy.cjs');
export default function (): void {
  check(null, {
    esm: () => add(1, 2) === 3,
    ts: () => mul(2, 3) === 6,
    cjs: () => legacy.twice(4) === 8,
    remote: () => pad('7', 3) === '007',
    cycle: () => a() === 'ab',
  });
}
`,
		"lib/math.js":    "export const add = (x, y) => x + y;\n",
		"lib/mul.ts":     "export function mul(x: number, y: number): number { return x * y; }\n",
		"lib/legacy.cjs": "const m = require('./math.js');\nmodule.exports = { twice: (x) => m.add(x, x) };\n",
		"cycle/a.js":     "import { b } from './b.js';\nexport function a() { return 'a' + b(); }\n",
		"cycle/b.js":     "import { a } from './a.js';\nexport function b() { return 'b'; }\nexport const again = () => a();\n",
		"vendor/jslib.example.com/pad/1.0.0/index.js": "export { pad } from './pad.js';\n",
		"vendor/jslib.example.com/pad/1.0.0/pad.js":   "export function pad(s, n) { while (s.length < n) s = '0' + s; return s; }\n",
	})
	r, err := New(Config{Script: filepath.Join(dir, "script.ts"), ModulesDir: filepath.Join(dir, "vendor"), Logger: promslog.NewNopLogger()})
	require.NoError(t, err)
	h := &harness{r: r, c: &collector{}}
	pool := metrics.NewTagPool()
	h.env = envFor(r, h.c, pool)
	for _, v := range h.vus(t, 3) {
		require.True(t, v.Iterate(bg()))
	}
	checks := h.c.of("checks")
	require.Len(t, checks, 15)
	for _, s := range checks {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	// script, math, mul, legacy, cycle a and b, the remote index and pad: compiled once.
	require.Len(t, r.loader.programs, 8)
}

// TestChecksAndGroups: each check is one `checks` sample tagged check, group and the
// extra tags; group() nests as ::outer::inner and emits group_duration.
func TestChecksAndGroups(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check, group } from 'k6';
export default function () {
  const ok = check(200, { 'is 200': (s) => s === 200, 'is 201': (s) => s === 201 }, { kind: 'status' });
  if (ok) throw new Error('one check failed, check must return false');
  const v = group('outer', () => group('inner', () => { check(1, { nested: () => true }); return 7; }));
  if (v !== 7) throw new Error('group returns its function value');
}
`})
	require.True(t, h.vus(t, 1)[0].Iterate(bg()))
	checks := h.c.of("checks")
	require.Len(t, checks, 3)
	tag := func(s metrics.Sample, k string) string { v, _ := s.Tags.Get(k); return v }
	require.Equal(t, []string{"is 200", "status", "", "1"}, []string{tag(checks[0], "check"), tag(checks[0], "kind"), tag(checks[0], "group"), fmtVal(checks[0])})
	require.Equal(t, []string{"is 201", "0"}, []string{tag(checks[1], "check"), fmtVal(checks[1])})
	require.Equal(t, "::outer::inner", tag(checks[2], "group"))
	gd := h.c.of("group_duration")
	require.Len(t, gd, 2)
	require.Equal(t, "::outer::inner", tag(gd[0], "group"))
	require.Equal(t, "::outer", tag(gd[1], "group"))
	require.Equal(t, "default", tag(gd[1], "scenario"))
}

func fmtVal(s metrics.Sample) string {
	if s.Value == 1 {
		return "1"
	}
	return "0"
}

// TestIterationErrors: an exception or fail() ends that iteration as interrupted, counted
// in iterations and iteration_duration as k6 counts it, and the VU goes on;
// test.abort() stops the run with exit 108 and its iteration is not counted.
func TestIterationErrors(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { fail } from 'k6';
import exec from 'k6/execution';
export default function () {
  if (__ITER === 0) throw new Error('boom');
  if (__ITER === 1) fail('bad response');
  if (__ITER === 3) { try { exec.test.abort('enough'); } catch (e) { throw new Error('abort must not be catchable'); } }
}
`})
	ctx := h.r.Context(bg())
	v := h.vus(t, 1)[0]
	require.False(t, v.Iterate(ctx))
	require.False(t, v.Iterate(ctx))
	require.True(t, v.Iterate(ctx))
	require.NoError(t, h.r.Err())
	require.False(t, v.Iterate(ctx))
	require.Error(t, ctx.Err(), "abort cancels the run")
	require.EqualError(t, h.r.Err(), "test aborted: enough")
	require.Equal(t, exitcode.ScriptAborted, exitcode.Of(h.r.Err()))
	require.Len(t, h.c.of("iterations"), 3)
	require.Len(t, h.c.of("iteration_duration"), 3)
	c, in, _, _ := h.r.Counts()
	require.Equal(t, [2]int64{1, 3}, [2]int64{c, in})
}

// TestSleepHonoursCancel: sleep returns when the iteration's context ends, and the
// iteration is interrupted.
func TestSleepHonoursCancel(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { sleep } from 'k6';
export default function () { sleep(30); while (true) {} }
`})
	v := h.vus(t, 1)[0]
	ctx, cancel := context.WithTimeout(bg(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	require.False(t, v.Iterate(ctx))
	require.Less(t, time.Since(begin), 5*time.Second)
	require.Empty(t, h.c.of("iterations"))
}

// TestOpen: open() reads text or an ArrayBuffer relative to the script (or at
// import.meta.resolve's file:// URL), in the init context only.
func TestOpen(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{
		"script.js": `
import { check } from 'k6';
const text = open('./data/users.csv');
const bin = open('data/users.csv', 'b');
const viaMeta = open(import.meta.resolve('./data/users.csv'));
export default function () {
  let err = '';
  try { open('./data/users.csv'); } catch (e) { err = String(e); }
  check(null, {
    text: () => text === 'id\n1\n' && viaMeta === text,
    meta: () => import.meta.url.startsWith('file:///') && import.meta.url.endsWith('/script.js'),
    binary: () => bin instanceof ArrayBuffer && bin.byteLength === 5 && new Uint8Array(bin)[0] === 105,
    'init only': () => err.includes('open: only available in the init context'),
  });
}
`,
		"data/users.csv": "id\n1\n",
	})
	require.True(t, h.vus(t, 1)[0].Iterate(bg()))
	for _, s := range h.c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
}

// TestHandleSummary: handleSummary gets --summary-file's data and its files are
// written: stdout, stderr and paths.
func TestHandleSummary(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
export function setup() { return { token: 'abc' }; }
export default function () {}
export function handleSummary(data) {
  return { stdout: 'iterations: ' + data.metrics.iterations.values.count + ', token: ' + data.setup_data.token + '\n', stderr: 'e', [__ENV.OUT]: JSON.stringify(data.state) };
}
`})
	out := filepath.Join(t.TempDir(), "summary.json")
	h.r.cfg.Env = map[string]string{"OUT": out}
	h.r.aux = h.r.newVU(0) // __ENV is read when a runtime is made
	_, err := h.r.aux.evaluate(h.r.main)
	require.NoError(t, err)
	v := h.vus(t, 1)[0]
	require.NoError(t, h.r.Setup(bg()))
	require.True(t, v.Iterate(bg()))
	in := summaryInput(t, h)
	var stdout, stderr bytes.Buffer
	handled, err := h.r.HandleSummary(bg(), in, &stdout, &stderr)
	require.NoError(t, err)
	require.True(t, handled)
	require.Equal(t, "iterations: 1, token: abc\n", stdout.String(), "data.setup_data is setup()'s result, as in k6")
	require.Equal(t, "e", stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(b), "testRunDurationMs")
}

// TestConsole: console.* goes to the logger at its level, as k6 logs it: the text as
// the message, with source=console.
func TestConsole(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	dir := writeFiles(t, map[string]string{"script.js": "console.warn('init', {a: 1}, 2);\nexport default function () {}\n"})
	_, err := New(Config{Script: filepath.Join(dir, "script.js"), Logger: slog.New(k6log.New(k6log.Config{Writer: &buf}))})
	require.NoError(t, err)
	require.Contains(t, buf.String(), `level=warning msg="init {\"a\":1} 2" source=console`)
}

// TestConsoleOutput: with a console logger (--console-output) console.* goes there in
// k6's format, not to the run's logger.
func TestConsoleOutput(t *testing.T) {
	t.Parallel()
	var logBuf, consoleBuf bytes.Buffer
	dir := writeFiles(t, map[string]string{"script.js": "console.log('hello', 'world');\nexport default function () {}\n"})
	_, err := New(Config{Script: filepath.Join(dir, "script.js"), Logger: promslog.New(&promslog.Config{Writer: &logBuf}),
		Console: slog.New(k6log.New(k6log.Config{Writer: &consoleBuf}))})
	require.NoError(t, err)
	require.Empty(t, logBuf.String())
	require.Regexp(t, `^time="[^"]+" level=info msg="hello world" source=console\n$`, consoleBuf.String())
}

// TestK6Env: K6_* variables override the script's options and replace its scenarios.
func TestK6Env(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": "export const options = { scenarios: { a: { executor: 'constant-vus', duration: '1h' } } };\nexport default function () {}\n"})
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), Environ: map[string]string{"K6_VUS": "3", "K6_STAGES": "10s:5,20s:0"}, Logger: promslog.NewNopLogger()})
	require.NoError(t, err)
	sc := r.Test().Scenarios
	require.Len(t, sc, 1)
	require.Equal(t, scenario.RampingVUs, sc[0].Executor)
	require.Equal(t, 3, sc[0].StartVUs)
	require.Equal(t, []scenario.Stage{{Duration: 10 * time.Second, Target: 5}, {Duration: 20 * time.Second}}, sc[0].Stages)
}

func summaryInput(t *testing.T, h *harness) summary.Input {
	t.Helper()
	return summary.Input{Test: h.r.Test(), Registry: h.r.Registry(), Start: time.Now(), Duration: time.Second, Snapshot: snapshotOf(t, h)}
}

// TestLifecycleTimeouts: setup and teardown that overrun their limits exit 100 and
// 101, as k6.
func TestLifecycleTimeouts(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { sleep } from 'k6';
export const options = { setupTimeout: '50ms', teardownTimeout: '50ms' };
export function setup() { if (__ENV.SLOW_SETUP) sleep(10); }
export default function () {}
export function teardown() { sleep(10); }
`})
	h.vus(t, 1)
	require.NoError(t, h.r.Setup(bg()))
	begin := time.Now()
	err := h.r.Teardown(bg())
	require.EqualError(t, err, "teardown() did not finish within 50ms (teardownTimeout)")
	require.Equal(t, exitcode.TeardownTimeout, exitcode.Of(err))
	require.Less(t, time.Since(begin), 5*time.Second)

	h = start(t, map[string]string{"script.js": `
export const options = { setupTimeout: '50ms' };
export function setup() { while (true) {} }
export default function () {}
`})
	h.vus(t, 1)
	err = h.r.Setup(bg())
	require.EqualError(t, err, "setup() did not finish within 50ms (setupTimeout)")
	require.Equal(t, exitcode.SetupTimeout, exitcode.Of(err))
}

// TestAbortInSetup: test.abort() in setup stops the run (108) and still runs teardown.
func TestAbortInSetup(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
import exec from 'k6/execution';
export function setup() { exec.test.abort('target down'); }
export default function () {}
export function teardown(data) { check(data, { 'teardown ran': (d) => d === undefined }); }
`})
	h.vus(t, 1)
	err := h.r.Setup(bg())
	require.EqualError(t, err, "test aborted: target down")
	require.Equal(t, exitcode.ScriptAborted, exitcode.Of(err))
	require.Len(t, h.c.of("checks"), 1)
	g, _ := h.c.of("checks")[0].Tags.Get("group")
	require.Equal(t, "::teardown", g, "teardown's samples are in group ::teardown")
	_, hasScenario := h.c.of("checks")[0].Tags.Get("scenario")
	require.False(t, hasScenario)
	require.NoError(t, h.r.Teardown(bg()), "teardown runs once")
	require.Len(t, h.c.of("checks"), 1)
}

// TestExceptionLog: an exception in an iteration is logged with its JS stack at the
// script's positions, at most 5 a second with the count of the others.
func TestExceptionLog(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	dir := writeFiles(t, map[string]string{"script.js": "function inner() {\n  throw new TypeError('bad id');\n}\nexport default function () { inner(); }\n"})
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), Logger: promslog.New(&promslog.Config{Writer: &buf})})
	require.NoError(t, err)
	c := &collector{}
	h := &harness{r: r, c: c, env: envFor(r, c, metrics.NewTagPool())}
	v := h.vus(t, 1)[0]
	for range 7 {
		require.False(t, v.Iterate(bg()))
	}
	out := buf.String()
	p := filepath.Join(dir, "script.js")
	require.Contains(t, out, `msg="Exception in iteration" err="`+p+`:2:9: TypeError: bad id" vu=1 iter=0 stack="\tat inner (`+p+`:2:9)\n\tat default (`+p+`:4:36)\n" scenario=default`)
	require.Equal(t, 5, bytes.Count(buf.Bytes(), []byte("Exception in iteration")))
	require.NoError(t, r.Teardown(bg()))
	require.Contains(t, buf.String(), `msg="Exceptions in iterations not logged (at most 5 a second are)" count=2`)
}

// TestExecutionModule: vu.metrics.tags tag the VU's later samples (strings, across
// iterations), scenario.progress and test.options read the run, test.fail() marks it
// failed (exit 110) and goes on.
func TestExecutionModule(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
import exec from 'k6/execution';
export const options = { vus: 1, iterations: 4 };
export default function () {
  if (__ITER === 0) { exec.vu.metrics.tags.attempt = 1; exec.vu.metrics.tags.obj = { a: 1 }; }
  check(exec, {
    'tag as string': (e) => e.vu.metrics.tags.attempt === '1' && !('obj' in e.vu.metrics.tags),
    progress: (e) => e.scenario.progress === __ITER / 4,
    options: (e) => e.test.options.scenarios.default.executor === 'shared-iterations' && e.test.options.vus === undefined,
    active: (e) => e.instance.vusActive === 1,
    inTest: (e) => e.scenario.iterationInTest === __ITER && e.vu.idInTest === 1,
  });
  if (__ITER === 1) exec.test.fail('slow');
  let err = '';
  try { exec.vu.metrics.metadata; } catch (e) { err = String(e); }
  check(err, { metadata: (s) => s.includes('vu.metrics.metadata is not supported by Tidemark') });
}
`})
	v := h.vus(t, 1)[0]
	for range 2 {
		require.True(t, v.Iterate(bg()))
	}
	checks := h.c.of("checks")
	require.Len(t, checks, 12)
	for _, s := range checks {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
		a, _ := s.Tags.Get("attempt")
		require.Equal(t, "1", a, s.Tags.String())
	}
	require.EqualError(t, h.r.Failed(), "test marked as failed: slow")
	require.Equal(t, exitcode.MarkedAsFailed, exitcode.Of(h.r.Failed()))
	it := h.c.of("iterations")
	require.Len(t, it, 2, "test.fail() does not end the iteration")
	a, _ := it[1].Tags.Get("attempt")
	require.Equal(t, "1", a)
}

// TestConcurrentVUs makes and runs VUs from many goroutines at once, as executors do
// (race-checked with -race): programs, the loader and native modules are shared.
func TestConcurrentVUs(t *testing.T) {
	t.Parallel()
	h := start(t, seedScript)
	newVU, err := h.r.Prepare(h.r.Test().Scenarios[0], h.env)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			v := newVU(1)
			for range 10 {
				v.Iterate(bg())
			}
		})
	}
	wg.Wait()
	require.Len(t, h.c.of("iterations"), 160)
	_, _, vus, active := h.r.Counts()
	require.Equal(t, [2]int64{16, 0}, [2]int64{vus, active})
}

// TestVUInitFailsBeforeSetup: a VU whose init context throws (here only for VU 2)
// stops the run before setup, as k6 initializes VUs first; the error names the place.
func TestVUInitFailsBeforeSetup(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
export const options = { vus: 2, iterations: 2 };
if (__VU === 2) throw new Error('VU 2 has no account');
export function setup() { check(null, { 'setup must not run': () => false }); }
export default function () {}
`})
	_, err := h.r.Prepare(h.r.Test().Scenarios[0], h.env)
	require.NoError(t, err)
	err = h.r.Setup(h.r.Context(bg()))
	require.ErrorContains(t, err, "script.js:4:23: Error: VU 2 has no account")
	require.Equal(t, exitcode.ScriptException, exitcode.Of(err))
	require.Empty(t, h.c.of("checks"))
	require.NoError(t, h.r.Teardown(bg()), "no teardown after a failed init")
}

// TestAsyncFunctions: an async default function's rejection is an exception of its
// iteration, a promise nothing will settle is an error saying so, an async
// setup's value is its data, and group() rejects async functions as k6 does.
func TestAsyncFunctions(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	dir := writeFiles(t, map[string]string{"script.js": `
import { check, group } from 'k6';
export async function setup() { await null; return { token: 't' }; }
export default async function (data) {
  await null;
  if (__ITER === 0) throw new Error('rejected');
  if (__ITER === 1) await new Promise(() => {});
  let err = '';
  try { group('g', async () => {}); } catch (e) { err = String(e); }
  check(data, { token: (d) => d.token === 't', 'async group': () => err.includes('async functions are not supported') });
}
`})
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), Logger: promslog.New(&promslog.Config{Writer: &buf})})
	require.NoError(t, err)
	c := &collector{}
	newVU, err := r.Prepare(r.Test().Scenarios[0], envFor(r, c, nil))
	require.NoError(t, err)
	require.NoError(t, r.Setup(bg()))
	v := newVU(1)
	require.False(t, v.Iterate(bg()))
	require.False(t, v.Iterate(bg()))
	require.True(t, v.Iterate(bg()))
	require.Contains(t, buf.String(), `err="Uncaught (in promise) Error: rejected"`)
	require.Contains(t, buf.String(), `err="async function: its promise is still pending with nothing left on the event loop to settle it"`)
	require.Len(t, c.of("checks"), 2)
	for _, s := range c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
}

// TestTimers: setTimeout, setInterval and their clear functions (globals and
// k6/timers) run on the VU's event loop; the iteration waits for them, an exception in
// a callback is the iteration's, and timers of an interrupted iteration never fire
// into the next one.
func TestTimers(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
import { setTimeout as st } from 'k6/timers';
setTimeout(() => { throw new Error('an init timer must never fire'); }, 0);
export default async function () {
  if (__ITER === 2) { setTimeout(() => { throw new Error('timer boom'); }, 1); return; }
  if (__ITER === 3) { setTimeout(() => { throw new Error('late timer'); }, 200); return; }
  const order = [];
  const cleared = setTimeout(() => order.push('cleared'), 5);
  clearTimeout(cleared);
  await new Promise((resolve) => st(() => { order.push('timeout'); resolve(); }, 20));
  let n = 0;
  await new Promise((resolve) => { const id = setInterval(() => { n++; if (n === 3) { clearInterval(id); resolve(); } }, 1); });
  setTimeout((a, b) => order.push(a + b), 1, 'x', 'y');
  check(order, { 'order': (o) => o.join() === 'timeout' && n === 3 });
}
`})
	v := h.vus(t, 1)[0]
	require.True(t, v.Iterate(bg()))
	require.True(t, v.Iterate(bg()))
	require.False(t, v.Iterate(bg()), "an exception in a timer callback ends the iteration")
	ctx, cancel := context.WithTimeout(bg(), 20*time.Millisecond)
	defer cancel()
	require.False(t, v.Iterate(ctx), "interrupted while a timer is pending")
	time.Sleep(300 * time.Millisecond)
	require.True(t, v.Iterate(bg()), "the late timer was dropped with its iteration")
	for _, s := range h.c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	require.Len(t, h.c.of("checks"), 3)
}

// TestLifecycleOptions: noSetup and noTeardown skip them; minIterationDuration pads a
// short iteration.
func TestLifecycleOptions(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
export const options = { noSetup: true, noTeardown: true, minIterationDuration: '60ms', ext: { loadimpact: { projectID: 1 } } };
export function setup() { check(null, { 'setup runs': () => true }); }
export default function () {}
export function teardown() { check(null, { 'teardown runs': () => true }); }
`})
	v := h.vus(t, 1)[0]
	require.Equal(t, &modules.Options{MaxRedirects: 10, Batch: 20, BatchPerHost: 6}, v.(*vu).state.Options, "k6's defaults for modules")
	require.NoError(t, h.r.Setup(bg()))
	begin := time.Now()
	require.True(t, v.Iterate(bg()))
	require.GreaterOrEqual(t, time.Since(begin), 60*time.Millisecond)
	require.GreaterOrEqual(t, h.c.of("iteration_duration")[0].Value, 0.06)
	require.NoError(t, h.r.Teardown(bg()))
	require.Empty(t, h.c.of("checks"))
}

// TestSetupDataWithAFunction: k6 copies setup's result through Go's encoding/json, which
// has no form for a function: the run fails (exit 255) with k6's message, and no VU
// iterates on data that lost a field.
func TestSetupDataWithAFunction(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
export const options = { vus: 1, iterations: 1 };
export function setup() { return { f: function () {} }; }
export default function () {}
`})
	_, err := h.r.Prepare(h.r.Test().Scenarios[0], h.env)
	require.NoError(t, err)
	err = h.r.Setup(bg())
	require.ErrorContains(t, err, "error marshaling setup() data to JSON")
	require.Equal(t, exitcode.Generic, exitcode.Of(err))
}

// TestOptionNoModuleHonours: a script option only a module can honour (throw, k6/http's)
// is an error naming it when no registered module does, never ignored.
func TestOptionNoModuleHonours(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"script.js": "export const options = { throw: true };\nexport default function () {}\n"})
	_, err := New(Config{Script: filepath.Join(dir, "script.js"), Modules: modules.NewRegistry(nil), Logger: promslog.NewNopLogger()})
	require.EqualError(t, err, filepath.Join(dir, "script.js")+": throw: k6 option \"throw\" is not supported by Tidemark's modules yet; remove it")
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err))
	_, err = New(Config{Script: filepath.Join(dir, "script.js"), Logger: promslog.NewNopLogger()})
	require.NoError(t, err, "k6/http honours throw")
}

// TestOptionsBounds is issue 24's options that took the machine: 200,000 stages (7 MB of
// JSON; a million took 1.7 GB) and options nested 100 levels deep (100,000 took 53 s to
// decode) are configuration errors found on their JSON, before it is decoded.
func TestOptionsBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, options, want string }{
		{"too many stages", `{stages: Array.from({length: 200000}, () => ({duration: '1s', target: 10}))}`, "bytes of options, more than the 4194304 bytes options may take"},
		{"too deep", `(() => { let o = {}; for (let i = 0; i < 100; i++) o = {tags: o}; return o })()`, "options nested more than 32 levels deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"main.js": "export const options = " + tc.options + ";\nexport default function () {}\n"})
			_, err := load(t, dir, "main.js", nil)
			require.ErrorContains(t, err, tc.want)
			var cerr *ConfigError
			require.ErrorAs(t, err, &cerr, "a configuration error (exit code 104)")
		})
	}
}

// TestChecksInDeclaredOrder: the summary lists a call's checks in the order the script
// declares them, as k6 does, not by name; a check first seen later comes after them.
func TestChecksInDeclaredOrder(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check, group } from 'k6';
export default function () {
  check(200, { 'status is 200': () => true, 'body has id': () => true, 'a fast reply': () => true });
  group('g', () => check(1, { 'zz in group': () => true, 'aa in group': () => true }));
  if (__ITER === 1) check(1, { 'a late one': () => true });
}
`})
	v := h.vus(t, 1)[0]
	require.True(t, v.Iterate(bg()))
	require.True(t, v.Iterate(bg()))
	var b bytes.Buffer
	require.NoError(t, summary.WriteText(&b, summaryInput(t, h)))
	var got []string
	for l := range strings.SplitSeq(b.String(), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(l), "✓ "); ok {
			got = append(got, name)
		}
	}
	require.Equal(t, []string{"status is 200", "body has id", "a fast reply", "zz in group", "aa in group", "a late one"}, got)
}
