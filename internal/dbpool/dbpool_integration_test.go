//go:build integration

package dbpool_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbpool"
	"github.com/tidemark/tidemark/internal/dbserver"
	"github.com/tidemark/tidemark/internal/target"
)

// pod is a tidemark target with a real pool, serving on a loopback port.
type pod struct {
	url    string
	pool   *dbpool.Pool
	cancel context.CancelFunc
	done   chan error
}

func startPod(t *testing.T, cfg dbpool.Config) *pod {
	t.Helper()
	pool, err := dbpool.Open(context.Background(), cfg, promslog.NewNopLogger())
	require.NoError(t, err)
	srv, err := target.New(target.Config{DB: pool})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(target.NewCollector(srv)))
	require.NoError(t, reg.Register(pool))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	p := &pod{url: "http://" + ln.Addr().String(), pool: pool, cancel: cancel, done: make(chan error, 1)}
	go func() {
		p.done <- srv.Serve(ctx, ln, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), 100*time.Millisecond)
	}()
	t.Cleanup(p.stop)
	return p
}

// stop shuts the pod down (cancelling the queries in flight) and closes its pool.
func (p *pod) stop() {
	p.cancel()
	if err := <-p.done; err != nil {
		panic(fmt.Sprintf("serve: %v", err)) // Serve returns nil on shutdown
	}
	p.done <- nil // a second stop returns at once
	_ = p.pool.Close()
}

// metrics scrapes the pod's /metrics.
func (p *pod) metrics(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(p.url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// value is the value of the family's one series (gauge or counter), or the count of a
// summary or histogram; labels must match.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	f, ok := fams[name]
	require.True(t, ok, "no %s on /metrics", name)
	require.Len(t, f.GetMetric(), 1, name)
	m := f.GetMetric()[0]
	if labels == nil {
		labels = map[string]string{}
	}
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	require.Equal(t, labels, got, "labels of %s", name)
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetSummary() != nil:
		return float64(m.GetSummary().GetSampleCount())
	case m.GetHistogram() != nil:
		return float64(m.GetHistogram().GetSampleCount())
	}
	t.Fatalf("%s has no value", name)
	return 0
}

// poolView reads busy, idle, pending (or, for database/sql, the wait count) and open
// connections under each naming scheme.
type poolView struct{ busy, idle, waiting, open float64 }

func view(t *testing.T, fams map[string]*dto.MetricFamily, scheme string, labels map[string]string) poolView {
	t.Helper()
	switch scheme {
	case dbpool.MetricsHikariCP:
		return poolView{value(t, fams, "hikaricp_connections_active", labels), value(t, fams, "hikaricp_connections_idle", labels),
			value(t, fams, "hikaricp_connections_pending", labels), value(t, fams, "hikaricp_connections", labels)}
	case dbpool.MetricsPrisma:
		return poolView{value(t, fams, "prisma_pool_connections_busy", nil), value(t, fams, "prisma_pool_connections_idle", nil),
			value(t, fams, "prisma_client_queries_wait", nil), value(t, fams, "prisma_pool_connections_open", nil)}
	default:
		return poolView{value(t, fams, "go_sql_in_use_connections", labels), value(t, fams, "go_sql_idle_connections", labels),
			value(t, fams, "go_sql_wait_count_total", labels), value(t, fams, "go_sql_open_connections", labels)}
	}
}

// fire sends n concurrent GETs and returns a channel of their status codes (or 0 for a
// failed request), closed when all are answered.
func fire(p *pod, n int) <-chan int {
	out := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.Get(p.url + "/orders")
			if err != nil {
				out <- 0
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			out <- resp.StatusCode
		})
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

// eventually polls cond until it holds; the bound is generous (a loaded machine), and
// every condition waited for here is a state that holds until the test ends it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func startPostgres(t *testing.T) (*dbserver.Server, *sql.DB) {
	t.Helper()
	srv, err := dbserver.Start(context.Background(), dbserver.Config{Engine: dbserver.Postgres, MaxConnections: 60}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	check, err := sql.Open("pgx", srv.DSN())
	require.NoError(t, err)
	check.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = check.Close() })
	return srv, check
}

