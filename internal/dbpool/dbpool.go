// Package dbpool is the database connection pool of a `tidemark target` pod: a
// database/sql pool of a fixed size over a real PostgreSQL (pgx) or MySQL/MariaDB
// (go-sql-driver/mysql) server. Every request takes a connection, waiting while all
// are busy, runs its queries (each one a server-side sleep of the configured time) and
// gives the connection back. The pool's state is exposed under the metric names users
// scrape from their applications: HikariCP through Micrometer, Prisma's metrics preview,
// or Go's database/sql statistics (docs/pool-metrics.md lists them with their sources).
package dbpool

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"
)

// Drivers.
const (
	DriverPostgres = "postgres"
	DriverMySQL    = "mysql"
)

// Metric naming schemes of the pool.
const (
	MetricsHikariCP = "hikaricp"
	MetricsPrisma   = "prisma"
	MetricsSQL      = "sql"
)

// DSNEnv is the environment variable `tidemark target --db.dsn` is read from, so
// that credentials never appear on a command line.
const DSNEnv = "TIDEMARK_DB_DSN"

// DefaultHikariPoolName is HikariCP's name of an application's first unnamed pool.
const DefaultHikariPoolName = "HikariPool-1"

// Config is a pod's pool and the database work of one request.
type Config struct {
	// Driver is "postgres" or "mysql"; empty: no database.
	Driver string
	// DSN is the data source name in the driver's form (a secret).
	DSN string
	// Size is the pool's maximum number of connections (HikariCP maximumPoolSize,
	// Prisma connection_limit, database/sql SetMaxOpenConns).
	Size int
	// Min connections are opened at start and kept (HikariCP minimumIdle).
	Min int
	// Timeout bounds a request's wait for a connection (HikariCP connectionTimeout,
	// Prisma pool_timeout); a request that times out fails.
	Timeout time.Duration
	// Queries each request runs on its connection, one after the other.
	Queries int
	// QueryTime is each query's server-side time: SELECT pg_sleep(t) or SELECT SLEEP(t).
	QueryTime time.Duration
	// Metrics is the naming scheme of the pool's metrics: hikaricp, prisma or sql.
	Metrics string
	// Name is the pool label (HikariCP's pool, database/sql's db_name); empty:
	// HikariPool-1 for hikaricp, the database's name for sql.
	Name string
	// ApplicationName identifies the pod's connections on the server
	// (PostgreSQL application_name, MySQL connection attribute program_name).
	ApplicationName string
}

// Enabled reports whether the configuration asks for a database.
func (c Config) Enabled() bool { return c.Driver != "" }

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	switch c.Driver {
	case DriverPostgres, DriverMySQL:
	default:
		errs = append(errs, fmt.Errorf("--db.driver: expected %s or %s, got %q", DriverPostgres, DriverMySQL, c.Driver))
	}
	if c.DSN == "" {
		errs = append(errs, fmt.Errorf("--db.dsn: empty; set it through the environment variable %s", DSNEnv))
	}
	if c.Size < 1 || c.Size > 10000 {
		errs = append(errs, fmt.Errorf("--db.pool.size: expected 1 to 10000, got %d", c.Size))
	}
	if c.Min < 0 || c.Min > c.Size {
		errs = append(errs, fmt.Errorf("--db.pool.min: expected 0 to the pool size (%d), got %d", c.Size, c.Min))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--db.pool.timeout: expected a positive duration, got %s", c.Timeout))
	}
	if c.Queries < 0 || c.Queries > 1000 {
		errs = append(errs, fmt.Errorf("--db.queries: expected 0 to 1000, got %d", c.Queries))
	}
	if c.QueryTime < 0 {
		errs = append(errs, fmt.Errorf("--db.query-time: expected 0 or more, got %s", c.QueryTime))
	}
	switch c.Metrics {
	case MetricsHikariCP, MetricsPrisma, MetricsSQL:
	default:
		errs = append(errs, fmt.Errorf("--db.pool.metrics: expected %s, %s or %s, got %q", MetricsHikariCP, MetricsPrisma, MetricsSQL, c.Metrics))
	}
	return errors.Join(errs...)
}

// Pool is a pod's connection pool. Its methods are safe for concurrent use.
type Pool struct {
	cfg    Config
	db     *sql.DB
	query  string
	arg    any
	dbName string

	waiting  atomic.Int64 // requests waiting for a busy pool's slot
	inFlight atomic.Int64 // requests between Do's start and end
	opened   atomic.Int64 // connections opened
	timeouts atomic.Int64 // requests that gave up waiting
	requests atomic.Int64 // requests that got a connection
	queries  atomic.Int64 // queries run

	acquire, usage, creation, requestTime, queryTime *timing

	warm []*sql.Conn // held only while warming

	// slots holds one token per connection for the HikariCP and Prisma schemes: a
	// request that finds none waits, and is counted as pending, only when every
	// connection is busy. The sql scheme leaves waiting to database/sql, whose own
	// statistics (WaitCount, WaitDuration) are then what it exposes.
	slots chan struct{}

	collector prometheus.Collector
}

