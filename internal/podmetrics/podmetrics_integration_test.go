//go:build integration

package podmetrics_test

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbpool"
	"github.com/tidemark/tidemark/internal/dbserver"
	"github.com/tidemark/tidemark/internal/podmetrics"
	"github.com/tidemark/tidemark/internal/target"
)

// TestGatherRealPods: two pods with real HikariCP-named pools on a real PostgreSQL, one
// with 1 and one with 3 requests holding connections; the gathered
// hikaricp_connections_active says so per pod, and pg_stat_activity agrees pod by pod
// (application_name = pod name).
func TestGatherRealPods(t *testing.T) {
	ctx := context.Background()
	srv, err := dbserver.Start(ctx, dbserver.Config{Engine: dbserver.Postgres}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	check, err := sql.Open("pgx", srv.DSN())
	require.NoError(t, err)
	t.Cleanup(func() { _ = check.Close() })

	var targets []podmetrics.Target
	busy := map[string]int{"signup-a": 1, "signup-b": 3}
	for _, name := range []string{"signup-a", "signup-b"} {
		pool, err := dbpool.Open(ctx, dbpool.Config{Driver: dbpool.DriverPostgres, DSN: srv.DSN(), Size: 5, Timeout: time.Minute,
			Queries: 1, QueryTime: 5 * time.Minute, Metrics: dbpool.MetricsHikariCP, ApplicationName: name}, promslog.NewNopLogger())
		require.NoError(t, err)
		ts, err := target.New(target.Config{DB: pool})
		require.NoError(t, err)
		reg := prometheus.NewRegistry()
		reg.MustRegister(pool)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		sctx, cancel := context.WithCancel(ctx)
		served := make(chan error, 1)
		go func() {
			served <- ts.Serve(sctx, ln, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), 100*time.Millisecond)
		}()
		t.Cleanup(func() {
			cancel()
			require.NoError(t, <-served)
			_ = pool.Close()
		})
		base := "http://" + ln.Addr().String()
		for range busy[name] {
			go func() {
				if resp, err := http.Get(base + "/"); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}()
		}
		targets = append(targets, podmetrics.Target{Namespace: "signup", Pod: name, Container: "signup", URL: base + "/metrics"})
	}
	g := podmetrics.New(func() []podmetrics.Target { return targets }, promslog.NewNopLogger())
	got := map[string]float64{}
	deadline := time.Now().Add(time.Minute)
	for {
		fams, err := g.Gather()
		require.NoError(t, err)
		for _, f := range fams {
			if f.GetName() != "hikaricp_connections_active" {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "pod" {
						got[l.GetValue()] = m.GetGauge().GetValue()
					}
				}
			}
		}
		if got["signup-a"] == 1 && got["signup-b"] == 3 {
			break
		}
		require.False(t, time.Now().After(deadline), "gathered %v", got)
		time.Sleep(50 * time.Millisecond)
	}
	for name, want := range busy {
		require.Eventually(t, func() bool {
			var active int
			require.NoError(t, check.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND application_name = $1`, name).Scan(&active))
			return active == want
		}, time.Minute, 50*time.Millisecond, "pg_stat_activity for %s", name)
		require.Equal(t, float64(want), got[name])
	}
}
