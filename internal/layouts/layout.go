package layouts

import (
	"fmt"
	"regexp"
	"strings"
)

// The fixture's cluster: two nodes, kube-state-metrics (and, with KSMBoth, an older second
// one) on node-2, the RDS exporter next to it. Names follow the charts' defaults for a
// release of that chart's name in namespace monitoring.
const (
	monitoringNamespace = "monitoring"
	ksmNode             = "node-2"
	ksmPort             = "8080" // KSM v2's and v1.9's metrics port (§7)
	yaceAddr            = "10.2.1.20:5000"
	cloudwatchAddr      = "10.2.1.21:9106"
	yaceService         = "yace-prometheus-yet-another-cloudwatch-exporter"
	cloudwatchService   = "cloudwatch-exporter-prometheus-cloudwatch-exporter"
	vmagentLabel        = "monitoring/vmks-victoria-metrics-k8s-stack"
)

// ksmInstance is one kube-state-metrics deployment.
type ksmInstance struct {
	v1  bool
	ip  string
	pod string // the pod name under kube-prometheus-stack's release; other layouts rename the prefix
}

func ksmInstances(v KSMVersion) []ksmInstance {
	v2 := ksmInstance{ip: "10.2.1.9", pod: "kube-state-metrics-6f9c8d7b5-x2x4q"}
	old := ksmInstance{v1: true, ip: "10.2.1.14", pod: "kube-state-metrics-v1-84d9c5f6b-q7w2e"}
	switch v {
	case KSMv1:
		return []ksmInstance{old}
	case KSMBoth:
		return []ksmInstance{v2, old}
	}
	return []ksmInstance{v2}
}

// node is one cluster node, with the labels a labelmap of __meta_kubernetes_node_label_(.+)
// copies.
type node struct{ name, ip, zone string }

func (n node) labels() []label {
	return lbl(
		"beta_kubernetes_io_arch", "amd64",
		"beta_kubernetes_io_instance_type", "m6i.large",
		"beta_kubernetes_io_os", "linux",
		"kubernetes_io_arch", "amd64",
		"kubernetes_io_hostname", n.name,
		"kubernetes_io_os", "linux",
		"node_kubernetes_io_instance_type", "m6i.large",
		"topology_kubernetes_io_region", "eu-west-1",
		"topology_kubernetes_io_zone", n.zone,
	)
}

func nodes() map[string]node {
	return map[string]node{
		"node-1": {name: "node-1", ip: "10.0.0.11", zone: "eu-west-1a"},
		"node-2": {name: "node-2", ip: "10.0.0.12", zone: "eu-west-1b"},
	}
}

// scraper builds the scrape jobs of one layout for one cluster label value.
type scraper struct {
	layout  Layout
	rds     RDSExporter
	cluster string // "" for none
}

// external are the labels the layout's scraper (or the store behind it) adds to every
// cluster-side series.
func (s scraper) external() []label {
	var out []label
	switch s.layout {
	case K8sMonitoring:
		c := s.cluster
		if c == "" {
			c = defaultAlloyCluster
		}
		// k8s-monitoring's clusterLabels [cluster, k8s.cluster.name] as external labels (§3).
		return lbl("cluster", c, "k8s_cluster_name", c)
	case VMK8sStack:
		out = lbl("prometheus", vmagentLabel)
	}
	if s.cluster != "" {
		out = append(out, label{"cluster", s.cluster})
	}
	return out
}

// ksm is the scrape job of a kube-state-metrics instance. With two instances Minimal adds
// instance too, or their series would be one.
func (s scraper) ksm(k ksmInstance, several bool) *job {
	inst := k.ip + ":" + ksmPort
	j := &job{honor: true, sorted: s.layout != Minimal, external: s.external()}
	switch s.layout {
	case Minimal:
		j.target = lbl("job", "kube-state-metrics")
		if several {
			j.target = append(j.target, label{"instance", inst})
		}
	case KubePrometheusStack, VMK8sStack:
		release := "kube-prometheus-stack"
		if s.layout == VMK8sStack {
			release = "vmks"
		}
		// The operator's ServiceMonitor/VMServiceScrape target labels (§1.1, §1.3, §4).
		j.target = lbl("job", "kube-state-metrics", "instance", inst, "container", "kube-state-metrics",
			"endpoint", "http", "namespace", monitoringNamespace, "pod", release+"-"+k.pod,
			"service", release+"-kube-state-metrics")
		if s.layout == VMK8sStack {
			j.labeldrop = []string{"uid", "container_id", "image_id"}
		}
	case PrometheusChart, PrometheusChart15:
		j.target = append(lbl("job", "kubernetes-service-endpoints", "instance", inst,
			"namespace", monitoringNamespace, "service", "prometheus-kube-state-metrics", "node", ksmNode),
			chartServiceLabels("kube-state-metrics", "prometheus", "2.20.0", "kube-state-metrics-8.4.0")...)
		j.honor = s.layout == PrometheusChart
	case K8sMonitoring:
		j.target = lbl("job", "integrations/kubernetes/kube-state-metrics", "instance", inst, "source", "kubernetes")
		j.honor = false
		j.keep = alloyKSMKeep()
	case NoJob:
		j.target = lbl("instance", inst)
	}
	return j
}

