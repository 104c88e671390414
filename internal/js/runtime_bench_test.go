package js

import (
	"runtime"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/grafana/sobek"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

// The runtime benchmarks of docs/js-runtime.md: sobek runs the esbuild CommonJS output
// of a trivial script (a closed loop of `export default function () {}` calls, and the
// heap a runtime holds after its init context), beside sobek's native ES modules. (The
// goja comparison recorded there was dropped with goja from go.mod: one JavaScript
// engine.) BenchmarkVU* measure the path
// Tidemark runs: a VU of the Runner.

const trivialScript = "export const options = { vus: 1 };\nexport default function () {}\n"

func trivialCJS(tb testing.TB) string {
	tb.Helper()
	res := api.Transform(trivialScript, api.TransformOptions{Format: api.FormatCommonJS, Target: api.ESNext, Banner: wrapperHead, Footer: wrapperTail})
	require.Empty(tb, res.Errors)
	return string(res.Code)
}

// sobekDefault evaluates the CommonJS wrapper in a new sobek runtime and returns the
// runtime and its default export.
func sobekDefault(tb testing.TB, prg *sobek.Program) (*sobek.Runtime, sobek.Callable) {
	rt := sobek.New()
	w, err := rt.RunProgram(prg)
	require.NoError(tb, err)
	fn, _ := sobek.AssertFunction(w)
	mod, exp := rt.NewObject(), rt.NewObject()
	require.NoError(tb, mod.Set("exports", exp))
	_, err = fn(sobek.Undefined(), exp, sobek.Undefined(), mod, sobek.Undefined(), sobek.Undefined(), sobek.Undefined())
	require.NoError(tb, err)
	def, ok := sobek.AssertFunction(mod.Get("exports").ToObject(rt).Get("default"))
	require.True(tb, ok)
	return rt, def
}

// sobekESM instantiates the script as a native ES module in a new sobek runtime.
func sobekESM(tb testing.TB, m *sobek.SourceTextModuleRecord) (*sobek.Runtime, sobek.Callable) {
	rt := sobek.New()
	p := rt.CyclicModuleRecordEvaluate(m, func(any, string) (sobek.ModuleRecord, error) { return nil, nil })
	require.Equal(tb, sobek.PromiseStateFulfilled, p.State())
	def, ok := sobek.AssertFunction(rt.NamespaceObjectFor(m).Get("default"))
	require.True(tb, ok)
	return rt, def
}

func BenchmarkRuntimeIteration(b *testing.B) {
	src := trivialCJS(b)
	b.Run("sobek+esbuild", func(b *testing.B) {
		_, def := sobekDefault(b, sobek.MustCompile("s.js", src, false))
		for b.Loop() {
			if _, err := def(sobek.Undefined()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sobek-esm", func(b *testing.B) {
		m, err := sobek.ParseModule("s.js", trivialScript, nil)
		require.NoError(b, err)
		require.NoError(b, m.Link())
		_, def := sobekESM(b, m)
		for b.Loop() {
			if _, err := def(sobek.Undefined()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// heapPer returns the live heap per value mk makes, over n values.
func heapPer(n int, mk func() any) float64 {
	keep := make([]any, 0, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		keep = append(keep, mk())
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// BenchmarkRuntimeMemory reports the heap one runtime holds after its init context
// (bytes/runtime) and the time to make one (ns/op).
func BenchmarkRuntimeMemory(b *testing.B) {
	src := trivialCJS(b)
	const n = 200
	b.Run("sobek+esbuild", func(b *testing.B) {
		prg := sobek.MustCompile("s.js", src, false)
		for b.Loop() {
			b.ReportMetric(heapPer(n, func() any { rt, _ := sobekDefault(b, prg); return rt }), "bytes/runtime")
		}
	})
	b.Run("sobek-esm", func(b *testing.B) {
		m, err := sobek.ParseModule("s.js", trivialScript, nil)
		require.NoError(b, err)
		require.NoError(b, m.Link())
		for b.Loop() {
			b.ReportMetric(heapPer(n, func() any { rt, _ := sobekESM(b, m); return rt }), "bytes/runtime")
		}
	})
}

// seedScript is shaped like the seeds' scripts: k6 and k6/execution imported, a
// shared local module, options with stages and thresholds, check, group and sleep.
var seedScript = map[string]string{
	"script.js": `
import { check, group, sleep } from 'k6';
import exec from 'k6/execution';
import { orderRequest } from './common.js';
export const options = {
  stages: [{ duration: '30s', target: 50 }, { duration: '1m', target: 50 }],
  thresholds: { checks: ['rate>0.99'], iteration_duration: ['p(95)<500'] },
};
export default function () {
  const user = 'user' + Math.floor(Math.random() * 1e6);
  group('order', () => {
    const req = orderRequest(user, exec.vu.idInInstance);
    check(req, { 'has body': (r) => r.body.length > 0, 'has id': (r) => r.id > 0 });
  });
  sleep(0);
}
`,
	"common.js": `
export function orderRequest(user, id) {
  return { id: id, body: JSON.stringify({ user: user, items: [{ sku: 'A-1', qty: 2 }] }) };
}
`,
}

// BenchmarkVUIteration is one iteration of a VU as the executor runs it (the
// seed-shaped script: two modules, group, two checks, sleep(0)).
func BenchmarkVUIteration(b *testing.B) {
	for name, files := range map[string]map[string]string{
		"trivial": {"script.js": trivialScript},
		"seed":    seedScript,
	} {
		b.Run(name, func(b *testing.B) {
			h := start(b, files)
			h.env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
			v := h.vus(b, 1)[0]
			for b.Loop() {
				if !v.Iterate(bg()) {
					b.Fatal("iteration failed")
				}
			}
		})
	}
}

// BenchmarkVUMemory reports the heap per initialized VU of the seed-shaped script
// (bytes/VU, after one iteration) and the time to initialize one (ns/op over
// 500 VUs).
func BenchmarkVUMemory(b *testing.B) {
	h := start(b, seedScript)
	h.env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	newVU, err := h.r.Prepare(h.r.Test().Scenarios[0], h.env)
	require.NoError(b, err)
	const n = 500
	for b.Loop() {
		b.ReportMetric(heapPer(n, func() any {
			v := newVU(1)
			v.Iterate(bg())
			return v
		}), "bytes/VU")
	}
}
