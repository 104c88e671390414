//go:build integration

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/watcher"
	"github.com/tidemark/tidemark/internal/watcher/watchertest"
)

var exporterURL = regexp.MustCompile(`/runs on (http://[^\s;]+)`)

// startExporter starts `tidemark exporter` with args and returns its base URL, read
// from its first line.
func startExporter(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"exporter", "--web.listen-address=127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer // written by the process while the test reads it
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "exporter's first line; stderr:\n%s", stderr.String())
	m := exporterURL.FindStringSubmatch(line)
	require.NotNil(t, m, line)
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return cmd, m[1]
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test against loopback
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}

func metricValue(text, series string) (float64, bool) {
	for l := range strings.SplitSeq(text, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// TestIntegrationExporterBinary runs the real binary with nothing but the Prometheus
// URL, the namespace and a lookback: within its first look it exposes both days' facts
// and the +30 s regression, promtool accepts its whole /metrics, /runs links the
// reports it serves; killed with SIGKILL and started again on the same storage, it
// correlates nothing twice and keeps its history.
func TestIntegrationExporterBinary(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	day1 := watchertest.Run{TestID: "spike-50-20260301"}
	day2 := watchertest.Run{TestID: "spike-50-20260302", Day: 1, ScaleUpDelay: 30 * time.Second}
	prom := watchertest.Load(t, []watchertest.Run{day1, day2})
	storage := t.TempDir()
	lookback := fmt.Sprintf("%dh", int(time.Since(watchertest.From(t, day1)).Hours())+48)
	args := []string{"--prometheus.url=" + prom.URL, "--namespace=shoong", "--lookback=" + lookback,
		"--storage.path=" + storage, "--interval=1s"}

	cmd, base := startExporter(t, bin, args...)
	var metrics string
	promtest.Poll(t, 60*time.Second, 100*time.Millisecond, func() (bool, error) {
		metrics = httpGet(t, base+"/metrics")
		v, _ := metricValue(metrics, "tidemark_exporter_runs_correlated_total")
		return v == 2, nil
	})
	for _, id := range []string{day1.TestID, day2.TestID} {
		require.Contains(t, metrics, `tidemark_fact_hpa_reaction_seconds{from="load_step",object="shoong/order",testid="`+id+`"}`)
	}
	v, ok := metricValue(metrics, `tidemark_fact_regression{baseline_testid="spike-50-20260301",fact="hpa_reaction_seconds",from="load_step",kind="regression",object="shoong/order",testid="spike-50-20260302"}`)
	require.True(t, ok, metrics)
	require.InDelta(t, 30, v, 0.001)
	require.Contains(t, metrics, "tidemark_build_info{")
	check := exec.Command("/usr/bin/promtool", "check", "metrics")
	check.Stdin = strings.NewReader(metrics)
	out, err := check.CombinedOutput()
	require.NoError(t, err, "promtool check metrics:\n%s", out)

	var runs struct{ Runs []watcher.Run }
	require.NoError(t, json.Unmarshal([]byte(httpGet(t, base+"/runs?format=json")), &runs))
	require.Len(t, runs.Runs, 2)
	page := httpGet(t, base+"/runs")
	for _, r := range runs.Runs {
		link := "reports/" + r.Report + "/report.html"
		require.Contains(t, page, `href="`+link+`"`)
		require.Contains(t, httpGet(t, base+"/"+link), "<html")
	}
	state := readHistoryFiles(t, storage)

	// kill -9, and again on the same storage.
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	restarted := time.Now()
	_, base = startExporter(t, bin, args...)
	promtest.Poll(t, 30*time.Second, 100*time.Millisecond, func() (bool, error) {
		v, _ := metricValue(httpGet(t, base+"/metrics"), "tidemark_exporter_last_success_timestamp_seconds")
		return v > float64(restarted.Unix())+2, nil // a few looks after the restart
	})
	metrics = httpGet(t, base+"/metrics")
	v, _ = metricValue(metrics, "tidemark_exporter_runs_correlated_total")
	require.Zero(t, v, "no run correlated twice")
	v, _ = metricValue(metrics, "tidemark_exporter_runs")
	require.Equal(t, 2.0, v)
	require.Contains(t, metrics, `tidemark_fact_regression{baseline_testid="spike-50-20260301"`)
	require.Equal(t, state, readHistoryFiles(t, storage), "history intact, not rewritten")
}

// readHistoryFiles returns the contents of the exporter's state file and log (empty
// for one that does not exist yet).
func readHistoryFiles(t *testing.T, storage string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{watcher.StateFile, watcher.LogFile} {
		b, err := os.ReadFile(filepath.Join(storage, name))
		if !errors.Is(err, fs.ErrNotExist) {
			require.NoError(t, err)
		}
		out[name] = string(b)
	}
	require.NotEmpty(t, out[watcher.StateFile]+out[watcher.LogFile])
	return out
}
