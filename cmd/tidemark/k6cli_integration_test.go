//go:build integration

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/internal/testrun"
)

// cliRun is one run of the real binary: its exit code, its output, the requests the
// target served and the run's directory (its files).
type cliRun struct {
	code           int
	stdout, stderr string
	served         int64
	dir            string
}

// read returns the content of a file the run wrote in its directory.
func (r cliRun) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	require.NoError(t, err, "the run's %s\n%s", name, r.stderr)
	return string(b)
}

// exported reads metrics.<metric>.<field> of the run's --summary-export file.
func (r cliRun) exported(t *testing.T, name, metric, field string) float64 {
	t.Helper()
	var ex exported
	require.NoError(t, json.Unmarshal([]byte(r.read(t, name)), &ex))
	v, ok := ex.Metrics[metric][field].(float64)
	require.True(t, ok, "%s.%s in %s", metric, field, name)
	return v
}

// unsupportedWarnings returns the variables of each "not supported" warning.
func (r cliRun) unsupportedWarnings() []string {
	var out []string
	for line := range strings.SplitSeq(r.stderr, "\n") {
		if strings.Contains(line, "not supported by Tidemark") {
			_, vars, _ := strings.Cut(line, "variables=")
			out = append(out, vars)
		}
	}
	return out
}

// cliCase is one row of the table: a script (JavaScript, or YAML with yaml set) with
// {{URL}} as the target's address, the flags and K6_* variables it runs with, and
// what the run must show. during, when set, runs while the process is up (the REST
// API, --linger); the process ends by itself or by what during does.
type cliCase struct {
	name   string
	yaml   bool
	script string
	args   []string
	env    []string
	code   int
	served int64 // -1: not checked
	check  func(t *testing.T, r cliRun)
	during func(t *testing.T, p *cliProc)
}

// cliProc is the running binary of a case with a during step.
type cliProc struct {
	stderr *syncBuffer
	addr   string // the REST API's address, when the case set one
	ts     *target.Server
	cmd    *exec.Cmd
}

// cliEnv is the process environment without K6_* variables, plus env.
func cliEnv(env []string) []string {
	out := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "K6_") })
	return append(out, env...)
}

// runCase runs tc's script through the binary against a target of its own.
func runCase(t *testing.T, bin string, tc cliCase) cliRun {
	t.Helper()
	ts, url := targettest.Start(t, target.Config{})
	dir := t.TempDir()
	name := "script.js"
	if tc.yaml {
		name = "test.yaml"
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.ReplaceAll(tc.script, "{{URL}}", url)), 0o600))
	addr := ""
	expand := func(s string) string {
		if strings.Contains(s, "{{ADDR}}") && addr == "" {
			addr = freeAddress(t)
		}
		return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(s, "{{ADDR}}", addr), "{{DIR}}", dir), "{{URL}}", url)
	}
	args := []string{"run", "--no-embedded-store"}
	for _, a := range tc.args {
		args = append(args, expand(a))
	}
	args = append(args, name)
	var env []string
	for _, e := range tc.env {
		env = append(env, expand(e))
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, cliEnv(env)
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if tc.during != nil {
		tc.during(t, &cliProc{stderr: stderr, addr: addr, ts: ts, cmd: cmd})
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the run did not end within 60 s\n%s", stderr.String())
	}
	r := cliRun{stdout: stdout.String(), stderr: stderr.String(), served: ts.Stats().Requests, dir: dir}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

// patchStatus sends k6's PATCH /v1/status with attrs to the REST API on addr.
func patchStatus(t *testing.T, addr, attrs string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPatch, "http://"+addr+"/v1/status",
		strings.NewReader(`{"data":{"type":"status","id":"default","attributes":`+attrs+`}}`))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
}

// getAPI returns the body of GET path on the REST API, or "" while it does not answer.
func getAPI(addr, path string) string {
	resp, err := http.Get("http://" + addr + path) //nolint:noctx // a test's loopback call
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(b)
}

// countLines counts the lines of s that contain sub.
func countLines(s, sub string) int {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), sub) {
			n++
		}
	}
	return n
}

