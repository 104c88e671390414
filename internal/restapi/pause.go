package restapi

import (
	"context"
	"sync"
)

// Pause is the gate `--paused` holds the start on: Wait blocks until Resume. It is
// one-shot: once resumed it stays open. It is safe for concurrent use.
type Pause struct {
	mu      sync.Mutex
	open    chan struct{}
	resumed bool
}

// NewPause returns a gate, closed (holding Wait) when paused is true and open otherwise.
func NewPause(paused bool) *Pause {
	p := &Pause{open: make(chan struct{})}
	if !paused {
		p.Resume()
	}
	return p
}

// Wait blocks until the gate is open or ctx is done, and returns ctx's error then.
func (p *Pause) Wait(ctx context.Context) error {
	select {
	case <-p.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Resume opens the gate and reports whether it was closed. It is safe to call more
// than once.
func (p *Pause) Resume() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resumed {
		return false
	}
	p.resumed = true
	close(p.open)
	return true
}

// Paused reports whether the gate still holds Wait.
func (p *Pause) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.resumed
}

// Done is closed when the gate opens.
func (p *Pause) Done() <-chan struct{} { return p.open }
