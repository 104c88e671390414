package process

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/workload"
)

// balancer is a service's front load balancer: a loopback reverse proxy sending each
// request to a Ready pod, round robin or, with the profile's ingress lb_policy
// least_request, to the Ready pod with the fewest requests in flight. With no Ready pod
// it answers 503 at once, as a proxy with no healthy upstream does.
type balancer struct {
	r         *Runtime
	svc       *service
	least     bool
	next      int
	transport *http.Transport
}

func newBalancer(r *Runtime, s *service) *balancer {
	return &balancer{
		r: r, svc: s, least: s.spec.Ingress != nil && s.spec.Ingress.LBPolicy == sim.LBLeastRequest,
		transport: &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 30 * time.Second},
	}
}

// pick chooses a Ready pod, or nil.
func (b *balancer) pick() *pod {
	b.r.mu.Lock()
	defer b.r.mu.Unlock()
	var ready []*pod
	for _, pd := range b.svc.pods {
		if pd.ready && !pd.deleting && !pd.gone {
			ready = append(ready, pd)
		}
	}
	if len(ready) == 0 {
		return nil
	}
	if b.least {
		best := ready[0]
		for _, pd := range ready[1:] {
			if pd.inflight.Load() < best.inflight.Load() {
				best = pd
			}
		}
		return best
	}
	b.next++
	return ready[b.next%len(ready)]
}

// statusRecorder keeps the status a handler wrote, and the reason of a failure the
// balancer answered itself.
type statusRecorder struct {
	http.ResponseWriter
	status int
	reason string
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// ServeHTTP forwards one request.
func (b *balancer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		if req.Context().Err() == nil || rec.status != 0 {
			reason := rec.reason
			if reason == "" {
				reason = rec.Header().Get(workload.FailureHeader)
			}
			b.r.countResponse(b.svc.idx, max(rec.status, http.StatusOK), reason)
		}
	}()
	pd := b.pick()
	if pd == nil {
		rec.reason = sim.ReasonNoEndpoints
		http.Error(rec, "no Ready pod", http.StatusServiceUnavailable)
		return
	}
	pd.inflight.Add(1)
	defer pd.inflight.Add(-1)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: pd.addr})
			pr.Out.Host = pr.In.Host
		},
		Transport: b.transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client gave up
			}
			w.Header().Set("X-Pod", pd.name)
			rec.reason = reasonUpstream
			http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		},
	}
	rec.Header().Set("X-Pod", pd.name)
	proxy.ServeHTTP(rec, req)
}
