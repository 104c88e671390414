//go:build integration

package realdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbpool"
	"github.com/tidemark/tidemark/internal/podmetrics"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/realdb"
	"github.com/tidemark/tidemark/internal/target"
)

// startPod starts a pod as a process-runtime pod would be configured: its pool from the
// flags and environment PodArgs gives, parsed by `tidemark target`'s own flags.
func startPod(t *testing.T, args, env []string) string {
	t.Helper()
	app := kingpin.New("tidemark", "")
	var cfg dbpool.Config
	dbpool.AddFlags(app.Command("target", ""), &cfg)
	for _, e := range env {
		name, value, _ := strings.Cut(e, "=")
		t.Setenv(name, value)
	}
	_, err := app.Parse(append([]string{"target"}, args...))
	require.NoError(t, err)
	pool, err := dbpool.Open(context.Background(), cfg, promslog.NewNopLogger())
	require.NoError(t, err)
	srv, err := target.New(target.Config{DB: pool})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(pool))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(ctx, ln, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), 100*time.Millisecond)
	}()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-served)
		_ = pool.Close()
	})
	return "http://" + ln.Addr().String()
}

// TestStory2DatabaseSide: story 2's profile (examples/cluster-story2-postgres.yaml) with
// its database side started: a real PostgreSQL with max_connections 100 and
// postgres_exporter, and a pod whose HikariCP pool (made 10) holds 4 requests' connections
// (queries made to sleep 5 minutes so the state holds). A real Prometheus with the
// runtime's scrape jobs stores the pool's busy share (4 of 10) and the server's
// connections from the exporter, and they agree with pg_stat_activity.
func TestStory2DatabaseSide(t *testing.T) {
	p, err := sim.LoadProfile("../../../examples/cluster-story2-postgres.yaml")
	require.NoError(t, err)
	require.True(t, realdb.Enabled(p))
	p.Database.QueryLatency = sim.Duration(5 * time.Minute)
	// A pool of 10 (the example's is 50): 10 held connections are quick to reach.
	p.Services[0].Pool.Size, *p.Services[0].Pool.Warm = 10, 10
	const podName = "signup-6d9c7f-x2lq"
	var pods []podmetrics.Target
	db, err := realdb.Start(context.Background(), p, func() []podmetrics.Target { return pods }, promslog.NewNopLogger())
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()

	args, env := db.PodArgs(p.Services[0], podName)
	for _, a := range args {
		require.NotContains(t, a, "postgres://", "the DSN goes by environment")
	}
	base := startPod(t, args, env)
	pods = []podmetrics.Target{{Namespace: p.Namespace, Pod: podName, Container: p.Services[0].Name, URL: base + "/metrics"}}
	for range 4 {
		go func() {
			if resp, err := http.Post(base+"/users", "application/json", strings.NewReader("{}")); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		}()
	}
	dsn := strings.TrimPrefix(env[0], sim.TargetDBEnv+"=")
	check, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer check.Close()
	var active, all int
	require.Eventually(t, func() bool {
		require.NoError(t, check.QueryRow(`SELECT count(*) FILTER (WHERE state = 'active'), count(*) FROM pg_stat_activity
			WHERE application_name = $1`, podName).Scan(&active, &all))
		return active == 4
	}, time.Minute, 50*time.Millisecond)
	require.Equal(t, 10, all, "warm: 10, HikariCP's minimumIdle")

	prom := promtest.StartPrometheus(t, promtest.WithConfig("global:\n  scrape_interval: 1s\nscrape_configs:\n"+db.ScrapeJobs()))
	instant := func(expr string) (float64, error) {
		v, err := promtest.Query(context.Background(), prom.URL, expr, time.Time{})
		if err != nil {
			return 0, err
		}
		vec, ok := v.(model.Vector)
		if !ok || len(vec) != 1 {
			return 0, fmt.Errorf("%s: %v", expr, v)
		}
		return float64(vec[0].Value), nil
	}
	sel := fmt.Sprintf(`{job="pods",namespace=%q,pod=%q,container="signup",pool="HikariPool-1"}`, p.Namespace, podName)
	var others int
	require.NoError(t, check.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = 'postgres' AND application_name <> $1`, podName).Scan(&others))
	promtest.Poll(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		share, err := instant("hikaricp_connections_active" + sel + " / hikaricp_connections_max" + sel)
		if err != nil || share != 0.4 {
			return false, fmt.Errorf("busy share %v: %w", share, err)
		}
		conns, err := instant(`sum(last_over_time(pg_stat_activity_count{job="postgres",datname="postgres"}[2s]))`)
		if err != nil || conns != float64(all+others) {
			return false, fmt.Errorf("server connections %v, want %d: %w", conns, all+others, err)
		}
		maxConns, err := instant(`pg_settings_max_connections{job="postgres"}`)
		return err == nil && maxConns == 100, fmt.Errorf("max_connections %v: %w", maxConns, err)
	})
	require.NoError(t, check.QueryRow(`SELECT count(*) FILTER (WHERE state = 'active') FROM pg_stat_activity
		WHERE application_name = $1`, podName).Scan(&active))
	require.Equal(t, 4, active, "the state held while Prometheus scraped it")
}

// TestMariaDBDatabaseSide: a mariadb profile gets a real MariaDB with the profile's
// max_connections, a pod pool over the mysql driver, and mysqld_exporter scraped as job
// mysqld.
func TestMariaDBDatabaseSide(t *testing.T) {
	p, err := sim.ParseProfile([]byte(`name: shop
database: {engine: mariadb, max_connections: 47}
services:
  - name: cart
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms, db_queries: 1}
    pool: {size: 3, warm: 3, metrics: sql}
`), "shop.yaml")
	require.NoError(t, err)
	db, err := realdb.Start(context.Background(), p, func() []podmetrics.Target { return nil }, promslog.NewNopLogger())
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	require.Contains(t, db.ScrapeJobs(), "job_name: mysqld")
	args, env := db.PodArgs(p.Services[0], "cart-0")
	require.Contains(t, args, "--db.driver=mysql")
	startPod(t, args, env)

	prom := promtest.StartPrometheus(t, promtest.WithConfig("global:\n  scrape_interval: 1s\nscrape_configs:\n"+db.ScrapeJobs()))
	promtest.Poll(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		v, err := promtest.Query(context.Background(), prom.URL, `mysql_global_variables_max_connections{job="mysqld"}`, time.Time{})
		if err != nil {
			return false, err
		}
		vec, _ := v.(model.Vector)
		return len(vec) == 1 && vec[0].Value == 47, fmt.Errorf("max_connections %v", v)
	})
	// The pod's 3 warm connections and the exporter's own during its scrape.
	promtest.Poll(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		v, err := promtest.Query(context.Background(), prom.URL, `mysql_global_status_threads_connected{job="mysqld"}`, time.Time{})
		if err != nil {
			return false, err
		}
		vec, _ := v.(model.Vector)
		return len(vec) == 1 && vec[0].Value == 4, fmt.Errorf("threads_connected %v", v)
	})
}
