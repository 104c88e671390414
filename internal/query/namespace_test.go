package query

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadExportedNamespace(t *testing.T) {
	const lr = `, "namespace", "$1", "exported_namespace", "(.+)")`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"no exported_namespace: unchanged", `max by (namespace) (kube_deployment_spec_replicas{job="x", namespace=~"shop"})`,
			`max by (namespace) (kube_deployment_spec_replicas{job="x", namespace=~"shop"})`},
		{"instant selector", `max by (namespace, deployment) (kube_deployment_spec_replicas{job="x", exported_namespace=~"shop"})`,
			`max by (namespace, deployment) (label_replace(kube_deployment_spec_replicas{job="x", exported_namespace=~"shop"}` + lr + `)`},
		{"range selector: its function is wrapped", `sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total{exported_namespace=~"shop"}[5m]))`,
			`sum by (namespace, pod) (label_replace(increase(kube_pod_container_status_restarts_total{exported_namespace=~"shop"}[5m])` + lr + `)`},
		{"only the KSM side of a join", `max by (namespace, pod) (rate(container_cpu_usage_seconds_total{namespace=~"shop"}[1m])) * on (namespace, pod) group_left (workload) max by (namespace, pod, workload) (kube_pod_owner{exported_namespace=~"shop"})`,
			`max by (namespace, pod) (rate(container_cpu_usage_seconds_total{namespace=~"shop"}[1m])) * on (namespace, pod) group_left (workload) max by (namespace, pod, workload) (label_replace(kube_pod_owner{exported_namespace=~"shop"}` + lr + `)`},
		{"inside another label_replace", `label_replace(kube_hpa_spec_max_replicas{exported_namespace="a"}, "horizontalpodautoscaler", "$1", "hpa", "(.*)")`,
			`label_replace(label_replace(kube_hpa_spec_max_replicas{exported_namespace="a"}` + lr + `, "horizontalpodautoscaler", "$1", "hpa", "(.*)")`},
		{"two selectors", `a{exported_namespace="x"} or b{exported_namespace="x"}`,
			`label_replace(a{exported_namespace="x"}` + lr + ` or label_replace(b{exported_namespace="x"}` + lr},
		{"a subquery", `max_over_time(max(k{exported_namespace="x"})[5m:10s])`, `max_over_time(max(label_replace(k{exported_namespace="x"}` + lr + `)[5m:10s])`},
		{"an offset", `max(k{exported_namespace="x"} offset 5m)`, `max(label_replace(k{exported_namespace="x"} offset 5m` + lr + `)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadExportedNamespace(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	t.Run("a second rewrite changes nothing", func(t *testing.T) {
		in := `sum(rate(a{exported_namespace="x"}[1m])) + max(b{exported_namespace="x"}) * on (namespace) group_left c{namespace="x"}`
		once, err := ReadExportedNamespace(in)
		require.NoError(t, err)
		require.NotEqual(t, in, once)
		twice, err := ReadExportedNamespace(once)
		require.NoError(t, err)
		require.Equal(t, once, twice)
	})
	_, err := ReadExportedNamespace(`max(a{exported_namespace="x"`)
	require.ErrorContains(t, err, "parse")
}

func TestNamespaceLabel(t *testing.T) {
	require.Equal(t, "namespace", NamespaceLabel(`job="kube-state-metrics", namespace=~"$namespace"`))
	require.Equal(t, ExportedNamespace, NamespaceLabel(`job="kubernetes-service-endpoints", exported_namespace=~"$namespace"`))
	require.Equal(t, "namespace", NamespaceLabel(`not a selector`))
}
