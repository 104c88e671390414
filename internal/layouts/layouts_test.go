package layouts

import (
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.series from the generator")

// sample is one parsed sample.
type sample struct {
	t int64 // ms
	v float64
}

// parsed is a fixture read back with Prometheus' own OpenMetrics parser.
type parsed struct {
	series map[string][]sample // by labels.String()
	labels map[string]labels.Labels
	order  []string // first-seen order
}

func parse(t *testing.T, om string) parsed {
	t.Helper()
	p := textparse.NewOpenMetricsParser([]byte(om), labels.NewSymbolTable())
	out := parsed{series: map[string][]sample{}, labels: map[string]labels.Labels{}}
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if e != textparse.EntrySeries {
			continue
		}
		_, ts, v := p.Series()
		require.NotNil(t, ts, "every sample has a timestamp")
		var ls labels.Labels
		p.Labels(&ls)
		k := ls.String()
		if _, ok := out.labels[k]; !ok {
			out.labels[k] = ls
			out.order = append(out.order, k)
		}
		out.series[k] = append(out.series[k], sample{*ts, v})
	}
	return out
}

// find returns the series of name whose labels include all of match.
func (p parsed) find(name string, match ...string) []labels.Labels {
	var out []labels.Labels
	for _, k := range p.order {
		ls := p.labels[k]
		if ls.Get("__name__") != name {
			continue
		}
		ok := true
		for i := 0; i+1 < len(match); i += 2 {
			ok = ok && ls.Get(match[i]) == match[i+1]
		}
		if ok {
			out = append(out, ls)
		}
	}
	return out
}

func (p parsed) names() map[string]bool {
	out := map[string]bool{}
	for _, ls := range p.labels {
		out[ls.Get("__name__")] = true
	}
	return out
}

func mustStory1(t *testing.T, o Options) (*Fixture, parsed) {
	t.Helper()
	f, err := Story1(o)
	require.NoError(t, err)
	return f, parse(t, f.OpenMetrics())
}

// options is a set of combinations covering every value of every option at least once.
func options() []Options {
	var out []Options
	for i, l := range Layouts() {
		for _, k6 := range []K6Side{Tidemark, K6Only, ThreeInstances} {
			out = append(out, Options{Layout: l, K6: k6, RDS: RDSExporter(i % 2), KSM: KSMVersion(int(k6) % 3)})
		}
	}
	return append(out,
		Options{Layout: KubePrometheusStack, Cluster: "prod", DecoyCluster: "staging", K6: K6Only},
		Options{Layout: K8sMonitoring, Cluster: "prod", DecoyCluster: "staging", RDS: CloudWatchExporter},
	)
}

func TestEveryLayoutParses(t *testing.T) {
	t.Parallel()
	for _, o := range options() {
		t.Run(o.String(), func(t *testing.T) {
			t.Parallel()
			f, p := mustStory1(t, o)
			require.True(t, strings.HasSuffix(f.OpenMetrics(), "\n# EOF\n"))
			require.NotEmpty(t, p.series)
			for k, ss := range p.series {
				for i, s := range ss {
					require.False(t, math.IsNaN(s.v) || math.IsInf(s.v, 0), k)
					if i > 0 {
						require.Greater(t, s.t, ss[i-1].t, "%s: samples in time order, no duplicates", k)
					}
				}
			}
			// Every layout has each source.
			names := p.names()
			for _, n := range []string{"k6_http_reqs_total", "kube_deployment_spec_replicas", "container_cpu_usage_seconds_total",
				"container_cpu_cfs_throttled_periods_total", "aws_rds_database_connections_average"} {
				require.True(t, names[n], n)
			}
		})
	}
}

// TestMinimalIsTheCorrelatorFixture: the Minimal layout written by Tidemark is the
// correlator's story-1 fixture, byte for byte (internal/correlator generates it with this
// package).
func TestMinimalIsTheCorrelatorFixture(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(filepath.Join("..", "correlator", "testdata", "story1.om"))
	require.NoError(t, err)
	f, err := Story1(Options{})
	require.NoError(t, err)
	require.Equal(t, string(want), f.OpenMetrics())
}

