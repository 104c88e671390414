package query

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	promlabels "github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"
)

func TestDefaultCatalogRendersAndParses(t *testing.T) {
	t.Parallel()
	c, err := Default()
	require.NoError(t, err)
	p := parser.NewParser(parser.Options{})
	v := Vars{TestID: `run-"1"`, Namespace: "shoong", Workload: "order|kitchen", RateWindow: 2 * time.Minute, Range: 5 * time.Minute, Quantile: 0.99, Params: map[string]float64{"db_pool_per_pod": 5}}
	perPod := 0
	for _, name := range RequiredQueries() {
		expr, err := c.Render(name, v)
		require.NoError(t, err, name)
		_, err = p.ParseExpr(expr)
		require.NoError(t, err, "%s: %s", name, expr)
		require.NotContains(t, expr, "<no value>", name)
		pp, ok, err := c.RenderPerPod(name, v)
		require.NoError(t, err, name)
		if ok {
			perPod++
			_, err = p.ParseExpr(pp)
			require.NoError(t, err, "%s per_pod: %s", name, pp)
			require.NotContains(t, pp, "kube_pod_owner", "%s per_pod must not join", name)
			require.Contains(t, expr, "kube_pod_owner", "%s expr joins", name)
		}
	}
	require.Equal(t, 6, perPod)
	for _, r := range c.Findings {
		expr, err := c.RenderRule(r.Name, v)
		require.NoError(t, err, r.Name)
		_, err = p.ParseExpr(expr)
		require.NoError(t, err, "%s: %s", r.Name, expr)
	}
	for _, s := range RequiredSources() {
		expr, err := c.RenderProbe(s, v)
		require.NoError(t, err)
		_, err = p.ParseExpr(expr)
		require.NoError(t, err, expr)
	}
}

