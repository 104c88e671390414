package dbpool

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sim"
)

func validConfig() Config {
	return Config{Driver: DriverPostgres, DSN: "postgres://u:p@127.0.0.1:5432/db", Size: 5, Timeout: time.Second, Queries: 1, Metrics: MetricsSQL}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{"valid", func(*Config) {}, ""},
		{"driver", func(c *Config) { c.Driver = "oracle" }, `--db.driver: expected postgres or mysql, got "oracle"`},
		{"dsn", func(c *Config) { c.DSN = "" }, "--db.dsn: empty; set it through the environment variable TIDEMARK_DB_DSN"},
		{"size", func(c *Config) { c.Size = 0 }, "--db.pool.size: expected 1 to 10000, got 0"},
		{"min", func(c *Config) { c.Min = 6 }, "--db.pool.min: expected 0 to the pool size (5), got 6"},
		{"timeout", func(c *Config) { c.Timeout = 0 }, "--db.pool.timeout: expected a positive duration, got 0s"},
		{"queries", func(c *Config) { c.Queries = -1 }, "--db.queries: expected 0 to 1000, got -1"},
		{"query time", func(c *Config) { c.QueryTime = -time.Second }, "--db.query-time: expected 0 or more, got -1s"},
		{"metrics", func(c *Config) { c.Metrics = "c3p0" }, `--db.pool.metrics: expected hikaricp, prisma or sql, got "c3p0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := validConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestFlags(t *testing.T) {
	t.Setenv(DSNEnv, "postgres://u:secret@127.0.0.1:5432/db")
	app := kingpin.New("t", "")
	cmd := app.Command("target", "")
	var c Config
	AddFlags(cmd, &c)
	_, err := app.Parse([]string{"target", "--db.driver=postgres", "--db.pool.size=8", "--db.pool.min=2", "--db.pool.timeout=3s",
		"--db.pool.metrics=hikaricp", "--db.queries=3", "--db.query-time=5ms", "--db.application-name=orders-7f9c"})
	require.NoError(t, err)
	require.Equal(t, Config{Driver: DriverPostgres, DSN: "postgres://u:secret@127.0.0.1:5432/db", Size: 8, Min: 2, Timeout: 3 * time.Second,
		Queries: 3, QueryTime: 5 * time.Millisecond, Metrics: MetricsHikariCP, ApplicationName: "orders-7f9c"}, c)
	require.True(t, c.Enabled())
	require.NoError(t, c.Validate())

	var d Config
	app = kingpin.New("t", "")
	AddFlags(app.Command("target", ""), &d)
	_, err = app.Parse([]string{"target"})
	require.NoError(t, err)
	require.False(t, d.Enabled(), "no --db.driver: no database")
	_, err = app.Parse([]string{"target", "--db.pool.metrics=c3p0"})
	require.Error(t, err)
}

// newUnconnected is a pool over a server that is never dialled: its collectors can be
// gathered with every value zero.
func newUnconnected(t *testing.T, scheme string) *Pool {
	t.Helper()
	cfg := validConfig()
	cfg.Metrics, cfg.Min = scheme, 2
	p := &Pool{cfg: cfg, dbName: "db", acquire: &timing{}, usage: &timing{}, creation: &timing{}, requestTime: &timing{}, queryTime: &timing{}}
	p.db = sql.OpenDB(stdlib.GetConnector(*mustParse(t, cfg.DSN)))
	p.db.SetMaxOpenConns(cfg.Size)
	t.Cleanup(func() { _ = p.db.Close() })
	p.collector = p.newCollector()
	return p
}

func TestCollectorNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scheme string
		want   string
	}{
		{MetricsHikariCP, `
# HELP hikaricp_connections Total connections
# TYPE hikaricp_connections gauge
hikaricp_connections{pool="HikariPool-1"} 0
# HELP hikaricp_connections_active Active connections
# TYPE hikaricp_connections_active gauge
hikaricp_connections_active{pool="HikariPool-1"} 0
# HELP hikaricp_connections_idle Idle connections
# TYPE hikaricp_connections_idle gauge
hikaricp_connections_idle{pool="HikariPool-1"} 0
# HELP hikaricp_connections_max Max connections
# TYPE hikaricp_connections_max gauge
hikaricp_connections_max{pool="HikariPool-1"} 5
# HELP hikaricp_connections_min Min connections
# TYPE hikaricp_connections_min gauge
hikaricp_connections_min{pool="HikariPool-1"} 2
# HELP hikaricp_connections_pending Pending threads
# TYPE hikaricp_connections_pending gauge
hikaricp_connections_pending{pool="HikariPool-1"} 0
# HELP hikaricp_connections_timeout_total Connection timeout total count
# TYPE hikaricp_connections_timeout_total counter
hikaricp_connections_timeout_total{pool="HikariPool-1"} 0
`},
		{MetricsPrisma, `
# HELP prisma_client_queries_wait Number of queries currently waiting for a connection
# TYPE prisma_client_queries_wait gauge
prisma_client_queries_wait 0
# HELP prisma_pool_connections_busy Number of currently busy Pool Connections (executing a database query)
# TYPE prisma_pool_connections_busy gauge
prisma_pool_connections_busy 0
# HELP prisma_pool_connections_idle Number of currently unused Pool Connections (waiting for the next pool query to run)
# TYPE prisma_pool_connections_idle gauge
prisma_pool_connections_idle 0
# HELP prisma_pool_connections_open Number of currently open Pool Connections
# TYPE prisma_pool_connections_open gauge
prisma_pool_connections_open 0
`},
		{MetricsSQL, `
# HELP go_sql_in_use_connections The number of connections currently in use.
# TYPE go_sql_in_use_connections gauge
go_sql_in_use_connections{db_name="db"} 0
# HELP go_sql_max_open_connections Maximum number of open connections to the database.
# TYPE go_sql_max_open_connections gauge
go_sql_max_open_connections{db_name="db"} 5
`},
	} {
		t.Run(tc.scheme, func(t *testing.T) {
			t.Parallel()
			p := newUnconnected(t, tc.scheme)
			reg := prometheus.NewPedanticRegistry()
			require.NoError(t, reg.Register(p))
			var names []string
			for line := range strings.SplitSeq(tc.want, "\n") {
				if strings.HasPrefix(line, "# TYPE ") {
					names = append(names, strings.Fields(line)[2])
				}
			}
			require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(tc.want), names...))
			problems, err := testutil.GatherAndLint(reg)
			require.NoError(t, err)
			for _, pr := range problems {
				// Prisma's and Micrometer's own names, kept as users scrape them.
				require.Contains(t, []string{"prisma_client_queries_duration_histogram_ms", "prisma_client_queries_wait_histogram_ms",
					"prisma_datasource_queries_duration_histogram_ms", "prisma_pool_connections_open", "prisma_pool_connections_busy",
					"prisma_pool_connections_idle", "prisma_client_queries_wait", "prisma_client_queries_active"}, pr.Metric, pr.Text)
			}
		})
	}
}

func TestTimingBuckets(t *testing.T) {
	t.Parallel()
	var tm timing
	tm.observe(0)
	tm.observe(3 * time.Millisecond)
	tm.observe(70 * time.Second)
	n, sum, b := tm.snapshot()
	require.Equal(t, uint64(3), n)
	require.Equal(t, 70*time.Second+3*time.Millisecond, sum)
	require.Equal(t, map[float64]uint64{0: 1, 1: 1, 5: 2, 10: 2, 50: 2, 100: 2, 500: 2, 1000: 2, 5000: 2, 50000: 2}, b)
}

func mustParse(t *testing.T, dsn string) *pgx.ConnConfig {
	t.Helper()
	c, err := pgx.ParseConfig(dsn)
	require.NoError(t, err)
	return c
}

// TestTargetDBFlags: the flags and environment sim.TargetDB gives a process-runtime pod
// are the ones AddFlags defines, and parse into a valid configuration.
func TestTargetDBFlags(t *testing.T) {
	require.Equal(t, DSNEnv, sim.TargetDBEnv)
	p, err := sim.ParseProfile([]byte(`database: {engine: postgres}
services:
  - name: api
    resources: {requests: {cpu: 100m}}
    request: {cpu: 10ms, db_queries: 2}
    pool: {size: 6, metrics: prisma}
`), "p.yaml")
	require.NoError(t, err)
	args, env := sim.TargetDB(p.Services[0], p.Database, "postgres://postgres:pw@127.0.0.1:5432/postgres", "api-0")
	require.Len(t, env, 1)
	name, value, _ := strings.Cut(env[0], "=")
	t.Setenv(name, value)
	app := kingpin.New("t", "")
	var c Config
	AddFlags(app.Command("target", ""), &c)
	_, err = app.Parse(append([]string{"target"}, args...))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.Equal(t, Config{Driver: DriverPostgres, DSN: value, Size: 6, Min: 1, Timeout: 10 * time.Second, Queries: 2,
		QueryTime: 3 * time.Millisecond, Metrics: MetricsPrisma, ApplicationName: "api-0"}, c)
}
