// Package sim is Tidemark's simulated cluster: Deployments whose pods serve requests under
// CFS bandwidth control, HorizontalPodAutoscalers computed as the Kubernetes controller
// computes them, metrics-server samples, pod start-up with readiness probes, and an
// RDS-like database with per-pod connection pools and burstable CPU credits.
//
// Every behaviour comes from the mechanism, not from a script: the HPA (package hpa) sees
// only what metrics-server would report, scales the Deployment, new pods take their drawn
// start-up time before they are Ready and get traffic (and run cold for a warm-up), CPU
// work beyond a container's quota waits for the next 100 ms period (package cfs), queries
// wait for pool connections, a container whose working set reaches its memory limit is
// OOM-killed and restarts, and an optional Envoy proxy in front of a service answers 503
// beyond its circuit breaker and 504 past its route timeout. Every failure carries the
// resource that made it fail, judged from the model's state when it is answered
// (Result.Cause, Responses.Failures; causes.go). docs/simulator.md describes the model
// and how it compares with seed story 1.
//
// A new Cluster is one that has been running: its pods are Ready, each HPA's status reads as
// after an earlier sync (current = desired = the Deployment's replicas, the pods' idle CPU as
// its metric), metrics-server holds two earlier samples and CloudWatch an idle period, so
// every metric is consistent from the first scrape.
//
// # Time
//
// Cluster is pure and clock-free: it moves only when Step or Advance is called, in steps
// of StepDuration (5 ms, one CFS bandwidth slice). Tests drive it in simulated time.
// Server runs a Cluster in real time: a ticker advances the model to the injected clock,
// each service gets a loopback HTTP endpoint whose requests are held for their simulated
// time and answered 200 or 5xx (or never, until the client gives up), and the metrics
// endpoint serves:
//
//   - /metrics: everything below plus tidemark_sim_info{profile,namespace,fast,downscale_stabilization}
//     and the simulator's ground truth (Snapshot.Responses): tidemark_sim_responses_total{service,code,startup_gap}
//     and tidemark_sim_startup_gap_seconds_total;
//   - /metrics/kube-state-metrics: kube_horizontalpodautoscaler_{info,metadata_generation,spec_min_replicas,
//     spec_max_replicas,spec_target_metric,status_target_metric,status_current_replicas,status_desired_replicas,
//     status_condition}, kube_deployment_{spec_replicas,status_replicas,status_replicas_ready,
//     status_replicas_available,status_replicas_unavailable,status_replicas_updated,metadata_generation,
//     status_observed_generation}, kube_replicaset_{owner,spec_replicas,status_replicas,status_ready_replicas},
//     kube_pod_{info,created,start_time,status_scheduled_time,status_phase,status_ready,status_ready_time,owner,
//     container_resource_requests,container_resource_limits,container_status_ready,
//     container_status_restarts_total,container_status_last_terminated_reason,deletion_timestamp};
//   - /metrics/cadvisor: container_cpu_usage_seconds_total, container_cpu_cfs_periods_total,
//     container_cpu_cfs_throttled_periods_total, container_cpu_cfs_throttled_seconds_total,
//     container_spec_cpu_quota, container_spec_cpu_period, container_spec_cpu_shares,
//     container_memory_working_set_bytes, per container and for the pod cgroup (container="");
//   - /metrics/rds: aws_rds_cpuutilization_average, aws_rds_database_connections_average,
//     aws_rds_cpucredit_balance_average, aws_rds_freeable_memory_average and aws_rds_info, named and
//     labelled as YACE does (dimension_DBInstanceIdentifier), updated once per CloudWatch period.
//
// # Profiles
//
// A Profile is YAML (every field with its default: testdata/reference-profile.yaml; examples:
// examples/cluster-*.yaml). LoadProfile decodes it with unknown
// fields rejected and reports errors as "file:line: field: what was expected".
package sim