func TestRenderSubstitutesRunValues(t *testing.T) {
	t.Parallel()
	c, err := Default()
	require.NoError(t, err)
	for _, tc := range []struct {
		name, query string
		v           Vars
		want        []string
	}{
		{name: "testid escaped", query: "vus", v: Vars{TestID: `a"b`}, want: []string{`k6_vus{ testid="a\"b" }`}},
		{name: "namespace and workload", query: "deployment_ready", v: Vars{Namespace: "shoong", Workload: "order"}, want: []string{`namespace=~"shoong"`, `deployment=~"order"`}},
		{name: "default filters", query: "hpa_current", v: Vars{}, want: []string{`namespace=~".+"`}},
		{name: "rate window", query: "http_req_rate", v: Vars{RateWindow: 90 * time.Second}, want: []string{"[1m30s]"}},
		{name: "range and quantile", query: "stage_trend_quantile", v: Vars{Range: 300 * time.Second, Quantile: 0.5}, want: []string{"histogram_quantile(0.5,", "[5m]"}},
		{name: "pod join", query: "cpu_usage_pod", v: Vars{}, want: []string{"kube_replicaset_owner", `group_left (workload)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.Render(tc.query, tc.v)
			require.NoError(t, err)
			for _, w := range tc.want {
				require.Contains(t, got, w)
			}
		})
	}
}

func TestParseRejectsBadCatalogs(t *testing.T) {
	t.Parallel()
	base := string(DefaultYAML())
	for _, tc := range []struct {
		name    string
		edit    func(string) string
		wantErr string
	}{
		{
			name: "bad promql",
			edit: func(s string) string {
				return strings.Replace(s, "(k6_vus{ {{.Sel.k6}} }))'", "(k6_vus{ {{.Sel.k6}} })'", 1)
			},
			wantErr: `query "vus": parse PromQL`,
		},
		{
			name: "unknown template field",
			edit: func(s string) string {
				return strings.Replace(s, "{{.Sel.k6}} }))'\n  latency_p50", "{{.Sel.nope}} }))'\n  latency_p50", 1)
			},
			wantErr: `render query/vus`,
		},
		{
			name:    "unknown yaml field",
			edit:    func(s string) string { return strings.Replace(s, "version: 1\n", "version: 1\nbogus: 2\n", 1) },
			wantErr: "field bogus not found",
		},
		{
			name:    "missing required query",
			edit:    func(s string) string { return strings.Replace(s, "  vus:\n", "  vus_renamed:\n", 1) },
			wantErr: `required query "vus" is missing`,
		},
		{
			name: "bad per_pod",
			edit: func(s string) string {
				return strings.Replace(s, "per_pod: 'max by (namespace, pod) (kube_pod_created{ {{.Sel.ksm}} })'", "per_pod: 'max by (namespace, pod (kube_pod_created{ {{.Sel.ksm}} })'", 1)
			},
			wantErr: `query "pod_created" per_pod: parse PromQL`,
		},
		{
			name:    "wrong version",
			edit:    func(s string) string { return strings.Replace(s, "version: 1\n", "version: 2\n", 1) },
			wantErr: "catalog version 2, want 1",
		},
		{
			name:    "bad severity",
			edit:    func(s string) string { return strings.Replace(s, "severity: critical", "severity: fatal", 1) },
			wantErr: `severity "fatal"`,
		},
		{
			name: "probe must be a selector",
			edit: func(s string) string {
				return strings.Replace(s, "probe: 'aws_rds_cpuutilization_average{ {{.Sel.rds}} }'", "probe: 'sum(aws_rds_cpuutilization_average{ {{.Sel.rds}} })'", 1)
			},
			wantErr: "must be a plain series selector",
		},
		{
			name:    "threshold left out decodes as 0",
			edit:    func(s string) string { return strings.Replace(s, "  error_burst_ratio: 0.05\n", "", 1) },
			wantErr: "defaults.error_burst_ratio is 0: expected a ratio in (0, 1]",
		},
		{
			name: "stage_achieved_ok as a percentage",
			edit: func(s string) string {
				return strings.Replace(s, "stage_achieved_ok: 0.95", "stage_achieved_ok: 95", 1)
			},
			wantErr: "defaults.stage_achieved_ok is 95: expected a ratio in (0, 1]",
		},
		{
			name:    "hpa_tolerance of 1",
			edit:    func(s string) string { return strings.Replace(s, "hpa_tolerance: 0.1", "hpa_tolerance: 1", 1) },
			wantErr: "defaults.hpa_tolerance is 1: expected a ratio in [0, 1)",
		},
		{
			name: "throttle onsets out of order",
			edit: func(s string) string {
				return strings.Replace(s, "throttle_onsets: [0.05, 0.25]", "throttle_onsets: [0.25, 0.05]", 1)
			},
			wantErr: "defaults.throttle_onsets is [0.25 0.05]: expected one or more ascending ratios in (0, 1]",
		},
		{
			name: "no throttle onsets",
			edit: func(s string) string {
				return strings.Replace(s, "throttle_onsets: [0.05, 0.25]", "throttle_onsets: []", 1)
			},
			wantErr: "defaults.throttle_onsets is []: expected one or more",
		},
		{
			name: "evidence names a query",
			edit: func(s string) string {
				return strings.Replace(s, "evidence: [latency_p95,", "evidence: [latency_p96,", 1)
			},
			wantErr: `evidence "latency_p96" is not a query`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			edited := tc.edit(base)
			require.NotEqual(t, base, edited, "edit did not apply")
			_, err := Parse([]byte(edited))
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	c, err := Default()
	require.NoError(t, err)
	got, err := c.Message("throttled_below_limit", MessageData{Labels: map[string]string{"workload": "api"}, Value: 0.42})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(got, "api: CPU throttled in up to 42.0% of periods"), got)
}

func TestLoadFileEmptyPathIsTheEmbeddedCatalog(t *testing.T) {
	t.Parallel()
	got, err := LoadFile("")
	require.NoError(t, err)
	want, err := Default()
	require.NoError(t, err)
	require.Equal(t, want.Queries, got.Queries)
	require.Equal(t, want.Sources, got.Sources)
	_, err = LoadFile(filepath.Join(t.TempDir(), "missing.yaml"))
	require.ErrorContains(t, err, "read catalog: open ")
}

// rawSums names the sums in expr that reach a kube-state-metrics or cAdvisor selector
// without a max (or another collapsing aggregation) in between: series that differ only
// by scrape identity (two exporter replicas, an HA pair) would be added up.
func rawSums(t *testing.T, expr string) []string {
	t.Helper()
	isScraped := func(vs *parser.VectorSelector) bool {
		return strings.HasPrefix(vs.Name, "kube_") || strings.HasPrefix(vs.Name, "container_")
	}
	collapses := func(a *parser.AggregateExpr) bool {
		switch a.Op {
		case parser.MAX, parser.MIN, parser.TOPK, parser.BOTTOMK, parser.COUNT, parser.AVG, parser.GROUP:
			return true
		}
		return false
	}
	return sumsOverRaw(t, expr, isScraped, collapses)
}

// replicaLabels are the external labels that tell the replicas of an HA pair (or two
// receivers of the same remote writes) apart: kube-prometheus' prometheus and
// prometheus_replica, and Thanos' replica.
func replicaLabels() []string { return []string{"prometheus", "prometheus_replica", "replica"} }

// rawK6Sums names the sums in expr that reach a k6 selector (one with the testid
// matcher of the k6 source) without collapsing the replica labels in between: each k6
// series of an HA pair queried without deduplication would be added twice. An
// aggregation collapses them when it drops all of them (`max without (prometheus,
// prometheus_replica, replica)`, or a `by` list without any) and keeps one sample of
// each group (max, min, avg, group, topk or bottomk of 1). Over a native histogram,
// max, min, topk and bottomk collapse nothing in Prometheus 2.42 (they give 0): only
// over floats taken from it (histogram_count, histogram_sum). `X and Y` without on or
// ignoring returns only the label sets of Y, so it is collapsed when Y is.
func rawK6Sums(t *testing.T, expr string) []string {
	t.Helper()
	isK6 := func(vs *parser.VectorSelector) bool {
		return slices.ContainsFunc(vs.LabelMatchers, func(m *promlabels.Matcher) bool { return m.Name == "testid" })
	}
	// A k6 trend's native histogram is k6_<name>_seconds or _bytes: no float series of
	// k6 has a unit suffix (reference/k6.md §1.4).
	isHistogram := func(vs *parser.VectorSelector) bool {
		return isK6(vs) && strings.HasPrefix(vs.Name, "k6_") && (strings.HasSuffix(vs.Name, "_seconds") || strings.HasSuffix(vs.Name, "_bytes"))
	}
	var reachesHistogram func(parser.Node) bool
	reachesHistogram = func(n parser.Node) bool {
		switch n := n.(type) {
		case *parser.Call:
			if strings.HasPrefix(n.Func.Name, "histogram_") {
				return false // a float per histogram
			}
		case *parser.VectorSelector:
			return isHistogram(n)
		}
		return slices.ContainsFunc(parser.Children(n), reachesHistogram)
	}
	collapses := func(a *parser.AggregateExpr) bool {
		switch a.Op {
		case parser.AVG, parser.GROUP:
		case parser.MAX, parser.MIN:
			if reachesHistogram(a.Expr) {
				return false
			}
		case parser.TOPK, parser.BOTTOMK:
			if k, ok := a.Param.(*parser.NumberLiteral); !ok || k.Val != 1 || reachesHistogram(a.Expr) {
				return false
			}
		default:
			return false
		}
		for _, l := range replicaLabels() {
			if slices.Contains(a.Grouping, l) != a.Without {
				return false
			}
		}
		return true
	}
	return sumsOverRaw(t, expr, isK6, collapses)
}

// sumsOverRaw names the sums in expr that reach a selector isRaw accepts without an
// aggregation that collapses in between.
func sumsOverRaw(t *testing.T, expr string, isRaw func(*parser.VectorSelector) bool, collapses func(*parser.AggregateExpr) bool) []string {
	t.Helper()
	n, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	require.NoError(t, err, expr)
	var reaches func(parser.Node) bool
	reaches = func(n parser.Node) bool {
		switch n := n.(type) {
		case *parser.AggregateExpr:
			if collapses(n) {
				return false
			}
		case *parser.BinaryExpr:
			if m := n.VectorMatching; n.Op == parser.LAND && m != nil && !m.On && len(m.MatchingLabels) == 0 {
				return reaches(n.LHS) && reaches(n.RHS)
			}
		case *parser.VectorSelector:
			return isRaw(n)
		}
		return slices.ContainsFunc(parser.Children(n), reaches)
	}
	var bad []string
	parser.Inspect(n, func(n parser.Node, _ []parser.Node) error {
		if a, ok := n.(*parser.AggregateExpr); ok && a.Op == parser.SUM && reaches(a.Expr) {
			bad = append(bad, a.String())
		}
		return nil
	})
	return bad
}

// TestCatalogCollapsesDuplicatesBeforeSumming enforces the catalog's duplicates rule on
// every expression, queries and findings: a second kube-state-metrics target must not
// double a fact, and neither must the second replica of an HA pair double a k6 fact or
// the value a finding reports.
func TestCatalogCollapsesDuplicatesBeforeSumming(t *testing.T) {
	t.Parallel()
	c, err := Default()
	require.NoError(t, err)
	v := Vars{TestID: "run-1", RateWindow: time.Minute, Step: 5 * time.Second, Range: 5 * time.Minute, Quantile: 0.95, Params: map[string]float64{"db_pool_per_pod": 5}}
	for _, name := range slices.Sorted(maps.Keys(c.Queries)) {
		expr, err := c.Render(name, v)
		require.NoError(t, err, name)
		require.Empty(t, rawSums(t, expr), name)
		require.Empty(t, rawK6Sums(t, expr), name)
		if pp, ok, err := c.RenderPerPod(name, v); ok {
			require.NoError(t, err, name)
			require.Empty(t, rawSums(t, pp), name+" per_pod")
			require.Empty(t, rawK6Sums(t, pp), name+" per_pod")
		}
	}
	for _, r := range c.Findings {
		expr, err := c.RenderRule(r.Name, v)
		require.NoError(t, err, r.Name)
		require.Empty(t, rawSums(t, expr), r.Name)
		require.Empty(t, rawK6Sums(t, expr), r.Name)
	}
}

// TestRawSums is the checker of TestCatalogCollapsesDuplicatesBeforeSumming on the
// expressions of before issue 12 and on collapses that do not collapse.
func TestRawSums(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, expr  string
		scraped, k6 int // raw sums found by rawSums and rawK6Sums
	}{
		{name: "cpu_request_pod before issue 12", expr: `sum by (namespace, pod) (kube_pod_container_resource_requests{resource="cpu"})`, scraped: 1},
		{name: "cpu_usage_pod before issue 12", expr: `sum by (namespace, pod) (rate(container_cpu_usage_seconds_total[1m]))`, scraped: 1},
		{name: "ksm collapsed", expr: `sum by (namespace, pod) (max by (namespace, pod, container) (kube_pod_container_resource_requests))`},
		{name: "http_reqs before issue 12", expr: `sum by (instance_id, scenario) (last_over_time(k6_http_reqs_total{testid="r"}[5s]))`, k6: 1},
		{name: "vus before issue 12", expr: `sum(k6_vus{testid="r"})`, k6: 1},
		{name: "scenario_target before issue 12", expr: `sum by (scenario, unit) (tidemark_scenario_target{testid="r"})`, k6: 1},
		{name: "k6 collapsed", expr: `sum(max without (prometheus, prometheus_replica, replica) (rate(k6_http_reqs_total{testid="r"}[10s])))`},
		{name: "k6 collapsed by a by list", expr: `sum(max by (scenario) (k6_vus{testid="r"}))`},
		{name: "one replica label left", expr: `sum(max without (prometheus_replica) (k6_vus{testid="r"}))`, k6: 1},
		{name: "a replica label kept by by", expr: `sum by (scenario) (max by (scenario, replica) (tidemark_scenario_target{testid="r"}))`, k6: 1},
		{name: "a k6 count", expr: `sum(count without (prometheus, prometheus_replica, replica) (k6_vus{testid="r"}))`, k6: 1},
		{name: "stage quantile before issue 12", expr: `histogram_quantile(0.95, sum(increase(k6_http_req_duration_seconds{testid="r"}[5m])))`, k6: 1},
		{
			name: "max over a histogram gives 0",
			expr: `histogram_quantile(0.95, sum(max without (prometheus, prometheus_replica, replica) (increase(k6_http_req_duration_seconds{testid="r"}[5m]))))`, k6: 1,
		},
		{name: "avg over a histogram", expr: `histogram_quantile(0.95, sum(avg without (prometheus, prometheus_replica, replica) (increase(k6_http_req_duration_seconds{testid="r"}[5m]))))`},
		{
			name: "a histogram selected by topk of its count",
			expr: `histogram_quantile(0.95, sum(k6_http_req_duration_seconds{testid="r"} and topk without (prometheus, prometheus_replica, replica) (1, histogram_count(k6_http_req_duration_seconds{testid="r"}))))`,
		},
		{
			name: "topk of two",
			expr: `histogram_quantile(0.95, sum(k6_http_req_duration_seconds{testid="r"} and topk without (prometheus, prometheus_replica, replica) (2, histogram_count(k6_http_req_duration_seconds{testid="r"}))))`, k6: 1,
		},
		{
			name: "and ignoring the replica labels",
			expr: `histogram_quantile(0.95, sum(k6_http_req_duration_seconds{testid="r"} and ignoring (prometheus_replica) topk without (prometheus, prometheus_replica, replica) (1, histogram_count(k6_http_req_duration_seconds{testid="r"}))))`, k6: 1,
		},
		{name: "a mean from floats", expr: `sum(max without (prometheus, prometheus_replica, replica) (histogram_sum(k6_http_req_duration_seconds{testid="r"})))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Len(t, rawSums(t, tc.expr), tc.scraped)
			require.Len(t, rawK6Sums(t, tc.expr), tc.k6)
		})
	}
}

// TestRateWindowOf is the per-source window rule: two of the source's own intervals,
// the catalog default when the interval is unknown, never below the step, and the
// override for every source.
func TestRateWindowOf(t *testing.T) {
	t.Parallel()
	c, err := Default()
	require.NoError(t, err)
	iv := map[string]time.Duration{"k6": 5 * time.Second, "ksm": 30 * time.Second, "cadvisor": 15 * time.Second, "odd": 2500 * time.Millisecond}
	for _, tc := range []struct {
		name, source string
		v            Vars
		want         time.Duration
	}{
		{name: "k6 pushed every 5 s", source: "k6", v: Vars{Intervals: iv}, want: 10 * time.Second},
		{name: "ksm scraped every 30 s", source: "ksm", v: Vars{Intervals: iv}, want: time.Minute},
		{name: "cadvisor scraped every 15 s", source: "cadvisor", v: Vars{Intervals: iv}, want: 30 * time.Second},
		{name: "unknown interval", source: "rds", v: Vars{Intervals: iv}, want: time.Minute},
		{name: "no intervals at all", source: "k6", v: Vars{}, want: time.Minute},
		{name: "rounded up to whole seconds", source: "odd", v: Vars{Intervals: iv}, want: 5 * time.Second},
		{name: "never below the step", source: "k6", v: Vars{Intervals: iv, Step: 20 * time.Second}, want: 20 * time.Second},
		{name: "step below two intervals", source: "ksm", v: Vars{Intervals: iv, Step: 30 * time.Second}, want: time.Minute},
		{name: "override", source: "k6", v: Vars{Intervals: iv, RateWindow: 90 * time.Second}, want: 90 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, c.RateWindowOf(tc.source, tc.v))
		})
	}
}

// TestCatalogRatesUseTheirSourcesWindow renders the catalog with a distinct interval
// per source and checks every rate(), irate() and increase() over k6 or cAdvisor series
// (told apart by their selectors) against its own source's window: a rate over
// a source's series in another source's window (or a fixed one) fails.
func TestCatalogRatesUseTheirSourcesWindow(t *testing.T) {
	t.Parallel()
	c, err := Default()
	require.NoError(t, err)
	v := Vars{TestID: "run-1", Step: time.Second, Range: 5 * time.Minute, Quantile: 0.95, Params: map[string]float64{"db_pool_per_pod": 5},
		Intervals: map[string]time.Duration{"k6": 3 * time.Second, "cadvisor": 17 * time.Second, "ksm": 29 * time.Second, "rds": 41 * time.Second}}
	want := map[string]time.Duration{"testid": 6 * time.Second, "metrics_path": 34 * time.Second}
	check := func(what, expr string) {
		e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
		require.NoError(t, err, what)
		parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
			call, ok := n.(*parser.Call)
			if !ok || !slices.Contains([]string{"rate", "irate", "increase"}, call.Func.Name) {
				return nil
			}
			m, ok := call.Args[0].(*parser.MatrixSelector)
			if !ok {
				return nil
			}
			vs := m.VectorSelector.(*parser.VectorSelector)
			for _, lm := range vs.LabelMatchers {
				if w, ok := want[lm.Name]; ok && vs.Name != "k6_http_req_duration_seconds" {
					require.Equal(t, w, m.Range, "%s: %s", what, m)
				}
			}
			return nil
		})
	}
	for _, name := range slices.Sorted(maps.Keys(c.Queries)) {
		expr, err := c.Render(name, v)
		require.NoError(t, err, name)
		check(name, expr)
		if pp, ok, err := c.RenderPerPod(name, v); ok {
			require.NoError(t, err, name)
			check(name+" per_pod", pp)
		}
	}
	for _, r := range c.Findings {
		expr, err := c.RenderRule(r.Name, v)
		require.NoError(t, err, r.Name)
		check(r.Name, expr)
	}
}

// TestRenderDashboard: every dashboard query of the embedded catalog renders with the
// data the dashboards give it; an unknown name or a missing key is an error.
func TestRenderDashboard(t *testing.T) {
	t.Parallel()
	c, err := Default()
	require.NoError(t, err)
	require.NotEmpty(t, c.Dashboards)
	data := struct {
		Sel, Join      map[string]string
		NamespaceLabel string
	}{
		Sel:            map[string]string{"load": `testid=~"$testid"`, "run": `testid="$testid"`, "ksm": `job="ksm"`, "ksm_all": `job="ksm"`, "cadvisor": `job="kubelet"`},
		Join:           map[string]string{"pod_workload": "pw", "hpa_deployment": "hd", "deployment_ready": "dr"},
		NamespaceLabel: "namespace",
	}
	for _, name := range slices.Sorted(maps.Keys(c.Dashboards)) {
		e, err := c.RenderDashboard(name, data)
		require.NoError(t, err, name)
		require.NotContains(t, e, "<no value>", name)
	}
	e, err := c.RenderDashboard("load_vus", data)
	require.NoError(t, err)
	require.Equal(t, `sum(k6_vus{testid=~"$testid"})`, e)
	_, err = c.RenderDashboard("nowhere", data)
	require.EqualError(t, err, `render dashboard query "nowhere": not in the catalog`)
	data.Sel = map[string]string{}
	_, err = c.RenderDashboard("load_vus", data)
	require.ErrorContains(t, err, "render dashboard/load_vus")
}