// TestLayoutLabels pins the scrape labels of one series of each source per layout to
// prom-layouts.md (section in the case name). want lists label values; "" means absent.
func TestLayoutLabels(t *testing.T) {
	t.Parallel()
	ksmKeys := []string{"job", "instance", "namespace", "exported_namespace", "pod", "service", "container", "endpoint", "node", "app_kubernetes_io_name", "source", "cluster", "k8s_cluster_name", "prometheus"}
	cadKeys := []string{"job", "instance", "metrics_path", "node", "service", "endpoint", "namespace", "id", "name", "kubernetes_io_hostname", "source", "cluster", "prometheus"}
	rdsKeys := []string{"job", "exported_job", "instance", "dimension_DBInstanceIdentifier", "dbinstance_identifier", "namespace"}
	m := func(kv ...string) map[string]string {
		out := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	const (
		appID     = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podorder-7d9f-a.slice/cri-containerd-apporder-7d9f-a.scope"
		kpsKSMPod = "kube-prometheus-stack-kube-state-metrics-6f9c8d7b5-x2x4q"
	)
	for _, tc := range []struct {
		name      string
		o         Options
		ksm       map[string]string // of kube_deployment_spec_replicas{deployment="order"}
		cadvisor  map[string]string // of container_cpu_usage_seconds_total{pod="order-7d9f-a",container="app"}
		rds       map[string]string // of aws_rds_cpuutilization_average
		ksmAbsent []string          // KSM metric names the layout does not have
	}{
		{
			name:     "minimal",
			o:        Options{},
			ksm:      m("job", "kube-state-metrics", "namespace", "shoong"),
			cadvisor: m("job", "kubelet", "metrics_path", "/metrics/cadvisor", "namespace", "shoong", "id", "/kubepods/order-7d9f-a/app"),
			rds:      m("job", "yace", "dimension_DBInstanceIdentifier", "shoong-db"),
		},
		{
			name: "§1.3 kube-prometheus-stack",
			o:    Options{Layout: KubePrometheusStack},
			ksm: m("job", "kube-state-metrics", "instance", "10.2.1.9:8080", "namespace", "shoong", "pod", kpsKSMPod,
				"service", "kube-prometheus-stack-kube-state-metrics", "container", "kube-state-metrics", "endpoint", "http"),
			cadvisor: m("job", "kubelet", "instance", "10.0.0.11:10250", "metrics_path", "/metrics/cadvisor", "node", "node-1",
				"service", "kube-prometheus-stack-kubelet", "endpoint", "https-metrics", "namespace", "shoong", "id", appID, "name", "apporder-7d9f-a"),
			rds: m("job", yaceService, "instance", yaceAddr, "dimension_DBInstanceIdentifier", "shoong-db", "namespace", "monitoring"),
		},
		{
			name: "§1.3 §9 kube-prometheus-stack with cloudwatch_exporter",
			o:    Options{Layout: KubePrometheusStack, RDS: CloudWatchExporter},
			ksm: m("job", "kube-state-metrics", "instance", "10.2.1.9:8080", "namespace", "shoong", "pod", kpsKSMPod,
				"service", "kube-prometheus-stack-kube-state-metrics", "container", "kube-state-metrics", "endpoint", "http"),
			cadvisor: m("job", "kubelet", "instance", "10.0.0.11:10250", "metrics_path", "/metrics/cadvisor", "node", "node-1",
				"service", "kube-prometheus-stack-kubelet", "endpoint", "https-metrics", "namespace", "shoong", "id", appID, "name", "apporder-7d9f-a"),
			rds: m("job", cloudwatchService, "exported_job", "aws_rds", "instance", cloudwatchAddr, "dbinstance_identifier", "shoong-db", "namespace", "monitoring"),
		},
		{
			name: "§2 prometheus chart ≥ 15.8.1 (honor_labels)",
			o:    Options{Layout: PrometheusChart, RDS: CloudWatchExporter},
			ksm: m("job", "kubernetes-service-endpoints", "instance", "10.2.1.9:8080", "namespace", "shoong",
				"service", "prometheus-kube-state-metrics", "node", "node-2", "app_kubernetes_io_name", "kube-state-metrics"),
			cadvisor: m("job", "kubernetes-nodes-cadvisor", "instance", "node-1", "metrics_path", "/metrics/cadvisor",
				"kubernetes_io_hostname", "node-1", "namespace", "shoong", "id", appID, "name", "apporder-7d9f-a"),
			rds: m("job", "aws_rds", "dbinstance_identifier", "shoong-db", "namespace", "monitoring"),
		},
		{
			name: "§2 prometheus chart 15.0–15.8.0 (exported_namespace)",
			o:    Options{Layout: PrometheusChart15},
			ksm: m("job", "kubernetes-service-endpoints", "instance", "10.2.1.9:8080", "namespace", "monitoring", "exported_namespace", "shoong",
				"service", "prometheus-kube-state-metrics", "node", "node-2", "app_kubernetes_io_name", "kube-state-metrics"),
			cadvisor: m("job", "kubernetes-nodes-cadvisor", "instance", "node-1",
				"kubernetes_io_hostname", "node-1", "namespace", "shoong", "id", appID, "name", "apporder-7d9f-a"),
			rds: m("job", "kubernetes-service-endpoints", "instance", yaceAddr, "dimension_DBInstanceIdentifier", "shoong-db", "namespace", "monitoring"),
		},
		{
			name: "§3 k8s-monitoring (Alloy)",
			o:    Options{Layout: K8sMonitoring},
			ksm: m("job", "integrations/kubernetes/kube-state-metrics", "instance", "10.2.1.9:8080", "namespace", "shoong",
				"source", "kubernetes", "cluster", "prod", "k8s_cluster_name", "prod"),
			cadvisor: m("job", "integrations/kubernetes/cadvisor", "instance", "node-1", "node", "node-1", "source", "kubernetes",
				"namespace", "shoong", "id", appID, "name", "apporder-7d9f-a", "cluster", "prod"),
			rds: m("job", yaceService, "instance", yaceAddr, "dimension_DBInstanceIdentifier", "shoong-db", "namespace", "monitoring"),
			ksmAbsent: []string{"kube_deployment_status_replicas_ready", "kube_horizontalpodautoscaler_info",
				"kube_horizontalpodautoscaler_spec_target_metric", "kube_horizontalpodautoscaler_status_target_metric", "kube_pod_created"},
		},
		{
			name: "§4 victoria-metrics-k8s-stack",
			o:    Options{Layout: VMK8sStack},
			ksm: m("job", "kube-state-metrics", "instance", "10.2.1.9:8080", "namespace", "shoong", "pod", "vmks-kube-state-metrics-6f9c8d7b5-x2x4q",
				"service", "vmks-kube-state-metrics", "container", "kube-state-metrics", "endpoint", "http", "prometheus", vmagentLabel),
			cadvisor: m("job", "kubelet", "instance", "node-1", "metrics_path", "/metrics/cadvisor", "node", "node-1",
				"kubernetes_io_hostname", "node-1", "namespace", "shoong", "prometheus", vmagentLabel),
			rds: m("job", yaceService, "instance", yaceAddr, "dimension_DBInstanceIdentifier", "shoong-db", "namespace", "monitoring"),
		},
		{
			name:     "no job",
			o:        Options{Layout: NoJob},
			ksm:      m("instance", "10.2.1.9:8080", "namespace", "shoong"),
			cadvisor: m("instance", "node-1", "node", "node-1", "namespace", "shoong", "id", appID, "name", "apporder-7d9f-a"),
			rds:      m("instance", yaceAddr, "dimension_DBInstanceIdentifier", "shoong-db"),
		},
		{
			name: "extra cluster label",
			o:    Options{Layout: KubePrometheusStack, Cluster: "prod", DecoyCluster: "staging"},
			ksm: m("job", "kube-state-metrics", "instance", "10.2.1.9:8080", "namespace", "shoong", "pod", kpsKSMPod,
				"service", "kube-prometheus-stack-kube-state-metrics", "container", "kube-state-metrics", "endpoint", "http", "cluster", "prod"),
			cadvisor: m("job", "kubelet", "instance", "10.0.0.11:10250", "metrics_path", "/metrics/cadvisor", "node", "node-1",
				"service", "kube-prometheus-stack-kubelet", "endpoint", "https-metrics", "namespace", "shoong", "id", appID, "name", "apporder-7d9f-a", "cluster", "prod"),
			rds: m("job", yaceService, "instance", yaceAddr, "dimension_DBInstanceIdentifier", "shoong-db", "namespace", "monitoring"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, p := mustStory1(t, tc.o)
			check := func(what string, keys []string, want map[string]string, got []labels.Labels) {
				t.Helper()
				require.NotEmpty(t, got, what)
				for _, k := range keys {
					require.Equal(t, want[k], got[0].Get(k), "%s: label %s of %s", what, k, got[0])
				}
			}
			clusterMatch := []string{}
			if tc.o.Cluster != "" {
				clusterMatch = []string{"cluster", tc.o.Cluster}
			}
			check("ksm", ksmKeys, tc.ksm, p.find("kube_deployment_spec_replicas", append([]string{"deployment", "order"}, clusterMatch...)...))
			check("cadvisor", cadKeys, tc.cadvisor, p.find("container_cpu_usage_seconds_total", append([]string{"pod", "order-7d9f-a", "container", "app"}, clusterMatch...)...))
			check("rds", rdsKeys, tc.rds, p.find("aws_rds_cpuutilization_average", clusterMatch...))
			names := p.names()
			for _, n := range tc.ksmAbsent {
				require.False(t, names[n], n)
			}
		})
	}
}

func TestKSMVersions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v          KSMVersion
		has, hasnt []string
		instances  int
	}{
		{KSMv2, []string{"kube_horizontalpodautoscaler_status_desired_replicas", "kube_horizontalpodautoscaler_info", "kube_deployment_status_replicas_ready"},
			[]string{"kube_hpa_status_desired_replicas"}, 1},
		{KSMv1, []string{"kube_hpa_status_desired_replicas", "kube_hpa_spec_target_metric", "kube_deployment_status_replicas_available"},
			[]string{"kube_horizontalpodautoscaler_status_desired_replicas", "kube_horizontalpodautoscaler_info", "kube_deployment_status_replicas_ready", "kube_pod_status_ready_time"}, 1},
		{KSMBoth, []string{"kube_hpa_status_desired_replicas", "kube_horizontalpodautoscaler_status_desired_replicas"}, nil, 2},
	} {
		t.Run(tc.v.String(), func(t *testing.T) {
			t.Parallel()
			_, p := mustStory1(t, Options{Layout: KubePrometheusStack, KSM: tc.v})
			names := p.names()
			for _, n := range tc.has {
				require.True(t, names[n], n)
			}
			for _, n := range tc.hasnt {
				require.False(t, names[n], n)
			}
			if tc.v != KSMv2 {
				hpa := p.find("kube_hpa_status_desired_replicas")
				require.Equal(t, "order", hpa[0].Get("hpa"))
				require.Empty(t, hpa[0].Get("horizontalpodautoscaler"))
				owners := p.find("kube_pod_owner", "pod", "order-7d9f-a", "instance", "10.2.1.14:8080")
				require.Len(t, owners, 1)
				require.Empty(t, owners[0].Get("uid"), "KSM v1 pod series have no uid")
			}
			require.Len(t, p.find("kube_deployment_spec_replicas", "deployment", "order"), tc.instances, "one series per KSM instance")
			require.Len(t, p.find("container_cpu_usage_seconds_total", "pod", "order-7d9f-a", "container", "app"), 1, "cAdvisor once")
		})
	}
}