// Open opens the pool, warms its Min connections and checks the server answers. The
// error never holds the DSN's password. The caller must Close the pool.
func Open(ctx context.Context, cfg Config, logger *slog.Logger) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, acquire: &timing{}, usage: &timing{}, creation: &timing{}, requestTime: &timing{}, queryTime: &timing{}}
	var (
		conn driver.Connector
		host string
	)
	switch cfg.Driver {
	case DriverPostgres:
		pc, err := pgx.ParseConfig(cfg.DSN)
		if err != nil {
			// pgx redacts the password in its parse errors.
			return nil, fmt.Errorf("--db.dsn: %w", err)
		}
		if cfg.ApplicationName != "" {
			pc.RuntimeParams["application_name"] = cfg.ApplicationName
		}
		conn = stdlib.GetConnector(*pc)
		p.dbName, host = pc.Database, fmt.Sprintf("%s:%d", pc.Host, pc.Port)
		p.query = "SELECT pg_sleep($1)"
	case DriverMySQL:
		mc, err := mysql.ParseDSN(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("--db.dsn: %w", err)
		}
		if cfg.ApplicationName != "" {
			mc.ConnectionAttributes = "program_name:" + cfg.ApplicationName
		}
		c, err := mysql.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("--db.dsn: %w", err)
		}
		conn = c
		p.dbName, host = mc.DBName, mc.Addr
		p.query = "SELECT SLEEP(?)"
	}
	p.arg = cfg.QueryTime.Seconds()
	p.db = sql.OpenDB(&countingConnector{Connector: conn, p: p})
	p.db.SetMaxOpenConns(cfg.Size)
	p.db.SetMaxIdleConns(cfg.Size)
	p.db.SetConnMaxLifetime(0)
	p.db.SetConnMaxIdleTime(0)
	if cfg.Metrics != MetricsSQL {
		p.slots = make(chan struct{}, cfg.Size)
	}
	if err := p.warmUp(ctx); err != nil {
		_ = p.db.Close()
		return nil, fmt.Errorf("open the database pool (%s %s): %w", cfg.Driver, host, err)
	}
	p.collector = p.newCollector()
	logger.Info("Database pool opened", "driver", cfg.Driver, "address", host, "database", p.dbName,
		"size", cfg.Size, "min", cfg.Min, "metrics", cfg.Metrics, "queries", cfg.Queries, "query_time_seconds", cfg.QueryTime.Seconds())
	return p, nil
}

// warmUp opens Min connections (at least one, to check the server answers) and
// returns them to the pool, which keeps them.
func (p *Pool) warmUp(ctx context.Context) error {
	n := max(p.cfg.Min, 1)
	defer func() {
		for _, c := range p.warm {
			_ = c.Close()
		}
		p.warm = nil
	}()
	for range n {
		c, err := p.db.Conn(ctx)
		if err != nil {
			return err
		}
		p.warm = append(p.warm, c)
		if err := c.PingContext(ctx); err != nil {
			return err
		}
	}
	return nil
}

// ErrPoolTimeout is wrapped by Do's error when no connection came within the timeout.
var ErrPoolTimeout = errors.New("timed out waiting for a pool connection")

// Do is one request's database work: take a connection (waiting at most the pool
// timeout), run the queries on it, give it back.
func (p *Pool) Do(ctx context.Context) error {
	start := time.Now()
	p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	defer func() { p.requestTime.observe(time.Since(start)) }()
	actx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	if err := p.takeSlot(actx); err != nil {
		p.acquire.observe(time.Since(start))
		return p.acquireError(ctx, err)
	}
	if p.slots != nil {
		defer func() { <-p.slots }()
	}
	conn, err := p.db.Conn(actx)
	p.acquire.observe(time.Since(start))
	if err != nil {
		return p.acquireError(ctx, err)
	}
	p.requests.Add(1)
	got := time.Now()
	defer func() {
		_ = conn.Close() // back to the pool
		p.usage.observe(time.Since(got))
	}()
	for range p.cfg.Queries {
		qs := time.Now()
		var v any
		err := conn.QueryRowContext(ctx, p.query, p.arg).Scan(&v)
		p.queries.Add(1)
		p.queryTime.observe(time.Since(qs))
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
	}
	return nil
}

// takeSlot waits for a free connection's token (HikariCP and Prisma schemes),
// counting the request as pending while every connection is busy.
func (p *Pool) takeSlot(ctx context.Context) error {
	if p.slots == nil {
		return nil
	}
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	p.waiting.Add(1)
	defer p.waiting.Add(-1)
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acquireError classifies a failure to get a connection; ctx is the request's.
func (p *Pool) acquireError(ctx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		p.timeouts.Add(1)
		return fmt.Errorf("%w (%s)", ErrPoolTimeout, p.cfg.Timeout)
	}
	return fmt.Errorf("acquire a pool connection: %w", err)
}

// Stats are database/sql's statistics of the pool and the requests waiting for a
// connection now.
func (p *Pool) Stats() (sql.DBStats, int) {
	return p.db.Stats(), int(p.waiting.Load())
}

// Close closes the pool's connections.
func (p *Pool) Close() error { return p.db.Close() }

// countingConnector counts and times the connections the pool opens.
type countingConnector struct {
	driver.Connector
	p *Pool
}

func (c *countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	start := time.Now()
	conn, err := c.Connector.Connect(ctx)
	if err == nil {
		c.p.opened.Add(1)
		c.p.creation.observe(time.Since(start))
	}
	return conn, err
}

// timing accumulates durations: their count, sum and a histogram in Prisma's buckets.
type timing struct {
	mu      sync.Mutex
	count   uint64
	sum     time.Duration
	buckets [len(prismaBucketsMS)]uint64
}

func (t *timing) observe(d time.Duration) {
	ms := float64(d) / float64(time.Millisecond)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count++
	t.sum += d
	for i, le := range prismaBucketsMS {
		if ms <= le {
			t.buckets[i]++
		}
	}
}

func (t *timing) snapshot() (count uint64, sum time.Duration, buckets map[float64]uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buckets = make(map[float64]uint64, len(prismaBucketsMS))
	for i, le := range prismaBucketsMS {
		buckets[le] = t.buckets[i]
	}
	return t.count, t.sum, buckets
}
