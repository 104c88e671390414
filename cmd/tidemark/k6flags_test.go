package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// TestRunK6ShortcutFlags: k6 run's -u/-i/-d/-s replace a file's scenarios, for a scenario
// file and a script alike, and win over K6_* variables, as k6's do (flags > environment >
// the file's options); the run says what replaced them.
func TestRunK6ShortcutFlags(t *testing.T) {
	ts, url := startTestTarget(t, target.Config{})
	yaml := writeScenario(t, "scenarios:\n  long: {executor: constant-vus, vus: 1, duration: 1h}\nflow:\n  - url: "+url+"/\n")
	script := filepath.Join(t.TempDir(), "test.js")
	require.NoError(t, os.WriteFile(script, []byte(`import http from 'k6/http';
export const options = { scenarios: { long: { executor: 'constant-vus', vus: 1, duration: '1h' } } };
export default function () { http.get('`+url+`/'); }
`), 0o600))
	for _, file := range []string{yaml, script} {
		t.Run(filepath.Ext(file), func(t *testing.T) {
			before := ts.Stats().Requests
			t.Setenv("K6_ITERATIONS", "9") // the flag wins
			code, stdout, stderr, ex := runScenario(t, file, "-u", "2", "-i", "4")
			require.Equal(t, exitcode.OK, code, "%s\n%s", stdout, stderr)
			require.InDelta(t, 4, count(ex, "iterations"), 0)
			require.Equal(t, int64(4), ts.Stats().Requests-before)
			require.Contains(t, stderr, "replaces the")
			require.Contains(t, stderr, "K6_ITERATIONS,K6_VUS")

			t.Setenv("K6_ITERATIONS", "")
			code, stdout, stderr, ex = runScenario(t, file, "--stage", "1s:2", "-s", "1s:0")
			require.Equal(t, exitcode.OK, code, "%s\n%s", stdout, stderr)
			require.Positive(t, count(ex, "iterations"))
		})
	}
}

// TestRunNoSummary: --no-summary (and --summary-mode=disabled) print no summary and
// write no summary file, as k6's do; the run's verdict is unchanged.
func TestRunNoSummary(t *testing.T) {
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "iterations: 2\nthresholds:\n  http_req_duration: ['p(95)<0']\nflow:\n  - url: "+url+"/\n")
	for _, args := range [][]string{{"--no-summary"}, {"--summary-mode", "disabled"}} {
		export := filepath.Join(t.TempDir(), "export.json")
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"run", "-q", "--no-embedded-store", "--summary-export", export}, append(args, file)...), &stdout, &stderr)
		require.Equal(t, exitcode.ThresholdsFailed, code, stderr.String())
		require.NotContains(t, stdout.String(), "THRESHOLDS")
		require.NoFileExists(t, export)
	}
}

// TestRunK6Env: K6_NO_THRESHOLDS and K6_SUMMARY_EXPORT work for a scenario file too, and a
// K6_* variable Tidemark does not honour gets one warning naming it; K6_WEB_DASHBOARD
// (with K6_WEB_DASHBOARD_PORT=-1: no page, so a busy :5665 cannot fail the run) is
// honoured, not warned of.
func TestRunK6Env(t *testing.T) {
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "iterations: 1\nthresholds:\n  http_req_duration: ['p(95)<0']\nflow:\n  - url: "+url+"/\n")
	export := filepath.Join(t.TempDir(), "export.json")
	t.Setenv("K6_NO_THRESHOLDS", "true")
	t.Setenv("K6_SUMMARY_EXPORT", export)
	t.Setenv("K6_WEB_DASHBOARD", "true")
	t.Setenv("K6_WEB_DASHBOARD_PORT", "-1") // honoured, and no listener on localhost:5665 (which may be busy)
	t.Setenv("K6_CLOUD_PUSH_REF_ID", "x")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--no-embedded-store", file}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	require.FileExists(t, export)
	require.Contains(t, stderr.String(), "not supported by Tidemark")
	require.Contains(t, stderr.String(), "variables=K6_CLOUD_PUSH_REF_ID")
	require.NotContains(t, stderr.String(), "K6_NO_THRESHOLDS,")
	for _, k := range []string{"K6_WEB_DASHBOARD", "K6_WEB_DASHBOARD_PORT"} {
		require.NotRegexp(t, `variables=\S*\b`+k+`\b`, stderr.String(), "%s is honoured, not warned of", k)
	}
	require.NotContains(t, stderr.String(), "5665", "no dashboard page with port -1")
}