// last returns the final value of every series of name matching match, summed.
func (p parsed) sumLast(name string, match ...string) float64 {
	var s float64
	for _, ls := range p.find(name, match...) {
		ss := p.series[ls.String()]
		s += ss[len(ss)-1].v
	}
	return s
}

func TestTruthOfTheK6Sides(t *testing.T) {
	t.Parallel()
	for _, k6 := range []K6Side{Tidemark, K6Only, ThreeInstances} {
		t.Run(k6.String(), func(t *testing.T) {
			t.Parallel()
			f, p := mustStory1(t, Options{K6: k6})
			tr := f.Truth
			require.InDelta(t, 19200, tr.Requests, 1e-6)
			require.InDelta(t, 1200, tr.Failures, 1e-6)
			require.InDelta(t, tr.Requests, p.sumLast("k6_http_reqs_total"), 1, "counters sum to the total")
			require.InDelta(t, tr.Failures, p.sumLast("k6_http_reqs_total", "status", "503"), 1)
			var insts float64
			for _, in := range tr.Instances {
				insts += in.Requests
			}
			require.InDelta(t, tr.Requests, insts, 1e-6)

			// The window: first and last samples of the k6 series are the truth's.
			var first, last int64 = math.MaxInt64, 0
			for k, ss := range p.series {
				if strings.HasPrefix(p.labels[k].Get("__name__"), "k6_") {
					first, last = min(first, ss[0].t), max(last, ss[len(ss)-1].t)
				}
			}
			require.Equal(t, tr.FirstSample.UnixMilli(), first)
			require.Equal(t, tr.LastSample.UnixMilli(), last)
			require.Equal(t, story1Start(), tr.RunFrom)

			hasTidemark := false
			for n := range p.names() {
				hasTidemark = hasTidemark || strings.HasPrefix(n, "tidemark_")
			}
			require.Equal(t, k6 == Tidemark, hasTidemark, "tidemark_* series only when Tidemark wrote the run")
			if k6 == Tidemark {
				require.True(t, p.names()["k6_http_req_duration_p95"])
				return
			}
			require.True(t, p.names()["k6_http_req_duration_p99"], "k6's default trend stat")
			require.False(t, p.names()["k6_http_req_duration_p95"])
			// k6 sends a series only on pushes with new samples: the 503s end with the failures.
			for _, ls := range p.find("k6_http_reqs_total", "status", "503") {
				ss := p.series[ls.String()]
				require.Less(t, ss[len(ss)-1].t, story1Start().Add((FailuresEnd+K6Step+1)*time.Second).UnixMilli())
				require.Equal(t, "1503", ls.Get("error_code"))
			}
		})
	}
}