// The scripts of the table. get9 makes one request per iteration.
const (
	getScript = `import http from 'k6/http';
export default function () { http.get('{{URL}}/'); }
`
	sleepScript = `import http from 'k6/http';
import { sleep } from 'k6';
export default function () { http.get('{{URL}}/'); sleep(0.2); }
`
	failingThreshold = `import http from 'k6/http';
export const options = { iterations: 2, thresholds: { http_req_duration: ['max<0'] } };
export default function () { http.get('{{URL}}/'); }
`
	envScript = `import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () { http.get('{{URL}}/'); check(__ENV, { 'WANT is x': (e) => e.WANT === 'x' }); }
`
	systemEnvScript = `import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () { http.get('{{URL}}/'); check(__ENV, { 'FROM_PROC is unset': (e) => e.FROM_PROC === undefined }); }
`
	throwScript = `import http from 'k6/http';
export const options = { iterations: 1 };
export default function () { http.get('http://127.0.0.1:1/'); http.get('{{URL}}/'); }
`
	precedenceScript = `import http from 'k6/http';
export const options = { vus: 2, iterations: 12 };
export default function () { http.get('{{URL}}/'); }
`
	// k6's config layers for the shortcuts (checked against k6 v1.8.1 with the same
	// scripts): a layer's duration, iterations or stages clears the other two of the
	// layers below; vus stays (startVUs with stages).
	durationScript = `import http from 'k6/http';
import { sleep } from 'k6';
export const options = { vus: 3, duration: '20s' };
export default function () { http.get('{{URL}}/'); sleep(0.2); }
`
	stagesScript = `import http from 'k6/http';
import { sleep } from 'k6';
export const options = { stages: [{ duration: '20s', target: 5 }] };
export default function () { http.get('{{URL}}/'); sleep(0.2); }
`
	scenariosScript = `import http from 'k6/http';
import { sleep } from 'k6';
export const options = { scenarios: { a: { executor: 'constant-vus', vus: 2, duration: '20s' } } };
export default function () { http.get('{{URL}}/'); sleep(0.2); }
`
	yamlScenario = "iterations: 4\nflow:\n  - url: {{URL}}/\n"
	// k6 v2.1 replaces scenarios by -u/K6_VUS alone: N VUs share N iterations (v1.8.1
	// ignored it, without a warning).
	iterScenariosScript = `import http from 'k6/http';
export const options = { scenarios: { s1: { executor: 'shared-iterations', vus: 2, iterations: 4 } } };
export default function () { http.get('{{URL}}/'); }
`
	yamlScenarios = "scenarios:\n  s1: {executor: shared-iterations, vus: 2, iterations: 4}\nflow:\n  - url: {{URL}}/\n"
	// The script's httpDebug option, the option form of --http-debug.
	httpDebugFullScript = `import http from 'k6/http';
export const options = { iterations: 2, httpDebug: 'full' };
export default function () { http.get('{{URL}}/'); }
`
	httpDebugHeadersScript = `import http from 'k6/http';
export const options = { iterations: 2, httpDebug: 'headers' };
export default function () { http.get('{{URL}}/'); }
`
	httpDebugTrueScript = `import http from 'k6/http';
export const options = { iterations: 2, httpDebug: true };
export default function () { http.get('{{URL}}/'); }
`
)

