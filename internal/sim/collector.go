package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// snapshotFunc returns the current cluster state; collectors call it once per scrape.
type snapshotFunc func() Snapshot

// desc is a shorthand for prometheus.NewDesc without constant labels.
func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

func boolString(b bool) string { return strconv.FormatBool(b) }

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// ksmCollector exposes kube-state-metrics series (names, labels and types as
// kube-state-metrics v2 writes them) for the simulated Deployments, ReplicaSets, pods and
// HPAs.
type ksmCollector struct {
	snap snapshotFunc

	hpaInfo, hpaGeneration, hpaMin, hpaMax, hpaSpecTarget, hpaStatusTarget *prometheus.Desc
	hpaCurrent, hpaDesired, hpaCondition                                   *prometheus.Desc

	depSpec, depReplicas, depReady, depAvailable, depUnavailable, depUpdated *prometheus.Desc
	depGeneration, depObserved                                               *prometheus.Desc

	rsOwner, rsSpec, rsReplicas, rsReady *prometheus.Desc

	podInfo, podCreated, podStart, podScheduled, podPhase, podReady, podReadyTime *prometheus.Desc
	podOwner, podRequests, podLimits, podContainerReady, podRestarts, podDeletion *prometheus.Desc
	podLastTerminated                                                             *prometheus.Desc
}

var _ prometheus.Collector = (*ksmCollector)(nil)

