package request

import (
	"context"
	"net/url"
	"strings"
	"sync"
)

// k6's defaults of the batch and batchPerHost options.
const (
	DefaultBatch        = 20
	DefaultBatchPerHost = 6
)

// BatchLimits bound the parallelism of Batch (k6's batch and batchPerHost
// options); ≤ 0 is no limit.
type BatchLimits struct {
	// Max is the most requests in flight at once.
	Max int
	// PerHost is the most requests in flight at once to one host (host:port).
	PerHost int
}

// batchWorkers are the clients that run a batch's requests in parallel. Each
// is a client of its own (its tracer, watchdog and buffers) that shares its
// owner's connections (the idle plain-HTTP pool and the net/http transport),
// as k6's batch shares the VU's transport, and counts its bytes on the wire
// into its owner's, so that the VU's data_sent and data_received include them.
// They stay for the VU's next batches.
type batchWorkers struct {
	all []*Client
}

func (w *batchWorkers) close() {
	if w == nil {
		return
	}
	for _, c := range w.all {
		c.Close()
	}
}

// newWorker returns a client of its own on c's connections, counting its bytes
// into c's. Call it on c's goroutine.
func (c *Client) newWorker() *Client {
	w := NewClient(c.env, c.opts)
	w.wire = c.wire
	w.h1.pool = c.h1.pool
	// net/http's transport is safe for concurrent use; made here, before the
	// worker starts, so that no two clients race to make it.
	w.client, w.transport = c.netHTTP(), c.transport
	return w
}

// Batch runs reqs in parallel, as k6's http.batch does, within lim, and
// returns their responses in the order of reqs. Requests start in order, except
// that one whose host is at its limit waits while later ones to other hosts go
// (k6 queues a host's requests beyond batchPerHost). Each request's samples are
// pushed when it ends. Every request runs on a worker client of c, on c's
// connections: an idle one to the request's host is reused (a connection serves
// one request at a time; the others open new ones, which stay in c's pool).
func (c *Client) Batch(ctx context.Context, reqs []*Request, lim BatchLimits) []*Response {
	out := make([]*Response, len(reqs))
	n := len(reqs)
	if lim.Max > 0 {
		n = min(n, lim.Max)
	}
	if n == 0 {
		return out
	}
	if c.workers == nil {
		c.workers = &batchWorkers{}
	}
	for len(c.workers.all) < n {
		c.workers.all = append(c.workers.all, c.newWorker())
	}
	q := newBatchQueue(reqs, lim.PerHost)
	var wg sync.WaitGroup
	for _, w := range c.workers.all[:n] {
		wg.Go(func() {
			for {
				i, ok := q.take()
				if !ok {
					return
				}
				out[i] = w.Send(ctx, reqs[i])
				q.done(i)
			}
		})
	}
	wg.Wait()
	return out
}

// batchQueue hands a batch's requests to its workers: the first not started
// whose host is under the per-host limit.
type batchQueue struct {
	mu       sync.Mutex
	cond     *sync.Cond
	hosts    []string
	started  []bool
	first    int // every request before it has started
	left     int // not started
	perHost  int // ≤ 0: no limit
	inFlight map[string]int
}

func newBatchQueue(reqs []*Request, perHost int) *batchQueue {
	q := &batchQueue{started: make([]bool, len(reqs)), left: len(reqs), perHost: perHost}
	q.cond = sync.NewCond(&q.mu)
	if perHost > 0 {
		q.hosts = make([]string, len(reqs))
		q.inFlight = map[string]int{}
		for i, r := range reqs {
			q.hosts[i] = batchHost(r.URL)
		}
	}
	return q
}

// take returns the next request to run, waiting while every one left is to a
// host at its limit; false when none is left.
func (q *batchQueue) take() (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.left > 0 {
		for i := q.first; i < len(q.started); i++ {
			if q.started[i] || (q.perHost > 0 && q.inFlight[q.hosts[i]] >= q.perHost) {
				continue
			}
			q.started[i] = true
			q.left--
			for q.first < len(q.started) && q.started[q.first] {
				q.first++
			}
			if q.perHost > 0 {
				q.inFlight[q.hosts[i]]++
			}
			return i, true
		}
		q.cond.Wait()
	}
	return 0, false
}

// done ends request i: its host has room again.
func (q *batchQueue) done(i int) {
	if q.perHost <= 0 {
		return
	}
	q.mu.Lock()
	q.inFlight[q.hosts[i]]--
	q.mu.Unlock()
	q.cond.Broadcast()
}

// batchHost is the host:port a request goes to, for the per-host limit.
func batchHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Host)
	if u.Port() == "" {
		switch u.Scheme {
		case "https":
			host += ":443"
		case "http":
			host += ":80"
		}
	}
	return host
}
