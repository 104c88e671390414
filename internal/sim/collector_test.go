package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sim/cfs"
)

var fixedSnapshot = Snapshot{
	At:        time.Unix(1772359200, 0),
	Namespace: "shoong",
	Node:      "node-1",
	Deployments: []DeploymentSnapshot{{
		Name: "order", ReplicaSet: "order-5d8f7c9b4d", Image: "shoong/order:1.4.2",
		SpecReplicas: 4, Replicas: 4, ReadyReplicas: 2, AvailableReplicas: 2,
		HPA: &HPASnapshot{
			MinReplicas: 2, MaxReplicas: 5, TargetCPUUtilization: 70, CurrentReplicas: 4, DesiredReplicas: 4,
			MetricValid: true, CurrentUtilization: 175, CurrentAverageCores: 0.175, Reason: "ScaleUpLimit",
		},
	}},
	Pods: []PodSnapshot{{
		Name: "order-5d8f7c9b4d-x2b7k", UID: "0b4c6a7e-1111-4222-8333-444455556666", Deployment: "order",
		ReplicaSet: "order-5d8f7c9b4d", IP: "10.0.0.7", ContainerID: "c0ffee", Image: "shoong/order:1.4.2",
		Created: time.Unix(1772359100, 0), Started: time.Unix(1772359101, 0), Running: true, Ready: true,
		ReadyTime:       time.Unix(1772359110, 0),
		CPURequestCores: 0.1, CPULimitCores: 0.2, MemoryRequestBytes: 64 << 20, MemoryLimitBytes: 128 << 20,
		CPUUsageSeconds: 12.5, CFS: cfs.Stats{Usage: 12500 * time.Millisecond, Periods: 900, ThrottledPeriods: 300, ThrottledTime: 45 * time.Second},
		CFSQuota: 20 * time.Millisecond, CFSPeriod: 100 * time.Millisecond, MemoryWorkingSetBytes: 50331648,
	}},
	Database: &DatabaseSnapshot{
		Identifier: "shoong-db", InstanceClass: "db.t3.micro", Region: "ap-northeast-2", Burstable: true, Published: true,
		CloudWatch: CloudWatchValues{CPUUtilization: 12.5, DatabaseConnections: 41, CPUCreditBalance: 61.5, FreeableMemory: 3e8},
	},
}

func registryFor(t *testing.T, cs ...prometheus.Collector) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	for _, c := range cs {
		require.NoError(t, reg.Register(c))
	}
	return reg
}

