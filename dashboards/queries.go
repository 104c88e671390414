package dashboards

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/query"
)

// Exprs resolves a named query to PromQL that may contain Grafana variables
// ($testid, $namespace, $workload, $quantile_stat, $quantile, $__rate_interval).
//
// The dashboards ask for every panel query by name: the correlator's catalog
// (internal/query) answers for the names it defines, so the graph and the report read
// the same query, and builtinExprs answers for the rest (see [DefaultExprs]).
type Exprs interface {
	Expr(name string) (string, error)
}

// ExprTable is an [Exprs] backed by a map from query name to PromQL.
type ExprTable map[string]string

var _ Exprs = ExprTable(nil)

// Expr returns the expression called name, or an error naming it when it is missing.
func (t ExprTable) Expr(name string) (string, error) {
	e, ok := t[name]
	if !ok {
		return "", fmt.Errorf("look up query %q: not in the query table", name)
	}
	return e, nil
}

// Names returns the table's query names, sorted.
func (t ExprTable) Names() []string {
	return slices.Sorted(maps.Keys(t))
}

// Selectors are the label matchers (without braces) of each source as Grafana sees them:
// the catalog's source selectors (internal/query/catalog.yaml) rendered with Grafana
// variables in place of a run's values, so the graph and the report read the same series
// and a catalog changed for other exporters changes the dashboards too.
type Selectors struct {
	// Load selects the k6 series of the runs chosen in the Load dashboard (multi-value
	// $testid). k6's names are a fixed contract, so it is not taken from the catalog.
	Load string
	// Run selects the k6 series of the one run of the correlation dashboard (source k6).
	Run string
	// KSM selects kube-state-metrics series in $namespace (source ksm).
	KSM string
	// KSMAllNamespaces is KSM for every namespace, for the namespace variable itself.
	KSMAllNamespaces string
	// CAdvisor selects cAdvisor series in $namespace (source cadvisor).
	CAdvisor string
}

// DefaultSelectors are the selectors of the embedded catalog.
func DefaultSelectors() Selectors {
	return Selectors{
		Load:             `testid=~"$testid"`,
		Run:              `testid="$testid"`,
		KSM:              `job="kube-state-metrics", namespace=~"$namespace"`,
		KSMAllNamespaces: `job="kube-state-metrics", namespace=~".+"`,
		CAdvisor:         `job="kubelet", metrics_path="/metrics/cadvisor", namespace=~"$namespace"`,
	}
}

// CatalogSelectors renders the selectors of the catalog's k6, ksm and cadvisor sources
// with Grafana variables.
func CatalogSelectors(cat *query.Catalog) (Selectors, error) {
	render := func(source, namespace string) (string, error) {
		src, ok := cat.Sources[source]
		if !ok {
			return "", fmt.Errorf("catalog has no source %q", source)
		}
		t, err := template.New(source).Option("missingkey=error").Parse(src.Selector)
		if err != nil {
			return "", fmt.Errorf("parse selector of source %q: %w", source, err)
		}
		var b strings.Builder
		data := map[string]string{"TestID": "$testid", "Namespace": namespace, "Workload": "$workload"}
		if err := t.Execute(&b, data); err != nil {
			return "", fmt.Errorf("render selector of source %q for grafana: %w", source, err)
		}
		return strings.TrimSpace(b.String()), nil
	}
	s := Selectors{Load: DefaultSelectors().Load}
	var errs []error
	for _, f := range []struct {
		dst               *string
		source, namespace string
	}{
		{&s.Run, "k6", "$namespace"},
		{&s.KSM, "ksm", "$namespace"},
		{&s.KSMAllNamespaces, "ksm", ".+"},
		{&s.CAdvisor, "cadvisor", "$namespace"},
	} {
		v, err := render(f.source, f.namespace)
		errs = append(errs, err)
		*f.dst = v
	}
	return s, errors.Join(errs...)
}

// rateWindow is Grafana's rate window: at least four samples at the data source's scrape
// interval (deploy/grafana sets 10 s, the cAdvisor scrape).
const rateWindow = `$__rate_interval`

// rate returns rate(metric{sel}[$__rate_interval]).
func rate(metric, sel string) string {
	return "rate(" + metric + "{" + sel + "}[" + rateWindow + "])"
}

