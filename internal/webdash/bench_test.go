package webdash

import (
	"testing"
)

// BenchmarkStateFullHistory is the cost of one update with an open page once the
// history is full: drawing maxPoints points on every chart.
func BenchmarkStateFullHistory(b *testing.B) {
	d, r, tick := newDashboard(b, DefaultConfig)
	for range maxPoints {
		r.requests(3, 1, 0.02)
		tick()
	}
	b.ResetTimer()
	for b.Loop() {
		d.mu.Lock()
		d.cached = nil
		d.mu.Unlock()
		s, err := d.State()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(s.Figure)), "svg-bytes")
	}
}
