package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// startTestTarget serves the built-in target on loopback for one test.
func startTestTarget(t *testing.T, cfg target.Config) (*target.Server, string) {
	t.Helper()
	return targettest.Start(t, cfg)
}

func writeScenario(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

type exported struct {
	Metrics map[string]map[string]any `json:"metrics"`
}

func runScenario(t *testing.T, file string, args ...string) (int, string, string, exported) {
	t.Helper()
	export := filepath.Join(t.TempDir(), "export.json")
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"run", "--quiet", "--no-embedded-store", "--summary-export", export, "--testid", "it"}, append(args, file)...), &stdout, &stderr)
	var ex exported
	if b, err := os.ReadFile(export); err == nil {
		require.NoError(t, json.Unmarshal(b, &ex))
	}
	return code, stdout.String(), stderr.String(), ex
}

func count(ex exported, key string) float64 {
	v, _ := ex.Metrics[key]["count"].(float64)
	return v
}

// TestRunExecutorsMatchSchedules runs every executor in parallel against the target
// and checks, through thresholds and the export, that each did what its schedule
// says and that the target served exactly the requests the engine counted.
func TestRunExecutorsMatchSchedules(t *testing.T) {
	t.Parallel()
	ts, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, `
scenarios:
  shared:   { executor: shared-iterations, vus: 5, iterations: 100 }
  pervu:    { executor: per-vu-iterations, vus: 3, iterations: 10 }
  constant: { executor: constant-vus, vus: 2, duration: 2s }
  ramp:     { executor: ramping-vus, startVUs: 0, stages: [{duration: 1s, target: 3}, {duration: 1s, target: 0}] }
  car:      { executor: constant-arrival-rate, rate: 200, duration: 10s, preAllocatedVUs: 10, maxVUs: 100 }
  rar:      { executor: ramping-arrival-rate, startRate: 0, preAllocatedVUs: 10, maxVUs: 100,
              stages: [{duration: 2s, target: 100}, {duration: 1s, target: 100}] }
thresholds:
  'iterations{scenario:shared}': ['count==100']
  'iterations{scenario:pervu}': ['count==30']
  'iterations{scenario:car}': ['count>=1980', 'count<=2020']
  'iterations{scenario:rar}': ['count>=198', 'count<=202']
  'iterations{scenario:constant}': ['count>0']
  'iterations{scenario:ramp}': ['count>0']
  http_req_failed: ['rate==0']
flow:
  - url: `+url+`/
    checks: [{ status: 200 }]
`)
	code, stdout, stderr, ex := runScenario(t, file)
	require.Equal(t, exitcode.OK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	require.Equal(t, float64(ts.Stats().Requests), count(ex, "http_reqs"), "the target served exactly what the engine counted")
	require.Equal(t, count(ex, "http_reqs"), count(ex, "iterations"))
	require.Contains(t, stdout, "testid: it")
}

func TestRunDroppedIterations(t *testing.T) {
	t.Parallel()
	_, url := startTestTarget(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 100 * time.Millisecond}})
	file := writeScenario(t, `
scenarios:
  open: { executor: constant-arrival-rate, rate: 100, duration: 2s, preAllocatedVUs: 2, maxVUs: 5 }
flow:
  - url: `+url+`/
`)
	code, stdout, _, ex := runScenario(t, file)
	require.Equal(t, exitcode.OK, code, stdout)
	dropped, iters := count(ex, "dropped_iterations"), count(ex, "iterations")
	require.Greater(t, dropped, 100.0, "5 VUs at 100 ms per iteration start at most ~100 of 200")
	require.InDelta(t, 200, dropped+iters, 0, "every arrival is started or dropped")
	require.Contains(t, stdout, "dropped_iterations")
}

