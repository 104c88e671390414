package dashboards

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/query"
)

// grafanaVar matches Grafana's variable syntaxes: $name, ${name}, ${name:format}, [[name]].
var grafanaVar = regexp.MustCompile(`\$(\w+)|\$\{(\w+)(?::([^}]+))?\}|\[\[(\w+)(?::(\w+))?\]\]`)

// interpolate replaces Grafana variables the way Grafana does for a Prometheus query:
// multi-valued variables become a regex alternation (a|b); unknown names (like the $1 of
// label_replace) stay as they are. It reports the variables it replaced.
func interpolate(expr string, vars map[string][]string) (string, []string) {
	var used []string
	out := grafanaVar.ReplaceAllStringFunc(expr, func(m string) string {
		sub := grafanaVar.FindStringSubmatch(m)
		name := sub[1] + sub[2] + sub[4]
		vals, ok := vars[name]
		if !ok {
			return m
		}
		used = append(used, name)
		if len(vals) == 1 {
			return vals[0]
		}
		return "(" + strings.Join(vals, "|") + ")"
	})
	return out, used
}

// testVars are the values the tests give the dashboards' variables: multi-value
// forms where the dashboards allow them, and Grafana's built-in intervals.
func testVars(testid string) map[string][]string {
	return map[string][]string{
		"testid":          {testid},
		"group":           {testid}, // a testid without a date suffix is its own group
		"namespace":       {"shop", "payments"},
		"workload":        {".+"},
		"quantile_stat":   {"p99"},
		"quantile":        {"0.99"},
		"__rate_interval": {"1m"},
		"__interval":      {"15s"},
		"__range":         {"15m"},
	}
}

// foundQuery is one PromQL expression found in a dashboard's JSON.
type foundQuery struct {
	Dashboard, Panel, RefID, Expr, Unit string
	Instant                             bool
}

// walkQueries finds every panel target and annotation expression in a dashboard's JSON.
func walkQueries(t *testing.T, uid string, raw []byte) []foundQuery {
	t.Helper()
	var d struct {
		Panels      []json.RawMessage `json:"panels"`
		Annotations struct {
			List []struct {
				Name string `json:"name"`
				Expr string `json:"expr"`
			} `json:"list"`
		} `json:"annotations"`
	}
	require.NoError(t, json.Unmarshal(raw, &d))
	type panel struct {
		Type        string            `json:"type"`
		Title       string            `json:"title"`
		Panels      []json.RawMessage `json:"panels"`
		FieldConfig struct {
			Defaults struct {
				Unit string `json:"unit"`
			} `json:"defaults"`
			Overrides []struct {
				Matcher struct {
					ID      string `json:"id"`
					Options any    `json:"options"`
				} `json:"matcher"`
				Properties []struct {
					ID    string `json:"id"`
					Value any    `json:"value"`
				} `json:"properties"`
			} `json:"overrides"`
		} `json:"fieldConfig"`
		Datasource struct {
			Type string `json:"type"`
			UID  string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			RefID   string `json:"refId"`
			Expr    string `json:"expr"`
			Legend  string `json:"legendFormat"`
			Instant bool   `json:"instant"`
		} `json:"targets"`
	}
	var out []foundQuery
	var visit func(raws []json.RawMessage)
	visit = func(raws []json.RawMessage) {
		for _, r := range raws {
			var p panel
			require.NoError(t, json.Unmarshal(r, &p))
			if p.Type == "row" {
				visit(p.Panels)
				continue
			}
			require.NotEmpty(t, p.Targets, "%s: panel %q has no queries", uid, p.Title)
			require.Equal(t, "prometheus", p.Datasource.Type, "%s: panel %q", uid, p.Title)
			require.Equal(t, "${datasource}", p.Datasource.UID, "%s: panel %q", uid, p.Title)
			refs := map[string]bool{}
			for _, tg := range p.Targets {
				require.NotEmpty(t, tg.RefID, "%s: panel %q has a query without refId", uid, p.Title)
				require.False(t, refs[tg.RefID], "%s: panel %q repeats refId %s", uid, p.Title, tg.RefID)
				refs[tg.RefID] = true
				// The unit of this query's series: the panel's, unless an override
				// by name (the legend) sets another.
				unit := p.FieldConfig.Defaults.Unit
				for _, o := range p.FieldConfig.Overrides {
					if o.Matcher.ID != "byName" || o.Matcher.Options != tg.Legend {
						continue
					}
					for _, prop := range o.Properties {
						if prop.ID == "unit" {
							unit, _ = prop.Value.(string)
						}
					}
				}
				out = append(out, foundQuery{Dashboard: uid, Panel: p.Title, RefID: tg.RefID, Expr: tg.Expr, Unit: unit, Instant: tg.Instant})
			}
		}
	}
	visit(d.Panels)
	for _, a := range d.Annotations.List {
		if a.Expr == "" {
			continue // Grafana's built-in annotations
		}
		out = append(out, foundQuery{Dashboard: uid, Panel: "annotation " + a.Name, RefID: "-", Expr: a.Expr, Unit: "-"})
	}
	return out
}