// chartServiceLabels are a Helm-installed Service's labels after labelmap
// __meta_kubernetes_service_label_(.+) (§2).
func chartServiceLabels(name, release, version, chart string) []label {
	return lbl("app_kubernetes_io_component", "metrics", "app_kubernetes_io_instance", release,
		"app_kubernetes_io_managed_by", "Helm", "app_kubernetes_io_name", name,
		"app_kubernetes_io_part_of", name, "app_kubernetes_io_version", version, "helm_sh_chart", chart)
}

// cadvisor is the scrape job of one node's kubelet cAdvisor endpoint.
func (s scraper) cadvisor(n node) *job {
	j := &job{honor: true, sorted: s.layout != Minimal, external: s.external()}
	switch s.layout {
	case Minimal:
		j.target = lbl("job", "kubelet", "metrics_path", "/metrics/cadvisor")
	case KubePrometheusStack:
		j.target = lbl("job", "kubelet", "metrics_path", "/metrics/cadvisor", "instance", n.ip+":10250",
			"node", n.name, "service", "kube-prometheus-stack-kubelet", "endpoint", "https-metrics")
		// The chart's default cAdvisorMetricRelabelings (§1.3).
		j.drop = func(name string, ls []label) bool {
			return name == "container_cpu_cfs_throttled_seconds_total" || strings.HasPrefix(name, "container_spec_") ||
				(value(ls, "id") != "" && value(ls, "pod") == "")
		}
	case PrometheusChart, PrometheusChart15:
		j.target = lbl("job", "kubernetes-nodes-cadvisor", "instance", n.name)
		if s.layout == PrometheusChart {
			j.target = append(j.target, label{"metrics_path", "/metrics/cadvisor"})
		}
		j.target = append(j.target, n.labels()...)
		j.honor = false
	case K8sMonitoring:
		j.target = lbl("job", "integrations/kubernetes/cadvisor", "instance", n.name, "node", n.name, "source", "kubernetes")
		j.honor = false
		j.keep = alloyCadvisorKeep()
		// dropEmptyContainerLabels and dropEmptyImageLabels (§3).
		empty := regexp.MustCompile(`^container_(cpu|fs|memory|pressure)_.*`)
		j.drop = func(name string, ls []label) bool {
			return empty.MatchString(name) && (value(ls, "container") == "" || value(ls, "image") == "")
		}
	case VMK8sStack:
		j.target = append(lbl("job", "kubelet", "metrics_path", "/metrics/cadvisor", "instance", n.name, "node", n.name), n.labels()...)
		j.labeldrop = []string{"uid", "id", "name"}
	case NoJob:
		j.target = lbl("instance", n.name, "node", n.name)
	}
	return j
}

// rdsJob is the scrape job of the RDS exporter (§9). Where the reference names no layout of
// its own (k8s-monitoring), the exporter is scraped through its ServiceMonitor, as Alloy's
// prometheus.operator.servicemonitors does.
func (s scraper) rdsJob() *job {
	j := &job{sorted: s.layout != Minimal, external: s.external()}
	addr, svc, container := yaceAddr, yaceService, "yet-another-cloudwatch-exporter"
	chart := chartServiceLabels("yet-another-cloudwatch-exporter", "yace", "v0.67.0", "yet-another-cloudwatch-exporter-0.47.0")
	if s.rds == CloudWatchExporter {
		addr, svc, container = cloudwatchAddr, cloudwatchService, "prometheus-cloudwatch-exporter"
		chart = chartServiceLabels("prometheus-cloudwatch-exporter", "cloudwatch-exporter", "0.18.0", "prometheus-cloudwatch-exporter-0.28.1")
	}
	switch s.layout {
	case Minimal:
		j.target, j.honor = lbl("job", "yace"), true
	case KubePrometheusStack, VMK8sStack, K8sMonitoring:
		// ServiceMonitor jobLabel <fullname>, a label no Service has: job is the Service name;
		// no honorLabels, so cloudwatch_exporter's job="aws_rds" becomes exported_job.
		j.target = lbl("job", svc, "instance", addr, "namespace", monitoringNamespace,
			"pod", svc+"-7c9d5b8f4-k2p4z", "service", svc, "endpoint", "http", "container", container)
	case PrometheusChart, PrometheusChart15:
		j.target = append(lbl("job", "kubernetes-service-endpoints", "instance", addr,
			"namespace", monitoringNamespace, "service", svc, "node", ksmNode), chart...)
		j.honor = s.layout == PrometheusChart
	case NoJob:
		j.target, j.honor = lbl("instance", addr), true
		j.labeldrop = []string{"job", "exported_job"}
	}
	return j
}

// rdsLabels are the exporter's own labels on the instance's series.
func (s scraper) rdsLabels(db string) []label {
	if s.rds == CloudWatchExporter {
		return lbl("job", "aws_rds", "instance", "", "dbinstance_identifier", db)
	}
	ls := lbl("name", fmt.Sprintf("arn:aws:rds:eu-west-1:123456789012:db:%s", db), "dimension_DBInstanceIdentifier", db, "region", "eu-west-1")
	if s.layout != Minimal {
		ls = append(ls, label{"account_id", "123456789012"})
	}
	return ls
}
