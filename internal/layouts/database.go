package layouts

import (
	"fmt"
	"hash/fnv"
	"math"
	"time"
)

// DBExporter is the database exporter whose series the fixture has besides RDS's: the
// server's connections and max_connections, with the label sets Debian's exporters give
// (internal/analysis/testdata/*-exporter.prom were recorded from them).
type DBExporter int

// The database exporters.
const (
	// NoDBExporter (the zero value): RDS through CloudWatch only.
	NoDBExporter DBExporter = iota
	// PostgresExporter is postgres_exporter 0.11: pg_stat_activity_count{datname, state,
	// server} (every database of the server and every state, zeros included),
	// pg_settings_max_connections{server}, pg_up. Its own two connections count.
	PostgresExporter
	// MySQLExporter is mysqld_exporter 0.14: mysql_global_status_threads_connected,
	// _threads_running, _max_used_connections, mysql_global_variables_max_connections,
	// mysql_up, without labels of their own. Its own connection counts while it scrapes.
	MySQLExporter
)

func (e DBExporter) String() string {
	switch e {
	case NoDBExporter:
		return "no-db-exporter"
	case PostgresExporter:
		return "postgres-exporter"
	case MySQLExporter:
		return "mysqld-exporter"
	}
	return fmt.Sprintf("DBExporter(%d)", int(e))
}

// PoolKind is the connection pool the application's pods expose metrics of.
type PoolKind int

// The pools.
const (
	// NoPool (the zero value): the pods expose no pool metrics.
	NoPool PoolKind = iota
	// HikariCP through Micrometer's Prometheus registry: hikaricp_connections{,_active,
	// _idle,_pending,_max,_min}{pool="HikariPool-1"}; the pool keeps its maximum open
	// (minimumIdle defaults to maximumPoolSize).
	HikariCP
	// Prisma's metrics preview: prisma_pool_connections_{busy,idle,open} and
	// prisma_client_queries_wait, without a pool size (connection_limit is in the URL).
	Prisma
	// GoSQL is Go's database/sql through client_golang's collectors.NewDBStatsCollector:
	// go_sql_{open,in_use,idle,max_open}_connections and go_sql_wait_count_total, label
	// db_name; the pool keeps two idle connections (database/sql's default).
	GoSQL
)

func (p PoolKind) String() string {
	switch p {
	case NoPool:
		return "no-pool"
	case HikariCP:
		return "hikaricp"
	case Prisma:
		return "prisma"
	case GoSQL:
		return "go-sql"
	}
	return fmt.Sprintf("PoolKind(%d)", int(p))
}

// Story 1's database side. Each request holds a connection for half a second, so the
// order pods' demand is target ÷ ready pods × 0.5: at 50/s on the two pods Ready before
// the scale-up, 12.5 per pod of a pool of 10, and queries wait until the new pods are
// Ready.
const (
	PoolInterval  = 15 // pods' metrics scrape interval
	PoolOffset    = 5  // the pods are scraped 5 s after the k6 push grid
	DBInterval    = 15 // the database exporter's scrape interval
	DBOffset      = 9
	PoolSize      = 10  // HikariCP's maximumPoolSize, database/sql's SetMaxOpenConns
	PrismaLimit   = 5   // Prisma's connection_limit (not exported; params.db_pool_per_pod)
	queryHold     = 0.5 // seconds a request holds a connection
	otherClients  = 3   // connections of other clients of the server (psql, a cron job)
	goIdle        = 2   // database/sql's default MaxIdleConns
	pgMaxConns    = 100
	mysqlMaxConns = 151 // MariaDB's default
	dbPort        = "5432"
)

// DBTruth is the database side of a fixture with a DBExporter or a pool.
type DBTruth struct {
	// Server is the server's name as the correlator reports it (postgres_exporter's
	// server label, else the exporter's instance); zero without a DB exporter.
	Server          string
	MaxConnections  float64
	ConnectionsPeak float64
	ConnectionsAt   time.Time
	// PoolSize is each pod's pool size (for Prisma, the value to give as
	// params.db_pool_per_pod); BusyPeak, BusyShare and PendingPeak are all the order
	// pods' pools together, at their scrapes; WaitersFirst is the first scrape in the run
	// that showed a waiter (zero when none).
	PoolSize     float64
	BusyPeak     float64
	BusyShare    float64
	PendingPeak  float64
	WaitersFirst time.Time
}

