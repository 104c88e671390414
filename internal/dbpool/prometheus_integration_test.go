//go:build integration

package dbpool_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbpool"
	"github.com/tidemark/tidemark/internal/promtest"
)

// TestPrometheusStoresPoolAndServer: a real Prometheus scrapes a pod (a HikariCP pool of
// 5, min 0) and postgres_exporter every second while the load steps 0 → 2 → 7 requests
// whose queries hold their connections. At each held step, what Prometheus stored agrees
// with pg_stat_activity read at the same step: the pod's hikaricp_connections_active is
// the server's count of the pod's executing backends, and postgres_exporter's
// pg_stat_activity_count (all states) is the pod's hikaricp_connections plus the
// server's count of the other connections (the exporter's own and the test's).
func TestPrometheusStoresPoolAndServer(t *testing.T) {
	srv, check := startPostgres(t)
	const app = "signup-0"
	p := startPod(t, dbpool.Config{Driver: dbpool.DriverPostgres, DSN: srv.DSN(), Size: 5, Timeout: 5 * time.Minute,
		Queries: 1, QueryTime: 5 * time.Minute, Metrics: dbpool.MetricsHikariCP, ApplicationName: app})
	podURL, err := url.Parse(p.url)
	require.NoError(t, err)
	prom := promtest.StartPrometheus(t, promtest.WithConfig(fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: signup
    static_configs:
      - targets: [%q]
        labels: {namespace: signup, pod: %s}
  - job_name: postgres
    static_configs:
      - targets: [%q]
`, podURL.Host, app, srv.ExporterAddr())))

	// instant returns the single value of expr at the newest scrape.
	instant := func(expr string) (float64, bool) {
		v, err := promtest.Query(context.Background(), prom.URL, expr, time.Time{})
		require.NoError(t, err)
		vec, ok := v.(model.Vector)
		if !ok || len(vec) != 1 {
			return 0, false
		}
		return float64(vec[0].Value), true
	}
	pool := `{job="signup",pod="signup-0",pool="HikariPool-1"}`
	// Open opens one connection (it checks the server answers), which the pool keeps.
	for _, step := range []struct{ requests, busy, open int }{{0, 0, 1}, {2, 2, 2}, {5, 5, 5}} {
		if step.requests > 0 {
			fire(p, step.requests)
		}
		// The state holds (5-minute queries): wait until the server, then Prometheus,
		// have seen it; then read both once more and compare.
		eventually(t, fmt.Sprintf("%d executing on the server", step.busy), func() bool {
			active, all := activity(t, check, app)
			return active == step.busy && all == step.open
		})
		promtest.Poll(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
			busy, ok := instant("hikaricp_connections_active" + pool)
			return ok && busy == float64(step.busy), fmt.Errorf("hikaricp_connections_active %v", busy)
		})
		var others int
		require.NoError(t, check.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = 'postgres' AND application_name <> $1`, app).Scan(&others))
		promtest.Poll(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
			// Both from one scrape round each, no older than 2 s.
			db, ok1 := instant(`sum(last_over_time(pg_stat_activity_count{job="postgres",datname="postgres"}[2s]))`)
			open, ok2 := instant("hikaricp_connections" + pool)
			return ok1 && ok2 && open == float64(step.open) && db == open+float64(others),
				fmt.Errorf("pg_stat_activity_count %v, hikaricp_connections %v, other connections %d", db, open, others)
		})
		active, all := activity(t, check, app)
		require.Equal(t, step.busy, active, "the step still holds")
		require.Equal(t, step.open, all)
	}
	maxConns, ok := instant(`pg_settings_max_connections{job="postgres"}`)
	require.True(t, ok)
	require.Equal(t, 60.0, maxConns)
	size, ok := instant("hikaricp_connections_max" + pool)
	require.True(t, ok)
	require.Equal(t, 5.0, size)
}