func TestKSMCollectorExposition(t *testing.T) {
	t.Parallel()
	reg := registryFor(t, newKSMCollector(func() Snapshot { return fixedSnapshot }))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
	const want = `
# HELP kube_horizontalpodautoscaler_info Information about this autoscaler.
# TYPE kube_horizontalpodautoscaler_info gauge
kube_horizontalpodautoscaler_info{horizontalpodautoscaler="order",namespace="shoong",scaletargetref_api_version="apps/v1",scaletargetref_kind="Deployment",scaletargetref_name="order"} 1
# HELP kube_horizontalpodautoscaler_spec_max_replicas Upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.
# TYPE kube_horizontalpodautoscaler_spec_max_replicas gauge
kube_horizontalpodautoscaler_spec_max_replicas{horizontalpodautoscaler="order",namespace="shoong"} 5
# HELP kube_horizontalpodautoscaler_spec_min_replicas Lower limit for the number of pods that can be set by the autoscaler, default 1.
# TYPE kube_horizontalpodautoscaler_spec_min_replicas gauge
kube_horizontalpodautoscaler_spec_min_replicas{horizontalpodautoscaler="order",namespace="shoong"} 2
# HELP kube_horizontalpodautoscaler_spec_target_metric The metric specifications used by this autoscaler when calculating the desired replica count.
# TYPE kube_horizontalpodautoscaler_spec_target_metric gauge
kube_horizontalpodautoscaler_spec_target_metric{horizontalpodautoscaler="order",metric_name="cpu",metric_target_type="utilization",namespace="shoong"} 70
# HELP kube_horizontalpodautoscaler_status_target_metric The current metric status used by this autoscaler when calculating the desired replica count.
# TYPE kube_horizontalpodautoscaler_status_target_metric gauge
kube_horizontalpodautoscaler_status_target_metric{horizontalpodautoscaler="order",metric_name="cpu",metric_target_type="average",namespace="shoong"} 0.175
kube_horizontalpodautoscaler_status_target_metric{horizontalpodautoscaler="order",metric_name="cpu",metric_target_type="utilization",namespace="shoong"} 175
# HELP kube_horizontalpodautoscaler_status_current_replicas Current number of replicas of pods managed by this autoscaler.
# TYPE kube_horizontalpodautoscaler_status_current_replicas gauge
kube_horizontalpodautoscaler_status_current_replicas{horizontalpodautoscaler="order",namespace="shoong"} 4
# HELP kube_horizontalpodautoscaler_status_desired_replicas Desired number of replicas of pods managed by this autoscaler.
# TYPE kube_horizontalpodautoscaler_status_desired_replicas gauge
kube_horizontalpodautoscaler_status_desired_replicas{horizontalpodautoscaler="order",namespace="shoong"} 4
# HELP kube_deployment_spec_replicas Number of desired pods for a deployment.
# TYPE kube_deployment_spec_replicas gauge
kube_deployment_spec_replicas{deployment="order",namespace="shoong"} 4
# HELP kube_deployment_status_replicas_ready The number of ready replicas per deployment.
# TYPE kube_deployment_status_replicas_ready gauge
kube_deployment_status_replicas_ready{deployment="order",namespace="shoong"} 2
# HELP kube_deployment_status_replicas_available The number of available replicas per deployment.
# TYPE kube_deployment_status_replicas_available gauge
kube_deployment_status_replicas_available{deployment="order",namespace="shoong"} 2
# HELP kube_replicaset_owner Information about the ReplicaSet's owner.
# TYPE kube_replicaset_owner gauge
kube_replicaset_owner{namespace="shoong",owner_is_controller="true",owner_kind="Deployment",owner_name="order",replicaset="order-5d8f7c9b4d"} 1
# HELP kube_pod_owner Information about the Pod's owner.
# TYPE kube_pod_owner gauge
kube_pod_owner{namespace="shoong",owner_is_controller="true",owner_kind="ReplicaSet",owner_name="order-5d8f7c9b4d",pod="order-5d8f7c9b4d-x2b7k",uid="0b4c6a7e-1111-4222-8333-444455556666"} 1
# HELP kube_pod_created Unix creation timestamp
# TYPE kube_pod_created gauge
kube_pod_created{namespace="shoong",pod="order-5d8f7c9b4d-x2b7k",uid="0b4c6a7e-1111-4222-8333-444455556666"} 1.7723591e+09
# HELP kube_pod_status_ready_time Readiness achieved time in unix timestamp for a pod.
# TYPE kube_pod_status_ready_time gauge
kube_pod_status_ready_time{namespace="shoong",pod="order-5d8f7c9b4d-x2b7k",uid="0b4c6a7e-1111-4222-8333-444455556666"} 1.77235911e+09
# HELP kube_pod_status_ready Describes whether the pod is ready to serve requests.
# TYPE kube_pod_status_ready gauge
kube_pod_status_ready{condition="false",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k",uid="0b4c6a7e-1111-4222-8333-444455556666"} 0
kube_pod_status_ready{condition="true",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k",uid="0b4c6a7e-1111-4222-8333-444455556666"} 1
kube_pod_status_ready{condition="unknown",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k",uid="0b4c6a7e-1111-4222-8333-444455556666"} 0
# HELP kube_pod_info Information about pod.
# TYPE kube_pod_info gauge
kube_pod_info{created_by_kind="ReplicaSet",created_by_name="order-5d8f7c9b4d",host_ip="10.0.11.23",host_network="false",namespace="shoong",node="node-1",pod="order-5d8f7c9b4d-x2b7k",pod_ip="10.0.0.7",priority_class="",uid="0b4c6a7e-1111-4222-8333-444455556666"} 1
# HELP kube_pod_container_resource_requests The number of requested request resource by a container. It is recommended to use the kube_pod_resource_requests metric exposed by kube-scheduler instead, as it is more precise.
# TYPE kube_pod_container_resource_requests gauge
kube_pod_container_resource_requests{container="order",namespace="shoong",node="node-1",pod="order-5d8f7c9b4d-x2b7k",resource="cpu",uid="0b4c6a7e-1111-4222-8333-444455556666",unit="core"} 0.1
kube_pod_container_resource_requests{container="order",namespace="shoong",node="node-1",pod="order-5d8f7c9b4d-x2b7k",resource="memory",uid="0b4c6a7e-1111-4222-8333-444455556666",unit="byte"} 6.7108864e+07
# HELP kube_pod_container_resource_limits The number of requested limit resource by a container. It is recommended to use the kube_pod_resource_limits metric exposed by kube-scheduler instead, as it is more precise.
# TYPE kube_pod_container_resource_limits gauge
kube_pod_container_resource_limits{container="order",namespace="shoong",node="node-1",pod="order-5d8f7c9b4d-x2b7k",resource="cpu",uid="0b4c6a7e-1111-4222-8333-444455556666",unit="core"} 0.2
kube_pod_container_resource_limits{container="order",namespace="shoong",node="node-1",pod="order-5d8f7c9b4d-x2b7k",resource="memory",uid="0b4c6a7e-1111-4222-8333-444455556666",unit="byte"} 1.34217728e+08
`
	names := []string{}
	for line := range strings.SplitSeq(want, "\n") {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), names...))
	// ScalingLimited is true because the scale-up limit clamped the recommendation.
	n, err := testutil.GatherAndCount(reg, "kube_horizontalpodautoscaler_status_condition")
	require.NoError(t, err)
	require.Equal(t, 9, n)
}

