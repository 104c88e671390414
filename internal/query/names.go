package query

// Query names the detectors of internal/analysis read from a timeline: a catalog must
// define each one in DetectorQueries.
const (
	QScenarioTarget = "scenario_target"
	// QScenarioTargetInstances is the target per scenario and instance (instance_id);
	// optional (a catalog from an older version lacks it).
	QScenarioTargetInstances = "scenario_target_instances"
	QHTTPReqs                = "http_reqs"
	QHTTPFailures            = "http_failures"
	QHTTPReqRate             = "http_req_rate"
	QIterations              = "iterations"
	// QIterationsRaw is k6_iterations_total's raw samples, at k6's own stamps, read for a
	// run without tidemark_scenario_target: its stages are inferred from them, and its
	// stages' iterations counted on them.
	QIterationsRaw = "iterations_raw"
	// QHTTPReqsRaw and QDroppedRaw are k6_http_reqs_total's and
	// k6_dropped_iterations_total's raw samples, read with QIterationsRaw: the stages'
	// requests, failures and drops are counted on them.
	QHTTPReqsRaw      = "http_reqs_raw"
	QDroppedRaw       = "dropped_iterations_raw"
	QDropped          = "dropped_iterations"
	QVUs              = "vus"
	QLatencyP50       = "latency_p50"
	QLatencyP95       = "latency_p95"
	QLatencyP99       = "latency_p99"
	QHPADeployment    = "hpa_deployment"
	QHPACurrent       = "hpa_current"
	QHPADesired       = "hpa_desired"
	QHPAMin           = "hpa_min"
	QHPAMax           = "hpa_max"
	QHPATargetMetric  = "hpa_target_metric"
	QHPAStatusMetric  = "hpa_status_metric"
	QHPATolerance     = "hpa_tolerance"
	QDeploymentSpec   = "deployment_spec_replicas"
	QDeploymentReady  = "deployment_ready"
	QPodCreated       = "pod_created"
	QPodReadyTime     = "pod_ready_time"
	QPodReady         = "pod_ready"
	QCPUUsagePod      = "cpu_usage_pod"
	QCPURequestPod    = "cpu_request_pod"
	QCPULimitPod      = "cpu_limit_pod"
	QCPUCFSPeriods    = "cpu_cfs_periods"
	QCPUThrottled     = "cpu_throttled_ratio"
	QRDSCPU           = "rds_cpu"
	QRDSConnections   = "rds_connections"
	QRDSCreditBalance = "rds_credit_balance"
	QRDSFreeableMem   = "rds_freeable_memory"
)

// Query names of the optional database sources (postgres_exporter, mysqld_exporter) and
// the application's pool: a catalog without them correlates without those facts.
const (
	QPGConnections       = "pg_connections"
	QPGMaxConnections    = "pg_max_connections"
	QMySQLConnections    = "mysql_connections"
	QMySQLThreadsRunning = "mysql_threads_running"
	QMySQLMaxConnections = "mysql_max_connections"
	QPoolBusy            = "pool_busy"
	QPoolSize            = "pool_size"
	QPoolPending         = "pool_pending"
	QPoolWaits           = "pool_waits"
	// Memory (cAdvisor + kube-state-metrics): a catalog without them leaves memory
	// unjudged.
	QMemoryWorkingSet = "memory_working_set_pod"
	QMemoryLimit      = "memory_limit_pod"
	QMemoryOfLimit    = "memory_of_limit_pod"
	QRestarts         = "restarts_pod"
	QOOMKilled        = "oom_killed_pod"
	// The load generator's own CPU (tidemark_load_generator_cpu_*): its share of the
	// cores it may use, and those cores, per instance_id. A catalog without them, or a
	// run k6 made, judges the load generator by its drops alone.
	QLoadGeneratorCPU      = "load_generator_cpu"
	QLoadGeneratorCPUCores = "load_generator_cpu_cores"
	// QBrowserScenarios is one series per scenario that wrote k6/browser's metrics
	// (k6_browser_*): the browser scenarios, whose VUs drive Chromium and are not load.
	// A catalog without it knows them by their Web Vitals alone.
	QBrowserScenarios = "browser_scenarios"
)

// DetectorQueries returns the names of the queries the detectors read: a catalog must
// define each of them.
func DetectorQueries() []string {
	return []string{
		QScenarioTarget, QHTTPReqs, QHTTPFailures, QHTTPReqRate, QIterations, QDropped, QVUs,
		QLatencyP50, QLatencyP95, QLatencyP99, QHPADeployment, QHPACurrent, QHPADesired, QHPAMin,
		QHPAMax, QHPATargetMetric, QHPAStatusMetric, QHPATolerance, QDeploymentSpec, QDeploymentReady,
		QPodCreated, QPodReadyTime, QPodReady, QCPUUsagePod, QCPURequestPod, QCPULimitPod,
		QCPUCFSPeriods, QCPUThrottled, QRDSCPU, QRDSConnections, QRDSCreditBalance, QRDSFreeableMem,
	}
}

// Source names, as in the catalog.
const (
	SourceK6       = "k6"
	SourceKSM      = "ksm"
	SourceCAdvisor = "cadvisor"
	SourceRDS      = "rds"
	// SourcePostgres, SourceMySQL and SourcePool are optional: a catalog may lack them.
	SourcePostgres = "postgres"
	SourceMySQL    = "mysql"
	SourcePool     = "pool"
)

// RequiredSources returns the source names the queries refer to: a catalog must define
// each of them.
func RequiredSources() []string { return []string{SourceK6, SourceKSM, SourceCAdvisor, SourceRDS} }