// joins builds the catalog's joins on a set of selectors. When the catalog defines the
// join queries (pod_workload, hpa_deployment), their rendering is used as is.
type joins struct {
	Selectors
	podWorkloadExpr, hpaDeploymentExpr, deploymentReadyExpr string
}

// containers restricts cAdvisor series to real containers: not the pod-level cgroup
// (container="") nor the sandbox (container="POD"), reference/k8s.md §2.
func (j joins) containers() string {
	return j.CAdvisor + `, container!="", container!="POD"`
}

// podWorkload joins pods to their Deployment (pod → ReplicaSet → Deployment), as
// kubernetes-mixin's namespace_workload_pod:kube_pod_owner:relabel{workload_type="deployment"}
// and the catalog's pod_workload fragment; only workloads matching $workload remain.
func (j joins) podWorkload() string {
	if j.podWorkloadExpr != "" {
		return j.podWorkloadExpr
	}
	return `max by (namespace, workload, pod) (
  label_replace(
    label_replace(kube_pod_owner{` + j.KSM + `, owner_kind="ReplicaSet"}, "replicaset", "$1", "owner_name", "(.*)")
    * on (replicaset, namespace) group_left (owner_name)
    topk by (replicaset, namespace) (1, max by (replicaset, namespace, owner_name) (
      kube_replicaset_owner{` + j.KSM + `, owner_kind="Deployment", owner_name=~"$workload"})),
    "workload", "$1", "owner_name", "(.*)"))`
}

// hpaDeployment maps each HPA to its target Deployment through scaletargetref_name
// (value 1), as the catalog's hpa_deployment fragment.
func (j joins) hpaDeployment() string {
	if j.hpaDeploymentExpr != "" {
		return j.hpaDeploymentExpr
	}
	return `max by (namespace, horizontalpodautoscaler, deployment) (
  label_replace(kube_horizontalpodautoscaler_info{` + j.KSM + `, scaletargetref_kind="Deployment", scaletargetref_name=~"$workload"},
    "deployment", "$1", "scaletargetref_name", "(.*)"))`
}

// deploymentReady is the ready replicas of the selected Deployments, as the catalog's
// deployment_ready (which falls back to replicas_available, then to Ready pods, where
// kube-state-metrics has no replicas_ready).
func (j joins) deploymentReady() string {
	if j.deploymentReadyExpr != "" {
		return j.deploymentReadyExpr
	}
	return j.perDeployment("kube_deployment_status_replicas_ready")
}

// hpaCPUTarget is each HPA's CPU utilization target (kube-state-metrics v2's name, else
// v1's kube_hpa_spec_target_metric, as the catalog's hpa_target_metric).
func (j joins) hpaCPUTarget() string {
	return `(max by (namespace, horizontalpodautoscaler) (kube_horizontalpodautoscaler_spec_target_metric{` + j.KSM + `, metric_name="cpu", metric_target_type="utilization"})
    or max by (namespace, horizontalpodautoscaler) (label_replace(kube_hpa_spec_target_metric{` + j.KSM + `, metric_name="cpu", metric_target_type="utilization"}, "horizontalpodautoscaler", "$1", "hpa", "(.*)")))`
}

// perWorkload attaches the workload label to a per-pod vector.
func (j joins) perWorkload(perPod string) string {
	return perPod + "\n* on (namespace, pod) group_left (workload) " + j.podWorkload()
}

// perDeployment reads a kube_deployment_* gauge of the selected workloads.
func (j joins) perDeployment(metric string) string {
	return "max by (namespace, deployment) (" + metric + `{` + j.KSM + `, deployment=~"$workload"})`
}

// ofWorkloads keeps the HPAs of a per-HPA expression (labels namespace,
// horizontalpodautoscaler) whose target Deployment matches $workload, and adds the
// deployment label; the join is the hpa_deployment query.
func ofWorkloads(b *builder, perHPA string) string {
	return "(" + perHPA + ")\n* on (namespace, horizontalpodautoscaler) group_left (deployment) " + b.expr("hpa_deployment")
}

// failures are the failed requests: expected_response="false", or, without a response
// callback (no expected_response label), status 0 (transport error), 4xx or 5xx. This is
// the catalog's failures fragment.
func failures(sel string) string {
	return rate("k6_http_reqs_total", sel+`, expected_response="false"`) +
		" or " + rate("k6_http_reqs_total", sel+`, expected_response="", status=~"0|[45].."`)
}

