//go:build integration

package workload

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbpool"
	"github.com/tidemark/tidemark/internal/dbserver"
)

// TestAppWithPool: a process-runtime pod application with a real pool (PostgreSQL): a
// concurrency of 2 admits 2 requests, which take 2 of the pool's 4 connections (the
// others wait in the pod's queue, not in the pool), and /metrics is the pool's under
// HikariCP's names.
func TestAppWithPool(t *testing.T) {
	srv, err := dbserver.Start(context.Background(), dbserver.Config{Engine: dbserver.Postgres}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	pool, err := dbpool.Open(context.Background(), dbpool.Config{Driver: dbpool.DriverPostgres, DSN: srv.DSN(), Size: 4, Timeout: time.Minute,
		Queries: 1, QueryTime: 2 * time.Second, Metrics: dbpool.MetricsHikariCP, ApplicationName: "p-0"}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = pool.Close() })
	app, err := New(Config{Name: "p-0", Costs: []Cost{{CPU: time.Millisecond}}, Concurrency: 2, DB: pool}, promslog.NewNopLogger())
	require.NoError(t, err)
	hs := httptest.NewServer(app)
	t.Cleanup(hs.Close)

	metrics := func() string {
		resp, err := http.Get(hs.URL + "/metrics")
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	var wg sync.WaitGroup
	codes := make(chan int, 5)
	for range 5 {
		wg.Go(func() {
			resp, err := http.Get(hs.URL + "/orders")
			if err != nil {
				codes <- 0
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			codes <- resp.StatusCode
		})
	}
	require.Eventually(t, func() bool {
		return strings.Contains(metrics(), `hikaricp_connections_active{pool="HikariPool-1"} 2`)
	}, time.Minute, 20*time.Millisecond)
	require.Contains(t, metrics(), `hikaricp_connections_pending{pool="HikariPool-1"} 0`, "the pod's queue holds the others")
	wg.Wait()
	close(codes)
	for c := range codes {
		require.Equal(t, http.StatusOK, c)
	}
	require.Contains(t, metrics(), `hikaricp_connections_acquire_seconds_count{pool="HikariPool-1"} 5`)
}
