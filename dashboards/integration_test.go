//go:build integration

package dashboards

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
)

// itestID is the testid of the run the integration test loads.
const itestID = "itest-1"

// exporterTestID is a later run of itestID's group whose key facts and changes are
// tidemark exporter's gauges (a constant series from exporterFrom on), not written back.
const (
	exporterTestID = itestID + "-20260301"
	exporterFrom   = 2 * time.Minute
)

// bottleneckAt is when the run's verdict saturated, from its start: the correlator writes
// it back as tidemark_event{kind="bottleneck"} (analysis.EventBottleneck).
const bottleneckAt = 5*time.Minute + 20*time.Second

// genSeries is one time series being generated: its labels and a value per timestamp
// (NaN: no sample), or a native histogram per timestamp.
type genSeries struct {
	labels map[string]string
	value  func(t time.Duration) float64
	hist   func(t time.Duration) *histogram.Histogram
	every  time.Duration
}

// runData is a 15-minute story-1-like run plus the cluster series around it, with the
// cadences of deploy/prometheus: k6 pushes every 5 s, kube-state-metrics every 5 s,
// cAdvisor every 10 s, YACE every 60 s.
func runData() []genSeries {
	const run = 15 * time.Minute
	live := func(t time.Duration) bool { return t >= 30*time.Second && t <= run }
	// Offered load: 10 req/s, spike to 50 req/s from minute 5 to minute 10.
	rps := func(t time.Duration) float64 {
		if t >= 5*time.Minute && t < 10*time.Minute {
			return 50
		}
		return 10
	}
	// counter integrates rate f from the run start, sampled only while the run is live.
	counter := func(f func(time.Duration) float64) func(time.Duration) float64 {
		return func(t time.Duration) float64 {
			if !live(t) {
				return math.NaN()
			}
			var c float64
			for s := 30 * time.Second; s < t; s += time.Second {
				c += f(s)
			}
			return c
		}
	}
	gauge := func(v func(time.Duration) float64) func(time.Duration) float64 {
		return func(t time.Duration) float64 {
			if !live(t) {
				return math.NaN()
			}
			return v(t)
		}
	}
	always := func(v float64) func(time.Duration) float64 { return func(time.Duration) float64 { return v } }
	failShare := func(t time.Duration) float64 {
		if t >= 5*time.Minute && t < 7*time.Minute {
			return 0.16
		}
		return 0.01
	}
	k6 := func(name string, extra ...string) map[string]string {
		l := map[string]string{"__name__": name, "testid": itestID, "instance_id": "1"}
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return l
	}
	req := func(status, expected string) []string {
		return []string{"scenario", "spike", "method", "GET", "name", "http://order/api", "url", "http://order/api", "status", status, "expected_response", expected, "proto", "HTTP/1.1"}
	}
	var out []genSeries
	add := func(l map[string]string, every time.Duration, v func(time.Duration) float64) {
		out = append(out, genSeries{labels: l, value: v, every: every})
	}
	s5 := 5 * time.Second

	// --- k6 series and run metadata -----------------------------------------------------
	add(k6("tidemark_run_info", "version", "dev"), s5, gauge(always(1)))
	add(k6("tidemark_scenario_target", "scenario", "spike", "unit", "iterations_per_second"), s5, gauge(rps))
	add(k6("tidemark_scenario_target", "scenario", "soak", "unit", "vus"), s5, gauge(always(5)))
	// A windowed threshold that fails while the error burst lasts, and a whole-run one
	// that passes.
	add(k6("tidemark_threshold_result_pass", "metric", "http_req_failed", "threshold", "rate<0.05", "window", "30s"), s5, gauge(func(t time.Duration) float64 {
		if failShare(t) > 0.05 {
			return 0
		}
		return 1
	}))
	add(k6("tidemark_threshold_result_pass", "metric", "http_req_duration", "threshold", "p(95)<500"), s5, gauge(always(1)))
	// A server-side rule that fires while the error burst lasts.
	add(k6("tidemark_slo_rule_firing", "alertname", "ErrorBurst", "severity", "error", "judge", "live"), s5, gauge(func(t time.Duration) float64 {
		if failShare(t) > 0.05 {
			return 1
		}
		return 0
	}))
	add(k6("k6_vus"), s5, gauge(func(t time.Duration) float64 { return rps(t) / 2 }))
	add(k6("k6_vus_max"), s5, gauge(always(200)))
	add(k6("k6_http_reqs_total", req("200", "true")...), s5, counter(func(t time.Duration) float64 { return rps(t) * (1 - failShare(t)) }))
	add(k6("k6_http_reqs_total", append(req("503", "false"), "error_code", "1503")...), s5, counter(func(t time.Duration) float64 { return rps(t) * failShare(t) }))
	add(k6("k6_http_req_failed_rate", req("200", "true")...), s5, gauge(always(0)))
	add(k6("k6_http_req_failed_rate", append(req("503", "false"), "error_code", "1503")...), s5, gauge(always(1)))
	add(k6("k6_iterations_total", "scenario", "spike"), s5, counter(rps))
	add(k6("k6_iterations_total", "scenario", "soak"), s5, counter(always(2)))
	add(k6("k6_dropped_iterations_total", "scenario", "spike"), s5, counter(func(t time.Duration) float64 { return rps(t) / 100 }))
	add(k6("k6_data_sent_total", "scenario", "spike"), s5, counter(func(t time.Duration) float64 { return rps(t) * 200 }))
	add(k6("k6_data_received_total", "scenario", "spike"), s5, counter(func(t time.Duration) float64 { return rps(t) * 1500 }))
	add(k6("k6_checks_rate", "scenario", "spike", "check", "status is 200"), s5, gauge(always(0.95)))
	latency := func(base float64) func(time.Duration) float64 {
		return gauge(func(t time.Duration) float64 { return base * rps(t) / 10 })
	}
	for _, trend := range k6Trends() {
		add(k6("k6_"+trend+"_p99", req("200", "true")...), s5, latency(0.01))
	}
	for _, stat := range []string{"min", "max", "p95"} {
		add(k6("k6_http_req_duration_"+stat, req("200", "true")...), s5, latency(0.02))
		add(k6("k6_http_req_duration_"+stat, req("503", "false")...), s5, latency(0.5))
	}
	add(k6("k6_http_req_duration_p99", req("503", "false")...), s5, latency(0.6))
	add(k6("k6_iteration_duration_p99", "scenario", "spike"), s5, latency(0.05))
	// Native histograms (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM).
	hist := func(scale float64) func(time.Duration) *histogram.Histogram {
		c := counter(func(t time.Duration) float64 { return rps(t) * scale })
		return func(t time.Duration) *histogram.Histogram {
			n := c(t)
			if math.IsNaN(n) {
				return nil
			}
			// Schema 0: buckets (1/16,1/8], (1/8,1/4], (1/4,1/2] hold 50 %, 30 %, 20 %.
			b := []uint64{uint64(n * 0.5), uint64(n * 0.3), uint64(n * 0.2)}
			return &histogram.Histogram{
				Schema: 0, ZeroThreshold: 1e-128, Count: b[0] + b[1] + b[2], Sum: n * 0.15,
				PositiveSpans:   []histogram.Span{{Offset: -3, Length: 3}},
				PositiveBuckets: []int64{int64(b[0]), int64(b[1]) - int64(b[0]), int64(b[2]) - int64(b[1])},
			}
		}
	}
	out = append(out,
		genSeries{labels: k6("k6_http_req_duration_seconds", req("200", "true")...), hist: hist(0.9), every: s5},
		genSeries{labels: k6("k6_http_req_duration_seconds", req("503", "false")...), hist: hist(0.1), every: s5},
		genSeries{labels: k6("k6_iteration_duration_seconds", "scenario", "spike"), hist: hist(1), every: s5},
	)
	// A browser VU's Web Vitals: k6's p95 gauges and the native histograms (rating
	// splits the series).
	page := func(name, rating string) map[string]string {
		return k6(name, "scenario", "browser", "url", "http://order/", "rating", rating)
	}
	for _, v := range []string{"lcp", "fcp", "inp", "ttfb", "fid"} {
		add(page("k6_browser_web_vital_"+v+"_p95", "good"), s5, latency(0.05))
		out = append(out, genSeries{labels: page("k6_browser_web_vital_"+v+"_seconds", "good"), hist: hist(0.05), every: s5})
	}
	out = append(out,
		genSeries{labels: page("k6_browser_web_vital_lcp_seconds", "poor"), hist: hist(0.01), every: s5},
		genSeries{labels: page("k6_browser_web_vital_cls", "good"), hist: hist(0.05), every: s5})
	add(page("k6_browser_web_vital_cls_p95", "good"), s5, gauge(always(0.02)))
	// The correlator's write-back: one sample per event.
	add(k6("tidemark_event", "kind", "hpa_scale_up", "object", "order"), s5, func(t time.Duration) float64 {
		if t == 5*time.Minute+15*time.Second {
			return 1
		}
		return math.NaN()
	})
	add(k6("tidemark_event", "kind", "bottleneck", "object", "startup"), s5, func(t time.Duration) float64 {
		if t == bottleneckAt {
			return 1
		}
		return math.NaN()
	})

	// The key facts written back at the run's end and the exporter's regression gauge
	// (the Runs over time dashboard).
	atEnd := func(v float64) func(time.Duration) float64 {
		return func(t time.Duration) float64 {
			if t == run {
				return v
			}
			return math.NaN()
		}
	}
	for _, f := range []struct {
		name   string
		labels []string
		v      float64
	}{
		{"tidemark_fact_requests_total", nil, 27000},
		{"tidemark_fact_error_ratio", nil, 0.01},
		{"tidemark_fact_peak_request_rate", nil, 50},
		{"tidemark_fact_stage_p95_seconds", []string{"stage", "1", "scenario", "spike"}, 0.25},
		{"tidemark_fact_hpa_reaction_seconds", []string{"object", "shop/order", "from", "load_step"}, 25},
		{"tidemark_fact_hpa_ready_gap_seconds", []string{"object", "shop/order", "step", "0", "to", "4"}, 30},
		{"tidemark_fact_hpa_time_to_max_seconds", []string{"object", "shop/order"}, 60},
		{"tidemark_fact_hpa_scale_in_delay_seconds", []string{"object", "shop/order"}, 300},
		{"tidemark_fact_throttling_onset_vus", []string{"object", "shop/order", "threshold", "0.05"}, 40},
		{"tidemark_fact_db_connections_growth", []string{"object", "orders-db"}, 20},
		{"tidemark_fact_regression", []string{"fact", "hpa_reaction_seconds", "object", "shop/order", "baseline_testid", "itest-0", "kind", "regression"}, 30},
		{"tidemark_fact_regression", []string{"fact", "error_ratio", "baseline_testid", "itest-0", "kind", "improvement"}, -0.01},
	} {
		add(k6(f.name, f.labels...), s5, atEnd(f.v))
		// The same facts of another run of the group as tidemark exporter exposes them:
		// a constant series, scraped every 15 s from when it correlated the run on.
		l := map[string]string{"job": "tidemark-exporter", "instance": "exporter:9466"}
		for k, v := range k6(f.name, f.labels...) {
			if k != "instance_id" {
				l[k] = v
			}
		}
		l["testid"] = exporterTestID
		if l["baseline_testid"] != "" {
			l["baseline_testid"] = itestID
		}
		add(l, 15*time.Second, func(t time.Duration) float64 {
			if t < exporterFrom {
				return math.NaN()
			}
			return f.v * 2
		})
	}

	// --- kube-state-metrics (namespace shop, deployment order, HPA order 2→4→5) --------
	ksm := func(name string, extra ...string) map[string]string {
		l := map[string]string{"__name__": name, "job": "kube-state-metrics", "namespace": "shop", "instance": "ksm:8080"}
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return l
	}
	replicas := func(t time.Duration) float64 {
		switch {
		case t >= 5*time.Minute+15*time.Second && t < 6*time.Minute:
			return 4
		case t >= 6*time.Minute && t < 13*time.Minute:
			return 5
		}
		return 2
	}
	ready := func(t time.Duration) float64 { return replicas(t - 20*time.Second) }
	hpa := []string{"horizontalpodautoscaler", "order"}
	add(ksm("kube_horizontalpodautoscaler_info", "horizontalpodautoscaler", "order", "scaletargetref_kind", "Deployment", "scaletargetref_name", "order"), s5, always(1))
	add(ksm("kube_horizontalpodautoscaler_status_current_replicas", hpa...), s5, replicas)
	add(ksm("kube_horizontalpodautoscaler_status_desired_replicas", hpa...), s5, func(t time.Duration) float64 { return replicas(t + 10*time.Second) })
	add(ksm("kube_horizontalpodautoscaler_spec_min_replicas", hpa...), s5, always(2))
	add(ksm("kube_horizontalpodautoscaler_spec_max_replicas", hpa...), s5, always(5))
	add(ksm("kube_horizontalpodautoscaler_spec_target_metric", "horizontalpodautoscaler", "order", "metric_name", "cpu", "metric_target_type", "utilization"), s5, always(70))
	add(ksm("kube_deployment_spec_replicas", "deployment", "order"), s5, replicas)
	add(ksm("kube_deployment_status_replicas_ready", "deployment", "order"), s5, ready)
	add(ksm("kube_deployment_status_replicas_available", "deployment", "order"), s5, ready)
	add(ksm("kube_replicaset_owner", "replicaset", "order-5d9f", "owner_kind", "Deployment", "owner_name", "order", "owner_is_controller", "true"), s5, always(1))
	pods := []string{"order-5d9f-a", "order-5d9f-b"}
	for _, pod := range pods {
		add(ksm("kube_pod_owner", "pod", pod, "uid", pod, "owner_kind", "ReplicaSet", "owner_name", "order-5d9f", "owner_is_controller", "true"), s5, always(1))
		add(ksm("kube_pod_container_resource_requests", "pod", pod, "uid", pod, "container", "app", "node", "n1", "resource", "cpu", "unit", "core"), s5, always(0.1))
		add(ksm("kube_pod_container_resource_limits", "pod", pod, "uid", pod, "container", "app", "node", "n1", "resource", "cpu", "unit", "core"), s5, always(0.2))
		add(ksm("kube_pod_container_status_restarts_total", "pod", pod, "uid", pod, "container", "app"), s5, always(0))
	}

	// --- cAdvisor through the kubelet -----------------------------------------------------
	s10 := 10 * time.Second
	cad := func(name, pod string) map[string]string {
		return map[string]string{"__name__": name, "job": "kubelet", "metrics_path": "/metrics/cadvisor", "namespace": "shop",
			"pod": pod, "container": "app", "image": "order:1", "name": "k8s_app_" + pod, "id": "/kubepods/" + pod, "instance": "n1:10250"}
	}
	integrate := func(f func(time.Duration) float64) func(time.Duration) float64 {
		return func(t time.Duration) float64 {
			var c float64
			for s := time.Duration(0); s < t; s += time.Second {
				c += f(s)
			}
			return c
		}
	}
	cpu := func(t time.Duration) float64 { return math.Min(0.2, 0.012*rps(t)/replicas(t)*2) }
	for _, pod := range pods {
		add(cad("container_cpu_usage_seconds_total", pod), s10, integrate(cpu))
		add(cad("container_cpu_cfs_periods_total", pod), s10, integrate(always(10)))
		add(cad("container_cpu_cfs_throttled_periods_total", pod), s10, integrate(func(t time.Duration) float64 { return 10 * cpu(t) / 0.2 * 0.3 }))
	}

	// --- RDS through YACE ---------------------------------------------------------------------
	s60 := time.Minute
	rds := func(name string) map[string]string {
		return map[string]string{"__name__": name, "job": "yace", "name": "arn:aws:rds:eu-west-1:1:db:orders", "dimension_DBInstanceIdentifier": "orders", "region": "eu-west-1"}
	}
	add(rds("aws_rds_cpuutilization_average"), s60, func(t time.Duration) float64 { return rps(t) / 4 })
	add(rds("aws_rds_database_connections_average"), s60, func(t time.Duration) float64 { return 10 + replicas(t)*5 })
	add(rds("aws_rds_cpucredit_balance_average"), s60, always(140))
	add(rds("aws_rds_freeable_memory_average"), s60, always(300<<20))

	// --- the database's own exporters and the pods' pools (HikariCP, database/sql) -------
	pg := func(name string, extra ...string) map[string]string {
		l := map[string]string{"__name__": name, "job": "postgres", "instance": "db:9187", "server": "db:5432"}
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return l
	}
	add(pg("pg_settings_max_connections"), s5, always(100))
	add(pg("pg_stat_activity_count", "datname", "shop", "state", "active"), s5, func(t time.Duration) float64 { return rps(t) / 5 })
	add(pg("pg_stat_activity_count", "datname", "shop", "state", "idle"), s5, func(t time.Duration) float64 { return replicas(t) * 10 })
	my := func(name string) map[string]string {
		return map[string]string{"__name__": name, "job": "mysqld", "instance": "mysql:9104"}
	}
	add(my("mysql_global_variables_max_connections"), s5, always(151))
	add(my("mysql_global_status_threads_connected"), s5, func(t time.Duration) float64 { return replicas(t) * 10 })
	add(my("mysql_global_status_threads_running"), s5, func(t time.Duration) float64 { return rps(t) / 5 })
	app := func(name, pod string, extra ...string) map[string]string {
		l := map[string]string{"__name__": name, "job": "kubernetes-pods", "namespace": "shop", "pod": pod, "instance": pod + ":8080"}
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return l
	}
	busy := func(t time.Duration) float64 { return math.Min(10, math.Ceil(rps(t)/replicas(t)*0.5)) }
	for _, pod := range pods {
		add(app("hikaricp_connections_active", pod, "pool", "HikariPool-1"), s5, busy)
		add(app("hikaricp_connections_max", pod, "pool", "HikariPool-1"), s5, always(10))
		add(app("hikaricp_connections_pending", pod, "pool", "HikariPool-1"), s5, func(t time.Duration) float64 { return math.Max(0, math.Ceil(rps(t)/replicas(t)*0.5)-10) })
		add(app("go_sql_wait_count_total", pod, "db_name", "reports"), s5, integrate(func(t time.Duration) float64 { return rps(t) / 50 }))
	}
	return out
}

