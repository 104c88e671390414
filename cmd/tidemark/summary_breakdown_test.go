package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// breakdownScenario hits three endpoints of the target per iteration, each answering
// its own status so that the target's by-status counts are its per-endpoint counts:
// /api/users 3 times (200), POST /api/orders twice (201), and a URL without a name
// once (503: its name tag is its URL, as in k6).
func breakdownScenario(t *testing.T, url, extra string) string {
	t.Helper()
	return writeScenario(t, `
scenarios:
  api: { executor: shared-iterations, vus: 4, iterations: 20 }
`+extra+`
flow:
  - { name: /api/users, url: '`+url+`/api/users' }
  - { name: /api/users, url: '`+url+`/api/users' }
  - { name: /api/users, url: '`+url+`/api/users' }
  - { name: /api/orders, method: POST, url: '`+url+`/api/orders?status=201', body: '{}' }
  - { name: /api/orders, method: POST, url: '`+url+`/api/orders?status=201', body: '{}' }
  - { url: '`+url+`/health?status=503', expect: [503] }
`)
}

// TestRunSummaryBreakdown runs against the target and checks that the breakdown rows of
// the text summary and of the export count exactly the requests the target served per
// endpoint, that the cap leaves the quietest endpoint out with a note, and that bad
// breakdown options are configuration errors (104) naming the flag or field.
func TestRunSummaryBreakdown(t *testing.T) {
	t.Parallel()
	t.Run("rows", func(t *testing.T) {
		t.Parallel()
		ts, url := startTestTarget(t, target.Config{})
		file := breakdownScenario(t, url, "")
		code, stdout, stderr, ex := runScenario(t, file, "--summary-breakdown", "name,method,status", "--summary-trend-stats", "avg,p(95),count")
		require.Equal(t, exitcode.OK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		served := ts.Stats().ByStatus
		require.Equal(t, map[string]int64{"200": 60, "201": 40, "503": 20}, served, "the requests the run sent")
		health := url + "/health?status=503"
		rows := map[string]string{
			"200": "name:/api/users,method:GET,status:200",
			"201": "name:/api/orders,method:POST,status:201",
			"503": "name:" + health + ",method:GET,status:503",
		}
		for status, row := range rows {
			want := float64(served[status])
			require.Equal(t, want, count(ex, "http_reqs{"+row+"}"), "http_reqs row %s", row)
			require.Equal(t, want, ex.Metrics["http_req_duration{"+row+"}"]["count"], "http_req_duration row %s", row)
			failed := ex.Metrics["http_req_failed{"+row+"}"]
			require.Equal(t, want, failed["passes"].(float64)+failed["fails"].(float64), "http_req_failed row %s", row)
			require.Equal(t, 0.0, failed["value"], "503 is expected for /health, so no row failed")
			require.Regexp(t, `\{ `+regexp.QuoteMeta(row)+` \}\.+: `+strconv.FormatFloat(want, 'f', -1, 64)+` `, stdout)
		}
		require.Len(t, keysWithPrefix(ex, "http_reqs{"), 3)
		require.NotContains(t, stdout, "breakdown capped")
	})
	t.Run("script", func(t *testing.T) {
		t.Parallel()
		ts, url := startTestTarget(t, target.Config{})
		script := filepath.Join(t.TempDir(), "t.js")
		require.NoError(t, os.WriteFile(script, []byte(`import http from 'k6/http';
export const options = { vus: 2, iterations: 10, summaryBreakdown: ['name'] };
export default function () {
  http.get('`+url+`/a');
  http.get('`+url+`/b?status=201');
  http.get('`+url+`/b?status=201');
  http.get('`+url+`/c?status=202', { tags: { name: 'c' } });
}
`), 0o600))
		code, stdout, stderr, ex := runScenario(t, script)
		require.Equal(t, exitcode.OK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		served := ts.Stats().ByStatus
		require.Equal(t, map[string]int64{"200": 10, "201": 20, "202": 10}, served)
		// The name tag is the URL unless the request sets one, as in k6.
		require.Equal(t, float64(served["200"]), count(ex, "http_reqs{name:"+url+"/a}"))
		require.Equal(t, float64(served["201"]), count(ex, "http_reqs{name:"+url+"/b?status=201}"))
		require.Equal(t, float64(served["202"]), count(ex, "http_reqs{name:c}"))
		require.Len(t, keysWithPrefix(ex, "http_reqs{"), 3)
	})
	t.Run("cap", func(t *testing.T) {
		t.Parallel()
		_, url := startTestTarget(t, target.Config{})
		file := breakdownScenario(t, url, "summaryBreakdown: [name]\nsummaryBreakdownLimit: 5")
		code, stdout, stderr, ex := runScenario(t, file, "--summary-breakdown-limit", "2")
		require.Equal(t, exitcode.OK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		require.Contains(t, stdout, "breakdown capped at 2 rows (the busiest); 3 tag combinations seen")
		require.Equal(t, 60.0, count(ex, "http_reqs{name:/api/users}"))
		require.Equal(t, 40.0, count(ex, "http_reqs{name:/api/orders}"))
		require.Len(t, keysWithPrefix(ex, "http_reqs{"), 2, "the quietest endpoint is left out")
	})
	for _, tc := range []struct {
		name, extra, want string
		args              []string
	}{
		{name: "empty flag key", args: []string{"--summary-breakdown", "name,,status"}, want: `--summary-breakdown "name,,status": tag key 2 is empty`},
		{name: "zero flag limit", args: []string{"--summary-breakdown", "name", "--summary-breakdown-limit", "0"}, want: `--summary-breakdown-limit "0": expected a whole number of at least 1`},
		{name: "zero option limit", extra: "summaryBreakdownLimit: 0", want: `summaryBreakdownLimit: must be more than 0, got 0`},
		{name: "empty option key", extra: "summaryBreakdown: [name, '']", want: `summaryBreakdown[1]: empty tag key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr, _ := runScenario(t, breakdownScenario(t, "http://127.0.0.1:1", tc.extra), tc.args...)
			require.Equal(t, exitcode.InvalidConfig, code, stderr)
			require.Contains(t, stderr, tc.want)
		})
	}
}

func keysWithPrefix(ex exported, prefix string) []string {
	var out []string
	for k := range ex.Metrics {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// TestInspectShowsSummaryBreakdown: inspect shows the breakdown options of a scenario
// file and of a script, with the limit's default.
func TestInspectShowsSummaryBreakdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yamlFile := filepath.Join(dir, "t.yaml")
	require.NoError(t, os.WriteFile(yamlFile, []byte("vus: 1\nduration: 1s\nsummaryBreakdown: [name, method]\nflow:\n  - url: http://127.0.0.1:1/\n"), 0o600))
	jsFile := filepath.Join(dir, "t.js")
	require.NoError(t, os.WriteFile(jsFile, []byte("export const options = { summaryBreakdown: ['status'], summaryBreakdownLimit: 9 };\nexport default function () {}\n"), 0o600))
	for file, want := range map[string][2]any{yamlFile: {[]any{"name", "method"}, 50.0}, jsFile: {[]any{"status"}, 9.0}} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitcode.OK, run([]string{"inspect", file}, &stdout, &stderr), stderr.String())
		var out map[string]any
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
		require.Equal(t, want[0], out["summaryBreakdown"], file)
		require.Equal(t, want[1], out["summaryBreakdownLimit"], file)
	}
}
