package dbpool

import (
	"github.com/alecthomas/kingpin/v2"
)

// AddFlags adds the --db.* flags of `tidemark target` to cmd, bound into c. The DSN is
// read from the environment variable TIDEMARK_DB_DSN (DSNEnv) so that it never
// appears on a command line; --db.dsn exists for completeness and is best left unset.
func AddFlags(cmd *kingpin.CmdClause, c *Config) {
	cmd.Flag("db.driver", "Database of each request's queries: postgres (pgx) or mysql (go-sql-driver/mysql); empty: none.").
		Default("").EnumVar(&c.Driver, "", DriverPostgres, DriverMySQL)
	cmd.Flag("db.dsn", "Data source name in the driver's form (a secret: set $"+DSNEnv+" rather than this flag).").
		Envar(DSNEnv).PlaceHolder("DSN").StringVar(&c.DSN)
	cmd.Flag("db.pool.size", "Connections in the pool at most (HikariCP maximumPoolSize, Prisma connection_limit).").Default("5").IntVar(&c.Size)
	cmd.Flag("db.pool.min", "Connections opened at start and kept (HikariCP minimumIdle).").Default("0").IntVar(&c.Min)
	cmd.Flag("db.pool.timeout", "Longest wait of a request for a connection; then the request fails with 500 (HikariCP connectionTimeout, Prisma pool_timeout).").
		Default("10s").DurationVar(&c.Timeout)
	cmd.Flag("db.pool.metrics", "Metric names of the pool on /metrics: hikaricp (Micrometer), prisma (metrics preview) or sql (Go database/sql).").
		Default(MetricsSQL).EnumVar(&c.Metrics, MetricsHikariCP, MetricsPrisma, MetricsSQL)
	cmd.Flag("db.pool.name", "Pool label: HikariCP's pool (default HikariPool-1) or database/sql's db_name (default: the database).").
		Default("").StringVar(&c.Name)
	cmd.Flag("db.application-name", "Name of the pool's connections on the server (PostgreSQL application_name).").
		Default("tidemark-target").StringVar(&c.ApplicationName)
	cmd.Flag("db.queries", "Queries per request, run one after the other on the request's connection.").Default("1").IntVar(&c.Queries)
	cmd.Flag("db.query-time", "Server-side time of each query: SELECT pg_sleep(t) or SELECT SLEEP(t).").Default("0s").DurationVar(&c.QueryTime)
}
