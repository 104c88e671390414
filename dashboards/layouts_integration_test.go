//go:build integration

package dashboards

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// TestCorrelationDashboardOnEveryLayout generates the run correlation dashboard for each
// scrape layout of layouts.Coverage as `tidemark dashboards generate --prometheus.url`
// does (query.Discover, then the catalog with the selectors found), loads story 1's
// fixture of that layout into a real Prometheus 2.42, and asks what Grafana would: each
// variable offers the run, its namespace and its Deployments, and each panel's query
// returns data over the run, but for the panels whose series the layout lacks (listed
// with the reason).
func TestCorrelationDashboardOnEveryLayout(t *testing.T) {
	var shared, alone []*layouts.Fixture
	var all []*layouts.Fixture
	for i, o := range layouts.Coverage() {
		o.Namespace, o.TestID = fmt.Sprintf("dash%d", i), fmt.Sprintf("spike-dash-%d", i)
		f, err := layouts.Story1(o)
		require.NoError(t, err, o)
		all = append(all, f)
		if o.SharesPrometheus() {
			shared = append(shared, f)
		} else {
			alone = append(alone, f)
		}
	}
	urls := map[*layouts.Fixture]string{}
	sharedURL := layoutstest.Load(t, shared).URL
	for _, f := range shared {
		urls[f] = sharedURL
	}
	for _, f := range alone {
		urls[f] = layoutstest.Load(t, []*layouts.Fixture{f}).URL
	}
	cat, err := query.Default()
	require.NoError(t, err)
	ctx := context.Background()
	labelValuesDef := regexp.MustCompile(`^label_values\((.+), (\w+)\)$`)

	for _, f := range all {
		t.Run(f.Options.String(), func(t *testing.T) {
			t.Parallel()
			tr := f.Truth
			q, err := query.NewPrometheus(urls[f], nil)
			require.NoError(t, err)
			w := timeline.Window{From: tr.RunFrom.Add(-5 * time.Minute), To: tr.RunTo.Add(10 * time.Minute)}
			var sel map[string]string
			if f.Options.Cluster != "" {
				sel = map[string]string{"cluster": f.Options.Cluster}
			}
			d, err := query.Discover(ctx, q, cat, query.Vars{TestID: f.TestID(), Namespace: f.Namespace(), Selector: sel}, w)
			require.NoError(t, err)
			applied, err := d.Apply(cat)
			require.NoError(t, err)
			exprs, err := ExprsFromCatalog(applied)
			require.NoError(t, err)
			dash, err := RunCorrelation(exprs)
			require.NoError(t, err)
			raw, err := Marshal(dash)
			require.NoError(t, err)
			vars := testVars(f.TestID())
			vars["namespace"] = []string{f.Namespace()}

			var deployments []string
			for _, h := range tr.HPAs {
				deployments = append(deployments, h.Deployment)
			}
			for _, v := range dash.Templating.List {
				if v.Type != "query" || v.Query == nil || v.Query.String == nil {
					continue
				}
				def := *v.Query.String
				m := labelValuesDef.FindStringSubmatch(def)
				require.NotNil(t, m, "variable %s is not label_values(selector, label): %q", v.Name, def)
				s, _ := interpolate(m[1], vars)
				got := labelValues(t, urls[f], m[2], s, w.From, w.To)
				switch v.Name {
				case "testid":
					require.Contains(t, got, f.TestID(), "variable testid: %s", def)
				case "namespace":
					require.Contains(t, got, f.Namespace(), "variable namespace: %s", def)
				case "workload":
					for _, dep := range deployments {
						require.Contains(t, got, dep, "variable workload: %s", def)
					}
				default:
					require.NotEmpty(t, got, "variable %s: %s", v.Name, def)
				}
			}

			client, err := api.NewClient(api.Config{Address: urls[f]})
			require.NoError(t, err)
			papi := v1.NewAPI(client)
			missing := lacks(f.Options)
			var empty []string
			for _, qu := range walkQueries(t, RunCorrelationUID, raw) {
				expr, _ := interpolate(qu.Expr, vars)
				v, _, _, err := papi.QueryRange(ctx, expr, v1.Range{Start: tr.RunFrom, End: tr.RunTo.Add(5 * time.Minute), Step: 15 * time.Second})
				require.NoError(t, err, "%s / %s:\n%s", qu.Panel, qu.RefID, expr)
				key := qu.Panel + " / " + qu.RefID
				if _, ok := missing[key]; ok {
					continue // the layout has none of its series; see lacks
				}
				if !promtest.NonEmpty(v) {
					empty = append(empty, key)
					t.Logf("no data: %s:\n%s", key, expr)
				}
			}
			require.Empty(t, empty, "panels without data on %s", f.Options)
		})
	}
}