// TestK6CLI runs each of k6 run's flags of issue 15, and its K6_* variable, through
// the real binary against a real target, and asserts its effect: the requests the
// target served, the summary, the exit code and the files written; then k6's
// precedence (defaults < script options < K6_* environment < flags), and one warning
// for the K6_* variables Tidemark does not support.
func TestK6CLI(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	noWarning := func(t *testing.T, r cliRun) {
		t.Helper()
		require.Empty(t, r.unsupportedWarnings(), "a supported K6_* variable is not warned of")
	}
	vusMax := func(n float64) func(t *testing.T, r cliRun) {
		return func(t *testing.T, r cliRun) {
			t.Helper()
			require.Equal(t, n, r.exported(t, "export.json", "vus_max", "max"), r.stderr)
		}
	}
	header := func(want string) func(t *testing.T, r cliRun) {
		return func(t *testing.T, r cliRun) { t.Helper(); require.Contains(t, r.stdout, want) }
	}
	export := []string{"--summary-export", "{{DIR}}/export.json"}
	cases := []cliCase{
		// -u/--vus and -i/--iterations (K6_VUS, K6_ITERATIONS).
		{name: "-u -i", script: getScript, args: append([]string{"-u", "3", "-i", "9"}, export...), served: 9, check: vusMax(3)},
		{name: "--vus --iterations", script: getScript, args: append([]string{"--vus", "3", "--iterations", "9"}, export...), served: 9, check: vusMax(3)},
		{name: "K6_VUS K6_ITERATIONS", script: getScript, args: export, env: []string{"K6_VUS=3", "K6_ITERATIONS=9"}, served: 9, check: vusMax(3)},
		{name: "-i on a scenario file", yaml: true, script: yamlScenario, args: []string{"-i", "6"}, served: 6},
		{name: "K6_ITERATIONS on a scenario file", yaml: true, script: yamlScenario, env: []string{"K6_ITERATIONS=6"}, served: 6},
		{name: "-u bad", script: getScript, args: []string{"-u", "x"}, code: exitcode.InvalidConfig, served: 0,
			check: func(t *testing.T, r cliRun) { require.Contains(t, r.stderr, `--vus "x": expected a whole number`) }},
		// -d/--duration (K6_DURATION): constant VUs for that long.
		{name: "-d", script: sleepScript, args: []string{"-u", "2", "-d", "1s"}, served: -1, check: header("31s max duration")},
		{name: "--duration", script: sleepScript, args: []string{"--vus", "2", "--duration", "1s"}, served: -1, check: header("31s max duration")},
		{name: "K6_DURATION", script: sleepScript, env: []string{"K6_VUS=2", "K6_DURATION=1s"}, served: -1, check: header("31s max duration")},
		// -s/--stage, repeatable (K6_STAGES): ramping VUs, gracefulRampDown 30s.
		{name: "-s repeated", script: sleepScript, args: []string{"-s", "500ms:2", "-s", "500ms:0"}, served: -1, check: header("31s max duration")},
		{name: "--stage", script: sleepScript, args: []string{"--stage", "1s:2"}, served: -1, check: header("31s max duration")},
		{name: "K6_STAGES", script: sleepScript, env: []string{"K6_STAGES=500ms:2,500ms:0"}, served: -1, check: header("31s max duration")},
		// -e/--env fills __ENV (k6 has no variable for it).
		{name: "-e", script: envScript, args: []string{"-e", "WANT=x"}, served: 1},
		{name: "--env", script: envScript, args: []string{"--env", "WANT=x"}, served: 1},
		{name: "without -e", script: envScript, code: exitcode.ThresholdsFailed, served: 1},
		// --include-system-env-vars (default true); --no-include-system-env-vars hides them.
		{name: "--include-system-env-vars", script: systemEnvScript, args: []string{"--include-system-env-vars"}, env: []string{"FROM_PROC=1"},
			code: exitcode.ThresholdsFailed, served: 1},
		{name: "--no-include-system-env-vars", script: systemEnvScript, args: []string{"--no-include-system-env-vars"}, env: []string{"FROM_PROC=1"}, served: 1},
		// --tag (K6_TAGS) on every sample.
		{name: "--tag", script: getScript, args: []string{"--tag", "team=edge", "--out", "json={{DIR}}/out.json"}, served: 1,
			check: func(t *testing.T, r cliRun) { require.Contains(t, r.read(t, "out.json"), `"team":"edge"`) }},
		{name: "K6_TAGS", script: getScript, args: []string{"--out", "json={{DIR}}/out.json"}, env: []string{"K6_TAGS=team:edge"}, served: 1,
			check: func(t *testing.T, r cliRun) { require.Contains(t, r.read(t, "out.json"), `"team":"edge"`) }},
		// --summary-trend-stats (K6_SUMMARY_TREND_STATS), --summary-time-unit (K6_SUMMARY_TIME_UNIT).
		{name: "--summary-trend-stats", script: getScript, args: []string{"--summary-trend-stats", "avg,p(99),count"}, served: 1, check: trendStats},
		{name: "K6_SUMMARY_TREND_STATS", script: getScript, env: []string{"K6_SUMMARY_TREND_STATS=avg,p(99),count"}, served: 1, check: trendStats},
		{name: "--summary-time-unit", script: getScript, args: []string{"--summary-time-unit", "ms"}, served: 1, check: timeUnitMS},
		{name: "K6_SUMMARY_TIME_UNIT", script: getScript, env: []string{"K6_SUMMARY_TIME_UNIT=ms"}, served: 1, check: timeUnitMS},
		// --summary-export (K6_SUMMARY_EXPORT): k6's legacy JSON with the counts.
		{name: "--summary-export", script: getScript, args: []string{"-i", "3", "--summary-export", "{{DIR}}/s.json"}, served: 3,
			check: func(t *testing.T, r cliRun) {
				require.InDelta(t, 3.0, r.exported(t, "s.json", "http_reqs", "count"), 0)
			}},
		{name: "K6_SUMMARY_EXPORT", script: getScript, args: []string{"-i", "3"}, env: []string{"K6_SUMMARY_EXPORT={{DIR}}/s.json"}, served: 3,
			check: func(t *testing.T, r cliRun) {
				require.InDelta(t, 3.0, r.exported(t, "s.json", "http_reqs", "count"), 0)
			}},
		// --no-summary (K6_NO_SUMMARY): no summary, and no summary file.
		{name: "--no-summary", script: getScript, args: []string{"--no-summary", "--summary-export", "{{DIR}}/s.json"}, served: 1, check: noSummary},
		{name: "K6_NO_SUMMARY", script: getScript, args: []string{"--summary-export", "{{DIR}}/s.json"}, env: []string{"K6_NO_SUMMARY=true"}, served: 1, check: noSummary},
		// --no-thresholds (K6_NO_THRESHOLDS): a crossed threshold no longer exits 99.
		{name: "thresholds crossed", script: failingThreshold, code: exitcode.ThresholdsFailed, served: 2},
		{name: "--no-thresholds", script: failingThreshold, args: []string{"--no-thresholds"}, served: 2},
		{name: "K6_NO_THRESHOLDS", script: failingThreshold, env: []string{"K6_NO_THRESHOLDS=true"}, served: 2},
		// --http-debug[=full] (K6_HTTP_DEBUG): one Request and one Response entry per
		// request, bodies with full; the bare flag does not take the script as its value.
		{name: "--http-debug", script: getScript, args: []string{"-i", "2", "--http-debug"}, served: 2, check: httpDebug(2, false)},
		{name: "--http-debug=full", script: getScript, args: []string{"-i", "2", "--http-debug=full"}, served: 2, check: httpDebug(2, true)},
		{name: "K6_HTTP_DEBUG=full", script: getScript, args: []string{"-i", "2"}, env: []string{"K6_HTTP_DEBUG=full"}, served: 2, check: httpDebug(2, true)},
		{name: "K6_HTTP_DEBUG=true", script: getScript, args: []string{"-i", "2"}, env: []string{"K6_HTTP_DEBUG=true"}, served: 2, check: httpDebug(2, false)},
		{name: "--http-debug=false", script: getScript, args: []string{"--http-debug=false"}, served: 1, check: httpDebug(1, false)}, // on, as in k6
		{name: "--no-http-debug", script: getScript, args: []string{"--no-http-debug"}, env: []string{"K6_HTTP_DEBUG=full"}, served: 1, check: httpDebug(0, false)},
		// The script's httpDebug (k6 v1.8.1): 'full' logs the bodies, other text the heads;
		// K6_HTTP_DEBUG over it, the flags over both; a boolean is refused (104).
		{name: "httpDebug: 'full'", script: httpDebugFullScript, served: 2, check: httpDebug(2, true)},
		{name: "httpDebug: 'headers'", script: httpDebugHeadersScript, served: 2, check: httpDebug(2, false)},
		{name: "K6_HTTP_DEBUG=full over httpDebug", script: httpDebugHeadersScript, env: []string{"K6_HTTP_DEBUG=full"}, served: 2, check: httpDebug(2, true)},
		{name: "K6_HTTP_DEBUG= (empty) under httpDebug", script: httpDebugFullScript, env: []string{"K6_HTTP_DEBUG="}, served: 2, check: httpDebug(2, true)},
		{name: "--http-debug over httpDebug: 'full'", script: httpDebugFullScript, args: []string{"--http-debug"}, served: 2, check: httpDebug(2, false)},
		{name: "--no-http-debug over httpDebug", script: httpDebugFullScript, args: []string{"--no-http-debug"}, served: 2, check: httpDebug(0, false)},
		{name: "httpDebug: true", script: httpDebugTrueScript, code: exitcode.InvalidConfig, served: 0,
			check: func(t *testing.T, r cliRun) { require.Contains(t, r.stderr, "httpDebug: expected a string") }},
		{name: "--http-debug on a scenario file", yaml: true, script: yamlScenario, args: []string{"--http-debug=full"}, served: 4, check: httpDebug(4, true)},
		// -w/--throw (K6_THROW): the failed request throws, the next is never sent.
		{name: "without --throw", script: throwScript, served: 1},
		{name: "--throw", script: throwScript, args: []string{"--throw"}, served: 0},
		{name: "-w", script: throwScript, args: []string{"-w"}, served: 0},
		{name: "K6_THROW", script: throwScript, env: []string{"K6_THROW=true"}, served: 0},
		// -q/--quiet: no progress on stderr.
		{name: "progress", script: sleepScript, args: []string{"-d", "1s", "--progress.interval=100ms"}, served: -1,
			check: func(t *testing.T, r cliRun) { require.Contains(t, r.stderr, "default [") }},
		{name: "-q", script: sleepScript, args: []string{"-q", "-d", "1s", "--progress.interval=100ms"}, served: -1,
			check: func(t *testing.T, r cliRun) { require.NotContains(t, r.stderr, "default [") }},
		{name: "--quiet", script: sleepScript, args: []string{"--quiet", "-d", "1s", "--progress.interval=100ms"}, served: -1,
			check: func(t *testing.T, r cliRun) { require.NotContains(t, r.stderr, "default [") }},
		// --no-usage-report (K6_NO_USAGE_REPORT): accepted; nothing is sent anyway.
		{name: "--no-usage-report", script: getScript, args: []string{"--no-usage-report"}, served: 1},
		{name: "K6_NO_USAGE_REPORT", script: getScript, env: []string{"K6_NO_USAGE_REPORT=true"}, served: 1},
		// --out json/csv (K6_OUT): one http_reqs point (row) per request.
		{name: "--out json --out csv", script: getScript, args: []string{"-i", "3", "--out", "json={{DIR}}/o.json", "-o", "csv={{DIR}}/o.csv"}, served: 3,
			check: func(t *testing.T, r cliRun) {
				require.Equal(t, 3, countLines(r.read(t, "o.json"), `{"metric":"http_reqs","type":"Point"`))
				require.Equal(t, 3, countLines(r.read(t, "o.csv"), "http_reqs,"))
			}},
		{name: "K6_OUT", script: getScript, args: []string{"-i", "3"}, env: []string{"K6_OUT=json={{DIR}}/o.json"}, served: 3,
			check: func(t *testing.T, r cliRun) {
				require.Equal(t, 3, countLines(r.read(t, "o.json"), `{"metric":"http_reqs","type":"Point"`))
			}},
		// -p/--paused with -a/--address (K6_PAUSED, K6_ADDRESS): nothing is sent until
		// PATCH /v1/status paused:false.
		{name: "--paused --address", script: getScript, args: []string{"-i", "3", "--paused", "--address", "{{ADDR}}"}, served: 3, during: resumeWhenPaused},
		{name: "-p -a", script: getScript, args: []string{"-i", "3", "-p", "-a", "{{ADDR}}"}, served: 3, during: resumeWhenPaused},
		{name: "K6_PAUSED K6_ADDRESS", script: getScript, args: []string{"-i", "3"}, env: []string{"K6_PAUSED=true", "K6_ADDRESS={{ADDR}}"}, served: 3, during: resumeWhenPaused},
		// -l/--linger (K6_LINGER): after the summary the REST API still serves the run
		// until SIGINT or SIGTERM; PATCH stopped:true does not end it (k6 v1.8.1).
		{name: "--linger", script: getScript, args: []string{"-i", "2", "--linger", "-a", "{{ADDR}}"}, served: 2, during: stopLingering},
		{name: "--linger, stopped during the run", script: sleepScript, args: []string{"-d", "30s", "--linger", "-a", "{{ADDR}}"}, served: -1,
			code: exitcode.ScriptStoppedFromRESTAPI, during: stopRunThenInterrupt},
		{name: "-l", script: getScript, args: []string{"-i", "2", "-l", "-a", "{{ADDR}}"}, served: 2, during: interruptLingering},
		{name: "K6_LINGER", script: getScript, args: []string{"-i", "2"}, env: []string{"K6_LINGER=true", "K6_ADDRESS={{ADDR}}"}, served: 2, during: stopLingering},

		// Precedence: defaults < script options < K6_* environment < flags.
		{name: "precedence: script", script: precedenceScript, args: export, served: 12, check: vusMax(2)},
		{name: "precedence: env over script", script: precedenceScript, args: export, env: []string{"K6_VUS=3"}, served: 12, check: vusMax(3)},
		{name: "precedence: flag over env", script: precedenceScript, args: append([]string{"-u", "4"}, export...), env: []string{"K6_VUS=3"}, served: 12, check: vusMax(4)},
		{name: "precedence: default", script: getScript, args: export, served: 1, check: vusMax(1)},
		{name: "precedence: flag over env, iterations", script: precedenceScript, args: []string{"-i", "5"}, env: []string{"K6_ITERATIONS=7"}, served: 5},
		{name: "precedence: -s over K6_DURATION", script: sleepScript, args: []string{"-s", "1s:1"}, env: []string{"K6_DURATION=20s"}, served: -1, check: header("31s max duration")},
		{name: "precedence: K6_TAGS under --tag", script: getScript, args: []string{"--tag", "team=flag", "--out", "json={{DIR}}/out.json"}, env: []string{"K6_TAGS=team:env"}, served: 1,
			check: func(t *testing.T, r cliRun) {
				require.Contains(t, r.read(t, "out.json"), `"team":"flag"`)
				require.NotContains(t, r.read(t, "out.json"), `"team":"env"`)
			}},

		// k6 v1.8.1's layers (task: -s over duration, vus+duration, scenarios; -u/-d over
		// stages): the later layer's duration, iterations or stages replace the others.
		{name: "layers: -s over a script's duration", script: durationScript, args: []string{"-s", "1s:1"}, served: -1, check: header("31s max duration")},
		{name: "layers: -s over a script's vus and duration", script: durationScript, args: append([]string{"-s", "1s:1"}, export...), served: -1,
			check: func(t *testing.T, r cliRun) {
				header("31s max duration")(t, r)
				vusMax(3)(t, r) // the script's vus are the stages' startVUs, as in k6
			}},
		{name: "layers: -s over scenarios", script: scenariosScript, args: []string{"-s", "1s:1"}, served: -1,
			check: func(t *testing.T, r cliRun) {
				header("31s max duration")(t, r)
				require.Contains(t, r.stderr, "replaces the script's scenarios")
			}},
		{name: "layers: -u alone over scenarios", script: iterScenariosScript, args: append([]string{"-u", "5"}, export...), served: 5,
			check: func(t *testing.T, r cliRun) {
				vusMax(5)(t, r)
				require.Contains(t, r.stderr, "replaces the", "k6 v2.1 warns that the scenarios are replaced")
			}},
		{name: "layers: K6_VUS alone over scenarios", script: iterScenariosScript, args: export, env: []string{"K6_VUS=5"}, served: 5,
			check: func(t *testing.T, r cliRun) {
				vusMax(5)(t, r)
				require.Contains(t, r.stderr, "replaces the")
			}},
		{name: "layers: -u alone over a scenario file's scenarios", yaml: true, script: yamlScenarios, args: append([]string{"-u", "5"}, export...), served: 5,
			check: func(t *testing.T, r cliRun) {
				vusMax(5)(t, r)
				require.Contains(t, r.stderr, "replaces the file's scenarios", "as a script's (k6 v2.1)")
			}},
		{name: "layers: K6_VUS=abc over scenarios", script: iterScenariosScript, env: []string{"K6_VUS=abc"}, code: exitcode.InvalidConfig, served: 0,
			check: func(t *testing.T, r cliRun) { require.Contains(t, r.stderr, `K6_VUS: "abc" is not a whole number`) }},
		{name: "layers: -u over stages", script: stagesScript, args: append([]string{"-u", "4", "-s", "1s:1"}, export...), served: -1, check: vusMax(4)},
		{name: "layers: -d over stages", script: stagesScript, args: []string{"-d", "1s"}, served: -1, check: header("1 scenario(s), 31s max duration")},
		{name: "layers: -i over stages", script: stagesScript, args: []string{"-i", "3"}, served: 3},
		{name: "layers: -s and -d at once", script: getScript, args: []string{"-s", "1s:1", "-d", "1s"}, code: exitcode.InvalidConfig, served: 0,
			check: func(t *testing.T, r cliRun) { require.Contains(t, r.stderr, "stages: conflicts with duration") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runCase(t, bin, tc)
			require.Equal(t, tc.code, r.code, "exit code\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			if tc.served >= 0 {
				require.Equal(t, tc.served, r.served, "requests served\n%s", r.stderr)
			}
			if len(tc.env) > 0 {
				noWarning(t, r)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}

	// Every K6_* variable k6 documents for k6 run that Tidemark does not honour gets
	// exactly one warning naming it, in one warning line; the run goes on.
	t.Run("unsupported K6_* variables", func(t *testing.T) {
		t.Parallel()
		var env, want []string
		for _, k := range k6DocumentedEnv() {
			if !slices.Contains(testrun.SupportedK6Env(), k) && !k6OutputEnv(k) {
				env, want = append(env, k+"=1"), append(want, k)
			}
		}
		require.NotEmpty(t, want)
		r := runCase(t, bin, cliCase{script: getScript, env: env})
		require.Equal(t, exitcode.OK, r.code, r.stderr)
		require.Equal(t, int64(1), r.served)
		warnings := r.unsupportedWarnings()
		require.Len(t, warnings, 1, r.stderr)
		named := strings.Split(strings.Trim(warnings[0], `"`), ",")
		slices.Sort(want)
		require.Equal(t, want, named)
	})
}

// k6DocumentedEnv are the K6_* variables k6 v1.8.1 documents for k6 run's options
// and outputs (reference/k6-js.md), other than the remote-write output's.
func k6DocumentedEnv() []string {
	return []string{
		"K6_VUS", "K6_DURATION", "K6_ITERATIONS", "K6_STAGES", "K6_TAGS", "K6_SUMMARY_TREND_STATS", "K6_SUMMARY_TIME_UNIT",
		"K6_SUMMARY_EXPORT", "K6_SUMMARY_MODE", "K6_NO_SUMMARY", "K6_NEW_MACHINE_READABLE_SUMMARY", "K6_NO_THRESHOLDS",
		"K6_HTTP_DEBUG", "K6_THROW", "K6_LINGER", "K6_PAUSED", "K6_ADDRESS", "K6_OUT", "K6_NO_USAGE_REPORT",
		"K6_NO_SETUP", "K6_NO_TEARDOWN", "K6_COMPATIBILITY_MODE", "K6_FEATURES", "K6_SETUP_TIMEOUT", "K6_TEARDOWN_TIMEOUT",
		"K6_HANDLE_SUMMARY_TIMEOUT", "K6_NO_COOKIES_RESET", "K6_SYSTEM_TAGS", "K6_USER_AGENT", "K6_MAX_REDIRECTS",
		"K6_INSECURE_SKIP_TLS_VERIFY", "K6_CSV_FILENAME", "K6_CSV_TIME_FORMAT", "K6_CSV_SAVE_INTERVAL",
		"K6_WEB_DASHBOARD", "K6_WEB_DASHBOARD_HOST", "K6_WEB_DASHBOARD_PORT", "K6_WEB_DASHBOARD_PERIOD",
		"K6_WEB_DASHBOARD_OPEN", "K6_WEB_DASHBOARD_EXPORT",
		"K6_CLOUD_TOKEN", "K6_CLOUD_PUSH_REF_ID", "K6_CLOUDRUN_INSTANCE_ID",
		"K6_BATCH", "K6_BATCH_PER_HOST", "K6_RPS", "K6_DNS", "K6_BLACKLIST_IPS", "K6_BLOCK_HOSTNAMES", "K6_LOCAL_IPS",
		"K6_MIN_ITERATION_DURATION", "K6_NO_CONNECTION_REUSE", "K6_NO_VU_CONNECTION_REUSE", "K6_DISCARD_RESPONSE_BODIES",
		"K6_LOG_OUTPUT", "K6_LOG_FORMAT", "K6_CONSOLE_OUTPUT", "K6_NO_COLOR",
	}
}

// k6OutputEnv reports whether k is an output's variable that only applies with that
// output (set alone, it would start the output or need its argument): the web
// dashboard's start a listener, the CSV ones configure --out csv.
func k6OutputEnv(k string) bool {
	return strings.HasPrefix(k, "K6_WEB_DASHBOARD") || strings.HasPrefix(k, "K6_CSV_") || k == "K6_OUT" || k == "K6_SUMMARY_EXPORT"
}

var summaryStats = regexp.MustCompile(`http_req_duration\.*: (.*)`)

func trendStats(t *testing.T, r cliRun) {
	t.Helper()
	m := summaryStats.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	require.Regexp(t, `^avg=\S+ +p\(99\)=\S+ +count=1\s*$`, m[1])
}

func timeUnitMS(t *testing.T, r cliRun) {
	t.Helper()
	m := summaryStats.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	require.Regexp(t, `^avg=[0-9.]+ms +min=[0-9.]+ms +med=[0-9.]+ms +max=[0-9.]+ms +p\(90\)=[0-9.]+ms +p\(95\)=[0-9.]+ms\s*$`, m[1])
}

func noSummary(t *testing.T, r cliRun) {
	t.Helper()
	require.NotContains(t, r.stdout, "http_reqs")
	require.NoFileExists(t, filepath.Join(r.dir, "s.json"))
}

// httpDebug checks k6's --http-debug entries: n requests and n responses, the
// response body only when full.
func httpDebug(n int, full bool) func(t *testing.T, r cliRun) {
	return func(t *testing.T, r cliRun) {
		t.Helper()
		require.Equal(t, n, countLines(r.stderr, `msg="Request:\nGET / HTTP/1.1\nHost: 127.0.0.1:`), r.stderr)
		require.Equal(t, n, countLines(r.stderr, `msg="Response:\nHTTP/1.1 200 OK\n`), r.stderr)
		require.Equal(t, 2*n, countLines(r.stderr, "source=http-debug"))
		require.Equal(t, 2*n, countLines(r.stderr, "level=info msg="))
		body := countLines(r.stderr, `\n\nok\n\n"`)
		if full {
			require.Equal(t, n, body)
		} else {
			require.Zero(t, body)
		}
	}
}

// resumeWhenPaused waits until the run is paused on the REST API with nothing sent,
// then resumes it.
func resumeWhenPaused(t *testing.T, p *cliProc) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(getAPI(p.addr, "/v1/status"), `"paused":true`) },
		20*time.Second, 20*time.Millisecond, "paused on the REST API\n%s", p.stderr.String())
	require.Zero(t, p.ts.Stats().Requests, "nothing is sent while paused")
	patchStatus(t, p.addr, `{"paused":false}`)
}