func TestThreeInstances(t *testing.T) {
	t.Parallel()
	f, p := mustStory1(t, Options{K6: ThreeInstances})
	require.Len(t, f.Truth.Instances, 3)
	ids := map[string]bool{}
	for _, ls := range p.find("k6_vus") {
		ids[ls.Get("instance_id")] = true
		require.Equal(t, f.TestID(), ls.Get("testrun_name"))
	}
	require.Equal(t, map[string]bool{"1": true, "2": true, "3": true}, ids)
	var firsts, lasts []time.Time
	for _, in := range f.Truth.Instances {
		require.InDelta(t, f.Truth.Requests/3, in.Requests, 1e-6)
		require.InDelta(t, f.Truth.Requests/3, p.sumLast("k6_http_reqs_total", "instance_id", in.ID), 1)
		firsts, lasts = append(firsts, in.FirstSample), append(lasts, in.LastSample)
	}
	spread := func(ts []time.Time) time.Duration {
		return slices.MaxFunc(ts, time.Time.Compare).Sub(slices.MinFunc(ts, time.Time.Compare))
	}
	require.Positive(t, spread(firsts), "each instance has its own first sample")
	require.Less(t, spread(firsts), time.Second)
	require.Positive(t, spread(lasts))
	require.Less(t, spread(lasts), time.Second)
	// VUs are partitioned: the instances' VUs at the onset sum to the run's.
	on := f.Truth.Workloads[0].Onsets[0]
	var vus float64
	for _, ls := range p.find("k6_vus") {
		ss := p.series[ls.String()]
		i, _ := slices.BinarySearchFunc(ss, on.At.UnixMilli(), func(s sample, t int64) int { return int(s.t - t) })
		vus += ss[i].v
	}
	require.InDelta(t, on.VUs, vus, 0)
}

