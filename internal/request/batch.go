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
// is a client of its own (its connections, tracer, watchdog and buffers), and
// counts its bytes on the wire into its owner's, so that the VU's data_sent and
// data_received include them. They stay for the VU's next batches.
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

// Batch runs reqs in parallel, as k6's http.batch does, within lim, and
// returns their responses in the order of reqs. Requests start in order: one
// whose host is at its limit waits, and so do the ones after it. Each request's
// samples are pushed when it ends. Every request runs on a worker client of c;
// c itself is not used, so its keep-alive connections are not shared with the
// batch (a connection serves one request at a time).
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
		w := NewClient(c.env, c.opts)
		w.wire = c.wire
		c.workers.all = append(c.workers.all, w)
	}
	free := make(chan *Client, n)
	for _, w := range c.workers.all[:n] {
		free <- w
	}
	var hosts map[string]chan struct{}
	if lim.PerHost > 0 {
		hosts = map[string]chan struct{}{}
	}
	var wg sync.WaitGroup
	for i, r := range reqs {
		var slot chan struct{}
		if hosts != nil {
			h := batchHost(r.URL)
			if slot = hosts[h]; slot == nil {
				slot = make(chan struct{}, lim.PerHost)
				hosts[h] = slot
			}
			slot <- struct{}{}
		}
		w := <-free
		wg.Go(func() {
			out[i] = w.Send(ctx, r)
			if slot != nil {
				<-slot
			}
			free <- w
		})
	}
	wg.Wait()
	return out
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
