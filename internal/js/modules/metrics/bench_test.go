package metrics_test

import (
	"context"
	"testing"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	tm "github.com/tidemark/tidemark/internal/metrics"
)

// BenchmarkAdd is the cost of one metric.add in a VU's iteration, untagged and with
// one tag of its own (the loop of 100 adds runs per iteration).
func BenchmarkAdd(b *testing.B) {
	for _, bc := range []struct{ name, call string }{
		{"untagged", "c.add(1)"},
		{"tagged", "c.add(1, { kind: 'big' })"},
		{"time trend", "t.add(12.5)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := modulestest.Start(b, map[string]string{"script.js": `
import { Counter, Trend } from 'k6/metrics';
const c = new Counter('cc');
const t = new Trend('tt', true);
export default function () { for (let i = 0; i < 100; i++) { ` + bc.call + `; } }
`})
			h.Env.Pusher = tm.PusherFunc(func([]tm.Sample) {}) // The engine's pusher does not keep samples either.
			vu := h.VUs(b, 1)[0]
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				vu.Iterate(context.Background())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/add")
		})
	}
}