// poolState is one order pod's pool at an offset.
type poolState struct{ busy, pending, open, size float64 }

func (s story) readyPods(r float64) []pod {
	var out []pod
	for _, p := range s.pods() {
		if p.deployment == hpaName && r >= p.ready && r < p.deleted {
			out = append(out, p)
		}
	}
	return out
}

// pool is p's pool at offset r, ok false while the pod does not exist.
func (s story) pool(kind PoolKind, p pod, r float64) (poolState, bool) {
	if r < p.created || r >= p.deleted {
		return poolState{}, false
	}
	size := float64(PoolSize)
	if kind == Prisma {
		size = PrismaLimit
	}
	st := poolState{size: size}
	if r >= p.ready {
		demand := math.Ceil(s.target(r) / float64(len(s.readyPods(r))) * queryHold)
		st.busy, st.pending = math.Min(demand, size), math.Max(0, demand-size)
	}
	switch kind {
	case HikariCP:
		st.open = size
	default:
		st.open = math.Min(size, st.busy+goIdle)
	}
	return st, true
}

// connections are the server's connections at r: the order pods' open pool connections,
// other clients and the exporter's own.
func (s story) connections(o Options, r float64) float64 {
	n := float64(otherClients)
	switch o.DBExporter {
	case PostgresExporter:
		n += 2
	case MySQLExporter:
		n++
	}
	if o.Pool != NoPool {
		for _, p := range s.pods() {
			if st, ok := s.pool(o.Pool, p, r); ok && p.deployment == hpaName {
				n += st.open
			}
		}
	}
	return n
}

// dbHost is the fixture's database host, one per namespace so that fixtures sharing a
// Prometheus keep their servers apart.
func dbHost(ns string) string { return ns + "-db" }

// exporterIP is the exporter pod's address, one per namespace.
func exporterIP(ns string, e DBExporter) string {
	h := fnv.New32a()
	h.Write([]byte(ns))
	return fmt.Sprintf("10.2.%d.%d", 2+int(e), 10+h.Sum32()%200)
}

// dbJob is the scrape job of the database exporter. The charts prometheus-postgres-exporter
// and prometheus-mysql-exporter under kube-prometheus-stack (and vmagent, and Alloy's
// ServiceMonitor support) are scraped through their ServiceMonitor (§1.1: job is the
// Service's name); the prometheus chart through the Service's prometheus.io/scrape
// annotation (§2); Minimal is a plain static job as Debian's prometheus.yml names them.
func (s scraper) dbJob(o Options) *job {
	port, release, chart := "9187", "postgres-exporter", "prometheus-postgres-exporter"
	if o.DBExporter == MySQLExporter {
		port, release, chart = "9104", "mysql-exporter", "prometheus-mysql-exporter"
	}
	svc := release + "-" + chart
	addr := exporterIP(o.Namespace, o.DBExporter) + ":" + port
	j := &job{sorted: s.layout != Minimal, external: s.external()}
	switch s.layout {
	case Minimal:
		static := "postgres"
		if o.DBExporter == MySQLExporter {
			static = "mysqld"
		}
		j.target, j.honor = lbl("job", static, "instance", addr), true
	case KubePrometheusStack, VMK8sStack, K8sMonitoring:
		j.target = lbl("job", svc, "instance", addr, "namespace", monitoringNamespace,
			"pod", svc+"-5d8f7c9b6-"+o.Namespace[:min(len(o.Namespace), 5)], "service", svc, "endpoint", "http", "container", chart)
	case PrometheusChart, PrometheusChart15:
		j.target = append(lbl("job", "kubernetes-service-endpoints", "instance", addr,
			"namespace", monitoringNamespace, "service", svc, "node", ksmNode), chartServiceLabels(chart, release, "v0.15.0", chart+"-6.4.0")...)
		j.honor = s.layout == PrometheusChart
	case NoJob:
		j.target, j.honor = lbl("instance", addr), true
	}
	return j
}