// activity is pg_stat_activity's count of the connections of one application_name:
// executing a query (state active) and all.
func activity(t *testing.T, check *sql.DB, app string) (active, all int) {
	t.Helper()
	require.NoError(t, check.QueryRow(`SELECT count(*) FILTER (WHERE state = 'active'), count(*)
		FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&active, &all))
	return active, all
}

// TestPoolUnderBlockingLoad: a pod with a pool of 4 gets 7 concurrent requests whose
// query sleeps 30 s on the server. Under each naming scheme the pod's metrics say 4
// busy, 0 idle, 3 waiting, 4 open; pg_stat_activity says the same: 4 connections of the
// pod's application_name, all executing.
func TestPoolUnderBlockingLoad(t *testing.T) {
	srv, check := startPostgres(t)
	for _, scheme := range []string{dbpool.MetricsHikariCP, dbpool.MetricsPrisma, dbpool.MetricsSQL} {
		t.Run(scheme, func(t *testing.T) {
			app := "pod-" + scheme
			p := startPod(t, dbpool.Config{Driver: dbpool.DriverPostgres, DSN: srv.DSN(), Size: 4, Timeout: 5 * time.Minute,
				Queries: 1, QueryTime: 30 * time.Second, Metrics: scheme, ApplicationName: app})
			var labels map[string]string
			switch scheme {
			case dbpool.MetricsHikariCP:
				labels = map[string]string{"pool": dbpool.DefaultHikariPoolName}
			case dbpool.MetricsSQL:
				labels = map[string]string{"db_name": "postgres"}
			}
			answers := fire(p, 7)
			want := poolView{busy: 4, idle: 0, waiting: 3, open: 4}
			var got poolView
			eventually(t, "4 busy and 3 waiting", func() bool {
				got = view(t, p.metrics(t), scheme, labels)
				return got == want
			})
			// The 30 s queries hold the state. A connection is busy for the pool from
			// the moment it is taken, and active for the server once the query has
			// arrived: the server catches up, and then both say the same.
			var active, all int
			eventually(t, "the server sees the queries", func() bool {
				active, all = activity(t, check, app)
				return active == 4
			})
			require.Equal(t, 4, all, "open connections vs pg_stat_activity")
			got = view(t, p.metrics(t), scheme, labels)
			require.Equal(t, want, got, "the pool's view, read again after the server's")
			require.Equal(t, int(got.busy), active, "busy connections vs pg_stat_activity state=active")
			require.Equal(t, int(got.open), all, "open connections vs pg_stat_activity")
			if scheme == dbpool.MetricsHikariCP {
				fams := p.metrics(t)
				require.Equal(t, 4.0, value(t, fams, "hikaricp_connections_max", labels))
				require.Equal(t, 0.0, value(t, fams, "hikaricp_connections_min", labels))
			}
			if scheme == dbpool.MetricsPrisma {
				require.Equal(t, 7.0, value(t, p.metrics(t), "prisma_client_queries_active", nil))
			}
			// Shutting the pod down cancels the queries: every request is answered.
			p.stop()
			n := 0
			for range answers {
				n++
			}
			require.Equal(t, 7, n)
			eventually(t, "the pod's connections closed on the server", func() bool {
				_, all := activity(t, check, app)
				return all == 0
			})
		})
	}
}

// TestPoolSteadyLoad: 3 clients send 20 requests each (2 queries of 20 ms) to a pod
// with a pool of 5 kept open (min 5). At no scrape are more than 3 connections busy or
// any request waiting, busy+idle is the pool's 5, and afterwards every request was
// counted once by the acquire and usage timers, with the server holding 5 idle
// connections of the pod.
func TestPoolSteadyLoad(t *testing.T) {
	srv, check := startPostgres(t)
	const app = "pod-steady"
	p := startPod(t, dbpool.Config{Driver: dbpool.DriverPostgres, DSN: srv.DSN(), Size: 5, Min: 5, Timeout: time.Minute,
		Queries: 2, QueryTime: 20 * time.Millisecond, Metrics: dbpool.MetricsHikariCP, ApplicationName: app})
	labels := map[string]string{"pool": dbpool.DefaultHikariPoolName}
	var wg sync.WaitGroup
	codes := make(chan int, 60)
	for range 3 {
		wg.Go(func() {
			for range 20 {
				resp, err := http.Get(p.url + "/")
				if err != nil {
					codes <- 0
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				codes <- resp.StatusCode
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	scrapes := 0
	for loop := true; loop; {
		select {
		case <-finished:
			loop = false
		default:
		}
		v := view(t, p.metrics(t), dbpool.MetricsHikariCP, labels)
		require.LessOrEqual(t, v.busy, 3.0, "3 clients keep at most 3 connections busy")
		require.Equal(t, 0.0, v.waiting, "5 connections for 3 clients: no request waits")
		require.Equal(t, 5.0, v.open, "min 5: the pool keeps 5 open")
		require.Equal(t, v.open, v.busy+v.idle)
		scrapes++
		time.Sleep(5 * time.Millisecond)
	}
	close(codes)
	for c := range codes {
		require.Equal(t, http.StatusOK, c)
	}
	fams := p.metrics(t)
	require.Equal(t, 60.0, value(t, fams, "hikaricp_connections_acquire_seconds", labels))
	require.Equal(t, 60.0, value(t, fams, "hikaricp_connections_usage_seconds", labels))
	require.Equal(t, 5.0, value(t, fams, "hikaricp_connections_creation_seconds", labels), "5 connections opened, once")
	require.Equal(t, poolView{busy: 0, idle: 5, waiting: 0, open: 5}, view(t, fams, dbpool.MetricsHikariCP, labels))
	active, all := activity(t, check, app)
	require.Equal(t, 0, active)
	require.Equal(t, 5, all)
	t.Logf("%d scrapes during the load", scrapes)
}

// TestPoolTimeout: with one connection held by a 30 s query, a second request waits
// the pool timeout (300 ms) and fails with 500; the timeout is counted.
func TestPoolTimeout(t *testing.T) {
	srv, _ := startPostgres(t)
	p := startPod(t, dbpool.Config{Driver: dbpool.DriverPostgres, DSN: srv.DSN(), Size: 1, Timeout: 300 * time.Millisecond,
		Queries: 1, QueryTime: 30 * time.Second, Metrics: dbpool.MetricsHikariCP})
	labels := map[string]string{"pool": dbpool.DefaultHikariPoolName}
	first := fire(p, 1)
	eventually(t, "the connection busy", func() bool {
		return value(t, p.metrics(t), "hikaricp_connections_active", labels) == 1
	})
	second := fire(p, 1)
	require.Equal(t, http.StatusInternalServerError, <-second)
	require.Equal(t, 1.0, value(t, p.metrics(t), "hikaricp_connections_timeout_total", labels))
	p.stop()
	<-first
}

// TestPoolMariaDB: the same pool over go-sql-driver/mysql against a real MariaDB: with
// 5 requests sleeping 30 s on a pool of 3, database/sql's statistics say 3 in use and
// the server's process list shows 3 of the pod's connections running SLEEP.
func TestPoolMariaDB(t *testing.T) {
	srv, err := dbserver.Start(context.Background(), dbserver.Config{Engine: dbserver.MariaDB}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	p := startPod(t, dbpool.Config{Driver: dbpool.DriverMySQL, DSN: srv.DSN(), Size: 3, Timeout: 5 * time.Minute,
		Queries: 1, QueryTime: 30 * time.Second, Metrics: dbpool.MetricsSQL})
	labels := map[string]string{"db_name": "tidemark"}
	answers := fire(p, 5)
	eventually(t, "3 in use, 2 waited", func() bool {
		v := view(t, p.metrics(t), dbpool.MetricsSQL, labels)
		return v.busy == 3 && v.open == 3 && v.waiting == 2
	})
	check, err := sql.Open("mysql", srv.DSN())
	require.NoError(t, err)
	defer check.Close()
	// A connection counts as in use once the pool hands it out, a moment before its
	// query reaches the server: the server's own count catches up.
	eventually(t, "the server runs the 3 queries", func() bool {
		var sleeping int
		require.NoError(t, check.QueryRow(`SELECT count(*) FROM information_schema.PROCESSLIST
			WHERE USER = 'tidemark' AND INFO LIKE 'SELECT SLEEP%'`).Scan(&sleeping))
		return sleeping == 3
	})
	p.stop()
	for range answers {
	}
}

// TestOpenFailsWithoutTheSecret: a wrong password fails Open, and the error names
// the server but not the DSN's password.
func TestOpenFailsWithoutTheSecret(t *testing.T) {
	srv, _ := startPostgres(t)
	dsn := fmt.Sprintf("postgres://postgres:wrong-secret-123@%s/postgres?sslmode=disable", srv.Addr())
	_, err := dbpool.Open(context.Background(), dbpool.Config{Driver: dbpool.DriverPostgres, DSN: dsn, Size: 1, Timeout: time.Second,
		Metrics: dbpool.MetricsSQL}, promslog.NewNopLogger())
	require.Error(t, err)
	require.Contains(t, err.Error(), srv.Addr())
	require.NotContains(t, err.Error(), "wrong-secret-123")
	var pgErr interface{ SQLState() string }
	require.ErrorAs(t, err, &pgErr, "the server's own error")
	require.Equal(t, "28P01", pgErr.SQLState(), "invalid_password")
}

// TestHandler: the pool in front of another application's handler (the process
// runtime's pods): a request does its query and then reaches the application; the
// readiness path reaches it without a query; /metrics is the pool's; a request whose
// client gives up during the query never reaches the application.
func TestHandler(t *testing.T) {
	srv, check := startPostgres(t)
	serve := func(queryTime time.Duration, app string, reached *atomic.Int64) string {
		pool, err := dbpool.Open(context.Background(), dbpool.Config{Driver: dbpool.DriverPostgres, DSN: srv.DSN(), Size: 2, Timeout: time.Minute,
			Queries: 1, QueryTime: queryTime, Metrics: dbpool.MetricsPrisma, ApplicationName: app}, promslog.NewNopLogger())
		require.NoError(t, err)
		t.Cleanup(func() { _ = pool.Close() })
		appHandler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			reached.Add(1)
			_, _ = w.Write([]byte("ok\n"))
		})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		hs := &http.Server{Handler: pool.Handler(appHandler, "/healthz"), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs.Serve(ln) }()
		t.Cleanup(func() { _ = hs.Close() })
		return "http://" + ln.Addr().String()
	}
	get := func(url string) int {
		resp, err := http.Get(url)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}

	var reached atomic.Int64
	fast := serve(0, "pod-handler-fast", &reached)
	p := &pod{url: fast}
	require.Equal(t, http.StatusOK, get(fast+"/healthz"))
	require.Equal(t, int64(1), reached.Load())
	require.Equal(t, 0.0, value(t, p.metrics(t), "prisma_datasource_queries_total", nil), "the probe runs no query")
	require.Equal(t, http.StatusOK, get(fast+"/orders"))
	require.Equal(t, int64(2), reached.Load())
	require.Equal(t, 1.0, value(t, p.metrics(t), "prisma_datasource_queries_total", nil))

	var slowReached atomic.Int64
	slow := serve(30*time.Second, "pod-handler-slow", &slowReached)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, slow+"/orders", nil)
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}()
	eventually(t, "the query on the server", func() bool {
		active, _ := activity(t, check, "pod-handler-slow")
		return active == 1
	})
	sp := &pod{url: slow}
	require.Equal(t, 1.0, value(t, sp.metrics(t), "prisma_pool_connections_busy", nil))
	// The client gives up: net/http cancels the request's context, which cancels the
	// query; the application is not reached.
	cancel()
	<-done
	eventually(t, "the connection back in the pool", func() bool {
		return value(t, sp.metrics(t), "prisma_pool_connections_busy", nil) == 0
	})
	require.Equal(t, int64(0), slowReached.Load())
}