func TestCadvisorCollectorExposition(t *testing.T) {
	t.Parallel()
	reg := registryFor(t, newCadvisorCollector(func() Snapshot { return fixedSnapshot }))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
	const want = `
# HELP container_cpu_cfs_periods_total Number of elapsed enforcement period intervals.
# TYPE container_cpu_cfs_periods_total counter
container_cpu_cfs_periods_total{container="",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666",image="",name="",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 900
container_cpu_cfs_periods_total{container="order",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666/c0ffee",image="shoong/order:1.4.2",name="c0ffee",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 900
# HELP container_cpu_cfs_throttled_periods_total Number of throttled period intervals.
# TYPE container_cpu_cfs_throttled_periods_total counter
container_cpu_cfs_throttled_periods_total{container="",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666",image="",name="",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 300
container_cpu_cfs_throttled_periods_total{container="order",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666/c0ffee",image="shoong/order:1.4.2",name="c0ffee",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 300
# HELP container_cpu_cfs_throttled_seconds_total Total time duration the container has been throttled.
# TYPE container_cpu_cfs_throttled_seconds_total counter
container_cpu_cfs_throttled_seconds_total{container="",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666",image="",name="",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 45
container_cpu_cfs_throttled_seconds_total{container="order",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666/c0ffee",image="shoong/order:1.4.2",name="c0ffee",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 45
# HELP container_cpu_usage_seconds_total Cumulative cpu time consumed in seconds.
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="",cpu="total",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666",image="",name="",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 12.5
container_cpu_usage_seconds_total{container="order",cpu="total",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666/c0ffee",image="shoong/order:1.4.2",name="c0ffee",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 12.5
# HELP container_spec_cpu_quota CPU quota of the container.
# TYPE container_spec_cpu_quota gauge
container_spec_cpu_quota{container="",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666",image="",name="",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 20000
container_spec_cpu_quota{container="order",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666/c0ffee",image="shoong/order:1.4.2",name="c0ffee",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 20000
# HELP container_spec_cpu_period CPU period of the container.
# TYPE container_spec_cpu_period gauge
container_spec_cpu_period{container="",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666",image="",name="",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 100000
container_spec_cpu_period{container="order",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666/c0ffee",image="shoong/order:1.4.2",name="c0ffee",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 100000
# HELP container_memory_working_set_bytes Current working set in bytes.
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{container="",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666",image="",name="",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 5.0331648e+07
container_memory_working_set_bytes{container="order",id="/kubepods/burstable/pod0b4c6a7e-1111-4222-8333-444455556666/c0ffee",image="shoong/order:1.4.2",name="c0ffee",namespace="shoong",pod="order-5d8f7c9b4d-x2b7k"} 5.0331648e+07
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want),
		"container_cpu_cfs_periods_total", "container_cpu_cfs_throttled_periods_total", "container_cpu_cfs_throttled_seconds_total",
		"container_cpu_usage_seconds_total", "container_spec_cpu_quota", "container_spec_cpu_period", "container_memory_working_set_bytes"))
}

func TestCadvisorOmitsCFSWithoutLimit(t *testing.T) {
	t.Parallel()
	snap := fixedSnapshot
	snap.Pods = []PodSnapshot{fixedSnapshot.Pods[0]}
	snap.Pods[0].CFSQuota = 0
	reg := registryFor(t, newCadvisorCollector(func() Snapshot { return snap }))
	n, err := testutil.GatherAndCount(reg, "container_cpu_cfs_periods_total", "container_spec_cpu_quota")
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = testutil.GatherAndCount(reg, "container_cpu_usage_seconds_total")
	require.NoError(t, err)
	require.Equal(t, 2, n)
}

func TestRDSCollectorExposition(t *testing.T) {
	t.Parallel()
	reg := registryFor(t, newRDSCollector(func() Snapshot { return fixedSnapshot }))
	const want = `
# HELP aws_rds_cpuutilization_average Help is not implemented yet.
# TYPE aws_rds_cpuutilization_average gauge
aws_rds_cpuutilization_average{account_id="123456789012",dimension_DBInstanceIdentifier="shoong-db",name="arn:aws:rds:ap-northeast-2:123456789012:db:shoong-db",region="ap-northeast-2"} 12.5
# HELP aws_rds_database_connections_average Help is not implemented yet.
# TYPE aws_rds_database_connections_average gauge
aws_rds_database_connections_average{account_id="123456789012",dimension_DBInstanceIdentifier="shoong-db",name="arn:aws:rds:ap-northeast-2:123456789012:db:shoong-db",region="ap-northeast-2"} 41
# HELP aws_rds_cpucredit_balance_average Help is not implemented yet.
# TYPE aws_rds_cpucredit_balance_average gauge
aws_rds_cpucredit_balance_average{account_id="123456789012",dimension_DBInstanceIdentifier="shoong-db",name="arn:aws:rds:ap-northeast-2:123456789012:db:shoong-db",region="ap-northeast-2"} 61.5
# HELP aws_rds_freeable_memory_average Help is not implemented yet.
# TYPE aws_rds_freeable_memory_average gauge
aws_rds_freeable_memory_average{account_id="123456789012",dimension_DBInstanceIdentifier="shoong-db",name="arn:aws:rds:ap-northeast-2:123456789012:db:shoong-db",region="ap-northeast-2"} 3e+08
# HELP aws_rds_info Help is not implemented yet.
# TYPE aws_rds_info gauge
aws_rds_info{account_id="123456789012",name="arn:aws:rds:ap-northeast-2:123456789012:db:shoong-db",region="ap-northeast-2"} 0
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want)))

	unpublished := fixedSnapshot
	db := *fixedSnapshot.Database
	db.Published = false
	unpublished.Database = &db
	reg = registryFor(t, newRDSCollector(func() Snapshot { return unpublished }))
	n, err := testutil.GatherAndCount(reg, "aws_rds_cpuutilization_average")
	require.NoError(t, err)
	require.Zero(t, n, "no value before the first CloudWatch period ends")
}

