package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/units"
)

// Dashboard UIDs. They are part of every link to a dashboard (tidemark correlate prints
// one), so they never change.
const (
	// LoadUID is the UID of the Load dashboard.
	LoadUID = "tidemark-load"
	// RunCorrelationUID is the UID of the Run correlation dashboard.
	RunCorrelationUID = "tidemark-run-correlation"
)

// tags marks every Tidemark dashboard, so the dashboards link to each other by tag.
func tags() []string { return []string{"tidemark", "k6", "load-test"} }

// Load builds the Load dashboard: everything Grafana dashboards 19665 and 18030 show for
// k6 remote-write series (VUs, request rate by expected_response, failures, latency per
// trend stat and per name/method/status, checks, data sent and received, dropped
// iterations), native-histogram panels in a collapsed row, and target versus achieved rate.
func Load(exprs Exprs) (dashboard.Dashboard, error) {
	b := &builder{exprs: exprs}
	db := dashboard.NewDashboardBuilder("Tidemark / Load").
		Uid(LoadUID).
		Description("k6-compatible load series of one or more Tidemark (or k6) runs, selected by testid.").
		Tags(tags()).
		Editable().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Time("now-15m", "now").
		Timezone(common.TimeZoneBrowser).
		Refresh("10s").
		Link(dashboardLink()).
		WithVariable(datasourceVariable()).
		WithVariable(multiAll(queryVariable("testid", "Test ID", "label_values(k6_vus, testid)"))).
		WithVariable(queryVariable("quantile_stat", "Trend stat", "metrics(k6_http_req_duration_)").
			Regex(`/k6_http_req_duration_(min|max|count|sum|avg|med|p[0-9]+)$/`).
			Current(dashboard.VariableOption{
				Text:  dashboard.StringOrArrayOfString{String: new("p99")},
				Value: dashboard.StringOrArrayOfString{String: new("p99")},
			})).
		WithVariable(dashboard.NewTextBoxVariableBuilder("quantile").
			Label("Histogram quantile").
			DefaultValue(dashboard.StringOrMap{String: new("0.99")})).
		WithVariable(dashboard.NewAdHocVariableBuilder("filters").Label("Filters").Datasource(datasource()))

	db.Annotation(b.annotationQuery(thresholdAnnotation("load_threshold_failed")))
	db.Annotation(b.annotationQuery(ruleAnnotation("load_rule_fired")))

	db.WithRow(row("Performance overview")).
		WithPanel(b.stat("HTTP requests", "Requests made so far (k6_http_reqs_total).", units.Short, sixthWidth,
			q("load_http_reqs", "requests"))).
		WithPanel(b.stat("HTTP request failures", `Requests with expected_response="false" so far.`, units.Short, sixthWidth,
			q("load_http_failures", "failures"))).
		WithPanel(b.stat("HTTP request failure rate", "k6's http_req_failed rate (cumulative since the run started).", units.PercentUnit, sixthWidth,
			q("load_http_failed_rate", "failed")).
			Thresholds(ratioThresholds(0.01, 0.05))).
		WithPanel(b.stat("HTTP request duration ($quantile_stat)", "The chosen trend stat of http_req_duration (cumulative since the run started).", units.Seconds, sixthWidth,
			q("load_latency_stat", "$quantile_stat"))).
		WithPanel(b.stat("Peak request rate", "Highest request rate in the time range.", units.RequestsPerSecond, sixthWidth,
			q("load_http_req_rate", "peak")).
			ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"max"}).Values(false))).
		WithPanel(b.stat("Peak VUs", "Most active VUs in the time range.", units.Short, sixthWidth,
			q("load_vus", "peak")).
			ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"max"}).Values(false))).
		WithPanel(b.graph("Performance overview", "VUs, request rate, failure ratio and latency on one axis each.", units.Short, fullWidth,
			q("load_vus", "VUs"),
			q("load_http_req_rate", "requests/s"),
			q("load_http_failure_ratio", "failure ratio"),
			q("load_latency_stat", "http_req_duration $quantile_stat")).
			OverrideByName("http_req_duration $quantile_stat", []dashboard.DynamicConfigValue{
				{Id: "unit", Value: units.Seconds}, {Id: "custom.axisPlacement", Value: "right"},
			}).
			OverrideByName("failure ratio", []dashboard.DynamicConfigValue{
				{Id: "unit", Value: units.PercentUnit}, {Id: "custom.axisPlacement", Value: "right"},
			})).
		WithPanel(b.graph("Virtual users", "Active and initialised VUs (k6_vus, k6_vus_max).", units.Short, halfWidth,
			q("load_vus", "active"), q("load_vus_max", "initialised"))).
		WithPanel(b.graph("Request rate by expected_response", "Requests per second split by whether the response was expected.", units.RequestsPerSecond, halfWidth,
			q("load_http_req_rate", "all"), q("load_http_req_rate_expected", "expected_response={{expected_response}}")))

	db.WithRow(row("Target vs achieved")).
		WithPanel(b.graph("Iteration rate: target vs achieved", "The configured arrival rate per scenario (tidemark_scenario_target) against completed iterations per second; a gap means the service or the generator could not keep up.", units.OpsPerSecond, halfWidth,
			q("load_target_rate", "{{scenario}} target"), q("load_iterations_rate", "{{scenario}} achieved"))).
		WithPanel(b.graph("VUs: target vs active", "The configured VUs per scenario against active VUs.", units.Short, halfWidth,
			q("load_target_vus", "{{scenario}} target"), q("load_vus", "active"))).
		WithPanel(b.stat("Dropped iterations", "Iterations an arrival-rate executor could not start for lack of VUs.", units.Short, quarterWidth,
			q("load_dropped_iterations", "dropped")).
			Thresholds(ratioThresholds(1, 100))).
		WithPanel(b.graph("Dropped iterations/s", "Per scenario.", units.OpsPerSecond, 18,
			q("load_dropped_iterations_rate", "{{scenario}}")))

	latency := make([]panelQuery, 0, len(k6Trends()))
	for _, trend := range k6Trends() {
		latency = append(latency, q("load_trend_"+trend, trendTitle(trend)))
	}
	db.WithRow(row("HTTP")).
		WithPanel(b.graph("HTTP latency timings ($quantile_stat)", "Each phase of a request (k6 http_req_* trends), chosen trend stat, cumulative since the run started.", units.Seconds, halfWidth,
			latency...)).
		WithPanel(b.graph("HTTP request duration by expected_response ($quantile_stat)", "Successful and failed requests apart: failures that return fast pull the overall latency down.", units.Seconds, halfWidth,
			q("load_latency_stat_expected", "expected_response={{expected_response}}"))).
		WithPanel(b.graph("Iteration duration ($quantile_stat)", "k6 iteration_duration, chosen trend stat.", units.Seconds, halfWidth,
			q("load_iteration_duration_stat", "iteration_duration $quantile_stat"))).
		WithPanel(b.table("HTTP latency stats per request", "http_req_duration min, max, p95 and p99 per name, method and status (needs K6_PROMETHEUS_RW_TREND_STATS ⊇ min,max,p(95),p(99); Tidemark sends them by default).", units.Seconds, fullWidth,
			q("load_latency_table_min", "min"), q("load_latency_table_max", "max"),
			q("load_latency_table_p95", "p95"), q("load_latency_table_p99", "p99"))).
		WithPanel(b.graph("Data sent and received", "Bytes per second on the wire.", units.BytesPerSecondSI, halfWidth,
			q("load_data_sent", "sent"), q("load_data_received", "received"))).
		WithPanel(b.graph("Iterations/s", "Completed iterations per scenario.", units.OpsPerSecond, fullWidth,
			q("load_iterations_rate", "{{scenario}}")))

	db.WithRow(row("Checks")).
		WithPanel(b.stat("Checks passed", "Share of check evaluations that passed (cumulative).", units.PercentUnit, quarterWidth,
			q("load_checks_rate", "passed"))).
		WithPanel(b.table("Checks", "Pass rate per check (cumulative).", units.PercentUnit, 18,
			q("load_checks_by_check", "pass rate")))

	db.WithRow(row("Native histograms (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM)").
		Collapsed(true).
		WithPanel(b.graph("HTTP request duration (quantile $quantile, native histogram)", "Windowed quantile over $__rate_interval that aggregates correctly across instances.", units.Seconds, halfWidth,
			q("load_hist_latency_quantile", "q$quantile"), q("load_hist_latency_avg", "avg"))).
		WithPanel(b.graph("HTTP request duration by expected_response (native histogram)", "", units.Seconds, halfWidth,
			q("load_hist_latency_by_expected", "expected_response={{expected_response}}"))).
		WithPanel(b.graph("Request rate (native histogram)", "Observations per second in the http_req_duration histogram.", units.RequestsPerSecond, halfWidth,
			q("load_hist_req_rate", "requests/s"))).
		WithPanel(b.graph("Iteration duration (quantile $quantile, native histogram)", "", units.Seconds, halfWidth,
			q("load_hist_iteration_quantile", "q$quantile"))).
		WithPanel(b.table("HTTP latency per request (native histogram)", "Windowed quantiles per name, method and status at the end of the time range.", units.Seconds, fullWidth,
			q("load_hist_latency_table_p50", "p50"), q("load_hist_latency_table_p95", "p95"), q("load_hist_latency_table_p99", "p99"))))

	return finish(b, db)
}

// dashboardLink links every Tidemark dashboard to the others, keeping time and variables.
func dashboardLink() *dashboard.DashboardLinkBuilder {
	return dashboard.NewDashboardLinkBuilder("Tidemark").
		Type(dashboard.DashboardLinkTypeDashboards).
		Tags([]string{"tidemark"}).
		AsDropdown(true).
		KeepTime(true).
		IncludeVars(true)
}
