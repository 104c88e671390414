//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/target"
)

// shortRules is builtin:cluster with windows a run of 30 s can fill: rate() over 10s of
// a cluster scraped every second, `for: 5s`, and severity as sev says per alert (the
// shipped one otherwise). The expressions, metric names and labels are the shipped ones.
func shortRules(t *testing.T, sev map[string]string) string {
	t.Helper()
	b, err := slo.Builtin("cluster")
	require.NoError(t, err)
	s := strings.NewReplacer("[1m]", "[10s]", "[30s]", "[10s]", "[2m]", "[30s]", "for: 30s", "for: 5s", "for: 15s", "for: 5s").Replace(string(b))
	for alert, severity := range sev {
		i := strings.Index(s, "alert: "+alert)
		require.GreaterOrEqual(t, i, 0, alert)
		j := i + strings.Index(s[i:], "severity: ")
		end := j + strings.Index(s[j:], "\n")
		s = s[:j] + "severity: " + severity + s[end:]
	}
	p := filepath.Join(t.TempDir(), "rules.yaml")
	require.NoError(t, os.WriteFile(p, []byte(s), 0o600))
	return p
}

// startSimProm starts the simulated cluster of profile and a real Prometheus that
// scrapes it every second and receives the run's remote write.
func startSimProm(t *testing.T, profile string) (*sim.Server, *promtest.Server) {
	t.Helper()
	p, err := sim.LoadProfile(profile)
	require.NoError(t, err)
	srv, err := sim.NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	require.NoError(t, srv.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	cfg, err := srv.ScrapeConfig(time.Second)
	require.NoError(t, err)
	return srv, promtest.StartPrometheus(t, promtest.WithConfig(cfg))
}

// TestIntegrationSLOThrottling is issue 29's "done when": a rules file on a run against
// the simulator fails the run on throttling as the rules say, during the run, and again
// through `correlate --slo` afterwards. The 500m pod of cluster-throttle-500m is offered
// 30 requests/s of 25 ms of CPU each (1.5 times its limit): its containers are
// throttled in most CFS periods, which cAdvisor's counters show and CPUThrottlingHigh
// (severity error) judges.
func TestIntegrationSLOThrottling(t *testing.T) {
	t.Parallel()
	srv, prom := startSimProm(t, "../../examples/cluster-throttle-500m.yaml")
	rules := shortRules(t, nil)
	scen := writeScenario(t, `
scenarios:
  steady:
    executor: constant-arrival-rate
    rate: 30
    duration: 28s
    preAllocatedVUs: 20
    maxVUs: 300
flow:
  - name: poll
    url: `+srv.ServiceURLs()["api"]+`/coupons/poll
`)
	var stdout, stderr bytes.Buffer
	export := filepath.Join(t.TempDir(), "export.json")
	code := run([]string{"run", "-q", "--testid", "slo-throttle", "--remote-write.url", prom.WriteURL(),
		"--prometheus.url", prom.URL, "--slo", rules, "--summary-export", export, scen}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	out := stdout.String()
	require.Contains(t, out, "█ SERVER-SIDE RULES")
	require.Regexp(t, `steady #1 .* broke: rule CPUThrottlingHigh \[error\]`, out, "the STAGES row names the rule")
	var exp struct {
		Metrics map[string]json.RawMessage `json:"metrics"`
		SLO     struct {
			Failed bool `json:"failed"`
			Rules  []struct {
				Name   string            `json:"name"`
				Fired  bool              `json:"fired"`
				Firing []json.RawMessage `json:"firing"`
			} `json:"rules"`
		} `json:"slo"`
	}
	b, err := os.ReadFile(export)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &exp))
	require.Contains(t, exp.Metrics, "http_reqs", "k6's keys keep their shape")
	require.True(t, exp.SLO.Failed)
	require.Equal(t, "CPUThrottlingHigh", exp.SLO.Rules[0].Name)
	require.True(t, exp.SLO.Rules[0].Fired)
	require.NotEmpty(t, exp.SLO.Rules[0].Firing)
	// The rules' states went out with the run's series.
	promtest.WaitForQuery(t, prom.URL, `max_over_time(tidemark_slo_rule_firing{testid="slo-throttle", alertname="CPUThrottlingHigh", severity="error", judge="live"}[1h]) == 1`,
		10*time.Second, promtest.SeriesCount(1))
	promtest.WaitForQuery(t, prom.URL, `max_over_time(tidemark_slo_rule_firing{testid="slo-throttle", alertname="HPAMaxedOutOverTarget", judge="live"}[1h]) == 0`,
		10*time.Second, promtest.SeriesCount(1))
	require.Regexp(t, `✗ CPUThrottlingHigh \[error\] fired \d+s in: [01](\.\d+)? \{namespace="loadtest", pod="api-`, out)
	require.Contains(t, out, "✓ HPAMaxedOutOverTarget [error] did not fire", "the profile has no HPA")
	require.Contains(t, stderr.String(), "Server-side rule fired", "fired while the run went, not only at its end")
	require.Contains(t, stderr.String(), "server-side rules fired: CPUThrottlingHigh (error)")

	// The summary of the run read back from Prometheus (tidemark summarize, as for a
	// distributed run) shows the rules it was judged by and keeps its verdict.
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"summarize", "--testid", "slo-throttle", "--prometheus.url", prom.URL, "--lookback", "1h"}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Contains(t, stdout.String(), "█ SERVER-SIDE RULES")
	require.Regexp(t, `✗ CPUThrottlingHigh \[error\] fired \d+s in`, stdout.String())
	require.Contains(t, stdout.String(), "✓ HPAMaxedOutOverTarget [error] did not fire")
	require.Contains(t, stderr.String(), "server-side rules fired: CPUThrottlingHigh (error)")

	// Afterwards: the same rules judge the same run from Prometheus.
	dir := filepath.Join(t.TempDir(), "report")
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"correlate", "--testid", "slo-throttle", "--prometheus.url", prom.URL, "--slo", rules, "--output.dir", dir,
		"--baseline", "30s", "--after", "0", "--lookback", "1h"}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Regexp(t, `✗ CPUThrottlingHigh \[error\] fired \d+s in`, stdout.String())
	b, err = os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var res correlator.Result
	require.NoError(t, json.Unmarshal(b, &res))
	require.NotNil(t, res.SLO)
	require.True(t, res.SLO.Failed)
	byName := map[string]slo.Outcome{}
	for _, o := range res.SLO.Run.Outcomes {
		byName[o.Alert] = o
	}
	th := byName["CPUThrottlingHigh"]
	require.True(t, th.Fired, "%+v", th)
	require.Equal(t, "loadtest", th.Labels["namespace"])
	require.Greater(t, *th.Value, 0.25)
	require.True(t, th.FiredAt.After(res.Window.Run.From) && !th.FiredAt.After(res.Window.Run.To), "fired inside the run: %+v", th)
	require.False(t, byName["HPAMaxedOutOverTarget"].Fired)
	require.Positive(t, byName["HPAMaxedOutOverTarget"].Evaluations)
	require.Len(t, res.SLO.Stages, 1, "judged per stage too")
	require.True(t, slices.ContainsFunc(res.SLO.Stages[0].Outcomes, func(o slo.Outcome) bool { return o.Alert == "CPUThrottlingHigh" && o.Fired }),
		"%+v", res.SLO.Stages[0])
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "Server-side rules")
	require.Contains(t, string(md), "✗ CPUThrottlingHigh")
	require.Contains(t, string(md), "server-side rules fired: CPUThrottlingHigh [error]", "the Stages table names the rule")
	// Written back beside the live judgement.
	promtest.WaitForQuery(t, prom.URL, `max_over_time(tidemark_slo_rule_firing{testid="slo-throttle", alertname="CPUThrottlingHigh", judge="correlate"}[1h]) == 1`,
		10*time.Second, promtest.SeriesCount(1))
}