// lacks lists the panel queries ("panel / refId") of the run correlation dashboard that
// have no data on a layout because its Prometheus holds none of their series, with the
// reason. TestEveryPanelQueryReturnsData covers them on a run that has them.
func lacks(o layouts.Options) map[string]string {
	out := map[string]string{
		// Story 1's fixture: a ramping-arrival-rate run without checks, dropped
		// iterations, restarts or events.
		"Virtual users / B":                      "an arrival-rate run has no VU target",
		"Failed checks / A":                      "the fixture's run has no checks",
		"Dropped iterations/s / A":               "the fixture's run dropped no iterations",
		"Container restarts / A":                 "no container restarted",
		"annotation Tidemark events / -":         "the fixture has no tidemark_event series",
		"annotation Thresholds failed / -":       "the fixture's run has no thresholds (no tidemark_threshold_result_pass)",
		"annotation Server-side rules fired / -": "the fixture's run has no server-side rules (no tidemark_slo_rule_firing)",
	}
	// The Web Vitals row: the fixture's run has no browser VUs.
	for _, key := range []string{
		"Page loads: LCP, FCP, TTFB p75 / A", "Page loads: LCP, FCP, TTFB p75 / B", "Page loads: LCP, FCP, TTFB p75 / C",
		"LCP against Ready replicas and throttling / A", "Web Vitals trend gauges / A", "INP p75 / A",
		"CLS / A", "CLS / B", "LCP page loads by rating / A",
	} {
		out[key] = "the fixture's run has no browser VUs"
	}
	if o.K6 == layouts.Tidemark {
		out["Latency p95 / p99 / B"] = "the fixture's Tidemark run writes p(95) and no p(99)"
	} else {
		out["Latency p95 / p99 / A"] = "k6's default trend stats are p(99) only"
		out["Target vs achieved rate / A"] = "k6 writes no tidemark_scenario_target"
	}
	if o.Layout == layouts.K8sMonitoring {
		out["CPU per pod: usage vs request vs limit vs HPA target / D"] = "Alloy's allow-list drops the HPAs' target metrics"
	}
	// The database row: postgres_exporter's panels (A, B) or mysqld_exporter's (C, D, E),
	// and the pool's as each pool names them. In a Prometheus shared with other fixtures
	// the exporters' series (which carry no namespace) are everyone's: they lack only
	// where the fixture has its own Prometheus.
	const conns = "DB connections vs max_connections / "
	if o.DBExporter != layouts.PostgresExporter && !o.SharesPrometheus() {
		out[conns+"A"], out[conns+"B"] = "no postgres_exporter", "no postgres_exporter"
	}
	if o.DBExporter != layouts.MySQLExporter && !o.SharesPrometheus() {
		out[conns+"C"], out[conns+"D"], out[conns+"E"] = "no mysqld_exporter", "no mysqld_exporter", "no mysqld_exporter"
	}
	switch o.Pool {
	case layouts.NoPool:
		out["Pool connections busy vs pool size / A"] = "the pods expose no pool metrics"
		out["Pool connections busy vs pool size / B"] = "the pods expose no pool metrics"
		out["Pool waiters / A"] = "the pods expose no pool metrics"
		out["Pool waiters / B"] = "the pods expose no pool metrics"
	case layouts.HikariCP:
		out["Pool waiters / B"] = "database/sql's waits only"
	case layouts.Prisma:
		out["Pool connections busy vs pool size / B"] = "Prisma exports no pool size"
		out["Pool waiters / B"] = "database/sql's waits only"
	case layouts.GoSQL:
		out["Pool waiters / A"] = "database/sql has no gauge of waiters"
	}
	return out
}
