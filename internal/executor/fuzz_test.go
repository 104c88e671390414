package executor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/scenario"
)

// fuzzVUs bounds the VUs of a fuzzed scenario through the load-time memory check:
// few enough that the race detector's goroutine limit (8128) is never reached.
const fuzzVUs = 2000

// fuzzDeadline is how long a fuzzed scenario may run before its context is canceled,
// and fuzzBound how long after that Run may take to return (generous: a loaded
// 2-core machine, VUs that do nothing, so gracefulStop never has to expire).
const (
	fuzzDeadline = 100 * time.Millisecond
	fuzzBound    = 5 * time.Second
)

// idleVU does nothing for a millisecond per iteration, honouring ctx. A VU that
// returns at once would keep thousands of goroutines runnable, and the scheduler's
// latency to run the stop (seconds on two cores under the race detector) would be
// measured instead of the executor's.
type idleVU struct{}

func (idleVU) Iterate(ctx context.Context) bool {
	t := time.NewTimer(time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// fuzzDoc writes one scenario of the executor kind (modulo their number) with the
// fuzzed values.
func fuzzDoc(kind uint8, a, b int64, r1, r2 float64, d1, d2, d3, d4, d5 int64) string {
	dur := func(ns int64) string { return "'" + time.Duration(ns).String() + "'" }
	ex := scenario.Executors()[int(kind)%len(scenario.Executors())]
	var o []string
	switch ex {
	case scenario.SharedIterations, scenario.PerVUIterations:
		o = append(o, fmt.Sprintf("vus: %d", a), fmt.Sprintf("iterations: %d", b), "maxDuration: "+dur(d1))
	case scenario.ConstantVUs:
		o = append(o, fmt.Sprintf("vus: %d", a), "duration: "+dur(d1))
	case scenario.RampingVUs:
		o = append(o, fmt.Sprintf("startVUs: %d", a), "gracefulRampDown: "+dur(d5),
			fmt.Sprintf("stages: [{duration: %s, target: %g}, {duration: %s, target: %g}]", dur(d1), r1, dur(d2), r2))
	case scenario.ConstantArrivalRate:
		o = append(o, fmt.Sprintf("rate: %g", r1), "timeUnit: "+dur(d2), "duration: "+dur(d1),
			fmt.Sprintf("preAllocatedVUs: %d", a), fmt.Sprintf("maxVUs: %d", b))
	case scenario.RampingArrivalRate:
		o = append(o, fmt.Sprintf("startRate: %g", r1), "timeUnit: "+dur(d5),
			fmt.Sprintf("preAllocatedVUs: %d", a), fmt.Sprintf("maxVUs: %d", b),
			fmt.Sprintf("stages: [{duration: %s, target: %g}, {duration: %s, target: %g}]", dur(d1), r1, dur(d2), r2))
	case scenario.ExternallyControlled:
		o = append(o, fmt.Sprintf("vus: %d", a), fmt.Sprintf("maxVUs: %d", b), "duration: "+dur(d1))
	}
	o = append(o, "startTime: "+dur(d3))
	if ex != scenario.ExternallyControlled { // it takes no gracefulStop
		o = append(o, "gracefulStop: "+dur(d4))
	}
	return fmt.Sprintf("scenarios:\n  f:\n    executor: %s\n    %s\nflow: [{url: 'http://127.0.0.1:1/'}]\n", ex, strings.Join(o, "\n    "))
}

// FuzzExecutorOptions loads a scenario with extreme option values and, when it
// validates, runs it with VUs that do nothing and a short deadline: Run must return
// within fuzzBound of the deadline, whatever the values (issue 12: runaway inputs
// end).
func FuzzExecutorOptions(f *testing.F) {
	const s, ms = int64(time.Second), int64(time.Millisecond)
	for _, seed := range []struct {
		kind               uint8
		a, b               int64
		r1, r2             float64
		d1, d2, d3, d4, d5 int64
	}{
		{kind: 0, a: 2, b: 10, d1: s, d4: s},
		{kind: 1, a: 3, b: 1 << 40, d1: 1 << 62, d4: 1 << 62},
		{kind: 2, a: 1000, d1: 1 << 62, d4: s},
		{kind: 3, a: 0, r1: 1000, r2: 0, d1: 50 * ms, d2: 50 * ms, d4: s, d5: 1 << 62},
		{kind: 4, a: 1, b: 4, r1: 1e7, d1: 200 * ms, d2: s, d4: s},
		{kind: 4, a: 1, b: 1, r1: 1e9, d1: s, d2: s, d4: 30 * s},
		{kind: 4, a: 1, b: 2, r1: 1, d1: s, d2: 1, d4: s},
		{kind: 5, a: 0, b: 2000, r1: 1e7, r2: 0, d1: 1 << 62, d2: 0, d4: s, d5: s},
		{kind: 6, a: 2, b: 4, d1: 0},
		{kind: 6, a: 1000, b: 1 << 40, d1: 1 << 62, d3: 1 << 62},
		{kind: 5, a: 1, b: 1, r1: 5e-324, r2: 1e300, d1: 1, d2: 1, d3: 1 << 62, d4: 1 << 62, d5: 1},
	} {
		f.Add(seed.kind, seed.a, seed.b, seed.r1, seed.r2, seed.d1, seed.d2, seed.d3, seed.d4, seed.d5)
	}
	limits := scenario.Limits{MemoryAvailable: fuzzVUs * scenario.BytesPerVU}
	f.Fuzz(func(t *testing.T, kind uint8, a, b int64, r1, r2 float64, d1, d2, d3, d4, d5 int64) {
		doc := fuzzDoc(kind, a, b, r1, r2, d1, d2, d3, d4, d5)
		tst, err := limits.Parse("f.yaml", []byte(doc))
		if err != nil {
			return
		}
		for _, sc := range tst.Scenarios {
			e, err := New(Config{Scenario: sc, NewVU: func(int64) VU { return idleVU{} }})
			if err != nil {
				continue
			}
			if e.Duration() < 0 || e.MaxEnd() < e.StartTime() || e.MaxEnd() < e.Duration() {
				t.Fatalf("duration %s, maxEnd %s: an overflow:\n%s", e.Duration(), e.MaxEnd(), doc)
			}
			ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
			done := make(chan struct{})
			go func() {
				defer close(done)
				e.Run(ctx, time.Now())
			}()
			select {
			case <-done:
			case <-time.After(fuzzDeadline + fuzzBound):
				cancel()
				t.Fatalf("Run did not return within %s of its deadline:\n%s", fuzzBound, doc)
			}
			cancel()
			if st := e.Stats(); st.VUsMax > fuzzVUs {
				t.Fatalf("%d VUs allocated, more than the %d the memory check allows:\n%s", st.VUsMax, fuzzVUs, doc)
			}
		}
	})
}