// poolJob is the scrape job of the application's pods: a PodMonitor (job
// <namespace>/<name>, §1.1) under the operator's stacks, the prometheus chart's
// kubernetes-pods job through the pods' annotations (§2), Alloy's annotation
// autodiscovery (grafana/k8s-monitoring-helm feature-annotation-autodiscovery), Minimal's
// plain job.
func (s scraper) poolJob(ns string, p pod) *job {
	node := nodes()[p.node]
	ip := fmt.Sprintf("10.1.%d.%d", len(p.name), 20+int(p.name[len(p.name)-1]-'a'))
	addr := ip + ":8080"
	j := &job{sorted: s.layout != Minimal, external: s.external(), honor: true}
	switch s.layout {
	case Minimal:
		j.target = lbl("job", "app", "namespace", ns, "pod", p.name)
	case KubePrometheusStack, VMK8sStack:
		j.target = lbl("job", ns+"/"+p.deployment, "instance", addr, "namespace", ns, "pod", p.name, "container", "app", "endpoint", "metrics")
		j.honor = false
	case PrometheusChart, PrometheusChart15:
		j.target = lbl("job", "kubernetes-pods", "instance", addr, "namespace", ns, "pod", p.name, "node", node.name,
			"app", p.deployment, "pod_template_hash", p.rs[len(p.deployment)+1:])
	case K8sMonitoring:
		// feature-annotation-autodiscovery (_pods.alloy.tpl): job is the k8s.grafana.com/job
		// annotation, else the pod's app.kubernetes.io/name or app label, else the
		// container's name; pod, container and namespace from the pod.
		j.target = lbl("job", p.deployment, "instance", addr, "namespace", ns, "pod", p.name, "container", "app")
		j.honor = false
	case NoJob:
		j.target = lbl("instance", addr, "namespace", ns, "pod", p.name)
	}
	return j
}

// writeDB writes the database exporter's and the pods' pool series, and returns their
// truth, read at the samples written.
func writeDB(w *omWriter, o Options, st story, sc scraper) DBTruth {
	var t DBTruth
	from, to := -float64(windowBefore), float64(windowAfter)
	if o.DBExporter != NoDBExporter {
		j := sc.dbJob(o)
		add := func(name string, ls []label, f func(r float64) float64) {
			if out, ok := j.apply(name, ls); ok {
				w.add(st, name, out, from, to, DBInterval, DBOffset, func(r float64) (float64, bool) { return f(r), true })
			}
		}
		conns := func(r float64) float64 { return st.connections(o, r) + st.dbExtra }
		switch o.DBExporter {
		case PostgresExporter:
			server := dbHost(o.Namespace) + ":" + dbPort
			t.Server, t.MaxConnections = server, pgMaxConns
			add("pg_up", nil, func(float64) float64 { return 1 })
			add("pg_settings_max_connections", lbl("server", server), func(float64) float64 { return pgMaxConns })
			for _, db := range []string{"postgres", o.Namespace, "template0", "template1"} {
				for _, state := range []string{"active", "disabled", "fastpath function call", "idle", "idle in transaction", "idle in transaction (aborted)"} {
					ls := lbl("datname", db, "server", server, "state", state)
					add("pg_stat_activity_count", ls, func(r float64) float64 {
						switch {
						case db == "postgres" && state == "idle":
							return 2 // the exporter's own connections, idle between scrapes
						case db == o.Namespace && state == "idle":
							return conns(r) - 2 - busyAll(o, st, r)
						case db == o.Namespace && state == "active":
							return busyAll(o, st, r)
						}
						return 0
					})
				}
			}
		case MySQLExporter:
			t.Server, t.MaxConnections = exporterIP(o.Namespace, o.DBExporter)+":9104", mysqlMaxConns
			add("mysql_up", nil, func(float64) float64 { return 1 })
			add("mysql_global_variables_max_connections", nil, func(float64) float64 { return mysqlMaxConns })
			add("mysql_global_status_threads_connected", nil, conns)
			add("mysql_global_status_threads_running", nil, func(r float64) float64 { return busyAll(o, st, r) + 1 })
			peak := 0.0
			add("mysql_global_status_max_used_connections", nil, func(r float64) float64 { peak = math.Max(peak, conns(r)); return peak })
		}
		for k := 0; ; k++ {
			r := from + DBOffset + float64(k)*DBInterval
			if r > to {
				break
			}
			if v := conns(r); v > t.ConnectionsPeak {
				t.ConnectionsPeak, t.ConnectionsAt = v, st.at(r)
			}
		}
	}
	if o.Pool != NoPool {
		writePools(w, o, st, sc, &t)
	}
	return t
}

