package executor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/internal/scenario"
)

// runIterations is shared-iterations (VUs take iterations from one shared total; fast
// VUs do more) and per-vu-iterations (each VU does exactly its own). Iterations not
// started by maxDuration are dropped.
func (e *Executor) runIterations(s *stopper) {
	shared := e.kind == scenario.SharedIterations
	total := e.iters
	if !shared {
		total = e.nVUs * e.iters
	}
	var next, started atomic.Int64
	var wg sync.WaitGroup
	for i := range e.nVUs {
		if s.isStopping() {
			break
		}
		vu := e.vu(i)
		wg.Go(func() {
			e.active.Add(1)
			defer e.active.Add(-1)
			for n := int64(0); ; n++ {
				if s.isStopping() {
					return
				}
				if shared {
					if next.Add(1) > total {
						return
					}
				} else if n >= e.iters {
					return
				}
				started.Add(1)
				e.iterate(s.iterCtx, vu)
			}
		})
	}
	wg.Wait()
	// Like k6, iterations left at maxDuration are dropped, but not those left by an
	// external stop (SIGINT, abortOnFail).
	if s.ext.Err() == nil {
		e.drop(total - started.Load())
	}
}

// runConstantVUs loops a fixed number of VUs until the duration ends.
func (e *Executor) runConstantVUs(s *stopper) {
	var wg sync.WaitGroup
	for i := range e.nVUs {
		if s.isStopping() {
			break
		}
		vu := e.vu(i)
		wg.Go(func() {
			e.active.Add(1)
			defer e.active.Add(-1)
			for !s.isStopping() {
				e.iterate(s.iterCtx, vu)
			}
		})
	}
	wg.Wait()
}

// handle is one VU slot of a ramping-vus scenario. Its goroutine lives for the whole
// scenario; the controller marks it wanted or not.
type handle struct {
	vu   VU
	wake chan struct{}

	mu     sync.Mutex
	wanted bool
	gen    uint64             // iterations started
	cancel context.CancelFunc // of the running iteration, nil when idle
}

func (h *handle) activate() {
	h.mu.Lock()
	h.wanted = true
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// deactivate lets the running iteration finish within grace, then interrupts it; a
// negative grace lets it finish.
func (h *handle) deactivate(grace time.Duration) {
	h.mu.Lock()
	h.wanted = false
	gen, running := h.gen, h.cancel != nil
	h.mu.Unlock()
	if !running || grace < 0 {
		return
	}
	time.AfterFunc(grace, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if !h.wanted && h.gen == gen && h.cancel != nil {
			h.cancel()
		}
	})
}

// loop runs iterations while the handle is wanted, until the scenario stops.
func (e *Executor) loop(h *handle, s *stopper) {
	idle := true
	defer func() {
		if !idle {
			e.active.Add(-1)
		}
	}()
	for {
		h.mu.Lock()
		for !h.wanted {
			h.mu.Unlock()
			if !idle {
				idle = true
				e.active.Add(-1)
			}
			select {
			case <-h.wake:
			case <-s.stopping:
				return
			}
			h.mu.Lock()
		}
		if s.isStopping() {
			h.mu.Unlock()
			return
		}
		if idle {
			idle = false
			e.active.Add(1)
		}
		h.gen++
		ctx, cancel := context.WithCancel(s.iterCtx)
		h.cancel = cancel
		h.mu.Unlock()

		e.iterate(ctx, h.vu)

		h.mu.Lock()
		h.cancel = nil
		h.mu.Unlock()
		cancel()
	}
}

// runRampingVUs follows the VU schedule: VUs above the target stop starting
// iterations and get gracefulRampDown to finish the one they run.
func (e *Executor) runRampingVUs(s *stopper) {
	steps := e.vusch.Steps()
	hs := make([]*handle, e.nVUs)
	var wg sync.WaitGroup
	for i := range hs {
		if s.isStopping() {
			// Stopped while starting many VUs: no handle is active yet.
			wg.Wait()
			return
		}
		hs[i] = &handle{vu: e.vu(int64(i)), wake: make(chan struct{}, 1)}
		h := hs[i]
		wg.Go(func() { e.loop(h, s) })
	}
	cur := int64(0)
	set := func(target int64) {
		for ; cur < target; cur++ {
			hs[cur].activate()
		}
		for cur > target {
			cur--
			hs[cur].deactivate(e.sc.GracefulRampDown)
		}
	}
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for _, st := range steps {
		if d := time.Until(s.begin.Add(st.At)); d > 0 {
			t.Reset(d)
			select {
			case <-s.stopping:
				wg.Wait()
				return
			case <-t.C:
			}
		}
		set(st.Target)
	}
	wg.Wait()
}
