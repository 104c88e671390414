package executor

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// finalBatchBudget bounds the last batch, the one a late timer starts after the end:
// past it the arrivals that find no idle VU are dropped at once instead of one by one.
// A millisecond is about the timers' own lateness, so the batch ends about as late
// as the timer woke.
const finalBatchBudget = time.Millisecond

// runArrivalRate is constant-arrival-rate and ramping-arrival-rate: an open model.
// One dispatcher computes how many arrivals are due from the elapsed time, hands each
// to an idle VU, allocates VUs up to maxVUs when none is idle, and drops the arrival
// when the pool is exhausted. It then sleeps until the next arrival; since timers wake
// about a millisecond late, every wake-up starts all arrivals due by then as a batch.
func (e *Executor) runArrivalRate(s *stopper) {
	// dropped_iterations starts from 0, so that the series exists (a dashboard shows
	// 0 rather than no data) even when nothing is dropped.
	e.pushDropped(0)
	total := e.arr.Total()
	// work carries one token per dispatched arrival; idle counts VUs waiting for one,
	// so a token is only sent when a VU is sure to take it.
	work := make(chan struct{}, e.maxVUs)
	var idle atomic.Int64
	var wg sync.WaitGroup
	// A VU is active (k6's vus) while it runs an iteration, not while it waits for
	// one: k6 reports the busy VUs of an arrival-rate scenario, vus_max the allocated.
	iterate := func(vu VU) {
		e.active.Add(1)
		e.iterate(s.iterCtx, vu)
		e.active.Add(-1)
	}
	spawn := func(vu VU, first bool) {
		if !first {
			// Counted idle before the goroutine runs, so the first batch finds it.
			idle.Add(1)
		}
		wg.Go(func() {
			if first {
				iterate(vu)
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
				iterate(vu)
				idle.Add(1)
			}
		})
	}
	for i := range e.nVUs {
		if s.isStopping() {
			// Stopped while starting many pre-allocated VUs.
			wg.Wait()
			return
		}
		spawn(e.vu(i), false)
	}
	nVUs := e.nVUs

	// Arrivals are handed out until the end of the duration and never after, but for
	// one case: when the timer wakes the dispatcher late (timers wake a millisecond
	// late, 10–100 ms on a loaded machine) for arrivals due before the end, that one
	// last batch still goes to the VUs that are free, within finalBatchBudget. A
	// dispatcher that falls behind
	// (a rate higher than the VUs take) stops at the end; the arrivals it had not
	// handed out by then are dropped.
	end := s.begin.Add(e.dur)
	var started int64
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for started < total {
		now := time.Now()
		due := total
		if el := now.Sub(s.begin); el < e.dur {
			due = e.arr.Count(el)
		}
		final := !now.Before(end)
		hurry := false // final batch over its budget: no VU is waited for
		var dropped int64
		for n := 0; started < due; n++ {
			// Check the clock and the stop every 64 arrivals: a batch of a rate no VU
			// pool keeps up with can take seconds.
			if n%64 == 63 {
				if final {
					hurry = hurry || time.Since(now) > finalBatchBudget
				} else if s.isStopping() || !time.Now().Before(end) {
					break
				}
			}
			if !hurry && idle.Load() == 0 && nVUs >= e.maxVUs {
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
			case hurry:
				dropped += due - started
				started = due
				continue
			default:
				dropped++
			}
			started++
		}
		e.drop(dropped)
		if s.isStopping() {
			// Stopped early (or by ctx): arrivals not yet handed out are not
			// dropped, matching k6, which counts only arrivals that found no VU.
			wg.Wait()
			return
		}
		if final || started >= total || !time.Now().Before(end) {
			break
		}
		wait := max(time.Until(s.begin.Add(e.arr.At(started))), 0)
		t.Reset(wait)
		select {
		case <-s.stopping:
			t.Stop()
			wg.Wait()
			return
		case <-t.C:
		}
	}
	// The dispatcher fell behind: what it had not handed out by the end is dropped.
	e.drop(total - started)
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