// busyAll is the order pods' connections in use at r.
func busyAll(o Options, st story, r float64) float64 {
	if o.Pool == NoPool {
		return 0
	}
	var n float64
	for _, p := range st.pods() {
		if s, ok := st.pool(o.Pool, p, r); ok && p.deployment == hpaName {
			n += s.busy
		}
	}
	return n
}

func writePools(w *omWriter, o Options, st story, sc scraper, t *DBTruth) {
	from, to := -float64(windowBefore), float64(windowAfter)
	var order []pod
	for _, p := range st.pods() {
		if p.deployment == hpaName {
			order = append(order, p)
		}
	}
	for _, p := range order {
		j := sc.poolJob(o.Namespace, p)
		add := func(name string, ls []label, f func(s poolState) float64) {
			out, ok := j.apply(name, ls)
			if !ok {
				return
			}
			w.add(st, name, out, from, to, PoolInterval, PoolOffset, func(r float64) (float64, bool) {
				s, ok := st.pool(o.Pool, p, r)
				return f(s), ok
			})
		}
		switch o.Pool {
		case HikariCP:
			pl := lbl("pool", "HikariPool-1")
			add("hikaricp_connections", pl, func(s poolState) float64 { return s.open })
			add("hikaricp_connections_active", pl, func(s poolState) float64 { return s.busy })
			add("hikaricp_connections_idle", pl, func(s poolState) float64 { return s.open - s.busy })
			add("hikaricp_connections_pending", pl, func(s poolState) float64 { return s.pending })
			add("hikaricp_connections_max", pl, func(s poolState) float64 { return s.size })
			add("hikaricp_connections_min", pl, func(s poolState) float64 { return s.size })
		case Prisma:
			add("prisma_pool_connections_open", nil, func(s poolState) float64 { return s.open })
			add("prisma_pool_connections_busy", nil, func(s poolState) float64 { return s.busy })
			add("prisma_pool_connections_idle", nil, func(s poolState) float64 { return s.open - s.busy })
			add("prisma_client_queries_wait", nil, func(s poolState) float64 { return s.pending })
		case GoSQL:
			dl := lbl("db_name", o.Namespace)
			add("go_sql_open_connections", dl, func(s poolState) float64 { return s.open })
			add("go_sql_in_use_connections", dl, func(s poolState) float64 { return s.busy })
			add("go_sql_idle_connections", dl, func(s poolState) float64 { return s.open - s.busy })
			add("go_sql_max_open_connections", dl, func(s poolState) float64 { return s.size })
			// Waits begun: one per queued query per second while queries queue.
			waits := Cumulative(func(r float64) float64 { s, _ := st.pool(o.Pool, p, r); return s.pending }, math.Max(p.created, from))
			if out, ok := j.apply("go_sql_wait_count_total", dl); ok {
				w.add(st, "go_sql_wait_count_total", out, from, to, PoolInterval, PoolOffset, func(r float64) (float64, bool) {
					return math.Round(waits(r)), r >= p.created && r < p.deleted
				})
			}
		}
	}
	t.PoolSize = PoolSize
	if o.Pool == Prisma {
		t.PoolSize = PrismaLimit
	}
	for k := 0; ; k++ {
		r := from + PoolOffset + float64(k)*PoolInterval
		if r > to {
			break
		}
		var busy, pending, size float64
		for _, p := range order {
			if s, ok := st.pool(o.Pool, p, r); ok {
				busy, pending, size = busy+s.busy, pending+s.pending, size+s.size
			}
		}
		t.BusyPeak, t.PendingPeak = math.Max(t.BusyPeak, busy), math.Max(t.PendingPeak, pending)
		if size > 0 {
			t.BusyShare = math.Max(t.BusyShare, busy/size)
		}
		if pending > 0 && t.WaitersFirst.IsZero() && r >= 0 && r <= RunSeconds {
			t.WaitersFirst = st.at(r)
		}
	}
}
