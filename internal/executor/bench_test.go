package executor

import (
	"context"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
)

type nopVU struct{}

func (nopVU) Iterate(context.Context) bool { return true }

// BenchmarkArrivalDispatch measures the open-model dispatcher handing arrivals to
// idle VUs in batches: each op is 200 ms at 100,000 iterations/s.
func BenchmarkArrivalDispatch(b *testing.B) {
	var iters, dropped int64
	for b.Loop() {
		sc := scenario.Scenario{Name: "b", Executor: scenario.ConstantArrivalRate, Rate: 100000, Duration: 200 * time.Millisecond,
			PreAllocatedVUs: 50, MaxVUs: 50, GracefulStop: time.Second}
		e, err := New(Config{Scenario: &sc, Segment: pacer.Segment{}, NewVU: func(int64) VU { return nopVU{} }})
		if err != nil {
			b.Fatal(err)
		}
		e.Run(context.Background(), time.Now())
		st := e.Stats()
		iters += st.Iterations
		dropped += st.Dropped
	}
	b.ReportMetric(float64(iters)/float64(iters+dropped)*100, "%achieved")
}

// BenchmarkClosedLoop is the per-iteration overhead of a closed-model VU loop.
func BenchmarkClosedLoop(b *testing.B) {
	sc := scenario.Scenario{Name: "b", Executor: scenario.SharedIterations, VUs: 4, Iterations: b.N, MaxDuration: time.Hour}
	e, err := New(Config{Scenario: &sc, NewVU: func(int64) VU { return nopVU{} }})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	e.Run(context.Background(), time.Now())
}