// k6Trends are the k6 time trends the Load dashboard breaks latency into, as 19665 does
// (http_req_connecting added: it is the TCP part of blocked time).
func k6Trends() []string {
	return []string{
		"http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
		"http_req_sending", "http_req_waiting", "http_req_receiving",
	}
}

// builtinExprs returns the dashboards' own queries on the given joins: everything a
// panel needs that the correlator's catalog does not define (the k6 panels of the Load
// dashboard, annotations, windowed rates, the start-up gap, per-container throttling).
// They use the catalog's selectors and joins, so they read the same series.
func builtinExprs(j joins) ExprTable {
	s := j.Selectors
	selLoad, selRun, selKSM := s.Load, s.Run, s.KSM
	t := ExprTable{
		// --- Load dashboard (k6 series, multi-value $testid) -------------------------------
		"load_vus":                      `sum(k6_vus{` + selLoad + `})`,
		"load_vus_max":                  `sum(k6_vus_max{` + selLoad + `})`,
		"load_http_reqs":                `sum(k6_http_reqs_total{` + selLoad + `})`,
		"load_http_failures":            `sum(k6_http_reqs_total{` + selLoad + `, expected_response="false"})`,
		"load_http_failed_rate":         `avg(k6_http_req_failed_rate{` + selLoad + `})`,
		"load_http_req_rate":            `sum(` + rate("k6_http_reqs_total", selLoad) + `)`,
		"load_http_req_rate_expected":   `sum by (expected_response) (` + rate("k6_http_reqs_total", selLoad) + `)`,
		"load_http_failure_ratio":       `(sum(` + failures(selLoad) + `) or vector(0)) / sum(` + rate("k6_http_reqs_total", selLoad) + `)`,
		"load_latency_stat":             `avg(k6_http_req_duration_$quantile_stat{` + selLoad + `})`,
		"load_latency_stat_expected":    `avg by (expected_response) (k6_http_req_duration_$quantile_stat{` + selLoad + `})`,
		"load_iteration_duration_stat":  `avg(k6_iteration_duration_$quantile_stat{` + selLoad + `})`,
		"load_latency_table_min":        `avg by (name, method, status) (k6_http_req_duration_min{` + selLoad + `})`,
		"load_latency_table_max":        `avg by (name, method, status) (k6_http_req_duration_max{` + selLoad + `})`,
		"load_latency_table_p95":        `avg by (name, method, status) (k6_http_req_duration_p95{` + selLoad + `})`,
		"load_latency_table_p99":        `avg by (name, method, status) (k6_http_req_duration_p99{` + selLoad + `})`,
		"load_checks_rate":              `avg(k6_checks_rate{` + selLoad + `})`,
		"load_checks_by_check":          `avg by (check) (k6_checks_rate{` + selLoad + `})`,
		"load_data_sent":                `sum(` + rate("k6_data_sent_total", selLoad) + `)`,
		"load_data_received":            `sum(` + rate("k6_data_received_total", selLoad) + `)`,
		"load_dropped_iterations":       `sum(k6_dropped_iterations_total{` + selLoad + `})`,
		"load_dropped_iterations_rate":  `sum by (scenario) (` + rate("k6_dropped_iterations_total", selLoad) + `)`,
		"load_iterations_rate":          `sum by (scenario) (` + rate("k6_iterations_total", selLoad) + `)`,
		"load_target_rate":              `sum by (scenario) (tidemark_scenario_target{` + selLoad + `, unit="iterations_per_second"})`,
		"load_target_vus":               `sum by (scenario) (tidemark_scenario_target{` + selLoad + `, unit="vus"})`,
		"load_hist_latency_quantile":    `histogram_quantile($quantile, sum(` + rate("k6_http_req_duration_seconds", selLoad) + `))`,
		"load_hist_latency_avg":         `histogram_sum(sum(` + rate("k6_http_req_duration_seconds", selLoad) + `)) / histogram_count(sum(` + rate("k6_http_req_duration_seconds", selLoad) + `))`,
		"load_hist_req_rate":            `histogram_count(sum(` + rate("k6_http_req_duration_seconds", selLoad) + `))`,
		"load_hist_iteration_quantile":  `histogram_quantile($quantile, sum(` + rate("k6_iteration_duration_seconds", selLoad) + `))`,
		"load_hist_latency_table_p50":   `histogram_quantile(0.5, sum by (name, method, status) (` + rate("k6_http_req_duration_seconds", selLoad) + `))`,
		"load_hist_latency_table_p95":   `histogram_quantile(0.95, sum by (name, method, status) (` + rate("k6_http_req_duration_seconds", selLoad) + `))`,
		"load_hist_latency_table_p99":   `histogram_quantile(0.99, sum by (name, method, status) (` + rate("k6_http_req_duration_seconds", selLoad) + `))`,
		"load_hist_latency_by_expected": `histogram_quantile($quantile, sum by (expected_response) (` + rate("k6_http_req_duration_seconds", selLoad) + `))`,

		// --- Run correlation dashboard: run metadata and load (one $testid) ----------------
		// A run k6 made has no tidemark_run_info: it is live while it writes k6_vus.
		"run_info":             `max(tidemark_run_info{` + selRun + `}) or clamp_max(count(k6_vus{` + selRun + `}), 1)`,
		"events":               `timestamp(tidemark_event{` + selRun + `}) * 1000`,
		"scenario_target_rate": `sum by (scenario) (tidemark_scenario_target{` + selRun + `, unit="iterations_per_second"})`,
		"target_vus":           `sum by (scenario) (tidemark_scenario_target{` + selRun + `, unit="vus"})`,
		"achieved_rate":        `sum by (scenario) (` + rate("k6_iterations_total", selRun) + `)`,
		"http_failure_rate":    `sum(` + failures(selRun) + `)`,
		"http_error_ratio":     `(sum(` + failures(selRun) + `) or vector(0)) / sum(` + rate("k6_http_reqs_total", selRun) + `)`,

		// --- autoscaling (kube-state-metrics) ------------------------------------------------
		"hpa_deployment": j.hpaDeployment(),
		// Template variables (Grafana's label_values, not PromQL).
		"var_namespace":        `label_values(kube_deployment_spec_replicas{` + s.KSMAllNamespaces + `}, ` + query.NamespaceLabel(s.KSMAllNamespaces) + `)`,
		"var_workload":         `label_values(kube_deployment_spec_replicas{` + s.KSM + `}, deployment)`,
		"deployment_available": j.perDeployment("kube_deployment_status_replicas_available"),
		// Start-up gap: replicas asked for (spec, which the HPA sets) but not yet Ready.
		"deployment_not_ready": j.perDeployment("kube_deployment_spec_replicas") +
			"\n- on (namespace, deployment) (" + j.deploymentReady() + ")",

		// --- CPU (cAdvisor + kube-state-metrics) ---------------------------------------------
		// The HPA's CPU target as cores per pod: request × averageUtilization / 100.
		"cpu_hpa_target_pod": `avg by (namespace, workload) (` + j.perWorkload(`sum by (namespace, pod) (kube_pod_container_resource_requests{`+
			selKSM+`, resource="cpu", unit="core"})`) + `)
* on (namespace, workload) group_left ()
max by (namespace, workload) (label_replace(
  ` + j.hpaCPUTarget() + `
  * on (namespace, horizontalpodautoscaler) group_left (deployment) ` + j.hpaDeployment() + `,
  "workload", "$1", "deployment", "(.*)")) / 100`,
		"cpu_throttled_ratio_container": `sum by (namespace, pod, container) (` + rate("container_cpu_cfs_throttled_periods_total", j.containers()) + `)
/ sum by (namespace, pod, container) (` + rate("container_cpu_cfs_periods_total", j.containers()) + `)
* on (namespace, pod) group_left (workload) ` + j.podWorkload(),

		// --- errors ---------------------------------------------------------------------------
		"http_failures_by_status": `sum by (status, error_code) (` + failures(selRun) + `)`,
		"checks_failed_ratio":     `1 - avg by (check) (k6_checks_rate{` + selRun + `})`,
		"dropped_iterations_rate": `sum by (scenario) (` + rate("k6_dropped_iterations_total", selRun) + `)`,
		"container_restarts": j.perWorkload(`sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total{` +
			selKSM + `}[` + rateWindow + `]))`),
	}
	for _, trend := range k6Trends() {
		t["load_trend_"+trend] = `avg(k6_` + trend + `_$quantile_stat{` + selLoad + `})`
	}
	return t
}