func TestRunThresholdExitCodes(t *testing.T) {
	t.Parallel()
	_, url := startTestTarget(t, target.Config{})
	for _, tc := range []struct {
		name, thresholds string
		args             []string
		duration         string // default 1s
		want             int
		message          string // on stderr; default k6's "have been crossed"
	}{
		{name: "pass", thresholds: `http_req_duration: ['p(95)<5000']`, want: exitcode.OK},
		{name: "fail", thresholds: `http_req_duration: ['p(95)<0']`, want: exitcode.ThresholdsFailed},
		{name: "no-thresholds", thresholds: `http_req_duration: ['p(95)<0']`, args: []string{"--no-thresholds"}, want: exitcode.OK},
		{name: "invalid threshold", thresholds: `http_req_duration: ['rate<1']`, want: exitcode.InvalidConfig},
		{name: "window under a second", thresholds: `http_req_duration: [{threshold: 'p(95)<500', window: 500ms}]`, want: exitcode.InvalidConfig},
		{name: "window not a duration", thresholds: `http_req_duration: [{threshold: 'p(95)<500', window: a while}]`, want: exitcode.InvalidConfig},
		{name: "window passes", thresholds: `http_req_duration: [{threshold: 'p(95)<5000', window: 1s}]`, duration: "3s", want: exitcode.OK},
		{name: "abortOnFail", thresholds: `http_req_duration: [{threshold: 'p(95)<0', abortOnFail: true}]`, duration: "20s", want: exitcode.ThresholdsFailed,
			message: "thresholds on metrics 'http_req_duration' were crossed; at least one has abortOnFail enabled, stopping test prematurely"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			duration := cmp.Or(tc.duration, "1s")
			file := writeScenario(t, "vus: 1\nduration: "+duration+"\nthresholds:\n  "+tc.thresholds+"\nflow:\n  - url: "+url+"/\n")
			start := time.Now()
			code, stdout, stderr, _ := runScenario(t, file, tc.args...)
			require.Equal(t, tc.want, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			if tc.want == exitcode.ThresholdsFailed {
				require.Contains(t, stderr, cmp.Or(tc.message, "thresholds on metrics 'http_req_duration' have been crossed"))
			}
			if tc.duration != "" {
				require.Less(t, time.Since(start), 10*time.Second, "abortOnFail stopped the run early")
			}
		})
	}
}

// TestRunWindowedThreshold: against a target whose latency shifts for one second of
// the run, the whole-run p95 passes and the 3 s windowed p95 fails: exit 99, and the
// summary and --summary-export name the worst window.
func TestRunWindowedThreshold(t *testing.T) {
	t.Parallel()
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, `
thresholds:
  http_req_duration: ['p(95)<500', {threshold: 'p(95)<500', window: 3s}]
scenarios:
  fast:
    executor: constant-arrival-rate
    rate: 50
    duration: 10s
    preAllocatedVUs: 20
    flow: [{url: '`+url+`/?delay=5ms'}]
  slow:
    executor: constant-arrival-rate
    rate: 15
    startTime: 4s
    duration: 1s
    preAllocatedVUs: 30
    flow: [{url: '`+url+`/?delay=700ms'}]
`)
	export := filepath.Join(t.TempDir(), "export.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--quiet", "--no-embedded-store", "--summary-export", export, "--testid", "win", file}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Contains(t, stdout.String(), "✓ 'p(95)<500' p(95)=")
	require.Contains(t, stdout.String(), "✗ 'p(95)<500' over 3s worst p(95)=")
	b, err := os.ReadFile(export)
	require.NoError(t, err)
	var ex struct {
		Metrics          map[string]map[string]any
		ThresholdWindows map[string]map[string]struct {
			Window string
			Worst  struct{ Value float64 } `json:"worst"`
		} `json:"threshold_windows"`
	}
	require.NoError(t, json.Unmarshal(b, &ex))
	require.Equal(t, map[string]any{"p(95)<500": false, "p(95)<500 over 3s": true}, ex.Metrics["http_req_duration"]["thresholds"])
	w := ex.ThresholdWindows["http_req_duration"]["p(95)<500 over 3s"]
	require.Equal(t, "3s", w.Window)
	require.GreaterOrEqual(t, w.Worst.Value, 500.0)
}

