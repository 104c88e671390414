//go:build integration

package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbserver"
	"github.com/tidemark/tidemark/internal/sim"
)

// TestTargetProcessWithARealPool runs `tidemark target` as a process with the flags
// and environment sim.TargetDB gives story 2's pod (examples/cluster-story2-postgres.yaml,
// its HikariCP pool made 10) against a real PostgreSQL, each query made to sleep 20 s so
// the state holds: 14 concurrent requests keep the 10 connections busy and 4 pending,
// /metrics says so under HikariCP's names, and pg_stat_activity counts the same 10
// connections of the pod's application_name, all executing. The DSN's password is in
// neither the process's command line nor its log.
func TestTargetProcessWithARealPool(t *testing.T) {
	ctx := context.Background()
	srv, err := dbserver.Start(ctx, dbserver.Config{Engine: dbserver.Postgres, MaxConnections: 100}, promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	p, err := sim.LoadProfile(filepath.Join("..", "..", "examples", "cluster-story2-postgres.yaml"))
	require.NoError(t, err)
	db := *p.Database
	// A pool of 10 (the example's is 50): 10 held connections are quick to reach.
	p.Services[0].Pool.Size, *p.Services[0].Pool.Warm = 10, 10
	db.QueryLatency, db.QueryCPU = sim.Duration(20*time.Second), 0
	const pod = "signup-6d9c7f-x2lq"
	args, env := sim.TargetDB(p.Services[0], &db, srv.DSN(), pod)
	require.NotEmpty(t, args)

	addr := freeAddress(t)
	cmd := exec.Command(tidemarkBinary(t, "tidemark"), append([]string{"target", "--web.listen-address=" + addr, "--grpc.listen-address=", "--quickpizza.listen-address="}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		t.Log("target ended:", <-exited)
		exited <- nil
	})
	base := "http://" + addr
	waitUntil(t, "the target answers", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	answered := make(chan int, 14)
	for range 14 {
		go func() {
			resp, err := http.Post(base+"/users", "application/json", bytes.NewReader([]byte(`{"email":"a@example.com"}`)))
			if err != nil {
				answered <- 0
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			answered <- resp.StatusCode
		}()
	}
	pool := map[string]string{"pool": "HikariPool-1"}
	metric := func(name string) float64 {
		resp, err := http.Get(base + "/metrics")
		require.NoError(t, err)
		defer resp.Body.Close()
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(resp.Body)
		require.NoError(t, err)
		f, ok := fams[name]
		require.True(t, ok, "no %s on the target's /metrics", name)
		require.Len(t, f.GetMetric(), 1)
		m := f.GetMetric()[0]
		require.Len(t, m.GetLabel(), 1)
		require.Equal(t, pool["pool"], m.GetLabel()[0].GetValue())
		return m.GetGauge().GetValue()
	}
	waitUntil(t, "10 busy, 4 pending", func() bool {
		return metric("hikaricp_connections_active") == 10 && metric("hikaricp_connections_pending") == 4
	})
	check, err := sql.Open("pgx", srv.DSN())
	require.NoError(t, err)
	defer check.Close()
	var active, all int
	waitUntil(t, "the server sees the 10 queries", func() bool {
		require.NoError(t, check.QueryRow(`SELECT count(*) FILTER (WHERE state = 'active'), count(*)
			FROM pg_stat_activity WHERE application_name = $1`, pod).Scan(&active, &all))
		return active == 10
	})
	require.Equal(t, 10, all)
	require.Equal(t, float64(active), metric("hikaricp_connections_active"), "busy vs pg_stat_activity state=active")
	require.Equal(t, float64(all), metric("hikaricp_connections"), "open vs pg_stat_activity")
	require.Equal(t, 0.0, metric("hikaricp_connections_idle"))
	require.Equal(t, 10.0, metric("hikaricp_connections_max"))
	require.Equal(t, 10.0, metric("hikaricp_connections_min"))

	// The secret stays out of argv and the log.
	dsn, err := url.Parse(srv.DSN())
	require.NoError(t, err)
	u, ok := dsn.User.Password()
	require.True(t, ok)
	require.Len(t, u, 32, "the generated password")
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "cmdline"))
	require.NoError(t, err)
	require.NotContains(t, string(cmdline), u)
	require.Contains(t, logs.String(), "Database pool opened")
	require.NotContains(t, logs.String(), u)

	// SIGTERM: the queries are cancelled, every request is answered, the process ends
	// and its connections leave the server.
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	for range 14 {
		<-answered
	}
	require.NoError(t, <-exited)
	exited <- nil
	waitUntil(t, "the pod's connections closed", func() bool {
		require.NoError(t, check.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, pod).Scan(&all))
		return all == 0
	})
}

// waitUntil polls cond every 50 ms for up to a minute: every state waited for here holds
// until the test ends it, so the bound only guards against a hang.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within a minute", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
