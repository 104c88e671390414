package data_test

import (
	"context"
	"testing"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
)

// BenchmarkSharedArrayRead is the cost of reading one element (an object, parsed into
// a fresh copy) of a 10,000-element SharedArray; each iteration reads 100.
func BenchmarkSharedArrayRead(b *testing.B) {
	h := modulestest.Start(b, map[string]string{"script.js": `
import { SharedArray } from 'k6/data';
const users = new SharedArray('users', () => Array.from({ length: 10000 }, (_, i) => ({ id: i, name: 'user' + i, tags: ['a', 'b'] })));
export default function () {
  let n = 0;
  for (let i = 0; i < 100; i++) { n += users[(__ITER * 100 + i) % users.length].id; }
}
`})
	h.Env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	vu := h.VUs(b, 1)[0]
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		vu.Iterate(context.Background())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/read")
}
