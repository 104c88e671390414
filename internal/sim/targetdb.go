package sim

import (
	"strconv"
)

// TargetDBEnv is the environment variable `tidemark target` reads its database's DSN
// from (dbpool.DSNEnv; dbpool's tests check the two agree).
const TargetDBEnv = "TIDEMARK_DB_DSN"

// TargetDB returns the `tidemark target` flags and environment that give a process-
// runtime pod of svc its database pool: the profile's engine, the pool's size, warm
// connections, timeout and metric names, the request's db_queries, and each query's
// server-side time (query_latency + query_cpu: the query sleeps that long on the
// server). The DSN is the profile's database.dsn or, when that is empty, dsn (the
// server the runtime started); it goes into env, never into args, so it appears in no
// command line. pod names the pod's connections on the server (PostgreSQL's
// application_name), so pg_stat_activity can be matched to the pod.
//
// Both are nil when the pod runs no real queries: no database engine in the profile,
// or no db_queries in the service's default request (the process runtime applies one
// request cost to every path; endpoints' own db_queries are not modelled there).
func TargetDB(svc ServiceSpec, db *DatabaseSpec, dsn, pod string) (args, env []string) {
	if db == nil || db.Engine == "" || svc.Request.DBQueries <= 0 {
		return nil, nil
	}
	if db.DSN != "" {
		dsn = string(db.DSN)
	}
	driver := "postgres"
	if db.Engine == EngineMariaDB {
		driver = "mysql"
	}
	metrics := svc.Pool.Metrics
	if metrics == "" {
		metrics = PoolMetricsSQL
	}
	warm := 0
	if svc.Pool.Warm != nil {
		warm = *svc.Pool.Warm
	}
	args = []string{
		"--db.driver=" + driver,
		"--db.pool.size=" + strconv.Itoa(svc.Pool.Size),
		"--db.pool.min=" + strconv.Itoa(warm),
		"--db.pool.timeout=" + svc.Pool.Timeout.D().String(),
		"--db.pool.metrics=" + metrics,
		"--db.application-name=" + pod,
		"--db.queries=" + strconv.Itoa(svc.Request.DBQueries),
		"--db.query-time=" + (db.QueryLatency.D() + db.QueryCPU.D()).String(),
	}
	return args, []string{TargetDBEnv + "=" + dsn}
}
