package dashboards

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/units"

	"github.com/tidemark/tidemark/internal/webvital"
)

// annotation is a Prometheus annotation layer of the correlation dashboard.
type annotation struct {
	name, query, color, title, text, tagKeys string
	// valueIsTime: the query's value is the event time in ms (timestamp() * 1000), so the
	// annotation sits at the event, not at the end of Prometheus' lookback.
	valueIsTime bool
}

// annotations are the run's live span (start to end, from tidemark_run_info, or k6_vus for a run k6 made) and the
// correlator's events (tidemark_event).
func annotations() []annotation {
	return []annotation{
		{name: "Run", query: "run_info", color: "rgba(31, 120, 193, 0.15)", title: "run $testid", text: "the run is live (tidemark_run_info, or k6_vus for a run k6 made)", tagKeys: ""},
		{name: "Tidemark events", query: "events", color: "orange", title: "{{kind}}", text: "{{object}}", tagKeys: "kind,object", valueIsTime: true},
		thresholdAnnotation("threshold_failed"),
		ruleAnnotation("rule_fired"),
	}
}

// ruleAnnotation is the layer of server-side rules (--slo) that fired
// (tidemark_slo_rule_firing): a region from where each one first fired while it fires,
// named by its alert and severity.
func ruleAnnotation(query string) annotation {
	return annotation{name: "Server-side rules fired", query: query, color: "purple", title: "rule fired: {{alertname}} [{{severity}}]",
		text: "tidemark_slo_rule_firing is 1 (severity error or critical fails the run)", tagKeys: "alertname,severity"}
}

// thresholdAnnotation is the layer of failing thresholds (tidemark_threshold_result_pass): a
// region from where each one first failed while it fails, named by its metric,
// expression and window.
func thresholdAnnotation(query string) annotation {
	return annotation{name: "Thresholds failed", query: query, color: "red", title: "threshold failed: {{metric}} {{threshold}} {{window}}",
		text: "tidemark_threshold_result_pass is 0 (window: empty for a whole-run threshold)", tagKeys: "metric,threshold,window"}
}

// annotationQuery builds one Prometheus annotation layer.
func (b *builder) annotationQuery(a annotation) *dashboard.AnnotationQueryBuilder {
	aq := dashboard.NewAnnotationQueryBuilder().
		Name(a.name).
		Datasource(datasource()).
		Enable(true).
		IconColor(a.color).
		Expr(b.expr(a.query)).
		TitleFormat(a.title).
		TextFormat(a.text).
		Step("5s")
	if a.tagKeys != "" {
		aq = aq.TagKeys(a.tagKeys)
	}
	if a.valueIsTime {
		aq = aq.UseValueForTime(true)
	}
	return aq
}

