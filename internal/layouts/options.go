package layouts

import (
	"errors"
	"fmt"
	"time"
)

// Layout is how the cluster's Prometheus scrapes kube-state-metrics, cAdvisor and the RDS
// exporter: which target labels it adds, whether scraped labels win (honor_labels), and
// what its relabelling drops.
type Layout int

// The layouts. Section numbers refer to shared/reference/prom-layouts.md.
const (
	// Minimal is the zero value: only the labels the catalog's default selectors match
	// (job="kube-state-metrics"; job="kubelet", metrics_path="/metrics/cadvisor";
	// job="yace"), and only the series story 1 needs. It is byte for byte the fixture
	// internal/correlator/testdata/story1.om has always been.
	Minimal Layout = iota
	// KubePrometheusStack is kube-prometheus-stack 88.5.3 (§1.3): KSM under
	// job="kube-state-metrics" with honor_labels and the operator's target labels (instance,
	// container, endpoint, service, and the KSM pod in pod and its namespace in namespace
	// wherever KSM has none); cAdvisor under job="kubelet", metrics_path="/metrics/cadvisor"
	// with instance=<node IP>:10250, node, service, endpoint; container_spec_* and
	// container_cpu_cfs_throttled_seconds_total dropped.
	KubePrometheusStack
	// PrometheusChart is the prometheus-community `prometheus` chart ≥ 28.7.0 (§2): KSM under
	// job="kubernetes-service-endpoints" (honor_labels, the Service's labels labelmapped as
	// app_kubernetes_io_* and helm_sh_chart, namespace/service of the Service, node of the
	// KSM pod); cAdvisor under job="kubernetes-nodes-cadvisor" with instance=<node name>,
	// metrics_path and the node's labels, no node label.
	PrometheusChart
	// PrometheusChart15 is the `prometheus` chart 15.0.0–15.8.0 (§2, history table): the same
	// jobs without honor_labels, so every KSM series has namespace=<KSM's namespace> and the
	// object's namespace in exported_namespace (exported_node likewise); cAdvisor through the
	// API-server proxy, so no metrics_path label.
	PrometheusChart15
	// K8sMonitoring is Grafana k8s-monitoring 4.x with Alloy (§3): job=
	// "integrations/kubernetes/kube-state-metrics" and "integrations/kubernetes/cadvisor",
	// source="kubernetes", no honor_labels, the default allow-lists (no
	// kube_deployment_status_replicas_ready, no HPA info or target metrics, no
	// kube_pod_created or kube_pod_status_ready_time, no kube_hpa_*; kube_pod_status_ready
	// kept, see alloyKSMKeep), cAdvisor rows with an empty container or image dropped, and
	// cluster and k8s_cluster_name on every series it writes. The RDS exporter is scraped
	// through its ServiceMonitor (as KubePrometheusStack).
	K8sMonitoring
	// VMK8sStack is victoria-metrics-k8s-stack 0.91.2 with vmagent (§4): kube-prometheus-stack's
	// KSM labels with uid dropped; cAdvisor under job="kubelet", metrics_path="/metrics/cadvisor"
	// with instance=<node name>, node, the node's labels, and id, name and uid dropped;
	// prometheus="monitoring/vmks-victoria-metrics-k8s-stack" on every series vmagent writes.
	VMK8sStack
	// NoJob has no job label on any series (a pipeline that drops it, honor_labels on):
	// KSM keeps instance, cAdvisor instance and node, YACE instance (cloudwatch_exporter's
	// own empty instance blocks the target's).
	NoJob
	numLayouts
)

// Layouts returns every layout, Minimal first.
func Layouts() []Layout {
	out := make([]Layout, 0, numLayouts)
	for l := range numLayouts {
		out = append(out, l)
	}
	return out
}

