package request

import (
	"context"
	"sync"
)

// asyncWorkers are the clients that run a VU's asynchronous requests (k6's
// http.asyncRequest) while the VU goes on: each runs one request at a time on its
// owner's connections, and goes back to the free list when it ends.
type asyncWorkers struct {
	mu   sync.Mutex
	free []*Client
	all  []*Client
}

// take returns a free worker, or nil.
func (a *asyncWorkers) take() *Client {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.free); n > 0 {
		w := a.free[n-1]
		a.free = a.free[:n-1]
		return w
	}
	return nil
}

func (a *asyncWorkers) put(w *Client) {
	a.mu.Lock()
	a.free = append(a.free, w)
	a.mu.Unlock()
}

func (a *asyncWorkers) close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	all := a.all
	a.mu.Unlock()
	for _, w := range all {
		w.Close()
	}
}

// SendAsync runs req as Send does, on a worker of c (its own tracer, watchdog and
// buffers, c's connections and byte counts) in a goroutine of its own, and calls
// done with the response from that goroutine when it ends; the samples are pushed
// before. It returns at once. Call it on c's goroutine; the caller must not modify
// req until done is called.
func (c *Client) SendAsync(ctx context.Context, req *Request, done func(*Response)) {
	if c.async == nil {
		c.async = &asyncWorkers{}
	}
	w := c.async.take()
	if w == nil {
		w = c.newWorker()
		c.async.mu.Lock()
		c.async.all = append(c.async.all, w)
		c.async.mu.Unlock()
	}
	go func() {
		res := w.Send(ctx, req)
		c.async.put(w)
		done(res)
	}()
}
