package netgrpc_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
)

// benchScript invokes the echo service's unary method once per iteration, with k6's
// default params and the check most scripts make.
const benchScript = `
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'echo.proto');
export default () => {
  if (__ITER === 0) client.connect('ADDR', { plaintext: true });
  const r = client.invoke('tidemark.echo.Echo/Echo', { text: 'hello', count: 7 });
  check(r, { 'ok': (r) => r.status === grpc.StatusOK });
}`

// BenchmarkUnaryInvoke is one VU's iteration of a unary invoke against the loopback
// gRPC target: invokes/s is 1e9 / ns/op; allocations are per invoke.
func BenchmarkUnaryInvoke(b *testing.B) {
	addr := startTarget(b)
	files := protos(b)
	files["script.js"] = strings.ReplaceAll(benchScript, "ADDR", addr)
	h := modulestest.Start(b, files)
	h.Env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	vu := h.VUs(b, 1)[0]
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if !vu.Iterate(ctx) {
			b.Fatal("the iteration did not complete")
		}
	}
}

// BenchmarkVUMemory is the heap one VU of the gRPC script holds after its first
// iteration (init with load of the .proto, connect, one invoke): bytes/VU over 50 VUs.
func BenchmarkVUMemory(b *testing.B) {
	addr := startTarget(b)
	files := protos(b)
	files["script.js"] = strings.ReplaceAll(benchScript, "ADDR", addr)
	h := modulestest.Start(b, files)
	h.Env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	const n = 50
	ctx := context.Background()
	var perVU float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		vus := h.VUs(b, n)
		for _, vu := range vus {
			if !vu.Iterate(ctx) {
				b.Fatal("the iteration did not complete")
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perVU = float64(after.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc)) / n
		keep(vus)
	}
	b.ReportMetric(perVU, "heap-bytes/VU")
}

// keep keeps the VUs alive until here.
func keep(vus []executor.VU) { runtime.KeepAlive(vus) }