func TestInfoCollector(t *testing.T) {
	t.Parallel()
	reg := registryFor(t, newInfoCollector("shoong", "shoong", true, 30*time.Second))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP tidemark_sim_info Simulated cluster: the profile it runs; fast="true" means the HPA downscale stabilisation window was shortened for demos.
# TYPE tidemark_sim_info gauge
tidemark_sim_info{downscale_stabilization="30s",fast="true",namespace="shoong",profile="shoong"} 1
`)))
}

func TestResponsesCollector(t *testing.T) {
	t.Parallel()
	snap := Snapshot{Responses: Responses{
		StartupGap: 12500 * time.Millisecond,
		Services:   []ServiceResponses{{Service: "order"}},
		Counts: []ResponseCount{
			{Service: "order", Code: 200, Count: 90},
			{Service: "order", Code: 200, StartupGap: true, Count: 5},
			{Service: "order", Code: 504, StartupGap: true, Count: 7},
		},
	}}
	reg := registryFor(t, newResponsesCollector(func() Snapshot { return snap }))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP tidemark_sim_responses_total Answers of the simulated cluster to requests sent to its service endpoints, by the service, the HTTP status code, and whether some HPA's status current replicas exceeded its Deployment's ready replicas when the answer was sent (startup_gap).
# TYPE tidemark_sim_responses_total counter
tidemark_sim_responses_total{code="200",service="order",startup_gap="false"} 90
tidemark_sim_responses_total{code="200",service="order",startup_gap="true"} 5
tidemark_sim_responses_total{code="500",service="order",startup_gap="false"} 0
tidemark_sim_responses_total{code="500",service="order",startup_gap="true"} 0
tidemark_sim_responses_total{code="502",service="order",startup_gap="false"} 0
tidemark_sim_responses_total{code="502",service="order",startup_gap="true"} 0
tidemark_sim_responses_total{code="503",service="order",startup_gap="false"} 0
tidemark_sim_responses_total{code="503",service="order",startup_gap="true"} 0
tidemark_sim_responses_total{code="504",service="order",startup_gap="false"} 0
tidemark_sim_responses_total{code="504",service="order",startup_gap="true"} 7
# HELP tidemark_sim_startup_gap_seconds_total Simulated time during which some HPA's status current replicas exceeded its Deployment's ready replicas.
# TYPE tidemark_sim_startup_gap_seconds_total counter
tidemark_sim_startup_gap_seconds_total 12.5
`)))
}

