//go:build integration

package query_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// TestIntegrationDiscover loads story 1 in several scrape layouts (internal/layouts) into
// one real Prometheus 2.42 through promtool, each in its own namespace, and runs Discover
// on each: the selectors it adopts make the catalog's probes return series (the scrape
// interval is measured, 15 s as the fixture's truth) and the queries return data, on the
// prometheus-community chart, Alloy and no-job layouts; kube-state-metrics v1 is read
// through the catalog's v1 fallbacks; --selector cluster=prod keeps the decoy cluster out.
func TestIntegrationDiscover(t *testing.T) {
	fixture := func(o layouts.Options) *layouts.Fixture {
		f, err := layouts.Story1(o)
		require.NoError(t, err)
		return f
	}
	chart := fixture(layouts.Options{Layout: layouts.PrometheusChart, Namespace: "ns-chart", TestID: "spike-chart"})
	alloy := fixture(layouts.Options{Layout: layouts.K8sMonitoring, Namespace: "ns-alloy", TestID: "spike-alloy"})
	nojob := fixture(layouts.Options{Layout: layouts.NoJob, Namespace: "ns-nojob", TestID: "spike-nojob"})
	v1 := fixture(layouts.Options{Layout: layouts.KubePrometheusStack, KSM: layouts.KSMv1, Namespace: "ns-v1", TestID: "spike-v1"})
	multi := fixture(layouts.Options{Layout: layouts.PrometheusChart, Cluster: "prod", DecoyCluster: "staging", Namespace: "ns-multi", TestID: "spike-multi"})
	chart15 := fixture(layouts.Options{Layout: layouts.PrometheusChart15, Namespace: "ns-chart15", TestID: "spike-chart15"})
	prom := layoutstest.Load(t, []*layouts.Fixture{chart, alloy, nojob, v1, multi, chart15})
	q, err := query.NewPrometheus(prom.URL, nil, query.WithTimeout(30*time.Second))
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	ctx := context.Background()

	window := func(f *layouts.Fixture) timeline.Window {
		return timeline.Window{From: f.Truth.RunFrom.Add(-5 * time.Minute), To: f.Truth.RunTo.Add(10 * time.Minute)}
	}
	bySource := func(d query.Discovery) map[string]query.SourceDiscovery {
		out := map[string]query.SourceDiscovery{}
		for _, s := range d.Sources {
			out[s.Source] = s
		}
		return out
	}

	for _, tc := range []struct {
		f             *layouts.Fixture
		selector      map[string]string
		ksm, cadvisor string // selectors adopted
		ksmFound      query.Found
	}{
		{f: chart, ksmFound: query.FoundDiscovered,
			ksm:      `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`,
			cadvisor: `job="kubernetes-nodes-cadvisor", metrics_path="/metrics/cadvisor", namespace=~"{{.Namespace}}"`},
		{f: alloy, ksmFound: query.FoundDiscovered,
			ksm:      `job="integrations/kubernetes/kube-state-metrics", namespace=~"{{.Namespace}}"`,
			cadvisor: `job="integrations/kubernetes/cadvisor", namespace=~"{{.Namespace}}"`},
		{f: nojob, ksmFound: query.FoundDiscovered, ksm: `job="", namespace=~"{{.Namespace}}"`, cadvisor: `job="", namespace=~"{{.Namespace}}"`},
		{f: multi, selector: map[string]string{"cluster": "prod"}, ksmFound: query.FoundDiscovered,
			ksm:      `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`,
			cadvisor: `job="kubernetes-nodes-cadvisor", metrics_path="/metrics/cadvisor", namespace=~"{{.Namespace}}"`},
		// Scraped without honor_labels: the objects' namespace in exported_namespace.
		{f: chart15, ksmFound: query.FoundDiscovered,
			ksm:      `job="kubernetes-service-endpoints", exported_namespace=~"{{.Namespace}}"`,
			cadvisor: `job="kubernetes-nodes-cadvisor", namespace=~"{{.Namespace}}"`},
		{f: v1, ksmFound: query.FoundCatalog,
			ksm:      cat.Sources["ksm"].Selector,
			cadvisor: cat.Sources["cadvisor"].Selector},
	} {
		t.Run(tc.f.Options.String(), func(t *testing.T) {
			tr := tc.f.Truth
			vars := query.Vars{TestID: tc.f.TestID(), Namespace: tc.f.Namespace(), Selector: tc.selector}
			w := window(tc.f)
			d, err := query.Discover(ctx, q, cat, vars, w)
			require.NoError(t, err)
			got := bySource(d)
			for _, n := range d.Notes() {
				t.Log(n)
			}
			require.Equal(t, tc.ksmFound, got["ksm"].Found, got["ksm"].Note)
			require.Equal(t, tc.ksm, got["ksm"].Selector, got["ksm"].Note)
			require.Equal(t, tc.cadvisor, got["cadvisor"].Selector, got["cadvisor"].Note)

			applied, err := d.Apply(cat)
			require.NoError(t, err)
			// The YAML for --catalog.file loads as the same catalog.
			b, err := d.CatalogYAML(cat)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "catalog.yaml")
			require.NoError(t, os.WriteFile(path, b, 0o600))
			loaded, err := query.LoadFile(path)
			require.NoError(t, err)
			require.Equal(t, applied.Sources, loaded.Sources)

			r := query.NewRunner(q, applied, promslog.NewNopLogger())
			// The probes return series: the scrape interval is measured.
			if tc.f != v1 {
				iv, err := r.MeasureInterval(ctx, "ksm", vars, tr.RunTo, 10*time.Minute)
				require.NoError(t, err, "ksm probe with %s", got["ksm"].Selector)
				require.Equal(t, tr.KSMInterval, iv)
			}
			iv, err := r.MeasureInterval(ctx, "cadvisor", vars, tr.RunTo, 10*time.Minute)
			require.NoError(t, err, "cadvisor probe with %s", got["cadvisor"].Selector)
			require.Equal(t, tr.CadvisorInterval, iv)

			// The queries return the fixture's truth: desired replicas after the second
			// scale-up, labelled horizontalpodautoscaler (v1's hpa relabelled).
			hpa := tr.HPAs[0]
			at := hpa.Steps[1].DesiredAt.Add(tr.KSMInterval)
			res, err := r.Instant(ctx, "hpa_desired", vars, at)
			require.NoError(t, err)
			require.Len(t, res.Set, 1, res.Expr)
			require.Equal(t, hpa.Name, res.Set[0].Labels["horizontalpodautoscaler"])
			require.Equal(t, tc.f.Namespace(), res.Set[0].Labels["namespace"], "the object's namespace: %s", res.Expr)
			require.InDelta(t, hpa.Steps[1].To, res.Set[0].Points[0].V, 0, res.Expr)
			res, err = r.Instant(ctx, "hpa_max", vars, at)
			require.NoError(t, err)
			require.Len(t, res.Set, 1, res.Expr)
			require.InDelta(t, hpa.Max, res.Set[0].Points[0].V, 0)
			res, err = r.Instant(ctx, "deployment_ready", vars, hpa.Steps[1].ReadyAt.Add(tr.KSMInterval))
			require.NoError(t, err)
			require.NotEmpty(t, res.Set, res.Expr)
			if tc.f != alloy { // Alloy's allow-list drops kube_horizontalpodautoscaler_info
				res, err = r.Instant(ctx, "hpa_deployment", vars, at)
				require.NoError(t, err)
				require.Len(t, res.Set, 1, res.Expr)
				require.Equal(t, hpa.Deployment, res.Set[0].Labels["deployment"])
			}
			pp, ok, err := applied.RenderPerPod("cpu_usage_pod", vars)
			require.NoError(t, err)
			require.True(t, ok)
			res, err = r.InstantExpr(ctx, "cpu_usage_pod", pp, at.Add(time.Minute))
			require.NoError(t, err)
			require.NotEmpty(t, res.Set, pp)
			for _, s := range res.Set {
				require.Equal(t, tc.f.Namespace(), s.Labels["namespace"], pp)
			}
		})
	}

	t.Run("the cluster selector halves the series", func(t *testing.T) {
		all, err := query.Discover(ctx, q, cat, query.Vars{Namespace: multi.Namespace()}, window(multi))
		require.NoError(t, err)
		prod, err := query.Discover(ctx, q, cat, query.Vars{Namespace: multi.Namespace(), Selector: map[string]string{"cluster": "prod"}}, window(multi))
		require.NoError(t, err)
		a, p := bySource(all)["ksm"], bySource(prod)["ksm"]
		require.Equal(t, 2*p.Candidates[0].Series, a.Candidates[0].Series, "%s\n%s", a.Note, p.Note)
	})
}