// TestRunOutJSONAndCSV: --out json=FILE and --out csv=FILE.gz write k6's formats for a
// scenario file and a script alike: one Point line (row) per http_reqs sample, as many as
// the target served; a bad --out is exit 104 naming the outputs.
func TestRunOutJSONAndCSV(t *testing.T) {
	ts, url := startTestTarget(t, target.Config{})
	yaml := writeScenario(t, "iterations: 5\nthresholds:\n  http_req_duration: ['p(95)<5000']\nflow:\n  - url: "+url+"/\n")
	script := filepath.Join(t.TempDir(), "out.js")
	require.NoError(t, os.WriteFile(script, []byte(`import http from 'k6/http';
export const options = { iterations: 5, thresholds: { http_req_duration: ['p(95)<5000'] } };
export default function () { http.get('`+url+`/'); }
`), 0o600))
	for _, file := range []string{yaml, script} {
		t.Run(filepath.Ext(file), func(t *testing.T) {
			dir := t.TempDir()
			jsonPath, csvPath := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.csv.gz")
			before := ts.Stats().Requests
			code, stdout, stderr, _ := runScenario(t, file, "--out", "json="+jsonPath, "-o", "csv="+csvPath)
			require.Equal(t, exitcode.OK, code, "%s\n%s", stdout, stderr)
			served := ts.Stats().Requests - before

			b, err := os.ReadFile(jsonPath)
			require.NoError(t, err)
			var points, metricLines int
			for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
				var l struct {
					Type   string `json:"type"`
					Metric string `json:"metric"`
					Data   struct {
						Thresholds []string `json:"thresholds"`
					} `json:"data"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &l), line)
				if l.Metric == "http_reqs" && l.Type == "Point" {
					points++
				}
				if l.Metric == "http_req_duration" && l.Type == "Metric" {
					metricLines++
					require.Equal(t, []string{"p(95)<5000"}, l.Data.Thresholds)
				}
			}
			require.Equal(t, int(served), points, "one http_reqs Point per request")
			require.Equal(t, 1, metricLines)

			f, err := os.Open(csvPath)
			require.NoError(t, err)
			defer f.Close()
			zr, err := gzip.NewReader(f)
			require.NoError(t, err)
			rows, err := csv.NewReader(zr).ReadAll()
			require.NoError(t, err)
			require.Equal(t, "metric_name", rows[0][0])
			var reqs int
			for _, r := range rows[1:] {
				if r[0] == "http_reqs" {
					reqs++
				}
			}
			require.Equal(t, int(served), reqs)
		})
	}
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitcode.InvalidConfig, run([]string{"run", "-q", "--no-embedded-store", "--out", "influxdb=http://x", yaml}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "available types are")
}

// TestRunShortcutFlagErrors: a bad shortcut flag is exit 104 naming the flag and what
// was expected, before anything runs.
func TestRunShortcutFlagErrors(t *testing.T) {
	file := writeScenario(t, "iterations: 1\nflow:\n  - url: http://127.0.0.1:1/\n")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--no-embedded-store", "-u", "abc", "-d", "1x", "-s", "oops", file}, &stdout, &stderr)
	require.Equal(t, exitcode.InvalidConfig, code)
	for _, want := range []string{`--vus "abc": expected a whole number`, `--duration "1x": expected a duration`, `--stage "oops": expected DURATION:TARGET`} {
		require.Contains(t, stderr.String(), want)
	}
}