func (l Layout) String() string {
	switch l {
	case Minimal:
		return "minimal"
	case KubePrometheusStack:
		return "kube-prometheus-stack"
	case PrometheusChart:
		return "prometheus-chart"
	case PrometheusChart15:
		return "prometheus-chart-15"
	case K8sMonitoring:
		return "k8s-monitoring"
	case VMK8sStack:
		return "vm-k8s-stack"
	case NoJob:
		return "no-job"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// KSMVersion is the kube-state-metrics generation whose metric names the fixture has (§7).
type KSMVersion int

// The kube-state-metrics versions.
const (
	// KSMv2 (the zero value) is kube-state-metrics 2.20: kube_horizontalpodautoscaler_*
	// with label horizontalpodautoscaler, kube_horizontalpodautoscaler_info (2.3),
	// status_target_metric (2.6), kube_deployment_status_replicas_ready (2.2), pod uid (2.1),
	// an empty container label on the HPA target metrics (2.19).
	KSMv2 KSMVersion = iota
	// KSMv1 is kube-state-metrics 1.9.8 instead: kube_hpa_{spec_min,spec_max,status_current,
	// status_desired}_replicas and kube_hpa_spec_target_metric with label hpa; no HPA info
	// (no scale target), no status target metric, no replicas_ready (only
	// replicas_available), no pod uid, no kube_pod_status_ready_time.
	KSMv1
	// KSMBoth has both: a kube-state-metrics 2.20 and a second, 1.9.8 one (its own
	// instance and pod), as during a migration, so every v1 name sits next to its v2 name
	// and the families both export (deployments, pods) come twice.
	KSMBoth
)

func (v KSMVersion) String() string {
	switch v {
	case KSMv2:
		return "ksm-v2"
	case KSMv1:
		return "ksm-v1"
	case KSMBoth:
		return "ksm-v1-and-v2"
	}
	return fmt.Sprintf("KSMVersion(%d)", int(v))
}

// RDSExporter is the CloudWatch exporter whose RDS series the fixture has (§9). Both write
// the same metric names (aws_rds_cpuutilization_average, …); they differ in the instance
// dimension's label and in the job and instance they set themselves.
type RDSExporter int

// The RDS exporters.
const (
	// YACE (the zero value) is yet-another-cloudwatch-exporter: dimension_DBInstanceIdentifier,
	// name (the ARN), region, account_id.
	YACE RDSExporter = iota
	// CloudWatchExporter is prometheus/cloudwatch_exporter: dbinstance_identifier, and the
	// exporter's own job="aws_rds" and instance="" (exported_job="aws_rds" where the scrape
	// does not honor labels).
	CloudWatchExporter
)

func (e RDSExporter) String() string {
	switch e {
	case YACE:
		return "yace"
	case CloudWatchExporter:
		return "cloudwatch-exporter"
	}
	return fmt.Sprintf("RDSExporter(%d)", int(e))
}

// K6Side is what wrote the run's load series.
type K6Side int

// The k6 sides.
const (
	// Tidemark (the zero value) is `tidemark run`: tidemark_run_info,
	// tidemark_scenario_target and k6-named series re-sent every push, with a p95 trend.
	Tidemark K6Side = iota
	// K6Only is k6 itself with experimental-prometheus-rw (k6.md §1): k6_* series with the
	// user's testid tag and k6's default tags, trends as k6_<name>_p99 in seconds (the
	// default K6_PROMETHEUS_RW_TREND_STATS), a series sent only on pushes where it got new
	// samples (the failure series ends with the failures, request series with the load;
	// k6_vus goes on to the end), and no tidemark_* series.
	K6Only
	// ThreeInstances is a k6-operator TestRun with parallelism 3: K6Only's series per runner
	// with instance_id="1".."3" and testrun_name=<testid>, each runner starting up to a
	// second after the first (its own push grid, first and last sample), counters and VUs
	// partitioned so that they sum to the run's totals.
	ThreeInstances
)

func (k K6Side) String() string {
	switch k {
	case Tidemark:
		return "tidemark"
	case K6Only:
		return "k6-only"
	case ThreeInstances:
		return "three-instances"
	}
	return fmt.Sprintf("K6Side(%d)", int(k))
}

// Options choose a fixture's layout. The zero value is the Minimal fixture written by
// Tidemark with YACE.
type Options struct {
	Layout Layout
	KSM    KSMVersion
	RDS    RDSExporter
	K6     K6Side
	// DBExporter and Pool add the database's own exporter and the order pods' pool
	// metrics (database.go); none by default.
	DBExporter DBExporter
	Pool       PoolKind

	// Cluster, when set, is added as cluster=<Cluster> to every series (the k6 ones too),
	// as Thanos, Mimir and multi-cluster remote-write setups add it. K8sMonitoring labels
	// its own series cluster and k8s_cluster_name with it, or with "prod" when it is empty.
	Cluster string
	// DecoyCluster, when set, adds a second copy of every series with cluster=<DecoyCluster>
	// whose values differ (see Fixture.Decoy), which a cluster selector must filter out.
	// It needs Cluster.
	DecoyCluster string

	// Namespace is the application's namespace, default "shoong". TestID is the run's
	// testid, default "spike-50". Change them to load several fixtures into one Prometheus.
	Namespace string
	TestID    string

	// KSMInterval and CadvisorInterval are the scrape intervals, default 15 s (KSM scrapes
	// 7 s and cAdvisor 3 s after the k6 push grid). They must be whole seconds.
	KSMInterval      time.Duration
	CadvisorInterval time.Duration
}

// Defaults of Options.
const (
	DefaultNamespace = "shoong"
	DefaultTestID    = "spike-50"
	// defaultAlloyCluster labels K8sMonitoring's series when Options.Cluster is empty.
	defaultAlloyCluster = "prod"
)

func (o Options) withDefaults() (Options, error) {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.TestID == "" {
		o.TestID = DefaultTestID
	}
	if o.KSMInterval == 0 {
		o.KSMInterval = KSMStep * time.Second
	}
	if o.CadvisorInterval == 0 {
		o.CadvisorInterval = CadvisorStep * time.Second
	}
	var errs []error
	if o.Layout < 0 || o.Layout >= numLayouts {
		errs = append(errs, fmt.Errorf("unknown layout %d", int(o.Layout)))
	}
	if o.KSM < KSMv2 || o.KSM > KSMBoth {
		errs = append(errs, fmt.Errorf("unknown kube-state-metrics version %d", int(o.KSM)))
	}
	if o.RDS < YACE || o.RDS > CloudWatchExporter {
		errs = append(errs, fmt.Errorf("unknown rds exporter %d", int(o.RDS)))
	}
	if o.DBExporter < NoDBExporter || o.DBExporter > MySQLExporter {
		errs = append(errs, fmt.Errorf("unknown database exporter %d", int(o.DBExporter)))
	}
	if o.Pool < NoPool || o.Pool > GoSQL {
		errs = append(errs, fmt.Errorf("unknown pool %d", int(o.Pool)))
	}
	if o.K6 < Tidemark || o.K6 > ThreeInstances {
		errs = append(errs, fmt.Errorf("unknown k6 side %d", int(o.K6)))
	}
	if o.DecoyCluster != "" && o.Cluster == "" {
		errs = append(errs, errors.New("decoy cluster needs a cluster"))
	}
	if o.DecoyCluster != "" && o.DecoyCluster == o.Cluster {
		errs = append(errs, fmt.Errorf("decoy cluster %q equals the cluster", o.DecoyCluster))
	}
	for name, d := range map[string]time.Duration{"kube-state-metrics": o.KSMInterval, "cadvisor": o.CadvisorInterval} {
		if d <= 0 || d%time.Second != 0 {
			errs = append(errs, fmt.Errorf("%s interval %s is not a positive whole number of seconds", name, d))
		}
	}
	return o, errors.Join(errs...)
}

// String names the options, for test names and file names: the non-default choices joined
// by "+", e.g. "prometheus-chart+k6-only+cluster=prod".
func (o Options) String() string {
	s := o.Layout.String()
	if o.KSM != KSMv2 {
		s += "+" + o.KSM.String()
	}
	if o.RDS != YACE {
		s += "+" + o.RDS.String()
	}
	if o.DBExporter != NoDBExporter {
		s += "+" + o.DBExporter.String()
	}
	if o.Pool != NoPool {
		s += "+" + o.Pool.String()
	}
	if o.K6 != Tidemark {
		s += "+" + o.K6.String()
	}
	if o.Cluster != "" {
		s += "+cluster=" + o.Cluster
	}
	if o.DecoyCluster != "" {
		s += "+decoy=" + o.DecoyCluster
	}
	return s
}

// Coverage returns the scrape layouts and k6 sides every consumer of the cluster's series
// (the correlator, the dashboards) is tested on: the installs of prom-layouts.md §11 that
// Tidemark supports, kube-state-metrics v1 alone and next to v2, both RDS exporters, an
// extra cluster label with a decoy cluster, runs k6 made (one instance and three), and the
// database exporters and pools of database.go.
// Namespace and TestID are left empty: a test that loads several into one Prometheus
// gives each its own.
func Coverage() []Options {
	return []Options{
		{Layout: KubePrometheusStack},
		{Layout: VMK8sStack},
		{Layout: KubePrometheusStack, KSM: KSMBoth},
		{Layout: KubePrometheusStack, RDS: CloudWatchExporter},
		{Layout: PrometheusChart},
		{Layout: PrometheusChart15},
		{Layout: K8sMonitoring},
		{Layout: KubePrometheusStack, KSM: KSMv1},
		{Layout: KubePrometheusStack, Cluster: "prod", DecoyCluster: "staging"},
		{Layout: KubePrometheusStack, K6: K6Only},
		{Layout: PrometheusChart, K6: ThreeInstances},
		{Layout: NoJob},
		{Layout: NoJob, RDS: CloudWatchExporter},
		// The database through its own exporter and the pods' pools (database.go).
		{Layout: KubePrometheusStack, DBExporter: PostgresExporter, Pool: HikariCP},
		{Layout: PrometheusChart, DBExporter: MySQLExporter, Pool: Prisma},
		{Layout: K8sMonitoring, DBExporter: PostgresExporter, Pool: GoSQL},
		{Layout: NoJob, DBExporter: MySQLExporter, Pool: HikariCP},
	}
}

// SharesPrometheus reports whether the fixture can be loaded into a Prometheus next to
// other fixtures and still be told apart by its namespace and testid. A layout without
// job labels cannot: its RDS series carry neither a namespace nor a job, so a search for
// RDS series without a job would find the other fixtures' databases too.
func (o Options) SharesPrometheus() bool { return o.Layout != NoJob }
