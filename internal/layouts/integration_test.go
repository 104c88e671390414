//go:build integration

package layouts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
)

func story1(t *testing.T, o layouts.Options) *layouts.Fixture {
	t.Helper()
	f, err := layouts.Story1(o)
	require.NoError(t, err)
	return f
}

func instant(t *testing.T, url, expr string, at time.Time) model.Vector {
	t.Helper()
	v, err := promtest.Query(context.Background(), url, expr, at)
	require.NoError(t, err)
	vec, ok := v.(model.Vector)
	require.True(t, ok, "%s: %T", expr, v)
	return vec
}

// TestIntegrationLoadTwoLayouts loads two layouts into one real Prometheus 2.42 through
// promtool and reads one series of each source of each back, against the truth.
func TestIntegrationLoadTwoLayouts(t *testing.T) {
	chart := story1(t, layouts.Options{Layout: layouts.PrometheusChart15, K6: layouts.K6Only, Namespace: "shoong", TestID: "spike-chart"})
	alloy := story1(t, layouts.Options{Layout: layouts.K8sMonitoring, K6: layouts.ThreeInstances, RDS: layouts.CloudWatchExporter,
		Namespace: "shoong-b", TestID: "spike-alloy"})
	prom := layoutstest.Load(t, []*layouts.Fixture{chart, alloy})

	for _, tc := range []struct {
		f                  *layouts.Fixture
		ksm, cadvisor, rds string
		instances          int
	}{
		{chart, `kube_horizontalpodautoscaler_status_desired_replicas{job="kubernetes-service-endpoints", exported_namespace="shoong"}`,
			`container_cpu_usage_seconds_total{job="kubernetes-nodes-cadvisor", namespace="shoong", container="app"}`,
			`aws_rds_database_connections_average{dimension_DBInstanceIdentifier="shoong-db"}`, 1},
		{alloy, `kube_horizontalpodautoscaler_status_desired_replicas{job="integrations/kubernetes/kube-state-metrics", namespace="shoong-b"}`,
			`container_cpu_usage_seconds_total{job="integrations/kubernetes/cadvisor", namespace="shoong-b", container="app"}`,
			`aws_rds_database_connections_average{dbinstance_identifier="shoong-b-db"}`, 3},
	} {
		t.Run(tc.f.Options.String(), func(t *testing.T) {
			tr := tc.f.Truth
			// k6: the counters' final values sum to the run's requests.
			v := instant(t, prom.URL, fmt.Sprintf(`sum(max_over_time(k6_http_reqs_total{testid=%q}[15m]))`, tc.f.TestID()), tr.RunTo)
			require.Len(t, v, 1)
			require.InDelta(t, tr.Requests, float64(v[0].Value), 1)
			v = instant(t, prom.URL, fmt.Sprintf(`count(count by (instance_id) (k6_vus{testid=%q}))`, tc.f.TestID()), tr.RunTo)
			require.InDelta(t, tc.instances, float64(v[0].Value), 0)

			// KSM: max replicas between the second scale-up and the scale-in.
			steps := tr.HPAs[0].Steps
			v = instant(t, prom.URL, tc.ksm, steps[1].DesiredAt.Add(tr.KSMInterval))
			require.Len(t, v, 1, tc.ksm)
			require.InDelta(t, steps[1].To, float64(v[0].Value), 0)

			// cAdvisor: one app container per live order/delivery pod.
			v = instant(t, prom.URL, "count("+tc.cadvisor+")", steps[1].DesiredAt.Add(time.Minute))
			require.InDelta(t, 7, float64(v[0].Value), 0)

			// RDS: the peak connections.
			v = instant(t, prom.URL, "max(max_over_time("+tc.rds+"[30m]))", tr.RunTo.Add(10*time.Minute))
			require.Len(t, v, 1, tc.rds)
			require.InDelta(t, tr.DB.ConnectionsPeak, float64(v[0].Value), 0)
		})
	}
}

// TestIntegrationCatalogProbes loads each layout into its own Prometheus and runs the
// current catalog's probe of every source on it, logging which find nothing. It asserts
// only that the queries run: making the correlator find every layout is another task.
func TestIntegrationCatalogProbes(t *testing.T) {
	cat, err := query.Default()
	require.NoError(t, err)
	sources := make([]string, 0, len(cat.Sources))
	for name := range cat.Sources {
		sources = append(sources, name)
	}
	// The catalog's order: k6, ksm, cadvisor, rds.
	order := map[string]int{"k6": 0, "ksm": 1, "cadvisor": 2, "rds": 3}
	for i := range sources {
		for j := i + 1; j < len(sources); j++ {
			if order[sources[j]] < order[sources[i]] {
				sources[i], sources[j] = sources[j], sources[i]
			}
		}
	}

	var summary []string
	for _, o := range []layouts.Options{
		{Layout: layouts.Minimal},
		{Layout: layouts.KubePrometheusStack},
		{Layout: layouts.PrometheusChart},
		{Layout: layouts.PrometheusChart15},
		{Layout: layouts.K8sMonitoring},
		{Layout: layouts.VMK8sStack},
		{Layout: layouts.NoJob},
		{Layout: layouts.KubePrometheusStack, KSM: layouts.KSMv1},
		{Layout: layouts.KubePrometheusStack, KSM: layouts.KSMBoth},
		{Layout: layouts.KubePrometheusStack, RDS: layouts.CloudWatchExporter},
		{Layout: layouts.NoJob, RDS: layouts.CloudWatchExporter},
		{Layout: layouts.KubePrometheusStack, Cluster: "prod", DecoyCluster: "staging"},
		{Layout: layouts.KubePrometheusStack, K6: layouts.K6Only},
		{Layout: layouts.KubePrometheusStack, K6: layouts.ThreeInstances},
	} {
		f := story1(t, o)
		prom := layoutstest.Load(t, []*layouts.Fixture{f})
		vars := query.Vars{TestID: f.TestID(), Namespace: f.Namespace()}
		var found []string
		for _, src := range sources {
			probe, err := cat.RenderProbe(src, vars)
			require.NoError(t, err)
			// The probe's series anywhere in the fixture's window.
			expr := fmt.Sprintf("count(last_over_time(%s[40m]))", probe)
			v := instant(t, prom.URL, expr, f.Truth.RunTo.Add(20*time.Minute))
			n := 0.0
			if len(v) == 1 {
				n = float64(v[0].Value)
			}
			t.Logf("layout=%s source=%s series=%g probe=%s", o, src, n, probe)
			state := fmt.Sprintf("%s=%g", src, n)
			if n == 0 {
				state = src + "=NONE"
			}
			found = append(found, state)
		}
		summary = append(summary, fmt.Sprintf("%-50s %s", o, strings.Join(found, " ")))
		prom.Stop()
	}
	t.Logf("catalog probes per layout:\n%s", strings.Join(summary, "\n"))
}
