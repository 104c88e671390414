package pacer

import (
	"testing"
	"time"
)

// BenchmarkRateCount is the dispatcher's per-wake-up question: how many arrivals are
// due by now.
func BenchmarkRateCount(b *testing.B) {
	r := NewRampingRate(0, time.Second, []Stage{{time.Minute, 20000}, {time.Minute, 20000}, {time.Minute, 0}})
	var t time.Duration
	for b.Loop() {
		t = (t + 997*time.Microsecond) % (3 * time.Minute)
		_ = r.Count(t)
	}
}

// BenchmarkStripedAt is the time of the next arrival under an execution segment.
func BenchmarkStripedAt(b *testing.B) {
	s := Striped{Rate: NewConstantRate(20000, time.Second, time.Minute), Seg: mustSegment("1/3:2/3", "")}
	var i int64
	for b.Loop() {
		i = (i + 1) % s.Total()
		_ = s.At(i)
	}
}