// writeRun remote-writes the run's series, timestamps from start on, into Prometheus.
func writeRun(t *testing.T, writeURL string, start time.Time, length time.Duration) {
	t.Helper()
	var b promtest.Batch
	for _, s := range runData() {
		for off := time.Duration(0); off <= length; off += s.every {
			if s.hist != nil {
				if h := s.hist(off); h != nil {
					b.AddHistogram(s.labels, start.Add(off), h)
				}
				continue
			}
			if v := s.value(off); !math.IsNaN(v) {
				b.Add(s.labels, start.Add(off), v)
			}
		}
	}
	b.Write(t, writeURL)
}

// promWithRun starts a real Prometheus, remote-writes a run of length into it with write,
// the run ending a minute ago, and waits until the query ready(start) has data: it
// returns the server, its API and the run's start.
func promWithRun(t *testing.T, length time.Duration, write func(*testing.T, string, time.Time, time.Duration), ready func(start time.Time) string) (*promtest.Server, v1.API, time.Time) {
	t.Helper()
	prom := promtest.StartPrometheus(t)
	start := time.Now().Add(-length - time.Minute).Truncate(5 * time.Second)
	write(t, prom.WriteURL(), start, length)
	promtest.WaitForQuery(t, prom.URL, ready(start), 30*time.Second, promtest.NonEmpty)
	client, err := api.NewClient(api.Config{Address: prom.URL})
	require.NoError(t, err)
	return prom, v1.NewAPI(client), start
}

