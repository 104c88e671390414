package executor

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// runArrivalRate is constant-arrival-rate and ramping-arrival-rate: an open model.
// One dispatcher computes how many arrivals are due from the elapsed time, hands each
// to an idle VU, allocates VUs up to maxVUs when none is idle, and drops the arrival
// when the pool is exhausted. It then sleeps until the next arrival; since timers wake
// about a millisecond late, every wake-up starts all arrivals due by then as a batch.
func (e *Executor) runArrivalRate(s *stopper) {
	total := e.arr.Total()
	// work carries one token per dispatched arrival; idle counts VUs waiting for one,
	// so a token is only sent when a VU is sure to take it.
	work := make(chan struct{}, e.maxVUs)
	var idle atomic.Int64
	var wg sync.WaitGroup
	spawn := func(vu VU, first bool) {
		e.active.Add(1)
		if !first {
			// Counted idle before the goroutine runs, so the first batch finds it.
			idle.Add(1)
		}
		wg.Go(func() {
			defer e.active.Add(-1)
			if first {
				e.iterate(s.iterCtx, vu)
				idle.Add(1)
			}
			for {
				select {
				case <-work:
				case <-s.stopping:
					// A token sent just before stopping still belongs to an
					// idle VU: take it if it is there.
					select {
					case <-work:
					default:
						return
					}
				}
				e.iterate(s.iterCtx, vu)
				idle.Add(1)
			}
		})
	}
	for i := range e.nVUs {
		spawn(e.vu(i), false)
	}
	nVUs := e.nVUs

	var started int64
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for started < total {
		el := time.Since(s.begin)
		due := total
		if el < e.dur {
			due = e.arr.Count(el)
		}
		var dropped int64
		for ; started < due; started++ {
			if idle.Load() == 0 && nVUs >= e.maxVUs {
				// A batch can be larger than the idle pool while VUs that have
				// just finished wait to run: let them, once, before dropping.
				runtime.Gosched()
			}
			switch {
			case idle.Load() > 0:
				idle.Add(-1)
				work <- struct{}{}
			case nVUs < e.maxVUs:
				// Allocating a VU here costs microseconds (no script to compile,
				// unlike k6), so the new VU takes this arrival instead of
				// dropping it.
				spawn(e.vu(nVUs), true)
				nVUs++
			default:
				dropped++
			}
		}
		e.drop(dropped)
		if started >= total {
			break
		}
		wait := max(time.Until(s.begin.Add(e.arr.At(started))), 0)
		t.Reset(wait)
		select {
		case <-s.stopping:
			// Stopped early (or by ctx): arrivals not yet due are not dropped,
			// matching k6, which counts only arrivals that found no VU.
			t.Stop()
			wg.Wait()
			return
		case <-t.C:
		}
	}
	// Every arrival is dispatched; the scenario still lasts its whole duration.
	if wait := time.Until(s.begin.Add(e.dur)); wait > 0 {
		t.Reset(wait)
		select {
		case <-s.stopping:
		case <-t.C:
		}
	}
	s.stop()
	wg.Wait()
}