// TestTruthOfTheCluster checks the truth against story 1's known values and against the
// series the same fixture holds.
func TestTruthOfTheCluster(t *testing.T) {
	t.Parallel()
	f, p := mustStory1(t, Options{Layout: KubePrometheusStack})
	tr := f.Truth
	at := func(off float64) time.Time { return story1Start().Add(time.Duration(off * float64(time.Second))) }
	require.Equal(t, at(LoadStep), tr.LoadStep)
	require.Equal(t, "2m0s:10,0s:50,5m0s:50,2m0s:0,1m0s:0", StagesString(tr.Stages))
	require.Len(t, tr.HPAs, 1)
	h := tr.HPAs[0]
	require.Equal(t, []ScaleStep{
		{From: 2, To: 4, DesiredAt: at(ScaleUp1), ReadyAt: at(Ready1), Gap: 15 * time.Second},
		{From: 4, To: 5, DesiredAt: at(ScaleUp2), ReadyAt: at(Ready2), Gap: 30 * time.Second},
		{From: 5, To: 2, DesiredAt: at(ScaleIn), ReadyAt: at(ScaleInReady)},
	}, h.Steps)
	require.Equal(t, at(MetricCrossed), h.MetricCrossedAt)
	require.Equal(t, map[string]time.Duration{"order-7d9f-c": 13 * time.Second, "order-7d9f-d": 13 * time.Second, "order-7d9f-e": 28 * time.Second}, h.Startups)
	order := tr.Workloads[0]
	require.InDelta(t, 0.07, order.HPATarget, 1e-12)
	require.Equal(t, []Onset{{0.05, at(MetricCrossed), 25}, {0.25, at(ScaleUp1), 25}}, order.Onsets)
	require.InDelta(t, 21, tr.DB.ConnectionsGrowth, 0)
	require.InDelta(t, 41, tr.DB.ConnectionsPeak, 0)
	require.InDelta(t, 450, tr.FailuresInGaps, 1e-6)

	// The series agree: the first desired-replicas sample at 4 comes within a scrape of the
	// truth's scale-up.
	ss := p.series[p.find("kube_horizontalpodautoscaler_status_desired_replicas")[0].String()]
	i := slices.IndexFunc(ss, func(s sample) bool { return s.v == 4 })
	seen := time.UnixMilli(ss[i].t)
	require.False(t, seen.Before(h.Steps[0].DesiredAt))
	require.LessOrEqual(t, seen.Sub(h.Steps[0].DesiredAt), tr.KSMInterval)
}

