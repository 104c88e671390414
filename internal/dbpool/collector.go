package dbpool

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// prismaBucketsMS are the bucket bounds (milliseconds) of Prisma's metrics-preview
// histograms: le 0, 1, 5, 10, 50, 100, 500, 1000, 5000, 50000 and +Inf.
var prismaBucketsMS = [...]float64{0, 1, 5, 10, 50, 100, 500, 1000, 5000, 50000}

var _ prometheus.Collector = (*Pool)(nil)

// Describe sends the descriptors of the configured naming scheme.
func (p *Pool) Describe(ch chan<- *prometheus.Desc) { p.collector.Describe(ch) }

// Collect sends the pool's state under the configured naming scheme.
func (p *Pool) Collect(ch chan<- prometheus.Metric) { p.collector.Collect(ch) }

// newCollector returns the collector of the configured scheme.
func (p *Pool) newCollector() prometheus.Collector {
	switch p.cfg.Metrics {
	case MetricsHikariCP:
		name := p.cfg.Name
		if name == "" {
			name = DefaultHikariPoolName
		}
		return newHikariCollector(p, name)
	case MetricsPrisma:
		return newPrismaCollector(p)
	default:
		name := p.cfg.Name
		if name == "" {
			name = p.dbName
		}
		// client_golang's own collector: go_sql_* with the constant label db_name.
		return collectors.NewDBStatsCollector(p.db, name)
	}
}

// hikariCollector names the pool as HikariCP's MicrometerMetricsTracker does, rendered
// by Micrometer's Prometheus registry: gauges hikaricp_connections{,_active,_idle,
// _pending,_max,_min}, the counter hikaricp_connections_timeout_total and the timers
// hikaricp_connections_{acquire,usage,creation}_seconds (count and sum), all with the
// label pool.
type hikariCollector struct {
	p                                        *Pool
	total, active, idle, pending, maxC, minC *prometheus.Desc
	timeout, acquire, usage, creation        *prometheus.Desc
	acquireT, usageT, creationT              *timing
	poolName                                 string
}

func newHikariCollector(p *Pool, poolName string) *hikariCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, []string{"pool"}, nil)
	}
	return &hikariCollector{
		p: p, poolName: poolName, acquireT: p.acquire, usageT: p.usage, creationT: p.creation,
		total:    d("hikaricp_connections", "Total connections"),
		active:   d("hikaricp_connections_active", "Active connections"),
		idle:     d("hikaricp_connections_idle", "Idle connections"),
		pending:  d("hikaricp_connections_pending", "Pending threads"),
		maxC:     d("hikaricp_connections_max", "Max connections"),
		minC:     d("hikaricp_connections_min", "Min connections"),
		timeout:  d("hikaricp_connections_timeout_total", "Connection timeout total count"),
		acquire:  d("hikaricp_connections_acquire_seconds", "Connection acquire time"),
		usage:    d("hikaricp_connections_usage_seconds", "Connection usage time"),
		creation: d("hikaricp_connections_creation_seconds", "Connection creation time"),
	}
}

func (c *hikariCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.total, c.active, c.idle, c.pending, c.maxC, c.minC, c.timeout, c.acquire, c.usage, c.creation} {
		ch <- d
	}
}

func (c *hikariCollector) Collect(ch chan<- prometheus.Metric) {
	st, waiting := c.p.Stats()
	g := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, c.poolName)
	}
	g(c.total, float64(st.OpenConnections))
	g(c.active, float64(st.InUse))
	g(c.idle, float64(st.Idle))
	g(c.pending, float64(waiting))
	g(c.maxC, float64(c.p.cfg.Size))
	g(c.minC, float64(c.p.cfg.Min))
	ch <- prometheus.MustNewConstMetric(c.timeout, prometheus.CounterValue, float64(c.p.timeouts.Load()), c.poolName)
	for _, t := range []struct {
		d *prometheus.Desc
		t *timing
	}{{c.acquire, c.acquireT}, {c.usage, c.usageT}, {c.creation, c.creationT}} {
		n, sum, _ := t.t.snapshot()
		ch <- prometheus.MustNewConstSummary(t.d, n, sum.Seconds(), nil, c.poolName)
	}
}

// prismaCollector names the pool as Prisma's metrics preview ($metrics.prometheus())
// does: no labels (Prisma adds only the caller's globalLabels).
type prismaCollector struct {
	p                                                *Pool
	clientQueries, datasourceQueries, opened, closed *prometheus.Desc
	open, busy, idle, wait, active                   *prometheus.Desc
	clientDuration, waitDuration, datasourceDuration *prometheus.Desc
}

func newPrismaCollector(p *Pool) *prismaCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return &prismaCollector{
		p:                  p,
		clientQueries:      d("prisma_client_queries_total", "Total number of Prisma Client queries executed"),
		datasourceQueries:  d("prisma_datasource_queries_total", "Total number of Datasource Queries executed"),
		opened:             d("prisma_pool_connections_opened_total", "Total number of Pool Connections opened"),
		closed:             d("prisma_pool_connections_closed_total", "Total number of Pool Connections closed"),
		open:               d("prisma_pool_connections_open", "Number of currently open Pool Connections"),
		busy:               d("prisma_pool_connections_busy", "Number of currently busy Pool Connections (executing a database query)"),
		idle:               d("prisma_pool_connections_idle", "Number of currently unused Pool Connections (waiting for the next pool query to run)"),
		wait:               d("prisma_client_queries_wait", "Number of queries currently waiting for a connection"),
		active:             d("prisma_client_queries_active", "Number of currently active Prisma Client queries"),
		clientDuration:     d("prisma_client_queries_duration_histogram_ms", "Histogram of the duration of all executed Prisma Client queries in ms"),
		waitDuration:       d("prisma_client_queries_wait_histogram_ms", "Histogram of the wait time of all queries in ms"),
		datasourceDuration: d("prisma_datasource_queries_duration_histogram_ms", "Histogram of the duration of all executed Datasource Queries in ms"),
	}
}

func (c *prismaCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.clientQueries, c.datasourceQueries, c.opened, c.closed, c.open, c.busy, c.idle,
		c.wait, c.active, c.clientDuration, c.waitDuration, c.datasourceDuration} {
		ch <- d
	}
}

func (c *prismaCollector) Collect(ch chan<- prometheus.Metric) {
	st, waiting := c.p.Stats()
	opened := c.p.opened.Load()
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	// A request is one Prisma Client query; each SQL statement it runs is a
	// datasource query.
	requests, _, _ := c.p.requestTime.snapshot()
	counter(c.clientQueries, float64(requests))
	counter(c.datasourceQueries, float64(c.p.queries.Load()))
	counter(c.opened, float64(opened))
	// Connections leave the pool only by being closed.
	counter(c.closed, float64(max(opened-int64(st.OpenConnections), 0)))
	gauge(c.open, float64(st.OpenConnections))
	gauge(c.busy, float64(st.InUse))
	gauge(c.idle, float64(st.Idle))
	gauge(c.wait, float64(waiting))
	gauge(c.active, float64(c.p.inFlight.Load()))
	for _, h := range []struct {
		d *prometheus.Desc
		t *timing
	}{{c.clientDuration, c.p.requestTime}, {c.waitDuration, c.p.acquire}, {c.datasourceDuration, c.p.queryTime}} {
		n, sum, buckets := h.t.snapshot()
		ch <- prometheus.MustNewConstHistogram(h.d, n, float64(sum.Microseconds())/1000, buckets)
	}
}