func newKSMCollector(snap snapshotFunc) *ksmCollector {
	hpa := []string{"namespace", "horizontalpodautoscaler"}
	dep := []string{"namespace", "deployment"}
	rs := []string{"namespace", "replicaset"}
	pod := []string{"namespace", "pod", "uid"}
	with := func(base []string, extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	return &ksmCollector{
		snap:            snap,
		hpaInfo:         desc("kube_horizontalpodautoscaler_info", "Information about this autoscaler.", with(hpa, "scaletargetref_api_version", "scaletargetref_kind", "scaletargetref_name")...),
		hpaGeneration:   desc("kube_horizontalpodautoscaler_metadata_generation", "The generation observed by the HorizontalPodAutoscaler controller.", hpa...),
		hpaMin:          desc("kube_horizontalpodautoscaler_spec_min_replicas", "Lower limit for the number of pods that can be set by the autoscaler, default 1.", hpa...),
		hpaMax:          desc("kube_horizontalpodautoscaler_spec_max_replicas", "Upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.", hpa...),
		hpaSpecTarget:   desc("kube_horizontalpodautoscaler_spec_target_metric", "The metric specifications used by this autoscaler when calculating the desired replica count.", with(hpa, "metric_name", "metric_target_type")...),
		hpaStatusTarget: desc("kube_horizontalpodautoscaler_status_target_metric", "The current metric status used by this autoscaler when calculating the desired replica count.", with(hpa, "metric_name", "metric_target_type")...),
		hpaCurrent:      desc("kube_horizontalpodautoscaler_status_current_replicas", "Current number of replicas of pods managed by this autoscaler.", hpa...),
		hpaDesired:      desc("kube_horizontalpodautoscaler_status_desired_replicas", "Desired number of replicas of pods managed by this autoscaler.", hpa...),
		hpaCondition:    desc("kube_horizontalpodautoscaler_status_condition", "The condition of this autoscaler.", with(hpa, "condition", "status")...),

		depSpec:        desc("kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dep...),
		depReplicas:    desc("kube_deployment_status_replicas", "The number of replicas per deployment.", dep...),
		depReady:       desc("kube_deployment_status_replicas_ready", "The number of ready replicas per deployment.", dep...),
		depAvailable:   desc("kube_deployment_status_replicas_available", "The number of available replicas per deployment.", dep...),
		depUnavailable: desc("kube_deployment_status_replicas_unavailable", "The number of unavailable replicas per deployment.", dep...),
		depUpdated:     desc("kube_deployment_status_replicas_updated", "The number of updated replicas per deployment.", dep...),
		depGeneration:  desc("kube_deployment_metadata_generation", "Sequence number representing a specific generation of the desired state.", dep...),
		depObserved:    desc("kube_deployment_status_observed_generation", "The generation observed by the deployment controller.", dep...),

		rsOwner:    desc("kube_replicaset_owner", "Information about the ReplicaSet's owner.", with(rs, "owner_kind", "owner_name", "owner_is_controller")...),
		rsSpec:     desc("kube_replicaset_spec_replicas", "Number of desired pods for a ReplicaSet.", rs...),
		rsReplicas: desc("kube_replicaset_status_replicas", "The number of replicas per ReplicaSet.", rs...),
		rsReady:    desc("kube_replicaset_status_ready_replicas", "The number of ready replicas per ReplicaSet.", rs...),

		podInfo:           desc("kube_pod_info", "Information about pod.", with(pod, "host_ip", "pod_ip", "node", "created_by_kind", "created_by_name", "priority_class", "host_network")...),
		podCreated:        desc("kube_pod_created", "Unix creation timestamp", pod...),
		podStart:          desc("kube_pod_start_time", "Start time in unix timestamp for a pod.", pod...),
		podScheduled:      desc("kube_pod_status_scheduled_time", "Unix timestamp when pod moved into scheduled status", pod...),
		podPhase:          desc("kube_pod_status_phase", "The pods current phase.", with(pod, "phase")...),
		podReady:          desc("kube_pod_status_ready", "Describes whether the pod is ready to serve requests.", with(pod, "condition")...),
		podReadyTime:      desc("kube_pod_status_ready_time", "Readiness achieved time in unix timestamp for a pod.", pod...),
		podOwner:          desc("kube_pod_owner", "Information about the Pod's owner.", with(pod, "owner_kind", "owner_name", "owner_is_controller")...),
		podRequests:       desc("kube_pod_container_resource_requests", "The number of requested request resource by a container. It is recommended to use the kube_pod_resource_requests metric exposed by kube-scheduler instead, as it is more precise.", with(pod, "container", "node", "resource", "unit")...),
		podLimits:         desc("kube_pod_container_resource_limits", "The number of requested limit resource by a container. It is recommended to use the kube_pod_resource_limits metric exposed by kube-scheduler instead, as it is more precise.", with(pod, "container", "node", "resource", "unit")...),
		podContainerReady: desc("kube_pod_container_status_ready", "Describes whether the containers readiness check succeeded.", with(pod, "container")...),
		podRestarts:       desc("kube_pod_container_status_restarts_total", "The number of container restarts per container.", with(pod, "container")...),
		podLastTerminated: desc("kube_pod_container_status_last_terminated_reason", "Describes the last reason the container was in terminated state.", with(pod, "container", "reason")...),
		podDeletion:       desc("kube_pod_deletion_timestamp", "Unix deletion timestamp", pod...),
	}
}

// Describe implements prometheus.Collector.
func (k *ksmCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		k.hpaInfo, k.hpaGeneration, k.hpaMin, k.hpaMax, k.hpaSpecTarget, k.hpaStatusTarget, k.hpaCurrent, k.hpaDesired, k.hpaCondition,
		k.depSpec, k.depReplicas, k.depReady, k.depAvailable, k.depUnavailable, k.depUpdated, k.depGeneration, k.depObserved,
		k.rsOwner, k.rsSpec, k.rsReplicas, k.rsReady,
		k.podInfo, k.podCreated, k.podStart, k.podScheduled, k.podPhase, k.podReady, k.podReadyTime,
		k.podOwner, k.podRequests, k.podLimits, k.podContainerReady, k.podRestarts, k.podLastTerminated, k.podDeletion,
	} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (k *ksmCollector) Collect(ch chan<- prometheus.Metric) {
	s := k.snap()
	ns := s.Namespace
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, d := range s.Deployments {
		gauge(k.depSpec, float64(d.SpecReplicas), ns, d.Name)
		gauge(k.depReplicas, float64(d.Replicas), ns, d.Name)
		gauge(k.depReady, float64(d.ReadyReplicas), ns, d.Name)
		gauge(k.depAvailable, float64(d.AvailableReplicas), ns, d.Name)
		gauge(k.depUnavailable, float64(max(d.SpecReplicas-d.AvailableReplicas, 0)), ns, d.Name)
		gauge(k.depUpdated, float64(d.Replicas), ns, d.Name)
		gauge(k.depGeneration, 1, ns, d.Name)
		gauge(k.depObserved, 1, ns, d.Name)
		gauge(k.rsOwner, 1, ns, d.ReplicaSet, "Deployment", d.Name, "true")
		gauge(k.rsSpec, float64(d.SpecReplicas), ns, d.ReplicaSet)
		gauge(k.rsReplicas, float64(d.Replicas), ns, d.ReplicaSet)
		gauge(k.rsReady, float64(d.ReadyReplicas), ns, d.ReplicaSet)
		h := d.HPA
		if h == nil {
			continue
		}
		// The HPA is named after its target, as `kubectl autoscale` does.
		gauge(k.hpaInfo, 1, ns, d.Name, "apps/v1", "Deployment", d.Name)
		gauge(k.hpaGeneration, 1, ns, d.Name)
		gauge(k.hpaMin, float64(h.MinReplicas), ns, d.Name)
		gauge(k.hpaMax, float64(h.MaxReplicas), ns, d.Name)
		gauge(k.hpaSpecTarget, float64(h.TargetCPUUtilization), ns, d.Name, "cpu", "utilization")
		if h.MetricValid {
			gauge(k.hpaStatusTarget, float64(h.CurrentUtilization), ns, d.Name, "cpu", "utilization")
			gauge(k.hpaStatusTarget, h.CurrentAverageCores, ns, d.Name, "cpu", "average")
		}
		gauge(k.hpaCurrent, float64(h.CurrentReplicas), ns, d.Name)
		gauge(k.hpaDesired, float64(h.DesiredReplicas), ns, d.Name)
		limited := strings.HasSuffix(h.Reason, "Limit") || h.Reason == "TooManyReplicas" || h.Reason == "TooFewReplicas"
		for _, c := range []struct {
			name  string
			value bool
		}{{"AbleToScale", true}, {"ScalingActive", h.MetricValid}, {"ScalingLimited", limited}} {
			for _, st := range []string{"true", "false", "unknown"} {
				v := 0.0
				if st == boolString(c.value) {
					v = 1
				}
				gauge(k.hpaCondition, v, ns, d.Name, c.name, st)
			}
		}
	}
	for _, p := range s.Pods {
		gauge(k.podInfo, 1, ns, p.Name, p.UID, nodeIP, p.IP, s.Node, "ReplicaSet", p.ReplicaSet, "", "false")
		gauge(k.podCreated, float64(p.Created.Unix()), ns, p.Name, p.UID)
		if !p.Started.IsZero() {
			gauge(k.podStart, float64(p.Started.Unix()), ns, p.Name, p.UID)
			gauge(k.podScheduled, float64(p.Started.Unix()), ns, p.Name, p.UID)
		}
		phase := "Pending"
		if p.Running {
			phase = "Running"
		}
		for _, ph := range []string{"Pending", "Succeeded", "Failed", "Unknown", "Running"} {
			v := 0.0
			if ph == phase {
				v = 1
			}
			gauge(k.podPhase, v, ns, p.Name, p.UID, ph)
		}
		if !p.Started.IsZero() {
			for _, st := range []string{"true", "false", "unknown"} {
				v := 0.0
				if st == boolString(p.Ready) {
					v = 1
				}
				gauge(k.podReady, v, ns, p.Name, p.UID, st)
			}
		}
		if p.Ready {
			gauge(k.podReadyTime, float64(p.ReadyTime.Unix()), ns, p.Name, p.UID)
		}
		if p.Terminating {
			gauge(k.podDeletion, unixSeconds(s.At), ns, p.Name, p.UID)
		}
		gauge(k.podOwner, 1, ns, p.Name, p.UID, "ReplicaSet", p.ReplicaSet, "true")
		container := p.Deployment
		gauge(k.podRequests, p.CPURequestCores, ns, p.Name, p.UID, container, s.Node, "cpu", "core")
		gauge(k.podRequests, float64(p.MemoryRequestBytes), ns, p.Name, p.UID, container, s.Node, "memory", "byte")
		if p.CPULimitCores > 0 {
			gauge(k.podLimits, p.CPULimitCores, ns, p.Name, p.UID, container, s.Node, "cpu", "core")
		}
		if p.MemoryLimitBytes > 0 {
			gauge(k.podLimits, float64(p.MemoryLimitBytes), ns, p.Name, p.UID, container, s.Node, "memory", "byte")
		}
		ready := 0.0
		if p.Ready {
			ready = 1
		}
		gauge(k.podContainerReady, ready, ns, p.Name, p.UID, container)
		ch <- prometheus.MustNewConstMetric(k.podRestarts, prometheus.CounterValue, float64(p.Restarts), ns, p.Name, p.UID, container)
		if p.LastTerminatedReason != "" {
			// kube-state-metrics shows it while the container has a last terminated state.
			gauge(k.podLastTerminated, 1, ns, p.Name, p.UID, container, p.LastTerminatedReason)
		}
	}
}

// nodeIP is the simulated node's address in kube_pod_info's host_ip.
const nodeIP = "10.0.11.23"

// cadvisorCollector exposes the kubelet's cAdvisor series for every running container and
// its pod-level cgroup (container=""), as /metrics/cadvisor does.
type cadvisorCollector struct {
	snap                                            snapshotFunc
	usage, periods, throttledPeriods, throttledSecs *prometheus.Desc
	quota, period, shares, workingSet               *prometheus.Desc
}

var _ prometheus.Collector = (*cadvisorCollector)(nil)

func newCadvisorCollector(snap snapshotFunc) *cadvisorCollector {
	l := []string{"id", "name", "image", "pod", "namespace", "container"}
	return &cadvisorCollector{
		snap:             snap,
		usage:            desc("container_cpu_usage_seconds_total", "Cumulative cpu time consumed in seconds.", append(append([]string(nil), l...), "cpu")...),
		periods:          desc("container_cpu_cfs_periods_total", "Number of elapsed enforcement period intervals.", l...),
		throttledPeriods: desc("container_cpu_cfs_throttled_periods_total", "Number of throttled period intervals.", l...),
		throttledSecs:    desc("container_cpu_cfs_throttled_seconds_total", "Total time duration the container has been throttled.", l...),
		quota:            desc("container_spec_cpu_quota", "CPU quota of the container.", l...),
		period:           desc("container_spec_cpu_period", "CPU period of the container.", l...),
		shares:           desc("container_spec_cpu_shares", "CPU share of the container.", l...),
		workingSet:       desc("container_memory_working_set_bytes", "Current working set in bytes.", l...),
	}
}

// Describe implements prometheus.Collector.
func (c *cadvisorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.usage, c.periods, c.throttledPeriods, c.throttledSecs, c.quota, c.period, c.shares, c.workingSet} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *cadvisorCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.snap()
	for _, p := range s.Pods {
		if p.Started.IsZero() {
			continue
		}
		qos := "burstable"
		if p.CPULimitCores == p.CPURequestCores && p.MemoryLimitBytes == p.MemoryRequestBytes {
			qos = ""
		}
		podCgroup := "/kubepods/" + qos + "/pod" + p.UID
		if qos == "" {
			podCgroup = "/kubepods/pod" + p.UID
		}
		type cgroup struct{ id, name, image, container string }
		groups := []cgroup{{podCgroup, "", "", ""}}
		if p.Running {
			groups = append(groups, cgroup{podCgroup + "/" + p.ContainerID, p.ContainerID, p.Image, p.Deployment})
		}
		for _, g := range groups {
			l := []string{g.id, g.name, g.image, p.Name, s.Namespace, g.container}
			ch <- prometheus.MustNewConstMetric(c.usage, prometheus.CounterValue, p.CPUUsageSeconds, append(l, "total")...)
			ch <- prometheus.MustNewConstMetric(c.workingSet, prometheus.GaugeValue, p.MemoryWorkingSetBytes, l...)
			ch <- prometheus.MustNewConstMetric(c.period, prometheus.GaugeValue, float64(p.CFSPeriod.Microseconds()), l...)
			ch <- prometheus.MustNewConstMetric(c.shares, prometheus.GaugeValue, max(p.CPURequestCores*1024, 2), l...)
			if p.CFSQuota <= 0 {
				continue // no limit: cAdvisor emits no CFS series
			}
			ch <- prometheus.MustNewConstMetric(c.quota, prometheus.GaugeValue, float64(p.CFSQuota.Microseconds()), l...)
			ch <- prometheus.MustNewConstMetric(c.periods, prometheus.CounterValue, float64(p.CFS.Periods), l...)
			ch <- prometheus.MustNewConstMetric(c.throttledPeriods, prometheus.CounterValue, float64(p.CFS.ThrottledPeriods), l...)
			ch <- prometheus.MustNewConstMetric(c.throttledSecs, prometheus.CounterValue, p.CFS.ThrottledTime.Seconds(), l...)
		}
	}
}

// rdsCollector exposes the database as YACE (yet-another-cloudwatch-exporter) names it,
// with the values of the last completed CloudWatch period.
type rdsCollector struct {
	snap                                      snapshotFunc
	info, cpu, connections, credits, freeable *prometheus.Desc
}

var _ prometheus.Collector = (*rdsCollector)(nil)

// accountID is the simulated AWS account.
const accountID = "123456789012"

func newRDSCollector(snap snapshotFunc) *rdsCollector {
	l := []string{"name", "dimension_DBInstanceIdentifier", "region", "account_id"}
	return &rdsCollector{
		snap:        snap,
		info:        desc("aws_rds_info", "Help is not implemented yet.", "name", "region", "account_id"),
		cpu:         desc("aws_rds_cpuutilization_average", "Help is not implemented yet.", l...),
		connections: desc("aws_rds_database_connections_average", "Help is not implemented yet.", l...),
		credits:     desc("aws_rds_cpucredit_balance_average", "Help is not implemented yet.", l...),
		freeable:    desc("aws_rds_freeable_memory_average", "Help is not implemented yet.", l...),
	}
}

// Describe implements prometheus.Collector.
func (r *rdsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{r.info, r.cpu, r.connections, r.credits, r.freeable} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (r *rdsCollector) Collect(ch chan<- prometheus.Metric) {
	db := r.snap().Database
	if db == nil {
		return
	}
	arn := "arn:aws:rds:" + db.Region + ":" + accountID + ":db:" + db.Identifier
	ch <- prometheus.MustNewConstMetric(r.info, prometheus.GaugeValue, 0, arn, db.Region, accountID)
	if !db.Published {
		return
	}
	l := []string{arn, db.Identifier, db.Region, accountID}
	cw := db.CloudWatch
	ch <- prometheus.MustNewConstMetric(r.cpu, prometheus.GaugeValue, cw.CPUUtilization, l...)
	ch <- prometheus.MustNewConstMetric(r.connections, prometheus.GaugeValue, cw.DatabaseConnections, l...)
	ch <- prometheus.MustNewConstMetric(r.freeable, prometheus.GaugeValue, cw.FreeableMemory, l...)
	if db.Burstable {
		ch <- prometheus.MustNewConstMetric(r.credits, prometheus.GaugeValue, cw.CPUCreditBalance, l...)
	}
}

// infoCollector exposes tidemark_sim_info, which says which profile runs and whether
// --fast shortened the downscale stabilisation window.
type infoCollector struct {
	desc   *prometheus.Desc
	labels []string
}

var _ prometheus.Collector = (*infoCollector)(nil)

func newInfoCollector(profile, namespace string, fast bool, downscale time.Duration) *infoCollector {
	return &infoCollector{
		desc: desc("tidemark_sim_info", "Simulated cluster: the profile it runs; fast=\"true\" means the HPA downscale stabilisation window was shortened for demos.",
			"profile", "namespace", "fast", "downscale_stabilization"),
		labels: []string{profile, namespace, boolString(fast), downscale.String()},
	}
}

// Describe implements prometheus.Collector.
func (i *infoCollector) Describe(ch chan<- *prometheus.Desc) { ch <- i.desc }

// Collect implements prometheus.Collector.
func (i *infoCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(i.desc, prometheus.GaugeValue, 1, i.labels...)
}

// responsesCollector exposes the simulator's ground truth on its answers to external
// requests (Snapshot.Responses): tidemark_sim_responses_total{service,code,startup_gap}
// and tidemark_sim_startup_gap_seconds_total.
type responsesCollector struct {
	snap           snapshotFunc
	responses, gap *prometheus.Desc
}

var _ prometheus.Collector = (*responsesCollector)(nil)

func newResponsesCollector(snap snapshotFunc) *responsesCollector {
	return &responsesCollector{
		snap: snap,
		responses: desc("tidemark_sim_responses_total", "Answers of the simulated cluster to requests sent to its service endpoints, by the service, the HTTP status code, "+
			"and whether some HPA's status current replicas exceeded its Deployment's ready replicas when the answer was sent (startup_gap).",
			"service", "code", "startup_gap"),
		gap: desc("tidemark_sim_startup_gap_seconds_total", "Simulated time during which some HPA's status current replicas exceeded its Deployment's ready replicas."),
	}
}

// Describe implements prometheus.Collector.
func (r *responsesCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- r.responses
	ch <- r.gap
}

// Collect implements prometheus.Collector. Every service has a series, from 0, for each
// code the simulator answers with (200, 500, 502, 503, 504), so that increase() sees the
// first answers of each kind.
func (r *responsesCollector) Collect(ch chan<- prometheus.Metric) {
	s := r.snap()
	type key struct {
		service string
		code    int
		gap     bool
	}
	counts := map[key]int{}
	for _, rc := range s.Responses.Counts {
		counts[key{rc.Service, rc.Code, rc.StartupGap}] += rc.Count
	}
	for _, svc := range s.Responses.Services {
		for _, code := range []int{200, 500, 502, 503, 504} {
			for _, gap := range []bool{false, true} {
				k := key{svc.Service, code, gap}
				ch <- prometheus.MustNewConstMetric(r.responses, prometheus.CounterValue, float64(counts[k]), svc.Service, strconv.Itoa(code), boolString(gap))
				delete(counts, k)
			}
		}
	}
	for k, n := range counts { // a code outside the list above
		ch <- prometheus.MustNewConstMetric(r.responses, prometheus.CounterValue, float64(n), k.service, strconv.Itoa(k.code), boolString(k.gap))
	}
	ch <- prometheus.MustNewConstMetric(r.gap, prometheus.CounterValue, s.Responses.StartupGap.Seconds())
}
