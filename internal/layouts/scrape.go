package layouts

import (
	"regexp"
	"slices"
	"strings"
)

// label is one name/value pair. An empty value is a label the exporter sends empty: it is
// not stored, but under honor_labels it still blocks the target label of that name
// (prom-layouts.md §0).
type label struct{ name, value string }

// lbl builds a label list from name, value pairs.
func lbl(kv ...string) []label {
	out := make([]label, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, label{kv[i], kv[i+1]})
	}
	return out
}

// job is one scrape job as a layout configures it for one exporter target.
type job struct {
	// target are the target labels in their output order (Minimal keeps the order its
	// fixture always had; other layouts sort).
	target []label
	// honor is honor_labels: scraped labels win, a target label is added only where the
	// exporter sent none of that name. Without it every target label is set and a
	// clashing non-empty scraped label is kept as exported_<name>.
	honor bool
	// keep, when set, is the metric allow-list (metric_relabel_configs action keep).
	keep *regexp.Regexp
	// drop reports series dropped by metric relabelling, given the name and the labels
	// after the merge.
	drop func(name string, ls []label) bool
	// labeldrop are label names removed after the merge.
	labeldrop []string
	// external are labels added to everything the scraper stores or writes (vmagent's
	// prometheus label, Alloy's cluster labels, a Thanos or Mimir cluster).
	external []label
	sorted   bool
}

// apply merges a scraped series with the job's labels as Prometheus' mutateSampleLabels
// does, then applies metric relabelling. It returns false for a dropped series.
func (j *job) apply(name string, scraped []label) ([]label, bool) {
	if j.keep != nil && !j.keep.MatchString(name) {
		return nil, false
	}
	has := func(ls []label, n string) (string, bool) {
		for _, l := range ls {
			if l.name == n {
				return l.value, true
			}
		}
		return "", false
	}
	out := make([]label, 0, len(j.target)+len(scraped)+len(j.external))
	for _, t := range j.target {
		if _, ok := has(scraped, t.name); j.honor && ok {
			continue
		}
		out = append(out, t)
	}
	for _, s := range scraped {
		if s.value == "" {
			continue
		}
		if _, ok := has(j.target, s.name); ok && !j.honor {
			s.name = "exported_" + s.name
		}
		out = append(out, s)
	}
	out = slices.DeleteFunc(out, func(l label) bool { return slices.Contains(j.labeldrop, l.name) })
	for _, e := range j.external {
		if _, ok := has(out, e.name); !ok {
			out = append(out, e)
		}
	}
	if j.drop != nil && j.drop(name, out) {
		return nil, false
	}
	if j.sorted {
		slices.SortFunc(out, func(a, b label) int { return strings.Compare(a.name, b.name) })
	}
	return out, true
}

// value returns the value of label n, or "".
func value(ls []label, n string) string {
	for _, l := range ls {
		if l.name == n {
			return l.value
		}
	}
	return ""
}

// anchored compiles an allow-list as one anchored regular expression, as relabelling
// anchors its regex.
func anchored(names ...string) *regexp.Regexp {
	return regexp.MustCompile("^(?:" + strings.Join(names, "|") + ")$")
}

// The default allow-lists of Grafana k8s-monitoring's feature-cluster-metrics chart
// (default-allow-lists/kube-state-metrics.yaml and cadvisor.yaml, as read in
// grafana/k8s-monitoring-helm).
//
// NOTE(layouts): prom-layouts.md §3 says the KSM list drops kube_pod_status_ready; the
// file as read (commit c7f8235b) keeps it, so it is kept here.
func alloyKSMKeep() *regexp.Regexp {
	return anchored(
		"kube_configmap_info", "kube_configmap_metadata_resource_version", "kube_cronjob.*", "kube_daemonset.*",
		"kube_deployment_metadata_generation", "kube_deployment_spec_replicas", "kube_deployment_status_condition",
		"kube_deployment_status_observed_generation", "kube_deployment_status_replicas_available",
		"kube_deployment_status_replicas_updated", "kube_horizontalpodautoscaler_spec_max_replicas",
		"kube_horizontalpodautoscaler_spec_min_replicas", "kube_horizontalpodautoscaler_status_current_replicas",
		"kube_horizontalpodautoscaler_status_desired_replicas", "kube_job.*", "kube_namespace_status_phase", "kube_node.*",
		"kube_persistentvolume_status_phase", "kube_persistentvolumeclaim_access_mode", "kube_persistentvolumeclaim_info",
		"kube_persistentvolumeclaim_labels", "kube_persistentvolumeclaim_resource_requests_storage_bytes",
		"kube_persistentvolumeclaim_status_phase", "kube_pod_completion_time", "kube_pod_container_info",
		"kube_pod_container_resource_limits", "kube_pod_container_resource_requests",
		"kube_pod_container_status_last_terminated_reason", "kube_pod_container_status_last_terminated_timestamp",
		"kube_pod_container_status_restarts_total", "kube_pod_container_status_waiting_reason", "kube_pod_info",
		"kube_pod_owner", "kube_pod_restart_policy", "kube_pod_spec_volumes_persistentvolumeclaims_info",
		"kube_pod_start_time", "kube_pod_status_phase", "kube_pod_status_ready", "kube_pod_status_reason",
		"kube_pod_init_.*", "kube_poddisruptionbudget_status_current_healthy",
		"kube_poddisruptionbudget_status_desired_healthy", "kube_replicaset.*", "kube_resourcequota",
		"kube_secret_metadata_resource_version", "kube_statefulset.*",
	)
}

func alloyCadvisorKeep() *regexp.Regexp {
	return anchored(
		"container_cpu_cfs_periods_total", "container_cpu_cfs_throttled_periods_total", "container_cpu_usage_seconds_total",
		"container_fs_reads_bytes_total", "container_fs_reads_total", "container_fs_writes_bytes_total",
		"container_fs_writes_total", "container_memory_cache", "container_memory_rss", "container_memory_swap",
		"container_memory_working_set_bytes", "container_network_receive_bytes_total",
		"container_network_receive_packets_dropped_total", "container_network_receive_packets_total",
		"container_network_transmit_bytes_total", "container_network_transmit_packets_dropped_total",
		"container_network_transmit_packets_total", "machine_memory_bytes",
	)
}
