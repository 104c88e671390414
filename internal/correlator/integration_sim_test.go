//go:build integration

package correlator

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/sim"
)

// TestCatalogMatchesSimulator is the naming contract between the simulated cluster and the
// catalog: a real Prometheus scrapes `tidemark simulate`'s kube-state-metrics, cAdvisor
// and RDS endpoints the way kube-prometheus and YACE are scraped, and every catalog query
// of those sources (joined and per-pod forms) returns series.
func TestCatalogMatchesSimulator(t *testing.T) {
	p, err := sim.LoadProfile("../../examples/cluster-shoong.yaml")
	require.NoError(t, err)
	// The model runs 30× faster than the wall clock, so that the first CloudWatch period
	// is published and the pods are Ready within seconds.
	var mu sync.Mutex
	start := time.Now()
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return start.Add(30 * time.Since(start))
	}
	srv, err := sim.NewServer(p, promslog.NewNopLogger(), sim.WithClock(clock))
	require.NoError(t, err)
	require.NoError(t, srv.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	cfg, err := srv.ScrapeConfig(time.Second)
	require.NoError(t, err)
	prom := promtest.StartPrometheus(t, promtest.WithConfig(cfg))

	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	r := query.NewRunner(q, cat, promslog.NewNopLogger())
	v := query.Vars{Namespace: p.Namespace, RateWindow: 5 * time.Second, Params: map[string]float64{"db_pool_per_pod": 5}}

	// Not emitted unless set: KSM exports the tolerance only when behavior sets it, and a
	// container's last terminated reason only once it terminated (simulated pods do not).
	optional := map[string]bool{"hpa_tolerance": true, "oom_killed_pod": true}
	type check struct{ name, expr string }
	var checks []check
	for _, name := range slices.Sorted(maps.Keys(cat.Queries)) {
		qq := cat.Queries[name]
		if qq.Source == "k6" || optional[name] || qq.KindOrDefault() != query.KindRange {
			continue
		}
		if cat.Sources[qq.Source].Optional {
			continue // database exporters and pools: the in-memory simulator has none
		}
		e, err := cat.Render(name, v)
		require.NoError(t, err)
		checks = append(checks, check{name, e})
		if pp, ok, err := cat.RenderPerPod(name, v); ok {
			require.NoError(t, err)
			checks = append(checks, check{name + " per_pod", pp})
		}
	}
	for _, s := range []string{"ksm", "cadvisor", "rds"} {
		e, err := cat.RenderProbe(s, v)
		require.NoError(t, err)
		checks = append(checks, check{"probe " + s, e})
	}
	// Poll until every query has series (the pods become Ready and CloudWatch publishes
	// within seconds of model time); on the deadline, name the queries still empty.
	var empty []string
	for deadline := time.Now().Add(60 * time.Second); ; {
		empty = empty[:0]
		for _, c := range checks {
			res, err := r.InstantExpr(context.Background(), c.name, c.expr, time.Now())
			require.NoError(t, err)
			if len(res.Set) == 0 {
				empty = append(empty, c.name)
			}
		}
		if len(empty) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	require.Empty(t, empty, "catalog queries without series against the simulator")

	// The joins name the simulated Deployments.
	res, err := r.Instant(context.Background(), "pod_workload", v, time.Now())
	require.NoError(t, err)
	workloads := map[string]bool{}
	for _, s := range res.Set {
		workloads[s.Label("workload")] = true
	}
	for _, svc := range p.Services {
		require.True(t, workloads[svc.Name], "pods of %s joined to their Deployment; got %v", svc.Name, workloads)
	}

	// The memory rule's numbers: no load is sent, so every pod's working set is its
	// service's base and memory_of_limit_pod is base ÷ limit; no container restarted.
	res, err = r.Instant(context.Background(), query.QMemoryOfLimit, v, time.Now())
	require.NoError(t, err)
	ofLimit := map[string]bool{}
	for _, s := range res.Set {
		i := slices.IndexFunc(p.Services, func(svc sim.ServiceSpec) bool { return svc.Name == s.Label("workload") })
		require.GreaterOrEqual(t, i, 0, "a simulated Deployment: %s", s)
		svc := p.Services[i]
		require.Len(t, s.Points, 1)
		require.InDelta(t, float64(svc.Memory.Base)/float64(svc.Resources.Limits.Memory), s.Points[0].V, 1e-9, "%s", s)
		ofLimit[svc.Name] = true
	}
	require.Len(t, ofLimit, len(p.Services), "working set of limit per service")
	res, err = r.Instant(context.Background(), query.QRestarts, v, time.Now())
	require.NoError(t, err)
	require.NotEmpty(t, res.Set)
	for _, s := range res.Set {
		require.Len(t, s.Points, 1)
		require.Zero(t, s.Points[0].V, "restarts of %s", s)
	}
}