// TestIntegrationSLOCriticalAborts: HPAMaxedOutOverTarget made critical aborts a run
// whose HPA sits at maxReplicas with its CPU over target, as an abortOnFail threshold
// does (exit code 99, well before its 60 s); correlate --slo then finds the same rule
// fired.
func TestIntegrationSLOCriticalAborts(t *testing.T) {
	t.Parallel()
	srv, prom := startSimProm(t, "testdata/slo/cluster-hpa-max.yaml")
	rules := shortRules(t, map[string]string{"HPAMaxedOutOverTarget": "critical", "CPUThrottlingHigh": "warning"})
	scen := writeScenario(t, `
scenarios:
  steady:
    executor: constant-arrival-rate
    rate: 15
    duration: 60s
    preAllocatedVUs: 20
    maxVUs: 200
flow:
  - name: home
    url: `+srv.ServiceURLs()["api"]+`/
`)
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run([]string{"run", "-q", "--testid", "slo-hpa", "--remote-write.url", prom.WriteURL(),
		"--prometheus.url", prom.URL, "--slo", rules, scen}, &stdout, &stderr)
	took := time.Since(start)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	t.Logf("aborted after %s of its 60 s", took.Round(time.Second))
	require.Less(t, took, 50*time.Second, "aborted before the end of its 60 s")
	require.Regexp(t, `✗ HPAMaxedOutOverTarget \[critical\] fired \d+s in: 1 \{horizontalpodautoscaler="api", namespace="slo"\}`, stdout.String())
	require.Contains(t, stderr.String(), "a critical rule aborted the run")

	stdout.Reset()
	stderr.Reset()
	code = run([]string{"correlate", "--testid", "slo-hpa", "--prometheus.url", prom.URL, "--slo", rules,
		"--output.dir", t.TempDir(), "--no-write-back", "--baseline", "30s", "--after", "0", "--lookback", "1h"}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Regexp(t, `✗ HPAMaxedOutOverTarget \[critical\] fired`, stdout.String())
}

// TestIntegrationSLOBadRules: a rule file that does not validate ends run and correlate
// with exit code 104 before anything runs, naming file, line and field of every
// mistake: a range shorter than the push interval, an unknown severity, PromQL that
// does not parse, a `for` shorter than the push interval.
func TestIntegrationSLOBadRules(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(p, []byte("groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: rate(up[1s]) > 0\n        labels: {severity: page}\n"+
		"      - alert: B\n        expr: sum(rate(up[1m])\n        labels: {severity: error}\n"+
		"      - alert: C\n        expr: up == 0\n        for: 2s\n        labels: {severity: critical}\n"), 0o600))
	scen := writeScenario(t, "scenarios:\n  s: {executor: shared-iterations, iterations: 1}\nflow:\n  - url: http://127.0.0.1:9/\n")
	for _, args := range [][]string{
		{"run", "-q", "--no-embedded-store", "--slo", p, scen},
		{"correlate", "--testid", "x", "--prometheus.url", "http://127.0.0.1:9", "--slo", p},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		require.Equal(t, exitcode.InvalidConfig, code, "%v: %s", args, stderr.String())
		require.Contains(t, stderr.String(), p+`:5: group "g", rule "A", field expr: window [1s] is shorter than the push interval 5s`)
		require.Contains(t, stderr.String(), p+`:6: group "g", rule "A", field labels.severity: unknown severity "page"`)
		require.Contains(t, stderr.String(), p+`:8: group "g", rule "B", field expr: could not parse expression: 1:17: parse error: unclosed left parenthesis`)
		require.Contains(t, stderr.String(), p+`:12: group "g", rule "C", field for: 2s is shorter than the push interval 5s`)
	}
}

