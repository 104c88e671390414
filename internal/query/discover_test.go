package query

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	promlabels "github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// seriesProm is a fake Prometheus that holds label sets only (every series has samples
// all over the window) and answers Discover's queries,
// count by (job, metrics_path) (last_over_time(<selector>[range])), by matching the
// selector's matchers against them as Prometheus does (a missing label is "").
type seriesProm struct {
	series []model.Metric
	err    error

	mu    sync.Mutex
	asked []string
}

var _ Querier = (*seriesProm)(nil)

func (f *seriesProm) Query(_ context.Context, expr string, ts time.Time) (model.Value, v1.Warnings, error) {
	f.mu.Lock()
	f.asked = append(f.asked, expr)
	f.mu.Unlock()
	if f.err != nil {
		return nil, nil, f.err
	}
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, nil, fmt.Errorf("bad_data: %w", err)
	}
	agg, ok := e.(*parser.AggregateExpr)
	if !ok || agg.Op != parser.COUNT {
		return nil, nil, fmt.Errorf("fake answers count by (…) (last_over_time(…)) only, not %s", expr)
	}
	var vs *parser.VectorSelector
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if s, ok := n.(*parser.VectorSelector); ok {
			vs = s
		}
		return nil
	})
	counts := map[string]int{}
	metrics := map[string]model.Metric{}
	for _, s := range f.series {
		match := vs.Name == "" || string(s[model.MetricNameLabel]) == vs.Name
		for _, m := range vs.LabelMatchers {
			match = match && m.Matches(string(s[model.LabelName(m.Name)]))
		}
		if !match {
			continue
		}
		key := model.Metric{}
		for _, l := range agg.Grouping {
			if v := s[model.LabelName(l)]; v != "" {
				key[model.LabelName(l)] = v
			}
		}
		counts[key.String()]++
		metrics[key.String()] = key
	}
	var out model.Vector
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, &model.Sample{Metric: metrics[k], Value: model.SampleValue(counts[k]), Timestamp: model.TimeFromUnixNano(ts.UnixNano())})
	}
	return out, nil, nil
}

func (f *seriesProm) QueryRange(context.Context, string, v1.Range) (model.Value, v1.Warnings, error) {
	return nil, nil, errors.New("fake answers instant queries only")
}

// ls builds a label set from name, value pairs.
func ls(kv ...string) model.Metric {
	m := model.Metric{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[model.LabelName(kv[i])] = model.LabelValue(kv[i+1])
	}
	return m
}

// layoutSeries are a few series of each source, with the scrape labels of one install
// (shared/reference/prom-layouts.md §11) and extra labels on every series.
type layoutSeries struct {
	ksm, cadvisor, rds []string // job, metrics_path pairs ("" for none)
	// postgres, mysql: the database exporters' jobs; pool: the application pods' job
	// (annotations, a ServiceMonitor or a PodMonitor), whose series carry namespace and pod.
	postgres, mysql, pool []string
	ksmV1                 bool // kube_hpa_* (KSM < 2.0) instead of kube_horizontalpodautoscaler_*
	extra                 []string
}

