package dbpool

import (
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsPath is where Handler serves the pool's metrics.
const MetricsPath = "/metrics"

// Handler puts the pool in front of an application's handler (the process runtime's pod
// application, package workload): GET /metrics serves the pool's metrics under the
// configured names; a path in passThrough (a readiness probe) goes straight to next;
// any other request first does its database work (Do) and then goes to next, or is
// answered 500 when the database work fails.
func (p *Pool) Handler(next http.Handler, passThrough ...string) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(p) // a new registry: the pool's names cannot collide there
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == MetricsPath:
			metrics.ServeHTTP(w, r)
		case slices.Contains(passThrough, r.URL.Path):
			next.ServeHTTP(w, r)
		default:
			if err := p.Do(r.Context()); err != nil {
				http.Error(w, "database: "+err.Error(), http.StatusInternalServerError)
				return
			}
			next.ServeHTTP(w, r)
		}
	})
}
