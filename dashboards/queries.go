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
// the same query, and the catalog's dashboard queries for the rest (see [DefaultExprs]).
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

// joins are the catalog's joins (its pod_workload, hpa_deployment and deployment_ready
// queries) rendered for Grafana, with the selectors they were rendered on.
type joins struct {
	Selectors
	podWorkloadExpr, hpaDeploymentExpr, deploymentReadyExpr string
}

// catalogJoins renders the catalog's joins with Grafana variables.
func catalogJoins(cat *query.Catalog, sels Selectors) (joins, error) {
	j := joins{Selectors: sels}
	renderer := CatalogExprs(cat, ExprTable{})
	for _, f := range []struct {
		name string
		dst  *string
	}{{"pod_workload", &j.podWorkloadExpr}, {"hpa_deployment", &j.hpaDeploymentExpr}, {"deployment_ready", &j.deploymentReadyExpr}} {
		e, err := renderer.Expr(f.name)
		if err != nil {
			return joins{}, err
		}
		*f.dst = e
	}
	return j, nil
}

// ofWorkloads keeps the HPAs of a per-HPA expression (labels namespace,
// horizontalpodautoscaler) whose target Deployment matches $workload, and adds the
// deployment label; the join is the hpa_deployment query.
func ofWorkloads(b *builder, perHPA string) string {
	return "(" + perHPA + ")\n* on (namespace, horizontalpodautoscaler) group_left (deployment) " + b.expr("hpa_deployment")
}

// k6Trends are the k6 time trends the Load dashboard breaks latency into, as 19665 does
// (http_req_connecting added: it is the TCP part of blocked time).
func k6Trends() []string {
	return []string{
		"http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
		"http_req_sending", "http_req_waiting", "http_req_receiving",
	}
}

// dashboardData is what the catalog's dashboard queries (query.Catalog.Dashboards) are
// rendered with.
type dashboardData struct {
	// Sel are the selectors, with Grafana variables: load (the Load dashboard's runs,
	// multi-value $testid), run (the one run of the correlation dashboard), ksm, ksm_all
	// (ksm in every namespace, for the namespace variable) and cadvisor.
	Sel map[string]string
	// Join are the catalog's joins: pod_workload, hpa_deployment and deployment_ready.
	Join map[string]string
	// NamespaceLabel is the label of the objects' namespace in ksm_all's series.
	NamespaceLabel string
}

// builtinExprs returns the dashboards' own queries (the catalog's dashboards section:
// everything a panel needs that the correlator does not run, such as the k6 panels of
// the Load dashboard, annotations, windowed rates, the start-up gap, per-container
// throttling) rendered on the given joins, so they read the same series.
func builtinExprs(cat *query.Catalog, j joins) (ExprTable, error) {
	s := j.Selectors
	d := dashboardData{
		Sel: map[string]string{"load": s.Load, "run": s.Run, "ksm": s.KSM, "ksm_all": s.KSMAllNamespaces, "cadvisor": s.CAdvisor},
		Join: map[string]string{
			"pod_workload": j.podWorkloadExpr, "hpa_deployment": j.hpaDeploymentExpr, "deployment_ready": j.deploymentReadyExpr,
		},
		NamespaceLabel: query.NamespaceLabel(s.KSMAllNamespaces),
	}
	t := ExprTable{}
	for name := range cat.Dashboards {
		e, err := cat.RenderDashboard(name, d)
		if err != nil {
			return nil, err
		}
		t[name] = e
	}
	return t, nil
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
// first, then its dashboard queries on its selectors and its pod_workload,
// hpa_deployment and deployment_ready joins.
func ExprsFromCatalog(cat *query.Catalog) (Exprs, error) {
	sels, err := CatalogSelectors(cat)
	if err != nil {
		return nil, err
	}
	j, err := catalogJoins(cat, sels)
	if err != nil {
		return nil, err
	}
	builtin, err := builtinExprs(cat, j)
	if err != nil {
		return nil, err
	}
	return CatalogExprs(cat, namespaceExprs{builtin}), nil
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
