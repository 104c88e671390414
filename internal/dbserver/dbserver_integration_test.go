//go:build integration

package dbserver_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbserver"
)

// scrape gets an exporter's metrics, parsed.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// sum adds the values of a family's series whose labels include match.
func sum(t *testing.T, fams map[string]*dto.MetricFamily, name string, match map[string]string) float64 {
	t.Helper()
	f, ok := fams[name]
	require.True(t, ok, "no %s in the exporter's metrics", name)
	total := 0.0
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		ok := true
		for k, v := range match {
			ok = ok && labels[k] == v
		}
		if !ok {
			continue
		}
		switch {
		case m.GetGauge() != nil:
			total += m.GetGauge().GetValue()
		case m.GetCounter() != nil:
			total += m.GetCounter().GetValue()
		case m.GetUntyped() != nil:
			total += m.GetUntyped().GetValue()
		}
	}
	return total
}

// children lists the processes whose parent is pid.
func children(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	// A zombie still answers kill(0): it has ended but is not reaped.
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// requireGone checks that Close left nothing: no process, no directory, no listener.
func requireGone(t *testing.T, pids []int, dir string, addrs ...string) {
	t.Helper()
	for _, pid := range pids {
		require.False(t, alive(pid), "process %d is still running after Close", pid)
	}
	_, err := os.Stat(dir)
	require.ErrorIs(t, err, os.ErrNotExist, "%s is still there after Close", dir)
	for _, a := range addrs {
		c, err := net.DialTimeout("tcp", a, time.Second)
		if err == nil {
			_ = c.Close()
		}
		require.Error(t, err, "%s still accepts connections after Close", a)
	}
}

// TestPostgres starts a real PostgreSQL and postgres_exporter: the server has the
// configured max_connections, the exporter's pg_settings_max_connections and
// pg_stat_activity_count agree with what the server says, and Close leaves no process,
// file or port behind.
func TestPostgres(t *testing.T) {
	ctx := context.Background()
	srv, err := dbserver.Start(ctx, dbserver.Config{Engine: dbserver.Postgres, MaxConnections: 37}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	require.Equal(t, "postgres", srv.Engine().Driver())

	// The application's connections: 6 held open, idle.
	app, err := sql.Open("pgx", srv.DSN())
	require.NoError(t, err)
	defer app.Close()
	app.SetMaxOpenConns(6)
	app.SetMaxIdleConns(6)
	conns := make([]*sql.Conn, 6)
	for i := range conns {
		conns[i], err = app.Conn(ctx)
		require.NoError(t, err)
	}
	for _, c := range conns {
		require.NoError(t, c.Close()) // back to the pool, which keeps it open
	}
	check, err := sql.Open("pgx", srv.DSN())
	require.NoError(t, err)
	defer check.Close()
	check.SetMaxOpenConns(1)

	var maxConns string
	require.NoError(t, check.QueryRowContext(ctx, "SHOW max_connections").Scan(&maxConns))
	require.Equal(t, "37", maxConns)

	fams := scrape(t, srv.Exporter().URL())
	require.Equal(t, 1.0, sum(t, fams, "pg_up", nil))
	require.Equal(t, 37.0, sum(t, fams, "pg_settings_max_connections", nil))

	// postgres_exporter keeps its connections between scrapes, so once it has made
	// them the set of connections is fixed: the exporter's count (all states) equals
	// the server's own count of the same set. The first scrape above opened them.
	var want int
	require.NoError(t, check.QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = 'postgres'").Scan(&want))
	got := sum(t, scrape(t, srv.Exporter().URL()), "pg_stat_activity_count", map[string]string{"datname": "postgres"})
	require.Equal(t, float64(want), got, "pg_stat_activity_count{datname=postgres} vs pg_stat_activity")
	require.GreaterOrEqual(t, want, 6+1, "the application's 6 connections and the check's one at least")

	// Close: the postmaster, its backends and the exporter end; the directory goes.
	pids := append([]int{srv.PID(), srv.Exporter().PID()}, children(t, srv.PID())...)
	require.Greater(t, len(pids), 3, "the postmaster has backends and auxiliary processes")
	_ = app.Close()
	_ = check.Close()
	require.NoError(t, srv.Close())
	requireGone(t, pids, srv.Dir(), srv.Addr(), srv.ExporterAddr())
	require.NoError(t, srv.Close(), "Close is idempotent")
}

// TestMariaDB starts a real MariaDB and mysqld_exporter: max_connections as configured,
// and the exporter's mysql_global_status_threads_connected and
// mysql_global_variables_max_connections agree with SHOW GLOBAL STATUS/VARIABLES.
func TestMariaDB(t *testing.T) {
	ctx := context.Background()
	srv, err := dbserver.Start(ctx, dbserver.Config{Engine: dbserver.MariaDB, MaxConnections: 41}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	require.Equal(t, "mysql", srv.Engine().Driver())

	app, err := sql.Open("mysql", srv.DSN())
	require.NoError(t, err)
	defer app.Close()
	app.SetMaxOpenConns(4)
	app.SetMaxIdleConns(4)
	conns := make([]*sql.Conn, 4)
	for i := range conns {
		conns[i], err = app.Conn(ctx)
		require.NoError(t, err)
	}
	for _, c := range conns {
		require.NoError(t, c.Close())
	}

	var name, value string
	require.NoError(t, app.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES LIKE 'max_connections'").Scan(&name, &value))
	require.Equal(t, "41", value)
	fams := scrape(t, srv.Exporter().URL())
	require.Equal(t, 1.0, sum(t, fams, "mysql_up", nil))
	require.Equal(t, 41.0, sum(t, fams, "mysql_global_variables_max_connections", nil))

	// mysqld_exporter 0.14 opens one connection per scrape and closes it after: during
	// its scrape the server counts the application's 4 plus the exporter's own. The
	// server's count, read from one of the application's connections, is 4 once the
	// connection of the exporter's earlier scrape has gone.
	threads := func() int {
		var n int
		require.NoError(t, app.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&name, &n))
		return n
	}
	server := threads()
	for deadline := time.Now().Add(30 * time.Second); server != 4 && time.Now().Before(deadline); server = threads() {
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, 4, server, "the application's 4 connections")
	got := sum(t, scrape(t, srv.Exporter().URL()), "mysql_global_status_threads_connected", nil)
	require.Equal(t, float64(server+1), got, "threads_connected: the server's count plus the exporter's own connection")

	pids := []int{srv.PID(), srv.Exporter().PID()}
	_ = app.Close()
	require.NoError(t, srv.Close())
	requireGone(t, pids, srv.Dir(), srv.Addr(), srv.ExporterAddr())
}

// TestProvideForAGivenDSN: without a DSN Provide starts a server; a server named by
// DSN (the profile's database.dsn) gets only an exporter of its own, which reads it.
func TestProvideForAGivenDSN(t *testing.T) {
	ctx := context.Background()
	started, err := dbserver.Provide(ctx, dbserver.Config{Engine: dbserver.Postgres}, "", promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = started.Close() })
	require.NotNil(t, started.Server)
	require.Equal(t, started.Server.DSN(), started.DSN)
	given, err := dbserver.Provide(ctx, dbserver.Config{Engine: dbserver.Postgres}, started.DSN, promslog.NewNopLogger())
	require.NoError(t, err)
	require.Nil(t, given.Server, "a given DSN starts no server")
	exp := given.Exporter
	require.NotEqual(t, started.Exporter.Addr(), exp.Addr())
	fams := scrape(t, exp.URL())
	require.Equal(t, 1.0, sum(t, fams, "pg_up", nil))
	require.Equal(t, 100.0, sum(t, fams, "pg_settings_max_connections", nil), "PostgreSQL's default max_connections")
	// The password is in the exporter's environment, not on its command line.
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(exp.PID()), "cmdline"))
	require.NoError(t, err)
	require.NotContains(t, string(cmdline), "postgres://")
	pid := exp.PID()
	require.NoError(t, given.Close())
	require.False(t, alive(pid))
	require.Equal(t, 1.0, sum(t, scrape(t, started.Exporter.URL()), "pg_up", nil), "the started server is untouched")
}