func TestRunInvalidScenario(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		args       []string
	}{
		{name: "unknown executor", body: "scenarios:\n  a: { executor: nope }\n"},
		{name: "bad segment", body: "vus: 1\nduration: 1s\nflow:\n  - url: http://127.0.0.1:1/\n", args: []string{"--execution-segment", "3/2"}},
		{name: "bad tag", body: "vus: 1\nduration: 1s\nflow:\n  - url: http://127.0.0.1:1/\n", args: []string{"--tag", "novalue"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr, _ := runScenario(t, writeScenario(t, tc.body), tc.args...)
			require.Equal(t, exitcode.InvalidConfig, code)
			require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one clear message: %s", stderr)
		})
	}
	code, _, stderr, _ := runScenario(t, filepath.Join(t.TempDir(), "missing.yaml"))
	require.Equal(t, exitcode.InvalidConfig, code)
	require.Contains(t, stderr, "missing.yaml")
}

// TestRunSIGTERM builds the binary, interrupts a run with SIGTERM and expects exit
// code 105 with the summary printed.
func TestRunSIGTERM(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")

	ts, url := startTestTarget(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 50 * time.Millisecond}})
	file := writeScenario(t, "vus: 3\nduration: 1m\nflow:\n  - url: "+url+"/\n")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "run", "--no-embedded-store", "--testid", "sig", file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return ts.Stats().Requests >= 10 }, 60*time.Second, 20*time.Millisecond,
		"the run sent no requests; stderr:\n%s", &stderr)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the run did not stop after SIGTERM")
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "exit error: %v", err)
	require.Equal(t, exitcode.ExternalAbort, ee.ExitCode(), "stderr:\n%s", stderr.String())
	require.Contains(t, stdout.String(), "TOTAL RESULTS")
	require.Contains(t, stdout.String(), "http_reqs")
	require.Contains(t, stderr.String(), "interrupted")
}

// TestRunHandleSummaryFails: as in k6, a handleSummary that throws is logged and the
// run's exit code stays its own: 0 for a passing run, 99 when thresholds were crossed
// (the run exited 107 or 255 before).
func TestRunHandleSummaryFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		threshold string
		want      int
	}{{"count>=0", exitcode.OK}, {"count<0", exitcode.ThresholdsFailed}} {
		t.Run(tc.threshold, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "script.js")
			require.NoError(t, os.WriteFile(p, []byte(`
export const options = { iterations: 2, thresholds: { iterations: ['`+tc.threshold+`'] } };
export default function () {}
export function handleSummary() { throw new Error('summary broke'); }
`), 0o600))
			var stdout, stderr bytes.Buffer
			code := run([]string{"run", "--no-embedded-store", "-q", p}, &stdout, &stderr)
			require.Equal(t, tc.want, code, stderr.String())
			require.Contains(t, stderr.String(), "Failed to handle the end-of-test summary")
			require.Contains(t, stderr.String(), "summary broke")
		})
	}
}

// TestRunScriptWindowedThreshold: a script's threshold takes window too, and
// handleSummary's data carries what its windows saw next to k6's ok.
func TestRunScriptWindowedThreshold(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "script.js")
	require.NoError(t, os.WriteFile(p, []byte(`
import { sleep } from 'k6';
export const options = { vus: 1, duration: '2500ms', thresholds: { iteration_duration: [{ threshold: 'p(95)<0', window: '1s' }] } };
export default function () { sleep(0.1); }
export function handleSummary(data) {
  const th = data.metrics.iteration_duration.thresholds['p(95)<0 over 1s'];
  return { stdout: JSON.stringify({ ok: th.ok, window: th.window, windows: th.windows, worst: th.worst.value > 0, end: th.worst.end_seconds }) + '\n' };
}
`), 0o600))
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--no-embedded-store", "-q", p}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, stderr.String())
	var got struct {
		OK      bool
		Window  string
		Windows int
		Worst   bool
		End     float64
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got), stdout.String())
	require.False(t, got.OK)
	require.Equal(t, "1s", got.Window)
	require.GreaterOrEqual(t, got.Windows, 2, "judged every second from 1 s on")
	require.True(t, got.Worst)
	require.Positive(t, got.End)
}
