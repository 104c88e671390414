package dashboards

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/query"
)

// Exprs resolves a named query to PromQL that may contain Grafana variables
// ($testid, $namespace, $workload, $quantile_stat, $quantile, $__rate_interval).
//
// The dashboards ask for every panel query by name: the correlator's catalog
// (internal/query) answers for the names it defines, so the graph and the report read
// the same query, and [BuiltinExprs] answers for the rest (see [DefaultExprs]).
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

// Selectors of the sources, as Grafana sees them. They mirror the sources of the
// correlator's catalog (internal/query/catalog.yaml) with Grafana variables in place of
// the template fields, so the graph and the report read the same series.
const (
	// selLoad selects the k6 series of the runs chosen in the Load dashboard (multi-value).
	selLoad = `testid=~"$testid"`
	// selRun selects the k6 series of the one run of the correlation dashboard.
	selRun = `testid="$testid"`
	// selKSM selects kube-state-metrics series (kube-prometheus job name, honor_labels).
	selKSM = `job="kube-state-metrics", namespace=~"$namespace"`
	// selCAdvisor selects cAdvisor series scraped through the kubelet, without the
	// pod-level cgroup (container="") and the sandbox (container="POD"), k8s.md §2.
	selCAdvisor = `job="kubelet", metrics_path="/metrics/cadvisor", namespace=~"$namespace", container!="", container!="POD"`
	// rateWindow is Grafana's rate window: at least four scrapes of the data source's
	// scrape interval (set to the slowest cluster source, 30 s, in deploy/grafana).
	rateWindow = `$__rate_interval`
)

// rate returns rate(metric{sel}[$__rate_interval]).
func rate(metric, sel string) string {
	return "rate(" + metric + "{" + sel + "}[" + rateWindow + "])"
}

// podWorkload joins pods to their Deployment (pod → ReplicaSet → Deployment), as
// kubernetes-mixin's namespace_workload_pod:kube_pod_owner:relabel{workload_type="deployment"}
// and the catalog's pod_workload fragment; only workloads matching $workload remain.
const podWorkload = `max by (namespace, workload, pod) (
  label_replace(
    label_replace(kube_pod_owner{` + selKSM + `, owner_kind="ReplicaSet"}, "replicaset", "$1", "owner_name", "(.*)")
    * on (replicaset, namespace) group_left (owner_name)
    topk by (replicaset, namespace) (1, max by (replicaset, namespace, owner_name) (
      kube_replicaset_owner{` + selKSM + `, owner_kind="Deployment", owner_name=~"$workload"})),
    "workload", "$1", "owner_name", "(.*)"))`

// hpaDeployment maps each HPA to its target Deployment through scaletargetref_name (value 1).
const hpaDeployment = `max by (namespace, horizontalpodautoscaler, deployment) (
  label_replace(kube_horizontalpodautoscaler_info{` + selKSM + `, scaletargetref_kind="Deployment", scaletargetref_name=~"$workload"},
    "deployment", "$1", "scaletargetref_name", "(.*)"))`

// ofWorkloads keeps the HPAs of a per-HPA expression (labels namespace,
// horizontalpodautoscaler) whose target Deployment matches $workload, and adds the
// deployment label.
func ofWorkloads(perHPA string) string {
	return "(" + perHPA + ")\n* on (namespace, horizontalpodautoscaler) group_left (deployment) " + hpaDeployment
}

// perWorkload attaches the workload label to a per-pod vector.
func perWorkload(perPod string) string {
	return perPod + "\n* on (namespace, pod) group_left (workload) " + podWorkload
}

// perDeployment reads a kube_deployment_* gauge of the selected workloads.
func perDeployment(metric string) string {
	return "max by (namespace, deployment) (" + metric + `{` + selKSM + `, deployment=~"$workload"})`
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

// BuiltinExprs returns the dashboards' own queries: everything a panel needs that the
// correlator's catalog does not define (the k6 panels of the Load dashboard, annotations,
// windowed rates, the start-up gap, per-container throttling). They use the catalog's
// selectors and joins, so they read the same series.
func BuiltinExprs() ExprTable {
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
		"run_info":             `max(tidemark_run_info{` + selRun + `})`,
		"events":               `max by (kind, object) (timestamp(tidemark_event{` + selRun + `}) * 1000)`,
		"scenario_target_rate": `sum by (scenario) (tidemark_scenario_target{` + selRun + `, unit="iterations_per_second"})`,
		"target_vus":           `sum by (scenario) (tidemark_scenario_target{` + selRun + `, unit="vus"})`,
		"achieved_rate":        `sum by (scenario) (` + rate("k6_iterations_total", selRun) + `)`,
		"http_failure_rate":    `sum(` + failures(selRun) + `)`,
		"http_error_ratio":     `(sum(` + failures(selRun) + `) or vector(0)) / sum(` + rate("k6_http_reqs_total", selRun) + `)`,

		// --- autoscaling (kube-state-metrics) ------------------------------------------------
		"deployment_available": perDeployment("kube_deployment_status_replicas_available"),
		// Start-up gap: replicas asked for (spec, which the HPA sets) but not yet Ready.
		"deployment_not_ready": perDeployment("kube_deployment_spec_replicas") +
			"\n- on (namespace, deployment) " + perDeployment("kube_deployment_status_replicas_ready"),

		// --- CPU (cAdvisor + kube-state-metrics) ---------------------------------------------
		// The HPA's CPU target as cores per pod: request × averageUtilization / 100.
		"cpu_hpa_target_pod": `avg by (namespace, workload) (` + perWorkload(`sum by (namespace, pod) (kube_pod_container_resource_requests{`+
			selKSM+`, resource="cpu", unit="core"})`) + `)
* on (namespace, workload) group_left ()
max by (namespace, workload) (label_replace(
  max by (namespace, horizontalpodautoscaler) (kube_horizontalpodautoscaler_spec_target_metric{` + selKSM + `, metric_name="cpu", metric_target_type="utilization"})
  * on (namespace, horizontalpodautoscaler) group_left (deployment) ` + hpaDeployment + `,
  "workload", "$1", "deployment", "(.*)")) / 100`,
		"cpu_throttled_ratio_container": `sum by (namespace, pod, container) (` + rate("container_cpu_cfs_throttled_periods_total", selCAdvisor) + `)
/ sum by (namespace, pod, container) (` + rate("container_cpu_cfs_periods_total", selCAdvisor) + `)
* on (namespace, pod) group_left (workload) ` + podWorkload,

		// --- errors ---------------------------------------------------------------------------
		"http_failures_by_status": `sum by (status, error_code) (` + failures(selRun) + `)`,
		"checks_failed_ratio":     `1 - avg by (check) (k6_checks_rate{` + selRun + `})`,
		"dropped_iterations_rate": `sum by (scenario) (` + rate("k6_dropped_iterations_total", selRun) + `)`,
		"container_restarts": perWorkload(`sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total{` +
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

// DefaultExprs returns the queries of the generated dashboards: the embedded catalog of
// internal/query first, then [BuiltinExprs].
func DefaultExprs() (Exprs, error) {
	cat, err := query.Default()
	if err != nil {
		return nil, fmt.Errorf("load query catalog: %w", err)
	}
	return CatalogExprs(cat, BuiltinExprs()), nil
}