// RunCorrelation builds the Run correlation dashboard: one run (testid) on one time axis
// with a shared crosshair, in rows Load · Web Vitals · Autoscaling · CPU · Database · Database connections and pools · Errors, annotated
// with the run's start and end and the correlator's events.
func RunCorrelation(exprs Exprs) (dashboard.Dashboard, error) {
	b := &builder{exprs: exprs}
	db := dashboard.NewDashboardBuilder("Tidemark / Run correlation").
		Uid(RunCorrelationUID).
		Description("One load-test run against the cluster: offered load, HPA and Deployment replicas, CPU and throttling, the database, and errors, on one time axis.").
		Tags(tags()).
		Editable().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Time("now-1h", "now").
		Timezone(common.TimeZoneUtc).
		Refresh("30s").
		Link(dashboardLink()).
		WithVariable(datasourceVariable()).
		WithVariable(queryVariable("testid", "Test ID", "label_values(k6_vus, testid)")).
		WithVariable(multiAll(queryVariable("namespace", "Namespace", b.expr("var_namespace")))).
		WithVariable(multiAll(queryVariable("workload", "Workload", b.expr("var_workload"))))
	for _, a := range annotations() {
		db.Annotation(b.annotationQuery(a))
	}

	db.WithRow(row("Load")).
		WithPanel(b.graph("Target vs achieved rate", "The configured arrival rate (tidemark_scenario_target) against completed iterations and requests per second.", units.OpsPerSecond, halfWidth,
			q("scenario_target_rate", "{{scenario}} target"), q("achieved_rate", "{{scenario}} achieved"), q("http_req_rate", "requests/s"))).
		WithPanel(b.graph("Virtual users", "Active VUs against the configured VUs per scenario.", units.Short, halfWidth,
			q("vus", "active"), q("target_vus", "{{scenario}} target"))).
		WithPanel(b.graph("Latency p95 / p99", "k6 http_req_duration trend stats (worst series, cumulative since the run started).", units.Seconds, halfWidth,
			q("latency_p95", "p95"), q("latency_p99", "p99"))).
		WithPanel(b.graph("Errors", "Failed requests per second (expected_response=\"false\", or status 0/4xx/5xx) and their share of all requests.", units.RequestsPerSecond, halfWidth,
			q("http_failure_rate", "failed/s"), q("http_error_ratio", "error ratio")).
			OverrideByName("error ratio", []dashboard.DynamicConfigValue{
				{Id: "unit", Value: units.PercentUnit}, {Id: "custom.axisPlacement", Value: "right"},
			}))

	// The browser VUs' Web Vitals on the same axis as the load above and the replicas
	// and throttling below (empty for a run without browser VUs).
	lcp, inp, cls := vitalThresholds("lcp"), vitalThresholds("inp"), vitalThresholds("cls")
	db.WithRow(row("Web Vitals (browser VUs)")).
		WithPanel(b.graph("Page loads: LCP, FCP, TTFB p75", "p75 of the browser VUs' page loads over the rate window, from the native histograms (k6_browser_web_vital_*_seconds). Google assesses Web Vitals at p75; LCP is good up to 2.5 s, poor above 4 s.", units.Seconds, halfWidth,
			q("web_vital_lcp_p75", "LCP p75"), q("web_vital_fcp_p75", "FCP p75"), q("web_vital_ttfb_p75", "TTFB p75")).
			Thresholds(lcp).
			ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeLine))).
		WithPanel(b.graph("LCP against Ready replicas and throttling", "LCP p75 (left axis) with the Deployments' wanted and Ready replicas and the workloads' CPU throttled ratio (right axes): a slow page while Ready lags wanted is the start-up gap, while throttling is high the CPU limit.", units.Seconds, halfWidth,
			q("web_vital_lcp_p75", "LCP p75"),
			q("deployment_spec_replicas", "{{deployment}} wanted"),
			q("deployment_ready", "{{deployment}} ready"),
			q("cpu_throttled_ratio", "{{workload}} throttled")).
			OverrideByRegexp(".* (wanted|ready)$", []dashboard.DynamicConfigValue{
				{Id: "unit", Value: units.Short}, {Id: "custom.axisPlacement", Value: "right"}, {Id: "custom.drawStyle", Value: "line"},
				{Id: "custom.lineInterpolation", Value: "stepAfter"}, {Id: "custom.fillOpacity", Value: 0},
			}).
			OverrideByRegexp(".* throttled$", []dashboard.DynamicConfigValue{
				{Id: "unit", Value: units.PercentUnit}, {Id: "custom.axisPlacement", Value: "right"}, {Id: "custom.fillOpacity", Value: 0},
			})).
		WithPanel(b.graph("Web Vitals trend gauges", "k6's trend-stat gauges of each timed vital (k6_browser_web_vital_<vital>_p75, _p95 or _p99 in seconds: the stats the run was written with, K6_PROMETHEUS_RW_TREND_STATS, whose k6 default is p(99) alone; cumulative since the run started, worst series), for runs written without native histograms.", units.Seconds, halfWidth,
			q("web_vitals_gauge", "{{vital}} {{stat}} {{scenario}}"))).
		WithPanel(b.graph("INP p75", "Interaction to Next Paint p75 from the native histogram: good up to 200 ms, poor above 500 ms.", units.Seconds, quarterWidth,
			q("web_vital_inp_p75", "INP p75")).
			Thresholds(inp).
			ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeLine))).
		WithPanel(b.graph("CLS", "Cumulative Layout Shift: p75 from the native histogram (k6_browser_web_vital_cls), or k6's trend-stat gauges (p75, p95 or p99). Good up to 0.1, poor above 0.25.", units.Short, quarterWidth,
			q("web_vital_cls_p75", "CLS p75"), q("web_vital_cls_gauge", "CLS {{stat}} {{scenario}}")).
			Thresholds(cls).
			ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeLine))).
		WithPanel(b.graph("LCP page loads by rating", "Page loads per second by the rating of their LCP (good, needs_improvement, poor).", units.OpsPerSecond, fullWidth,
			q("web_vital_lcp_rated", "{{rating}}")).
			DrawStyle(common.GraphDrawStyleBars).
			FillOpacity(60).
			Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal)).
			Height(5))

	// One Autoscaling row per workload (repeated over $workload): its HPA and its
	// Deployment side by side, so the gap between what the HPA asked for and what is Ready
	// reads straight across.
	db.WithRow(row("Autoscaling: $workload").Repeat("workload")).
		WithPanel(b.graph("HPA replicas", "Current and desired replicas of the HPA targeting this Deployment (kube-state-metrics), between its min and max.", units.Short, halfWidth,
			qw("hpa_current", "{{horizontalpodautoscaler}} current", ofWorkloads),
			qw("hpa_desired", "{{horizontalpodautoscaler}} desired", ofWorkloads),
			qw("hpa_min", "{{horizontalpodautoscaler}} min", ofWorkloads),
			qw("hpa_max", "{{horizontalpodautoscaler}} max", ofWorkloads)).
			Min(0).
			OverrideByRegexp(".* (min|max)$", []dashboard.DynamicConfigValue{
				{Id: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}},
				{Id: "custom.fillOpacity", Value: 0},
			})).
		WithPanel(b.graph("Deployment replicas: wanted, ready, available", "Spec replicas (set by the HPA), Ready and available replicas. The space between wanted and ready is the pod start-up gap.", units.Short, halfWidth,
			q("deployment_spec_replicas", "{{deployment}} wanted"),
			q("deployment_ready", "{{deployment}} ready"),
			q("deployment_available", "{{deployment}} available")).
			Min(0)).
		WithPanel(b.graph("Start-up gap: replicas not yet Ready", "Spec replicas minus Ready replicas. Requests routed while this is above zero land on fewer pods than the HPA asked for.", units.Short, fullWidth,
			q("deployment_not_ready", "{{deployment}} not ready")).
			DrawStyle(common.GraphDrawStyleBars).
			FillOpacity(60).
			Height(5))

	db.WithRow(row("CPU")).
		WithPanel(b.graph("CPU per pod: usage vs request vs limit vs HPA target", "Per pod, in cores: usage against request and limit, and the HPA's CPU target per pod (request × target utilization). The HPA scales on the pods' average usage ÷ request.", units.Short, halfWidth,
			q("cpu_usage_pod", "{{pod}} usage"),
			q("cpu_request_pod", "{{pod}} request"),
			q("cpu_limit_pod", "{{pod}} limit"),
			q("cpu_hpa_target_pod", "{{workload}} HPA target")).
			AxisLabel("cores").
			OverrideByRegexp(".* (request|limit|HPA target)$", []dashboard.DynamicConfigValue{
				{Id: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}},
				{Id: "custom.fillOpacity", Value: 0},
			})).
		WithPanel(b.graph("CPU throttled ratio per workload", "Throttled ÷ active CFS periods (cAdvisor). Throttling at the CPU limit raises latency while averaged CPU looks fine; kubernetes-mixin warns at 25 %.", units.PercentUnit, halfWidth,
			q("cpu_throttled_ratio", "{{workload}}")).
			Thresholds(ratioThresholds(0.05, 0.25)).
			ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeLine))).
		WithPanel(b.graph("CPU throttled ratio per container", "Throttled ÷ active CFS periods per pod and container.", units.PercentUnit, fullWidth,
			q("cpu_throttled_ratio_container", "{{pod}}/{{container}}")).
			Thresholds(ratioThresholds(0.05, 0.25)).
			ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeLine)))

	db.WithRow(row("Database")).
		WithPanel(b.graph("RDS CPU", "CloudWatch CPUUtilization (60 s resolution; samples can arrive minutes late).", units.Percent, quarterWidth,
			q("rds_cpu", legendRDS)).Max(100)).
		WithPanel(b.graph("RDS connections", "CloudWatch DatabaseConnections.", units.Short, quarterWidth,
			q("rds_connections", legendRDS))).
		WithPanel(b.graph("RDS CPU credit balance", "CloudWatch CPUCreditBalance (burstable instances).", units.Short, quarterWidth,
			q("rds_credit_balance", legendRDS))).
		WithPanel(b.graph("RDS freeable memory", "CloudWatch FreeableMemory.", units.BytesIEC, quarterWidth,
			q("rds_freeable_memory", legendRDS)))

	// The database through its own exporter and the application's pools, per pod: the
	// same facts the report's database section reads (catalog queries pg_*, mysql_*, pool_*).
	dashed := []dashboard.DynamicConfigValue{
		{Id: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}},
		{Id: "custom.fillOpacity", Value: 0},
	}
	db.WithRow(row("Database connections and pools")).
		WithPanel(b.graph("DB connections vs max_connections", "Connections per server as postgres_exporter (pg_stat_activity, every database and state) or mysqld_exporter (Threads_connected) report them, against the server's max_connections.", units.Short, thirdWidth,
			q("pg_connections", "{{server}}{{instance}} connections"),
			q("pg_max_connections", "{{server}}{{instance}} max_connections"),
			q("mysql_connections", "{{instance}} connections"),
			q("mysql_threads_running", "{{instance}} running"),
			q("mysql_max_connections", "{{instance}} max_connections")).
			Min(0).
			OverrideByRegexp(".* max_connections$", dashed)).
		WithPanel(b.graph("Pool connections busy vs pool size", "Per pod and pool: connections in use (HikariCP active, Prisma busy, database/sql in use) against the pool's size (HikariCP max, database/sql max open; Prisma reports none).", units.Short, thirdWidth,
			q("pool_busy", "{{pod}} {{pool}} busy"),
			q("pool_size", "{{pod}} {{pool}} size")).
			Min(0).
			OverrideByRegexp(".* size$", dashed)).
		WithPanel(b.graph("Pool waiters", "Per pod and pool: queries waiting for a connection (HikariCP pending, Prisma queries wait) and database/sql waits begun per second.", units.Short, thirdWidth,
			q("pool_pending", "{{pod}} {{pool}} waiting"),
			q("pool_waits", "{{pod}} {{pool}} waits/s")).
			Min(0))

	db.WithRow(row("Errors")).
		WithPanel(b.graph("Failed requests by status", "Failed requests per second by status and error_code (status 0 is a transport error).", units.RequestsPerSecond, halfWidth,
			q("http_failures_by_status", "status={{status}} {{error_code}}")).
			Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal))).
		WithPanel(b.graph("Failed checks", "Share of failed evaluations per check (cumulative).", units.PercentUnit, halfWidth,
			q("checks_failed_ratio", "{{check}}"))).
		WithPanel(b.graph("Dropped iterations/s", "Iterations the generator could not start (short of VUs): the service was not offered the target load.", units.OpsPerSecond, halfWidth,
			q("dropped_iterations_rate", "{{scenario}}"))).
		WithPanel(b.graph("Container restarts", "Restarts per pod over the rate window (OOM kills, failed liveness probes).", units.Short, halfWidth,
			q("container_restarts", "{{pod}}")))

	return finish(b, db)
}

// RunLink returns the URL of the Run correlation dashboard for one run: its time range
// and var-testid, as tidemark correlate prints it. grafanaURL is Grafana's base URL, for
// example http://grafana:3000 or https://example.com/grafana.
func RunLink(grafanaURL, testID string, from, to time.Time) (string, error) {
	u, err := url.Parse(grafanaURL)
	if err != nil {
		return "", fmt.Errorf("parse grafana url: %w", err)
	}
	u = u.JoinPath("d", RunCorrelationUID)
	v := url.Values{}
	v.Set("from", strconv.FormatInt(from.UnixMilli(), 10))
	v.Set("to", strconv.FormatInt(to.UnixMilli(), 10))
	v.Set("var-testid", testID)
	u.RawQuery = v.Encode()
	return u.String(), nil
}

// vitalThresholds colours a Web Vital's values by Google's thresholds, in the series'
// unit (seconds for timed vitals).
func vitalThresholds(short string) *dashboard.ThresholdsConfigBuilder {
	v, ok := webvital.ByShort(short)
	if !ok {
		return ratioThresholds(0, 0)
	}
	scale := 1.0
	if v.Timed {
		scale = 1e-3
	}
	return ratioThresholds(v.Good*scale, v.Poor*scale)
}
