// Package cadvisor serves the cAdvisor series a kubelet serves on /metrics/cadvisor
// (container_cpu_usage_seconds_total, container_cpu_cfs_periods_total,
// container_cpu_cfs_throttled_periods_total, container_cpu_cfs_throttled_seconds_total,
// container_spec_cpu_quota, container_spec_cpu_period, container_spec_cpu_shares,
// container_memory_working_set_bytes and the rest of cAdvisor's cpu, memory and process
// sets) for the cgroups under one subtree, computed by cAdvisor's own library
// (github.com/google/cadvisor/lib, the code the kubelet embeds).
//
// From cAdvisor come the reading and the serving: each cgroup is read by the handler
// cAdvisor's raw container factory uses (libcontainer.Handler.GetStats: cpu.stat,
// cpuacct.usage, memory.stat... through opencontainers/cgroups) and by its spec reader
// (common.GetSpec: cfs_quota_us, cfs_period_us and shares, or cpu.max and cpu.weight on
// v2), and served by cAdvisor's PrometheusCollector (names, help, units, the conditions
// such as "cfs series only with a quota", sample timestamps) with the kubelet's six
// labels: id (the cgroup path), name, image, namespace, pod, container, the last five
// from the caller's LabelsFunc, which also decides which cgroups are reported.
//
// What is ours is only when the reading happens: at each gather, for the cgroups found
// under the subtree at that moment. The kubelet instead runs cAdvisor's manager, whose
// housekeeping reads every cgroup every 10 s into a cache that scrapes are served
// from. We tried that manager first and left it, because in a library used by a
// process that starts and stops runs:
//   - its container factories, intervals and logger are package variables of cAdvisor
//     (and klog), so one manager per process, and a second one started after the first
//     stopped races (go test -race) with the first one's goroutines;
//   - its Stop does not end the housekeeping goroutines of cgroups that still exist, nor
//     the root cgroup's, which then read the root cgroup every second until exit;
//   - it watches the whole machine's cgroup hierarchy with inotify, not our subtree.
//
// Reading at gather time also makes the values as fresh as the scrape: a counter equals
// what the kernel's cpu.stat said between the start and the end of the gather.
//
// cAdvisor logs through klog, to stderr unless main calls RouteKlog once.
package cadvisor