// TestCollectorsOverLiveCluster lints every exporter over a cluster that has scaled, so
// pending, terminating and throttled pods are all exposed without collisions.
func TestCollectorsOverLiveCluster(t *testing.T) {
	t.Parallel()
	c, err := NewCluster(mustLoad(t, "../../examples/cluster-shoong.yaml"), simStart)
	require.NoError(t, err)
	openLoop(t, c, "order", 4*time.Minute, func(d time.Duration) float64 {
		if d < time.Minute {
			return 10
		}
		return 60
	}, nil)
	snap := func() Snapshot { return c.Snapshot() }
	reg := registryFor(t, newInfoCollector("shoong", "shoong", false, 5*time.Minute), newResponsesCollector(snap), newKSMCollector(snap), newCadvisorCollector(snap), newRDSCollector(snap))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	var unexpected []string
	for _, p := range problems {
		// YACE's dimension labels are CamelCase (dimension_DBInstanceIdentifier); keep them.
		if strings.HasPrefix(p.Metric, "aws_rds_") && strings.Contains(p.Text, "camelCase") {
			continue
		}
		unexpected = append(unexpected, p.Metric+": "+p.Text)
	}
	require.Empty(t, unexpected)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]bool{}
	for _, mf := range mfs {
		got[mf.GetName()] = true
	}
	for _, name := range []string{
		"kube_horizontalpodautoscaler_info", "kube_horizontalpodautoscaler_spec_min_replicas", "kube_horizontalpodautoscaler_spec_max_replicas",
		"kube_horizontalpodautoscaler_spec_target_metric", "kube_horizontalpodautoscaler_status_target_metric",
		"kube_horizontalpodautoscaler_status_current_replicas", "kube_horizontalpodautoscaler_status_desired_replicas",
		"kube_deployment_spec_replicas", "kube_deployment_status_replicas", "kube_deployment_status_replicas_ready",
		"kube_deployment_status_replicas_available", "kube_pod_info", "kube_pod_created", "kube_pod_status_ready",
		"kube_pod_status_ready_time", "kube_pod_owner", "kube_replicaset_owner", "kube_pod_container_resource_requests",
		"kube_pod_container_resource_limits", "container_cpu_usage_seconds_total", "container_cpu_cfs_periods_total",
		"container_cpu_cfs_throttled_periods_total", "container_cpu_cfs_throttled_seconds_total", "container_spec_cpu_quota",
		"container_spec_cpu_period", "container_memory_working_set_bytes", "aws_rds_cpuutilization_average",
		"aws_rds_database_connections_average", "aws_rds_cpucredit_balance_average", "aws_rds_freeable_memory_average",
		"tidemark_sim_info", "tidemark_sim_responses_total", "tidemark_sim_startup_gap_seconds_total",
	} {
		require.True(t, got[name], "missing %s", name)
	}
	d, ok := c.Deployment("order")
	require.True(t, ok)
	require.Equal(t, 5, d.SpecReplicas)
	require.Equal(t, int32(5), d.HPA.CurrentReplicas)
}