// legendRDS is the legend of RDS series, whichever exporter labelled them.
const legendRDS = "{{dimension_DBInstanceIdentifier}}{{dbinstance_identifier}}"

// trendTitle turns a k6 trend name into a panel legend ("http_req_waiting" → "waiting").
func trendTitle(trend string) string {
	if trend == "http_req_duration" {
		return "duration"
	}
	return strings.TrimPrefix(trend, "http_req_")
}

// rateWindowSentinel is the rate window the catalog is rendered with; every occurrence
// of its rendering is then replaced by $__rate_interval. The catalog renders the window
// as a Prometheus duration, and no real window is 7777 s, so the replacement is exact.
const rateWindowSentinel = 7777 * time.Second

// catalogExprs renders catalog queries with Grafana variables in place of a run's values.
type catalogExprs struct {
	cat      *query.Catalog
	fallback Exprs
}

var _ Exprs = catalogExprs{}

// CatalogExprs returns an [Exprs] that renders the catalog's query of a name with Grafana
// variables ($testid, $namespace, $workload, $__rate_interval), and asks fallback for
// names the catalog does not define.
func CatalogExprs(cat *query.Catalog, fallback Exprs) Exprs {
	return catalogExprs{cat: cat, fallback: fallback}
}

// Expr implements [Exprs].
func (c catalogExprs) Expr(name string) (string, error) {
	if _, ok := c.cat.Queries[name]; !ok {
		return c.fallback.Expr(name)
	}
	e, err := c.cat.Render(name, query.Vars{
		TestID:     "$testid",
		Namespace:  "$namespace",
		Workload:   "$workload",
		RateWindow: rateWindowSentinel,
	})
	if err != nil {
		return "", fmt.Errorf("render catalog query %q for grafana: %w", name, err)
	}
	return strings.ReplaceAll(e, model.Duration(rateWindowSentinel).String(), rateWindow), nil
}