// generatedQueries returns every query of every generated dashboard.
func generatedQueries(t *testing.T) []foundQuery {
	t.Helper()
	exprs, err := DefaultExprs()
	require.NoError(t, err)
	built, err := All(exprs)
	require.NoError(t, err)
	var out []foundQuery
	for _, b := range built {
		raw, err := Marshal(b.Dashboard)
		require.NoError(t, err)
		out = append(out, walkQueries(t, b.UID, raw)...)
	}
	return out
}

func TestInterpolate(t *testing.T) {
	t.Parallel()
	vars := testVars("run-1")
	for _, tc := range []struct {
		name, in, want string
	}{
		{"dollar", `k6_vus{testid="$testid"}`, `k6_vus{testid="run-1"}`},
		{"braces", `k6_vus{testid="${testid}"}`, `k6_vus{testid="run-1"}`},
		{"format", `x{namespace=~"${namespace:regex}"}`, `x{namespace=~"(shop|payments)"}`},
		{"brackets", `x{namespace=~"[[namespace]]"}`, `x{namespace=~"(shop|payments)"}`},
		{"multi value", `x{namespace=~"$namespace"}`, `x{namespace=~"(shop|payments)"}`},
		{"in metric name", `k6_http_req_duration_$quantile_stat{}`, `k6_http_req_duration_p99{}`},
		{"rate interval", `rate(x[$__rate_interval])`, `rate(x[1m])`},
		{"label_replace group kept", `label_replace(x, "a", "$1", "b", "(.*)")`, `label_replace(x, "a", "$1", "b", "(.*)")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := interpolate(tc.in, vars)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestQueriesParse parses every panel and annotation expression with Prometheus' own
// parser after substituting the Grafana variables, and checks that no dashboard
// variable is left behind.
func TestQueriesParse(t *testing.T) {
	p := parser.NewParser(parser.Options{})
	qs := generatedQueries(t)
	require.Greater(t, len(qs), 60)
	leftover := regexp.MustCompile(`\$\{?(testid|namespace|workload|quantile_stat|quantile|__rate_interval|__interval|datasource)\b`)
	for _, qu := range qs {
		expr, _ := interpolate(qu.Expr, testVars("run-1"))
		require.NotRegexp(t, leftover, expr, "%s / %s / %s", qu.Dashboard, qu.Panel, qu.RefID)
		_, err := p.ParseExpr(expr)
		require.NoError(t, err, "%s / %s / %s:\n%s", qu.Dashboard, qu.Panel, qu.RefID, expr)
	}
}

// TestQueriesParseFailsOnBrokenExpr shows the parse check catches a broken expression.
func TestQueriesParseFailsOnBrokenExpr(t *testing.T) {
	t.Parallel()
	p := parser.NewParser(parser.Options{})
	expr, _ := interpolate(`sum(rate(k6_http_reqs_total{testid="$testid"}[$__rate_interval])`, testVars("x"))
	_, err := p.ParseExpr(expr)
	require.Error(t, err)
}

// TestPanelsHaveUnits checks every panel declares a unit, so Grafana formats seconds,
// bytes and ratios correctly.
func TestPanelsHaveUnits(t *testing.T) {
	t.Parallel()
	for _, qu := range generatedQueries(t) {
		require.NotEmpty(t, qu.Unit, "%s / %s has no unit", qu.Dashboard, qu.Panel)
	}
}

// TestLatencyPanelsUseSeconds: k6 time trends are in seconds on the wire, so every panel
// reading them must use unit "s".
func TestLatencyPanelsUseSeconds(t *testing.T) {
	t.Parallel()
	for _, qu := range generatedQueries(t) {
		if strings.Contains(qu.Expr, "_duration") && !strings.Contains(qu.Expr, "histogram_count") {
			require.Equal(t, "s", qu.Unit, "%s / %s", qu.Dashboard, qu.Panel)
		}
	}
}

// TestCatalogQueriesComeFromCatalog pins which correlation panels read the correlator's
// catalog query verbatim (rendered with Grafana variables), so the graph and the report
// read the same query.
func TestCatalogQueriesComeFromCatalog(t *testing.T) {
	t.Parallel()
	cat, err := query.Default()
	require.NoError(t, err)
	exprs := CatalogExprs(cat, defaultBuiltins(t, cat))
	want := []string{
		"cpu_limit_pod", "cpu_request_pod", "cpu_throttled_ratio", "cpu_usage_pod",
		"deployment_ready", "deployment_spec_replicas", "hpa_current", "hpa_deployment", "hpa_desired", "hpa_max", "hpa_min",
		"http_req_rate", "latency_p95", "latency_p99",
		"mysql_connections", "mysql_max_connections", "mysql_threads_running", "pg_connections", "pg_max_connections",
		"pool_busy", "pool_pending", "pool_size", "pool_waits",
		"rds_connections", "rds_cpu", "rds_credit_balance", "rds_freeable_memory", "vus", "web_vital_cls_gauge", "web_vitals_gauge",
	}
	used := map[string]bool{}
	_, err = RunCorrelation(recordingExprs{Exprs: exprs, seen: used})
	require.NoError(t, err)
	var fromCatalog []string
	for name := range used {
		if _, ok := cat.Queries[name]; ok {
			fromCatalog = append(fromCatalog, name)
		}
	}
	slices.Sort(fromCatalog)
	require.Equal(t, want, fromCatalog)
}

// recordingExprs records which names a builder asked for.
type recordingExprs struct {
	Exprs
	seen map[string]bool
}

func (r recordingExprs) Expr(name string) (string, error) {
	r.seen[name] = true
	return r.Exprs.Expr(name)
}

// TestCatalogExprsRendersGrafanaVariables checks the catalog adapter: run values become
// Grafana variables, the rate window becomes $__rate_interval, unknown names fall back.
func TestCatalogExprsRendersGrafanaVariables(t *testing.T) {
	t.Parallel()
	cat, err := query.Default()
	require.NoError(t, err)
	exprs := CatalogExprs(cat, ExprTable{"only_here": "up"})
	for _, tc := range []struct {
		name     string
		contains []string
		wantErr  string
	}{
		{name: "http_req_rate", contains: []string{`testid="$testid"`, `[$__rate_interval]`}},
		{name: "cpu_throttled_ratio", contains: []string{`namespace=~"$namespace"`, `owner_name=~"$workload"`, `[$__rate_interval]`}},
		{name: "only_here", contains: []string{"up"}},
		{name: "nowhere", wantErr: `look up query "nowhere": not in the query table`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := exprs.Expr(tc.name)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			for _, c := range tc.contains {
				require.Contains(t, e, c)
			}
			require.NotContains(t, e, "2h9m37s")
		})
	}
}

// TestMissingQueryFailsBuild: a builder asking for an unknown name fails with its name.
func TestMissingQueryFailsBuild(t *testing.T) {
	t.Parallel()
	_, err := Load(ExprTable{})
	require.ErrorContains(t, err, `look up query "load_vus"`)
	cat, err := query.Default()
	require.NoError(t, err)
	_, err = RunCorrelation(defaultBuiltins(t, cat))
	require.ErrorContains(t, err, `look up query "hpa_current"`)
}

// TestCatalogSelectorsAreTheDefaults: the embedded catalog's selectors, rendered for
// Grafana, are the ones the dashboards were designed on.
func TestCatalogSelectorsAreTheDefaults(t *testing.T) {
	t.Parallel()
	cat, err := query.Default()
	require.NoError(t, err)
	got, err := CatalogSelectors(cat)
	require.NoError(t, err)
	require.Equal(t, DefaultSelectors(), got)
}

// TestCustomCatalogChangesTheDashboards: a catalog changed for other exporters (other job
// labels) changes every query and variable of the dashboards, built-in ones included.
func TestCustomCatalogChangesTheDashboards(t *testing.T) {
	t.Parallel()
	y := string(query.DefaultYAML())
	y = strings.ReplaceAll(y, `job="kube-state-metrics"`, `job="ksm", cluster="eks-1"`)
	y = strings.ReplaceAll(y, `job="kubelet", metrics_path="/metrics/cadvisor"`, `job="cadvisor", cluster="eks-1"`)
	cat, err := query.Parse([]byte(y))
	require.NoError(t, err)
	exprs, err := ExprsFromCatalog(cat)
	require.NoError(t, err)
	built, err := All(exprs)
	require.NoError(t, err)
	p := parser.NewParser(parser.Options{})
	ksm, cadvisor := 0, 0
	for _, b := range built {
		raw, err := Marshal(b.Dashboard)
		require.NoError(t, err)
		for _, v := range b.Dashboard.Templating.List {
			if v.Query != nil && v.Query.String != nil {
				require.NotContains(t, *v.Query.String, "kube-state-metrics", "%s variable %s", b.UID, v.Name)
			}
		}
		for _, qu := range walkQueries(t, b.UID, raw) {
			require.NotContains(t, qu.Expr, "kube-state-metrics", qu.Panel)
			require.NotContains(t, qu.Expr, "/metrics/cadvisor", qu.Panel)
			expr, _ := interpolate(qu.Expr, testVars("x"))
			_, err := p.ParseExpr(expr)
			require.NoError(t, err, expr)
			if strings.Contains(qu.Expr, "kube_") {
				require.Contains(t, qu.Expr, `job="ksm", cluster="eks-1"`, qu.Panel)
				ksm++
			}
			if strings.Contains(qu.Expr, "container_cpu") {
				require.Contains(t, qu.Expr, `job="cadvisor", cluster="eks-1"`, qu.Panel)
				cadvisor++
			}
		}
	}
	require.Positive(t, ksm)
	require.Positive(t, cadvisor)
}

// TestCatalogSelectorsErrors: a selector the dashboards cannot render is an error, not a
// silently wrong dashboard.
func TestCatalogSelectorsErrors(t *testing.T) {
	t.Parallel()
	y := strings.Replace(string(query.DefaultYAML()), `selector: 'job="kube-state-metrics", namespace=~"{{.Namespace}}"'`,
		`selector: 'job="kube-state-metrics", namespace=~"{{.Namespace}}", window="{{.RateWindow}}"'`, 1)
	require.NotEqual(t, string(query.DefaultYAML()), y)
	cat, err := query.Parse([]byte(y))
	require.NoError(t, err)
	_, err = CatalogSelectors(cat)
	require.ErrorContains(t, err, `render selector of source "ksm" for grafana`)
}

// TestCustomCatalogJoinsReachBuiltinQueries: the dashboards' own per-workload queries use
// the catalog's pod_workload and hpa_deployment joins, so a changed join changes them.
func TestCustomCatalogJoinsReachBuiltinQueries(t *testing.T) {
	t.Parallel()
	y := strings.ReplaceAll(string(query.DefaultYAML()), `owner_kind="ReplicaSet"}`, `owner_kind="ReplicaSet", owner_is_controller="true"}`)
	y = strings.ReplaceAll(y, `scaletargetref_kind="Deployment", scaletargetref_name=~`, `scaletargetref_kind="Deployment", scaletargetref_api_version="apps/v1", scaletargetref_name=~`)
	cat, err := query.Parse([]byte(y))
	require.NoError(t, err)
	exprs, err := ExprsFromCatalog(cat)
	require.NoError(t, err)
	for _, name := range []string{"cpu_throttled_ratio_container", "container_restarts", "cpu_hpa_target_pod"} {
		e, err := exprs.Expr(name)
		require.NoError(t, err)
		require.Contains(t, e, `owner_is_controller="true"`, name)
	}
	e, err := exprs.Expr("cpu_hpa_target_pod")
	require.NoError(t, err)
	require.Contains(t, e, `scaletargetref_api_version="apps/v1"`)
	e, err = exprs.Expr("hpa_deployment")
	require.NoError(t, err)
	require.Contains(t, e, `scaletargetref_api_version="apps/v1"`)
}

// defaultBuiltins are the catalog's dashboard queries on the default selectors and the
// catalog's joins, without the catalog's own queries.
func defaultBuiltins(t *testing.T, cat *query.Catalog) ExprTable {
	t.Helper()
	j, err := catalogJoins(cat, DefaultSelectors())
	require.NoError(t, err)
	b, err := builtinExprs(cat, j)
	require.NoError(t, err)
	return b
}