func (l layoutSeries) series(ns string) []model.Metric {
	with := func(id []string, kv ...string) model.Metric {
		m := ls(append(slices.Clone(kv), l.extra...)...)
		if id[0] != "" {
			m["job"] = model.LabelValue(id[0])
		}
		if len(id) > 1 && id[1] != "" {
			m["metrics_path"] = model.LabelValue(id[1])
		}
		return m
	}
	var out []model.Metric
	if l.ksm != nil {
		hpa, hpaLabel := "kube_horizontalpodautoscaler_status_current_replicas", "horizontalpodautoscaler"
		if l.ksmV1 {
			hpa, hpaLabel = "kube_hpa_status_current_replicas", "hpa"
		}
		out = append(out,
			with(l.ksm, "__name__", hpa, "namespace", ns, hpaLabel, "order"),
			with(l.ksm, "__name__", "kube_deployment_spec_replicas", "namespace", ns, "deployment", "order"),
			with(l.ksm, "__name__", "kube_deployment_spec_replicas", "namespace", ns, "deployment", "delivery"),
			with(l.ksm, "__name__", "kube_pod_owner", "namespace", ns, "pod", "order-a"))
	}
	if l.cadvisor != nil {
		out = append(out,
			with(l.cadvisor, "__name__", "container_cpu_usage_seconds_total", "namespace", ns, "pod", "order-a", "container", "app"),
			with(l.cadvisor, "__name__", "container_cpu_usage_seconds_total", "namespace", ns, "pod", "order-a", "container", "POD"),
			with(l.cadvisor, "__name__", "container_cpu_cfs_periods_total", "namespace", ns, "pod", "order-a", "container", "app"))
	}
	if l.rds != nil {
		out = append(out,
			with(l.rds, "__name__", "aws_rds_cpuutilization_average", "dimension_DBInstanceIdentifier", "shoong-db"),
			with(l.rds, "__name__", "aws_rds_database_connections_average", "dbinstance_identifier", "shoong-db"))
	}
	// The exporters' own label sets, as recorded from Debian's exporters
	// (internal/analysis/testdata/*-exporter.prom).
	if l.postgres != nil {
		out = append(out,
			with(l.postgres, "__name__", "pg_settings_max_connections", "instance", "10.2.1.30:9187", "server", "shoong-db:5432"),
			with(l.postgres, "__name__", "pg_stat_activity_count", "instance", "10.2.1.30:9187", "datname", "shoong", "state", "active"),
			with(l.postgres, "__name__", "pg_stat_activity_count", "instance", "10.2.1.30:9187", "datname", "shoong", "state", "idle"))
	}
	if l.mysql != nil {
		out = append(out,
			with(l.mysql, "__name__", "mysql_global_variables_max_connections", "instance", "10.2.1.31:9104"),
			with(l.mysql, "__name__", "mysql_global_status_threads_connected", "instance", "10.2.1.31:9104"))
	}
	if l.pool != nil {
		out = append(out,
			with(l.pool, "__name__", "hikaricp_connections_active", "namespace", ns, "pod", "order-a", "pool", "HikariPool-1"),
			with(l.pool, "__name__", "go_sql_in_use_connections", "namespace", ns, "pod", "delivery-a", "db_name", "delivery"),
			with(l.pool, "__name__", "prisma_pool_connections_busy", "namespace", ns, "pod", "web-a"))
	}
	return out
}

func discoverWindow() timeline.Window {
	from := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return timeline.Window{From: from, To: from.Add(15 * time.Minute)}
}

type wantSource struct {
	found     Found
	selector  string
	ambiguous bool
	note      []string // substrings of the note
}