// TestEveryPanelQueryReturnsData loads a run plus cluster series into a real Prometheus
// and runs every panel's and annotation's query the way Grafana would (variables
// substituted, range queries over the run, instant queries at its end): each must
// return data. The variables' label_values queries must offer the run and the workload.
func TestEveryPanelQueryReturnsData(t *testing.T) {
	length := 16 * time.Minute
	prom, papi, start := promWithRun(t, length, writeRun, func(start time.Time) string {
		return `count(k6_vus{testid="` + itestID + `"} @ ` + fmt.Sprint(start.Add(time.Minute).Unix()) + `)`
	})
	ctx := context.Background()

	qs := generatedQueries(t)
	require.NotEmpty(t, qs)
	for _, qu := range qs {
		expr, _ := interpolate(qu.Expr, testVars(itestID))
		name := qu.Dashboard + " / " + qu.Panel + " / " + qu.RefID
		var (
			v   model.Value
			err error
		)
		if qu.Instant {
			v, _, _, err = papi.Query(ctx, expr, start.Add(15*time.Minute))
		} else {
			v, _, _, err = papi.QueryRange(ctx, expr, v1.Range{Start: start, End: start.Add(length), Step: 15 * time.Second})
		}
		require.NoError(t, err, "%s:\n%s", name, expr)
		require.True(t, promtest.NonEmpty(v), "%s returned no data:\n%s", name, expr)
	}

	// The Run correlation dashboard's event annotation marks the moment of saturation
	// (issue 28): Grafana places each annotation at the query's value (useValueForTime),
	// which for the bottleneck's event is its own time, however long after it the
	// lookback keeps returning it.
	events := 0
	for _, qu := range qs {
		if qu.Dashboard != RunCorrelationUID || qu.Panel != "annotation Tidemark events" {
			continue
		}
		events++
		expr, _ := interpolate(qu.Expr, testVars(itestID))
		v, _, _, err := papi.QueryRange(ctx, expr, v1.Range{Start: start, End: start.Add(length), Step: 15 * time.Second})
		require.NoError(t, err, expr)
		var at []float64
		for _, s := range v.(model.Matrix) {
			if s.Metric["kind"] != "bottleneck" {
				continue
			}
			require.Equal(t, model.LabelValue("startup"), s.Metric["object"], "the annotation names the resource")
			for _, p := range s.Values {
				at = append(at, float64(p.Value))
			}
		}
		require.NotEmpty(t, at, "the bottleneck's annotation:\n%s", expr)
		for _, ms := range at {
			require.InDelta(t, float64(start.Add(bottleneckAt).UnixMilli()), ms, 0, "annotation time (ms)")
		}
	}
	require.Equal(t, 1, events, "one event annotation on the Run correlation dashboard")

	// The Runs over time dashboard reads both sources: each per-run query has a value for
	// the written-back run and for the exporter's, and each regression annotation is one
	// point per change, where its series first appears, not a band along it.
	runsQueries := 0
	for _, qu := range qs {
		if qu.Dashboard != RunsOverTimeUID {
			continue
		}
		runsQueries++
		expr, _ := interpolate(qu.Expr, testVars(itestID))
		name := qu.Panel + " / " + qu.RefID
		if qu.Instant {
			v, _, _, err := papi.Query(ctx, expr, start.Add(15*time.Minute))
			require.NoError(t, err, name)
			ids := map[string]bool{}
			for _, s := range v.(model.Vector) {
				ids[string(s.Metric["testid"])] = true
			}
			require.Equal(t, map[string]bool{itestID: true, exporterTestID: true}, ids, "%s:\n%s", name, expr)
			continue
		}
		v, _, _, err := papi.QueryRange(ctx, expr, v1.Range{Start: start, End: start.Add(length), Step: 15 * time.Second})
		require.NoError(t, err, name)
		m := v.(model.Matrix)
		require.Len(t, m, 2, "%s: one change per run:\n%s", name, expr)
		for _, s := range m {
			require.Len(t, s.Values, 1, "%s: %s is one point:\n%s", name, s.Metric, expr)
			want := start.Add(15 * time.Minute) // the written-back sample, at the run's end
			if s.Metric["testid"] == exporterTestID {
				want = start.Add(exporterFrom) // the exporter's first scrape of it
			}
			require.Equal(t, want.Unix(), s.Values[0].Timestamp.Unix(), "%s: %s", name, s.Metric)
		}
	}
	require.Greater(t, runsQueries, 15)

	// Template variables resolve to the run and the cluster objects.
	for _, tc := range []struct {
		dashboard, variable, want string
	}{
		{LoadUID, "testid", itestID},
		{RunCorrelationUID, "testid", itestID},
		{RunCorrelationUID, "namespace", "shop"},
		{RunCorrelationUID, "workload", "order"},
		{RunsOverTimeUID, "group", itestID},
		{RunsOverTimeUID, "group", exporterTestID}, // label_values; the variable's regex then makes it itest-1
	} {
		def := variableDefinition(t, tc.dashboard, tc.variable)
		m := regexp.MustCompile(`^label_values\((.+), (\w+)\)$`).FindStringSubmatch(def)
		require.NotNil(t, m, "%s: %s is not label_values(selector, label): %q", tc.dashboard, tc.variable, def)
		sel, _ := interpolate(m[1], testVars(itestID))
		vals := labelValues(t, prom.URL, m[2], sel, start, start.Add(length))
		require.Contains(t, vals, tc.want, "%s: variable %s (%s)", tc.dashboard, tc.variable, def)
	}
}

// variableDefinition returns the query of a dashboard's template variable.
func variableDefinition(t *testing.T, uid, name string) string {
	t.Helper()
	exprs, err := DefaultExprs()
	require.NoError(t, err)
	built, err := All(exprs)
	require.NoError(t, err)
	for _, b := range built {
		if b.UID != uid {
			continue
		}
		for _, v := range b.Dashboard.Templating.List {
			if v.Name == name && v.Query != nil && v.Query.String != nil {
				return *v.Query.String
			}
		}
	}
	t.Fatalf("dashboard %s has no query variable %s", uid, name)
	return ""
}

// labelValues asks the label-values API what Grafana's label_values(selector, label) gets.
func labelValues(t *testing.T, base, label, selector string, start, end time.Time) []string {
	t.Helper()
	u := base + "/api/v1/label/" + label + "/values?" + url.Values{
		"match[]": {selector},
		"start":   {fmt.Sprint(start.Unix())},
		"end":     {fmt.Sprint(end.Unix())},
	}.Encode()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		Status string   `json:"status"`
		Data   []string `json:"data"`
		Error  string   `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "success", body.Status, "%s: %s", strings.TrimPrefix(u, base), body.Error)
	return body.Data
}