// TestIntegrationSLOEmbeddedStore: without --remote-write.url and --prometheus.url the
// rules are judged against the embedded store the run writes to, {{ .elapsed }} spans
// the run (instant queries at each evaluation, during the run and after the fact), and
// a critical rule that never fires does not fail the run.
func TestIntegrationSLOEmbeddedStore(t *testing.T) {
	t.Parallel()
	_, url := startTestTarget(t, target.Config{})
	data := filepath.Join(t.TempDir(), "data")
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	require.NoError(t, os.WriteFile(rules, []byte(`groups:
  - name: run
    rules:
      - alert: RequestsSeen
        expr: sum(max_over_time(k6_http_reqs_total{testid="{{ .testid }}"}[{{ .elapsed }}])) > 0
        labels: {severity: error}
        annotations: {summary: '{{ $value }} requests within {{ .elapsed }}'}
      - alert: Never
        expr: sum(k6_vus{testid="{{ .testid }}"}) > 1e9
        for: 5s
        labels: {severity: critical}
`), 0o600))
	scen := writeScenario(t, `
scenarios:
  steady:
    executor: constant-arrival-rate
    rate: 10
    duration: 12s
    preAllocatedVUs: 5
flow:
  - name: home
    url: `+url+`/
`)
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--testid", "slo-embedded", "--storage.tsdb.path", data, "--slo", rules, scen}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Regexp(t, `✗ RequestsSeen \[error\] fired \d+s in: \d+: \d+ requests within \d+s`, stdout.String())
	require.Regexp(t, `✓ Never \[critical\] did not fire \(\d+ evaluations\)`, stdout.String())

	stdout.Reset()
	stderr.Reset()
	code = run([]string{"correlate", "--testid", "slo-embedded", "--storage.tsdb.path", data, "--slo", rules,
		"--output.dir", t.TempDir(), "--no-write-back", "--after", "0"}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Regexp(t, `✗ RequestsSeen \[error\] fired \d+s in`, stdout.String())
	require.Contains(t, stdout.String(), "✓ Never [critical] did not fire")
}

// TestIntegrationWindowedThresholdPerStage: a windowed threshold that fails only while
// the slow scenario runs is named in that scenario's STAGES row, in the summary and in
// the report of `correlate` (read back from the run's tidemark_threshold_result_pass),
// and in no other stage.
func TestIntegrationWindowedThresholdPerStage(t *testing.T) {
	t.Parallel()
	_, url := startTestTarget(t, target.Config{})
	data := filepath.Join(t.TempDir(), "data")
	scen := writeScenario(t, `
thresholds:
  http_req_duration: [{threshold: 'p(95)<200', window: 2s}]
scenarios:
  fast:
    executor: constant-arrival-rate
    rate: 20
    duration: 4s
    preAllocatedVUs: 10
    flow: [{url: '`+url+`/?delay=5ms'}]
  slow:
    executor: constant-arrival-rate
    rate: 20
    startTime: 4s
    duration: 4s
    preAllocatedVUs: 20
    flow: [{url: '`+url+`/?delay=300ms'}]
`)
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--testid", "win-stages", "--storage.tsdb.path", data, "--remote-write.push-interval", "1s", scen}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Regexp(t, `slow #1 .*broke: http_req_duration 'p\(95\)<200' over 2s`, stdout.String())
	require.NotRegexp(t, `fast #1 .*over 2s`, stdout.String())

	dir := filepath.Join(t.TempDir(), "report")
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"correlate", "--testid", "win-stages", "--storage.tsdb.path", data, "--output.dir", dir,
		"--no-write-back", "--after", "0"}, &stdout, &stderr)
	require.Zero(t, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var res correlator.Result
	require.NoError(t, json.Unmarshal(b, &res))
	named := map[string]int{}
	for _, st := range res.Load.Stages {
		if strings.Contains(st.Why, "http_req_duration 'p(95)<200' over 2s") {
			named[st.Scenario]++
		}
	}
	require.Equal(t, map[string]int{"slow": 1}, named, "%+v", res.Load.Stages)
}