// TestDiscoverLayouts runs Discover on each common install's label sets (job names from
// prom-layouts.md §11) and checks the selector adopted for every source.
func TestDiscoverLayouts(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	const (
		catKSM  = `job="kube-state-metrics", namespace=~"{{.Namespace}}"`
		catCadv = `job="kubelet", metrics_path="/metrics/cadvisor", namespace=~"{{.Namespace}}"`
		catRDS  = `job=~".+"`
	)
	kps := layoutSeries{ksm: []string{"kube-state-metrics"}, cadvisor: []string{"kubelet", "/metrics/cadvisor"}, rds: []string{"yace-prometheus-yet-another-cloudwatch-exporter"}}
	for _, tc := range []struct {
		name   string
		layout layoutSeries
		vars   Vars
		// more are series of other namespaces or clusters, which must not count.
		more []model.Metric
		want map[string]wantSource
	}{
		{
			name: "kube-prometheus-stack", layout: kps,
			want: map[string]wantSource{
				"ksm":      {found: FoundCatalog, selector: catKSM, note: []string{"kube-state-metrics found with the catalog's selector", "job=kube-state-metrics (1 series)"}},
				"cadvisor": {found: FoundCatalog, selector: catCadv, note: []string{"cAdvisor found with the catalog's selector", "job=kubelet, metrics_path=/metrics/cadvisor"}},
				"rds":      {found: FoundCatalog, selector: catRDS, note: []string{"RDS found with the catalog's selector"}},
			},
		},
		{
			name:   "victoria-metrics-k8s-stack",
			layout: layoutSeries{ksm: kps.ksm, cadvisor: kps.cadvisor, rds: []string{"aws_rds"}, extra: []string{"prometheus", "monitoring/vmks-victoria-metrics-k8s-stack"}},
			want: map[string]wantSource{
				"ksm": {found: FoundCatalog, selector: catKSM}, "cadvisor": {found: FoundCatalog, selector: catCadv}, "rds": {found: FoundCatalog, selector: catRDS},
			},
		},
		{
			name:   "prometheus-community chart",
			layout: layoutSeries{ksm: []string{"kubernetes-service-endpoints"}, cadvisor: []string{"kubernetes-nodes-cadvisor", "/metrics/cadvisor"}, rds: []string{"aws_rds"}},
			want: map[string]wantSource{
				"ksm": {found: FoundDiscovered, selector: `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`,
					note: []string{`kube-state-metrics found as job=kubernetes-service-endpoints (4 series of kube_horizontalpodautoscaler_status_current_replicas, kube_deployment_spec_replicas, kube_pod_owner with {namespace=~"shoong"}; the catalog's selector {job="kube-state-metrics", namespace=~"shoong"} found none)`}},
				"cadvisor": {found: FoundDiscovered, selector: `job="kubernetes-nodes-cadvisor", metrics_path="/metrics/cadvisor", namespace=~"{{.Namespace}}"`,
					note: []string{"cAdvisor found as job=kubernetes-nodes-cadvisor, metrics_path=/metrics/cadvisor (3 series"}},
				"rds": {found: FoundCatalog, selector: catRDS},
			},
		},
		{
			name:   "prometheus chart before 28.7.0 (no metrics_path)",
			layout: layoutSeries{ksm: []string{"kubernetes-service-endpoints"}, cadvisor: []string{"kubernetes-nodes-cadvisor"}},
			want: map[string]wantSource{
				"ksm":      {found: FoundDiscovered, selector: `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`},
				"cadvisor": {found: FoundDiscovered, selector: `job="kubernetes-nodes-cadvisor", namespace=~"{{.Namespace}}"`},
				"rds":      {found: FoundNone, selector: catRDS},
			},
		},
		{
			name: "k8s-monitoring (Alloy)",
			layout: layoutSeries{ksm: []string{"integrations/kubernetes/kube-state-metrics"}, cadvisor: []string{"integrations/kubernetes/cadvisor"},
				rds: []string{"integrations/yace"}, extra: []string{"cluster", "prod", "k8s_cluster_name", "prod"}},
			want: map[string]wantSource{
				"ksm":      {found: FoundDiscovered, selector: `job="integrations/kubernetes/kube-state-metrics", namespace=~"{{.Namespace}}"`},
				"cadvisor": {found: FoundDiscovered, selector: `job="integrations/kubernetes/cadvisor", namespace=~"{{.Namespace}}"`},
				"rds":      {found: FoundCatalog, selector: catRDS},
			},
		},
		{
			name:   "no job labels",
			layout: layoutSeries{ksm: []string{""}, cadvisor: []string{""}, rds: []string{""}},
			want: map[string]wantSource{
				"ksm":      {found: FoundDiscovered, selector: `job="", namespace=~"{{.Namespace}}"`, note: []string{"kube-state-metrics found as series without a job label (4 series"}},
				"cadvisor": {found: FoundDiscovered, selector: `job="", namespace=~"{{.Namespace}}"`},
				"rds": {found: FoundDiscovered, selector: `job=""`,
					note: []string{`RDS found as series without a job label (2 series of aws_rds_cpuutilization_average, aws_rds_database_connections_average with {}; the catalog's selector {job=~".+"} found none)`}},
			},
		},
		{
			name:   "kube-state-metrics v1 names under the catalog's job",
			layout: layoutSeries{ksm: kps.ksm, ksmV1: true, cadvisor: kps.cadvisor},
			want: map[string]wantSource{
				// The probe reads v1's name too: found, and its interval measured.
				"ksm": {found: FoundCatalog, selector: catKSM, note: []string{
					"kube-state-metrics found with the catalog's selector {job=\"kube-state-metrics\", namespace=~\"shoong\"} as job=kube-state-metrics (1 series)"}},
				"cadvisor": {found: FoundCatalog, selector: catCadv},
				"rds":      {found: FoundNone, selector: catRDS},
			},
		},
		{
			name:   "kube-state-metrics v1 under the prometheus chart",
			layout: layoutSeries{ksm: []string{"kubernetes-service-endpoints"}, ksmV1: true},
			want: map[string]wantSource{
				"ksm":      {found: FoundDiscovered, selector: `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`, note: []string{"4 series of kube_hpa_status_current_replicas"}},
				"cadvisor": {found: FoundNone, selector: catCadv},
				"rds":      {found: FoundNone, selector: catRDS},
			},
		},
		{
			name:   "other namespaces do not count",
			layout: layoutSeries{ksm: []string{"kubernetes-service-endpoints"}},
			more:   layoutSeries{ksm: []string{"kube-state-metrics-other"}, cadvisor: []string{"kubelet-other"}}.series("elsewhere"),
			want: map[string]wantSource{
				"ksm":      {found: FoundDiscovered, selector: `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`, note: []string{"(4 series"}},
				"cadvisor": {found: FoundNone, selector: catCadv},
			},
		},
		{
			name:   "--selector cluster=prod narrows the search",
			layout: layoutSeries{ksm: []string{"integrations/kubernetes/kube-state-metrics"}, cadvisor: kps.cadvisor, extra: []string{"cluster", "prod"}},
			vars:   Vars{Selector: map[string]string{"cluster": "prod"}},
			// The staging cluster runs the prometheus chart, with more series.
			more: append(layoutSeries{ksm: []string{"kubernetes-service-endpoints"}, extra: []string{"cluster", "staging"}}.series("shoong"),
				layoutSeries{ksm: []string{"kubernetes-service-endpoints"}, extra: []string{"cluster", "staging"}}.series("shoong")...),
			want: map[string]wantSource{
				"ksm": {found: FoundDiscovered, selector: `job="integrations/kubernetes/kube-state-metrics", namespace=~"{{.Namespace}}"`,
					note: []string{`kube_pod_owner with {namespace=~"shoong", cluster="prod"}; `, `selector {job="kube-state-metrics", namespace=~"shoong", cluster="prod"} found none`}},
				"cadvisor": {found: FoundCatalog, selector: catCadv, note: []string{`{job="kubelet", metrics_path="/metrics/cadvisor", namespace=~"shoong", cluster="prod"}`}},
			},
		},
		{
			// The charts prometheus-postgres-exporter and prometheus-mysql-exporter under
			// kube-prometheus-stack (ServiceMonitor: job is the Service's name), the pods'
			// pool through a PodMonitor (job <namespace>/<name>).
			name: "database exporters and pools under kube-prometheus-stack",
			layout: layoutSeries{ksm: kps.ksm, postgres: []string{"pg-prometheus-postgres-exporter"}, mysql: []string{"mysql-prometheus-mysql-exporter"},
				pool: []string{"shoong/order"}},
			more: layoutSeries{pool: []string{"other/order"}}.series("other"),
			want: map[string]wantSource{
				"postgres": {found: FoundCatalog, selector: catRDS, note: []string{"PostgreSQL found with the catalog's selector", "job=pg-prometheus-postgres-exporter (1 series)"}},
				"mysql":    {found: FoundCatalog, selector: catRDS, note: []string{"MySQL or MariaDB found with the catalog's selector"}},
				"pool":     {found: FoundCatalog, selector: `namespace=~"{{.Namespace}}"`, note: []string{"job=shoong/order (3 series)"}},
			},
		},
		{
			// Plain static jobs (Debian's own prometheus.yml names them postgres and mysqld)
			// and pods scraped through their annotations.
			name:   "database exporters as static jobs, pools through annotations",
			layout: layoutSeries{postgres: []string{"postgres"}, mysql: []string{"mysqld"}, pool: []string{"kubernetes-pods"}},
			want: map[string]wantSource{
				"postgres": {found: FoundCatalog, selector: catRDS},
				"mysql":    {found: FoundCatalog, selector: catRDS},
				"pool":     {found: FoundCatalog, selector: `namespace=~"{{.Namespace}}"`, note: []string{"job=kubernetes-pods (3 series)"}},
				"rds":      {found: FoundNone, selector: catRDS},
			},
		},
		{
			name:   "database exporters without job labels",
			layout: layoutSeries{postgres: []string{""}, mysql: []string{""}},
			want: map[string]wantSource{
				"postgres": {found: FoundDiscovered, selector: `job=""`, note: []string{"PostgreSQL found as series without a job label (3 series of pg_settings_max_connections, pg_stat_activity_count"}},
				"mysql":    {found: FoundDiscovered, selector: `job=""`},
				"pool":     {found: FoundNone, selector: `namespace=~"{{.Namespace}}"`},
			},
		},
		{
			name:   "a cluster with none of a source",
			layout: layoutSeries{ksm: kps.ksm, extra: []string{"cluster", "staging"}},
			vars:   Vars{Selector: map[string]string{"cluster": "prod"}},
			want: map[string]wantSource{
				"ksm": {found: FoundNone, selector: catKSM, note: []string{
					`no kube-state-metrics series in the window: the catalog's selector {job="kube-state-metrics", namespace=~"shoong", cluster="prod"} found none, nor did a search for kube_horizontalpodautoscaler_status_current_replicas, kube_hpa_status_current_replicas, kube_deployment_spec_replicas, kube_pod_owner with {namespace=~"shoong", cluster="prod"} under any job`}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := tc.vars
			v.Namespace = "shoong"
			f := &seriesProm{series: append(tc.layout.series("shoong"), tc.more...)}
			d, err := Discover(context.Background(), f, cat, v, discoverWindow())
			require.NoError(t, err)
			require.Equal(t, []string{"cadvisor", "ksm", "mysql", "pool", "postgres", "rds"}, sourceNames(d), "every source but k6")
			for _, s := range d.Sources {
				w, ok := tc.want[s.Source]
				if !ok {
					continue
				}
				require.Equal(t, w.found, s.Found, "%s: %s", s.Source, s.Note)
				require.Equal(t, w.selector, s.Selector, s.Source)
				require.Equal(t, w.ambiguous, s.Ambiguous, s.Source)
				for _, n := range w.note {
					require.Contains(t, s.Note, n, s.Source)
				}
				if s.Found == FoundNone {
					require.Empty(t, s.Candidates, s.Source)
				} else {
					require.NotEmpty(t, s.Candidates, s.Source)
				}
			}
			// The adopted selectors make a valid catalog whose probes select the series found.
			applied, err := d.Apply(cat)
			require.NoError(t, err)
			for _, s := range d.Sources {
				require.Equal(t, s.Selector, applied.Sources[s.Source].Selector)
			}
			f.asked = nil
			again, err := Discover(context.Background(), f, applied, v, discoverWindow())
			require.NoError(t, err)
			for i, s := range again.Sources {
				if d.Sources[i].Found == FoundDiscovered {
					require.Equal(t, FoundCatalog, s.Found, "%s: the adopted selector finds the series: %s", s.Source, s.Note)
				}
				require.Equal(t, d.Sources[i].Selector, s.Selector)
			}
		})
	}
}

func sourceNames(d Discovery) []string {
	var out []string
	for _, s := range d.Sources {
		out = append(out, s.Source)
	}
	return out
}

// TestDiscoverChoiceRule is the rule among several scrape identities: most series, then a
// job name matching the source, then name order; ties are reported as ambiguous.
func TestDiscoverChoiceRule(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	ksm := func(job string, n int) []model.Metric {
		var out []model.Metric
		for i := range n {
			out = append(out, ls("__name__", "kube_deployment_spec_replicas", "job", job, "namespace", "shoong", "deployment", fmt.Sprint("d", i)))
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		series    []model.Metric
		want      string // adopted job
		ambiguous bool
		note      string
	}{
		{name: "most series wins", series: slices.Concat(ksm("kubernetes-service-endpoints", 3), ksm("kube-state-metrics-old", 1)),
			want: "kubernetes-service-endpoints", note: "; also seen, with fewer series: job=kube-state-metrics-old (1 series)"},
		{name: "a tie goes to the job named like the source", series: slices.Concat(ksm("a-exporters", 2), ksm("my-ksm", 2)),
			want: "my-ksm", ambiguous: true, note: "; ambiguous: job=a-exporters has as many series; picked job=my-ksm, whose job name matches kube-state-metrics or ksm"},
		{name: "then name order", series: slices.Concat(ksm("b-exporters", 2), ksm("a-exporters", 2)),
			want: "a-exporters", ambiguous: true, note: "; ambiguous: job=b-exporters has as many series; picked job=a-exporters, the first by name"},
		{name: "no job is a candidate too", series: slices.Concat(ksm("", 2), ksm("a-exporters", 1)),
			want: "", note: "found as series without a job label (2 series"},
		{name: "a tie and fewer", series: slices.Concat(ksm("c", 1), ksm("b", 2), ksm("a", 2)), want: "a", ambiguous: true,
			note: "; ambiguous: job=b has as many series; picked job=a, the first by name; also seen, with fewer series: job=c (1 series)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := Discover(context.Background(), &seriesProm{series: tc.series}, cat, Vars{Namespace: "shoong"}, discoverWindow())
			require.NoError(t, err)
			s := d.Sources[slices.Index(sourceNames(d), "ksm")]
			require.Equal(t, FoundDiscovered, s.Found)
			require.Equal(t, tc.want, s.Candidates[0].Job)
			require.Equal(t, fmt.Sprintf(`job=%q, namespace=~"{{.Namespace}}"`, tc.want), s.Selector)
			require.Equal(t, tc.ambiguous, s.Ambiguous)
			require.Contains(t, s.Note, tc.note)
			require.Len(t, s.Candidates, len(slices.CompactFunc(slices.Clone(tc.series), func(a, b model.Metric) bool { return a["job"] == b["job"] })))
		})
	}
}

// TestDiscoverPinsMetricsPath: when the job adopted also has series under another
// metrics_path, the selector says which (GMP's job="kubelet" serves both).
func TestDiscoverPinsMetricsPath(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	f := &seriesProm{series: []model.Metric{
		ls("__name__", "container_cpu_usage_seconds_total", "job", "kubelet-gmp", "namespace", "shoong", "pod", "a", "container", "app"),
		ls("__name__", "container_cpu_usage_seconds_total", "job", "kubelet-gmp", "namespace", "shoong", "pod", "b", "container", "app"),
		ls("__name__", "container_cpu_cfs_periods_total", "job", "kubelet-gmp", "metrics_path", "/metrics", "namespace", "shoong", "pod", "a", "container", "app"),
	}}
	d, err := Discover(context.Background(), f, cat, Vars{Namespace: "shoong"}, discoverWindow())
	require.NoError(t, err)
	s := d.Sources[slices.Index(sourceNames(d), "cadvisor")]
	require.Equal(t, `job="kubelet-gmp", metrics_path="", namespace=~"{{.Namespace}}"`, s.Selector)
}

// TestDiscoverQueries checks what Discover asks: the probe over the window (extended by
// the source's lag) at its end, then each metric without the scrape matchers.
func TestDiscoverQueries(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	f := &seriesProm{}
	w := discoverWindow()
	_, err = Discover(context.Background(), f, cat, Vars{Namespace: "shoong", Selector: map[string]string{"cluster": `p"rod`}}, w)
	require.NoError(t, err)
	require.Contains(t, f.asked, `count by (job, metrics_path) (last_over_time({__name__=~"kube_horizontalpodautoscaler_status_current_replicas|kube_hpa_status_current_replicas", job="kube-state-metrics", namespace=~"shoong", cluster="p\"rod" }[15m]))`)
	require.Contains(t, f.asked, `count by (job, metrics_path) (last_over_time(kube_hpa_status_current_replicas{namespace=~"shoong", cluster="p\"rod"}[15m]))`)
	require.Contains(t, f.asked, `count by (job, metrics_path) (last_over_time(aws_rds_cpuutilization_average{ job=~".+", cluster="p\"rod" }[25m]))`, "rds: 10m lag")
	require.Contains(t, f.asked, `count by (job, metrics_path) (last_over_time(aws_rds_freeable_memory_average{cluster="p\"rod"}[25m]))`)
	for _, e := range f.asked {
		require.NotContains(t, e, "testid", "k6 is not discovered")
		_, err := parser.NewParser(parser.Options{}).ParseExpr(e)
		require.NoError(t, err, e)
	}
}

// TestDiscoverErrors: an unavailable Prometheus fails Discover; an error about one
// expression becomes the source's note.
func TestDiscoverErrors(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	_, err = Discover(context.Background(), &seriesProm{err: fmt.Errorf("%w: connection refused", ErrUnavailable)}, cat, Vars{}, discoverWindow())
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, `discover source "cadvisor"`)

	d, err := Discover(context.Background(), &seriesProm{err: errors.New("execution: query timed out")}, cat, Vars{}, discoverWindow())
	require.NoError(t, err)
	for _, s := range d.Sources {
		require.Equal(t, FoundNone, s.Found)
		require.Equal(t, cat.Sources[s.Source].Selector, s.Selector)
		require.Contains(t, s.Note, "could not search for its series: query discover")
		require.Contains(t, s.Note, "query timed out")
	}
	require.Empty(t, d.Selectors())

	_, err = Discover(context.Background(), &seriesProm{}, cat, Vars{Selector: map[string]string{"bad-name": "x"}}, discoverWindow())
	require.EqualError(t, err, `discover: selector label "bad-name" is not a valid label name`)
}