func TestDecoyCluster(t *testing.T) {
	t.Parallel()
	f, p := mustStory1(t, Options{Layout: PrometheusChart, K6: K6Only, Cluster: "prod", DecoyCluster: "staging"})
	require.NotNil(t, f.Decoy)
	require.Equal(t, "staging", f.Decoy.Cluster)
	require.NotEqual(t, f.Truth.HPAs[0].Steps[0].DesiredAt, f.Decoy.HPAs[0].Steps[0].DesiredAt)
	require.NotEqual(t, f.Truth.Requests, f.Decoy.Requests)
	require.NotEqual(t, f.Truth.DB.ConnectionsPeak, f.Decoy.DB.ConnectionsPeak)
	byCluster := map[string]map[string]bool{}
	for _, ls := range p.labels {
		c := ls.Get("cluster")
		require.NotEmpty(t, c, "every series has a cluster: %s", ls)
		if byCluster[c] == nil {
			byCluster[c] = map[string]bool{}
		}
		byCluster[c][ls.Get("__name__")] = true
	}
	require.Len(t, byCluster, 2)
	require.Equal(t, byCluster["prod"], byCluster["staging"], "the decoy copies every metric")
	require.InDelta(t, f.Truth.Requests, p.sumLast("k6_http_reqs_total", "cluster", "prod"), 1)
	require.InDelta(t, f.Decoy.Requests, p.sumLast("k6_http_reqs_total", "cluster", "staging"), 1)
}

func TestOptionsErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o       Options
		wantErr string
	}{
		{Options{DecoyCluster: "staging"}, "story 1 fixture: decoy cluster needs a cluster"},
		{Options{Cluster: "prod", DecoyCluster: "prod"}, `story 1 fixture: decoy cluster "prod" equals the cluster`},
		{Options{Layout: numLayouts}, "story 1 fixture: unknown layout 7"},
		{Options{KSMInterval: 1500 * time.Millisecond}, "story 1 fixture: kube-state-metrics interval 1.5s is not a positive whole number of seconds"},
	} {
		_, err := Story1(tc.o)
		require.EqualError(t, err, tc.wantErr)
	}
}

// TestSeriesGolden keeps one series of every metric per layout in testdata/<layout>.series,
// for review: go test ./internal/layouts/ -run TestSeriesGolden -update.
func TestSeriesGolden(t *testing.T) {
	t.Parallel()
	for _, l := range Layouts() {
		for _, o := range []Options{{Layout: l}, {Layout: l, RDS: CloudWatchExporter, KSM: KSMv1, K6: ThreeInstances},
			// Each install's labels on the database exporters' and the pools' series.
			{Layout: l, DBExporter: PostgresExporter, Pool: HikariCP}, {Layout: l, DBExporter: MySQLExporter, Pool: Prisma},
			{Layout: l, DBExporter: PostgresExporter, Pool: GoSQL}} {
			t.Run(o.String(), func(t *testing.T) {
				t.Parallel()
				f, err := Story1(o)
				require.NoError(t, err)
				var b strings.Builder
				seen := map[string]bool{}
				for line := range strings.SplitSeq(f.OpenMetrics(), "\n") {
					name, _, ok := strings.Cut(line, "{")
					if !ok || seen[name] {
						continue
					}
					seen[name] = true
					b.WriteString(line[:strings.LastIndex(line, "} ")+1] + "\n")
				}
				path := filepath.Join("testdata", o.String()+".series")
				if *update {
					require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err)
				require.Equal(t, string(want), b.String(), "%s is stale: go test ./internal/layouts/ -run TestSeriesGolden -update", path)
			})
		}
	}
}