// lingering waits until the run is over and lingers, and checks that the REST API
// still serves its counts.
func lingering(t *testing.T, p *cliProc) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(p.stderr.String(), "lingering") },
		20*time.Second, 20*time.Millisecond, "lingering\n%s", p.stderr.String())
	require.Contains(t, getAPI(p.addr, "/v1/metrics/http_reqs"), `"count":2`, "the REST API serves the finished run")
}

// stopLingering sends PATCH stopped:true to a lingering run, which lingers on as k6
// v1.8.1 does (the REST API still answers, stopped), then ends it with SIGTERM.
func stopLingering(t *testing.T, p *cliProc) {
	t.Helper()
	lingering(t, p)
	patchStatus(t, p.addr, `{"stopped":true}`)
	lingersStopped(t, p)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
}

// lingersStopped checks that the REST API keeps answering, stopped, for a while.
func lingersStopped(t *testing.T, p *cliProc) {
	t.Helper()
	require.Contains(t, getAPI(p.addr, "/v1/status"), `"stopped":true`)
	require.Never(t, func() bool { return !strings.Contains(getAPI(p.addr, "/v1/status"), `"stopped":true`) },
		500*time.Millisecond, 20*time.Millisecond, "lingers on after PATCH stopped:true\n%s", p.stderr.String())
}

// stopRunThenInterrupt stops a running --linger run over the REST API: the run ends
// (k6's 103) but lingers until SIGINT.
func stopRunThenInterrupt(t *testing.T, p *cliProc) {
	t.Helper()
	require.Eventually(t, func() bool { return p.ts.Stats().Requests > 0 }, 20*time.Second, 20*time.Millisecond, "running\n%s", p.stderr.String())
	patchStatus(t, p.addr, `{"stopped":true}`)
	require.Eventually(t, func() bool { return strings.Contains(p.stderr.String(), "lingering") },
		20*time.Second, 20*time.Millisecond, "lingering\n%s", p.stderr.String())
	lingersStopped(t, p)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
}

func interruptLingering(t *testing.T, p *cliProc) {
	t.Helper()
	lingering(t, p)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
}
