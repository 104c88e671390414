package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// TestRunWebDashboardExportOnly: port=-1 serves nothing and writes the export at the
// end; a parameter k6 does not have gets one warning, and K6_WEB_DASHBOARD_* are not
// reported as unsupported.
func TestRunWebDashboardExportOnly(t *testing.T) {
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "scenarios:\n  one: { executor: shared-iterations, vus: 1, iterations: 3 }\nflow:\n  - url: "+url+"/\n")
	export := filepath.Join(t.TempDir(), "report.html")
	t.Setenv("K6_WEB_DASHBOARD_PERIOD", "1s")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--no-embedded-store", "--out", "web-dashboard=port=-1&export=" + export + "&record=x", file}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	page, err := os.ReadFile(export)
	require.NoError(t, err)
	require.Contains(t, string(page), `id="card-http_reqs" data-raw="3"`)
	require.Equal(t, 1, strings.Count(stderr.String(), "These web-dashboard parameters are not k6's"), stderr.String())
	require.Contains(t, stderr.String(), "parameters=record")
	require.NotContains(t, stderr.String(), "K6_WEB_DASHBOARD_PERIOD", "the variable is supported")
	require.NotContains(t, stdout.String(), "web dashboard: served on", "port -1 serves nothing")
	require.Contains(t, stdout.String(), "web dashboard: report written to "+export)
}

// TestRunWebDashboardLinger: with --linger the page keeps serving the finished run's
// final state after the summary, and stops with the process.
func TestRunWebDashboardLinger(t *testing.T) {
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "iterations: 2\nflow:\n  - url: "+url+"/\n")
	api, dash := freeAddress(t), freeAddress(t)
	host, port, _ := strings.Cut(dash, ":")
	t.Setenv("K6_WEB_DASHBOARD", "true")
	t.Setenv("K6_WEB_DASHBOARD_HOST", host)
	t.Setenv("K6_WEB_DASHBOARD_PORT", port)
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"run", "-q", "--no-embedded-store", "--linger", "--address", api, file}, &stdout, &stderr)
	}()
	require.Eventually(t, func() bool { return strings.Contains(stdout.String(), "web dashboard: served on") }, 10*time.Second, 20*time.Millisecond, "the summary")
	resp, err := http.Get("http://" + dash + "/") //nolint:noctx // test
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Contains(t, string(body), `data-phase="finished"`)
	require.Contains(t, string(body), `id="card-http_reqs" data-raw="2"`)

	// --linger ends on SIGTERM (PATCH stopped:true does not end it, as in k6); run's
	// signal.NotifyContext is registered, and no other test runs now (t.Setenv).
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-done:
		require.Equal(t, exitcode.OK, code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("the run did not end\n%s", stderr.String())
	}
	_, err = http.Get("http://" + dash + "/") //nolint:noctx,bodyclose // must fail
	require.Error(t, err, "the page stops with the process")
}