// TestDiscoveryCatalogYAMLRoundTrip: the YAML of a discovery, loaded back as
// --catalog.file would, renders every query, per_pod, finding and probe as the applied
// catalog does, and keeps the embedded catalog's comments.
func TestDiscoveryCatalogYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	f := &seriesProm{series: layoutSeries{ksm: []string{"kubernetes-service-endpoints"}, cadvisor: []string{"kubernetes-nodes-cadvisor", "/metrics/cadvisor"}, rds: []string{""}}.series("shoong")}
	d, err := Discover(context.Background(), f, cat, Vars{Namespace: "shoong"}, discoverWindow())
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"ksm":      `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`,
		"cadvisor": `job="kubernetes-nodes-cadvisor", metrics_path="/metrics/cadvisor", namespace=~"{{.Namespace}}"`,
		"rds":      `job=""`,
	}, d.Selectors())

	b, err := d.CatalogYAML(cat)
	require.NoError(t, err)
	require.Contains(t, string(b), "# Tidemark query catalog, version 1.", "comments are kept")
	require.Contains(t, string(b), `selector: 'job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"'`)
	path := filepath.Join(t.TempDir(), "catalog.yaml")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	loaded, err := LoadFile(path)
	require.NoError(t, err)
	applied, err := d.Apply(cat)
	require.NoError(t, err)
	require.Equal(t, applied.Sources, loaded.Sources)

	v := Vars{TestID: "spike-50", Namespace: "shoong", Workload: "order", Step: 5 * time.Second, Range: 5 * time.Minute, Quantile: 0.95,
		Selector: map[string]string{"cluster": "prod"}, Intervals: map[string]time.Duration{"k6": 5 * time.Second, "ksm": 15 * time.Second}}
	for _, name := range slices.Sorted(maps.Keys(cat.Queries)) {
		want, err := applied.Render(name, v)
		require.NoError(t, err, name)
		got, err := loaded.Render(name, v)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
		wantPP, _, err := applied.RenderPerPod(name, v)
		require.NoError(t, err)
		gotPP, _, err := loaded.RenderPerPod(name, v)
		require.NoError(t, err)
		require.Equal(t, wantPP, gotPP, name)
	}
	for _, r := range cat.Findings {
		want, err := applied.RenderRule(r.Name, v)
		require.NoError(t, err)
		got, err := loaded.RenderRule(r.Name, v)
		require.NoError(t, err)
		require.Equal(t, want, got, r.Name)
	}
	for _, s := range slices.Sorted(maps.Keys(cat.Sources)) {
		want, err := applied.RenderProbe(s, v)
		require.NoError(t, err)
		got, err := loaded.RenderProbe(s, v)
		require.NoError(t, err)
		require.Equal(t, want, got, s)
	}
	got, err := loaded.Render("hpa_current", v)
	require.NoError(t, err)
	require.Contains(t, got, `kube_horizontalpodautoscaler_status_current_replicas{ job="kubernetes-service-endpoints", namespace=~"shoong", cluster="prod" }`)
	// The original is unchanged.
	require.Equal(t, `job="kube-state-metrics", namespace=~"{{.Namespace}}"`, cat.Sources["ksm"].Selector)
}