// ExprsFromCatalog returns the queries of the dashboards for a catalog: its own queries
// first, then builtinExprs on its selectors and its pod_workload and hpa_deployment
// joins.
func ExprsFromCatalog(cat *query.Catalog) (Exprs, error) {
	sels, err := CatalogSelectors(cat)
	if err != nil {
		return nil, err
	}
	j := joins{Selectors: sels}
	renderer := CatalogExprs(cat, ExprTable{})
	for _, f := range []struct {
		name string
		dst  *string
	}{{"pod_workload", &j.podWorkloadExpr}, {"hpa_deployment", &j.hpaDeploymentExpr}, {"deployment_ready", &j.deploymentReadyExpr}} {
		if _, ok := cat.Queries[f.name]; !ok {
			continue // the dashboards' own rendering of the join
		}
		if *f.dst, err = renderer.Expr(f.name); err != nil {
			return nil, err
		}
	}
	return CatalogExprs(cat, namespaceExprs{builtinExprs(j)}), nil
}

// namespaceExprs reads the objects' namespace from exported_namespace where a selector
// of its queries matches on it, as the catalog's queries do
// ([query.ReadExportedNamespace]). The variables (var_*) are label_values, not PromQL.
type namespaceExprs struct{ next Exprs }

// Expr implements [Exprs].
func (n namespaceExprs) Expr(name string) (string, error) {
	e, err := n.next.Expr(name)
	if err != nil || strings.HasPrefix(name, "var_") {
		return e, err
	}
	// The parser knows no Grafana variables: the rate window is a duration to it.
	sentinel := model.Duration(rateWindowSentinel).String()
	e, err = query.ReadExportedNamespace(strings.ReplaceAll(e, rateWindow, sentinel))
	if err != nil {
		return "", fmt.Errorf("query %q: %w", name, err)
	}
	return strings.ReplaceAll(e, sentinel, rateWindow), nil
}

// DefaultExprs returns the queries of the generated dashboards: [ExprsFromCatalog] of the
// catalog embedded in internal/query.
func DefaultExprs() (Exprs, error) {
	cat, err := query.Default()
	if err != nil {
		return nil, fmt.Errorf("load query catalog: %w", err)
	}
	return ExprsFromCatalog(cat)
}
