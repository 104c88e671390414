package websockets

import (
	"sync"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// bridge carries a WebSocket's events from its goroutines to the VU's event loop.
// It keeps one reservation on the loop from the constructor until finish, so that
// the iteration waits for the socket; each batch of events takes the next
// reservation before it runs.
type bridge struct {
	loop      modules.Loop
	mu        sync.Mutex
	queue     []func() error
	fire      func(func() error) // the outstanding reservation
	scheduled bool               // fire was called; drain has not run yet
	finished  bool
}

// newBridge reserves the first callback; call it on the VU's goroutine.
func newBridge(l modules.Loop) *bridge {
	return &bridge{loop: l, fire: l.RegisterCallback()}
}

// post queues fn to run on the VU's goroutine. It may be called from any goroutine;
// after finish it does nothing.
func (b *bridge) post(fn func() error) {
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, fn)
	if b.scheduled {
		b.mu.Unlock()
		return
	}
	b.scheduled = true
	fire := b.fire
	b.mu.Unlock()
	fire(b.drain)
}

// drain runs the queued events on the VU's goroutine, after taking the next
// reservation.
func (b *bridge) drain() error {
	b.mu.Lock()
	q := b.queue
	b.queue, b.scheduled = nil, false
	if b.finished {
		b.mu.Unlock()
		return nil
	}
	b.fire = b.loop.RegisterCallback()
	b.mu.Unlock()
	for _, fn := range q {
		if err := fn(); err != nil {
			b.finish()
			return err
		}
		b.mu.Lock()
		done := b.finished
		b.mu.Unlock()
		if done {
			return nil
		}
	}
	return nil
}

// finish releases the loop: later events are dropped. Call it on the VU's goroutine.
func (b *bridge) finish() {
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		return
	}
	b.finished = true
	b.queue = nil
	fire, scheduled := b.fire, b.scheduled
	b.mu.Unlock()
	if !scheduled {
		fire(func() error { return nil })
	}
}