// TestCatalogYAMLUnchanged: with no selector changed, the YAML loads back as the same
// catalog.
func TestCatalogYAMLUnchanged(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	same, err := cat.WithSelectors(nil)
	require.NoError(t, err)
	require.Equal(t, cat.Sources, same.Sources)
	require.Equal(t, cat.Queries, same.Queries)
	require.Equal(t, cat.Fragments, same.Fragments)
	require.Equal(t, cat.Findings, same.Findings)
	require.Equal(t, cat.Defaults, same.Defaults)

	// A catalog not parsed from text is marshalled afresh.
	bare := *cat
	bare.raw = nil
	b, err := bare.YAML()
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	require.Equal(t, cat.Queries, back.Queries)
	require.Equal(t, cat.Sources, back.Sources)

	_, err = cat.WithSelectors(map[string]string{"nope": `job="x"`})
	require.EqualError(t, err, `set selector of source "nope": not in the catalog`)
	_, err = cat.WithSelectors(map[string]string{"ksm": `job="x", namespace=~"{{.Nope}}"`})
	require.ErrorContains(t, err, "set selectors: ")
	_, err = cat.WithSelectors(map[string]string{"ksm": `job="x",, bad`})
	require.ErrorContains(t, err, "parse PromQL")
}

// TestSelectorNarrowsEverySource: Vars.Selector is ANDed into every source's selector,
// k6's too, escaped; label names are checked.
func TestSelectorNarrowsEverySource(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	v := Vars{TestID: "spike-50", Namespace: "shoong", Selector: map[string]string{"cluster": `prod"1`, "region": "eu-west-1"}}
	const extra = `cluster="prod\"1", region="eu-west-1"`
	p := parser.NewParser(parser.Options{})
	for _, name := range slices.Sorted(maps.Keys(cat.Queries)) {
		expr, err := cat.Render(name, v)
		require.NoError(t, err, name)
		e, err := p.ParseExpr(expr)
		require.NoError(t, err, name)
		for _, sel := range parser.ExtractSelectors(e) {
			got := map[string]string{}
			for _, m := range sel {
				got[m.Name] = m.Value
			}
			require.Equal(t, `prod"1`, got["cluster"], "%s: every selector has the cluster: %s", name, expr)
			require.Equal(t, "eu-west-1", got["region"], name)
		}
	}
	for _, r := range cat.Findings {
		expr, err := cat.RenderRule(r.Name, v)
		require.NoError(t, err)
		e, err := p.ParseExpr(expr)
		require.NoError(t, err)
		for _, sel := range parser.ExtractSelectors(e) {
			require.True(t, slices.ContainsFunc(sel, func(m *promlabels.Matcher) bool { return m.Name == "cluster" }), "%s: %s", r.Name, expr)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(cat.Sources)) {
		probe, err := cat.RenderProbe(s, v)
		require.NoError(t, err)
		require.Contains(t, probe, extra, s)
	}
	got, err := cat.Render("vus", v)
	require.NoError(t, err)
	require.Contains(t, got, `k6_vus{ testid="spike-50", `+extra+` }`)

	_, err = cat.Render("vus", Vars{Selector: map[string]string{"bad-name": "x"}})
	require.EqualError(t, err, `selector label "bad-name" is not a valid label name`)
}

func TestParseSelector(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: "", want: map[string]string{}},
		{in: "cluster=prod", want: map[string]string{"cluster": "prod"}},
		{in: ` cluster = "prod", region=eu-west-1 `, want: map[string]string{"cluster": "prod", "region": "eu-west-1"}},
		{in: `cluster="a\"b"`, want: map[string]string{"cluster": `a"b`}},
		{in: "cluster=", want: map[string]string{"cluster": ""}},
		{in: "cluster", wantErr: `parse selector "cluster": "cluster" is not name=value`},
		{in: "=prod", wantErr: `is not name=value`},
		{in: "cluster!=prod", wantErr: "only equality (name=value) is supported"},
		{in: "cluster=~prod", wantErr: "only equality (name=value) is supported"},
		{in: "bad-name=x", wantErr: `"bad-name" is not a valid label name`},
		{in: "a=1,a=2", wantErr: `label "a" given twice`},
		{in: `a="unterminated`, wantErr: `value "unterminated`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSelector(tc.in)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestKSMv1Queries: the kube-state-metrics queries read v1's kube_hpa_* (label hpa,
// relabelled horizontalpodautoscaler) where v2's names are missing, and
// deployment_ready falls back to replicas_available.
func TestKSMv1Queries(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	require.NoError(t, err)
	v := Vars{Namespace: "shoong", Workload: "order", Range: 5 * time.Minute}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{query: "hpa_current", want: []string{`or max by (namespace, horizontalpodautoscaler) (label_replace(kube_hpa_status_current_replicas{ job="kube-state-metrics", namespace=~"shoong" }, "horizontalpodautoscaler", "$1", "hpa", "(.*)"))`}},
		{query: "hpa_desired", want: []string{"kube_hpa_status_desired_replicas{", `"hpa", "(.*)"`}},
		{query: "hpa_min", want: []string{"kube_hpa_spec_min_replicas{"}},
		{query: "hpa_max", want: []string{"kube_hpa_spec_max_replicas{"}},
		{query: "hpa_target_metric", want: []string{"kube_hpa_spec_target_metric{", "metric_name, metric_target_type) (label_replace(kube_hpa_spec_target_metric"}},
		{query: "hpa_deployment", want: []string{`or on (namespace, horizontalpodautoscaler) (group by (namespace, horizontalpodautoscaler, deployment)`, `label_replace(kube_hpa_status_current_replicas{ job="kube-state-metrics", namespace=~"shoong" }, "horizontalpodautoscaler", "$1", "hpa", "(.*)")`, `and on (namespace, deployment) max by (namespace, deployment) (kube_deployment_spec_replicas{ job="kube-state-metrics", namespace=~"shoong", deployment=~"order"})`}},
		{query: "deployment_ready", want: []string{"kube_deployment_status_replicas_ready{", "or max by (namespace, deployment) (kube_deployment_status_replicas_available{"}},
		{query: "ksm_duplicates", want: []string{`label_replace(last_over_time(kube_hpa_status_current_replicas{ job="kube-state-metrics", namespace=~"shoong" }[5m]), "horizontalpodautoscaler", "$1", "hpa", "(.*)")`}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			expr, err := cat.Render(tc.query, v)
			require.NoError(t, err)
			_, err = parser.NewParser(parser.Options{}).ParseExpr(expr)
			require.NoError(t, err, expr)
			for _, w := range tc.want {
				require.Contains(t, expr, w)
			}
			require.Empty(t, rawSums(t, expr))
		})
	}
	for _, rule := range []string{"ready_lagging_during_errors", "hpa_at_max_with_errors", "db_connections_at_pool_ceiling"} {
		expr, err := cat.RenderRule(rule, v)
		require.NoError(t, err)
		require.True(t, strings.Contains(expr, "kube_hpa_") || strings.Contains(expr, "replicas_available"), "%s reads v1 names: %s", rule, expr)
	}
}