// TestIntegrationSLOHandleSummary: a script's handleSummary sees the server-side rules
// under data.slo (Tidemark's key), with the spans they fired over, while data.metrics
// keeps k6's shape (no tidemark_slo_rule_firing in it); a warning that fired does not
// fail the run.
func TestIntegrationSLOHandleSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(rules, []byte(`groups:
  - name: run
    interval: 1s
    rules:
      - alert: VUsActive
        expr: sum(k6_vus{testid="{{ .testid }}"}) > 0
        labels: {severity: warning}
`), 0o600))
	script := filepath.Join(dir, "script.js")
	require.NoError(t, os.WriteFile(script, []byte(`
import { sleep } from 'k6';
export const options = { vus: 1, duration: '4s' };
export default function () { sleep(0.1); }
export function handleSummary(data) {
  return { stdout: JSON.stringify({ slo: data.slo, own: Object.keys(data.metrics).filter((k) => k.startsWith('tidemark_')) }) + '\n' };
}
`), 0o600))
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--testid", "slo-script", "--storage.tsdb.path", filepath.Join(dir, "data"),
		"--remote-write.push-interval", "1s", "--slo", rules, script}, &stdout, &stderr)
	require.Zero(t, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	var got struct {
		SLO struct {
			Failed bool `json:"failed"`
			Rules  []struct {
				Name     string `json:"name"`
				Severity string `json:"severity"`
				Fired    bool   `json:"fired"`
				Firing   []struct {
					StartSeconds float64 `json:"start_seconds"`
					EndSeconds   float64 `json:"end_seconds"`
				} `json:"firing"`
			} `json:"rules"`
		} `json:"slo"`
		Own []string `json:"own"`
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got), stdout.String())
	require.Empty(t, got.Own, "data.metrics keeps k6's shape")
	require.False(t, got.SLO.Failed, "a warning does not fail the run")
	require.Len(t, got.SLO.Rules, 1)
	r := got.SLO.Rules[0]
	require.Equal(t, "VUsActive", r.Name)
	require.Equal(t, "warning", r.Severity)
	require.True(t, r.Fired)
	require.NotEmpty(t, r.Firing)
	require.Greater(t, r.Firing[0].EndSeconds, r.Firing[0].StartSeconds, "fired at several evaluations")
}
