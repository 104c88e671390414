package slo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/verdict"
)

// rule is a rule file with one group and the rule body given (indented as a rule's
// fields).
func ruleFile(body string) string {
	return "groups:\n  - name: g\n    rules:\n      - alert: A\n" + body
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		file    string
		wantErr string
	}{
		{
			name:    "PromQL that does not parse",
			file:    ruleFile("        expr: sum(rate(x[1m])\n        labels: {severity: error}\n"),
			wantErr: `r.yaml:5: group "g", rule "A", field expr: could not parse expression: 1:16: parse error: unclosed left parenthesis`,
		},
		{
			name:    "unknown severity",
			file:    ruleFile("        expr: up == 0\n        labels:\n          severity: page\n"),
			wantErr: `r.yaml:7: group "g", rule "A", field labels.severity: unknown severity "page": expected one of warning, error, critical`,
		},
		{
			name:    "no severity",
			file:    ruleFile("        expr: up == 0\n"),
			wantErr: `r.yaml:4: group "g", rule "A", field labels.severity: missing: expected one of warning, error, critical`,
		},
		{
			name:    "for shorter than the push interval",
			file:    ruleFile("        expr: up == 0\n        for: 2s\n        labels: {severity: error}\n"),
			wantErr: `r.yaml:6: group "g", rule "A", field for: 2s is shorter than the push interval 5s: expected 0 or at least 5s`,
		},
		{
			name:    "window shorter than the push interval",
			file:    ruleFile("        expr: rate(k6_http_reqs_total[3s]) > 0\n        labels: {severity: warning}\n"),
			wantErr: `r.yaml:5: group "g", rule "A", field expr: window [3s] is shorter than the push interval 5s: expected at least [5s]`,
		},
		{
			name:    "subquery shorter than the push interval",
			file:    ruleFile("        expr: max_over_time(up[2s:1s]) > 0\n        labels: {severity: warning}\n"),
			wantErr: `r.yaml:5: group "g", rule "A", field expr: window [2s] is shorter than the push interval 5s: expected at least [5s]`,
		},
		{
			name:    "group interval shorter than the push interval",
			file:    "groups:\n  - name: g\n    interval: 1s\n    rules:\n      - alert: A\n        expr: up == 0\n        labels: {severity: error}\n",
			wantErr: `r.yaml:3: group "g", field interval: 1s is shorter than the push interval 5s: expected at least 5s`,
		},
		{
			name:    "unknown template variable",
			file:    ruleFile("        expr: up{testid=\"{{ .TestId }}\"} == 0\n        labels: {severity: error}\n"),
			wantErr: `r.yaml:5: group "g", rule "A", field expr: unknown template variable {{ .TestId }}: expected one of {{ .testid }}, {{ .namespace }}, {{ .elapsed }}, {{ .interval }}`,
		},
		{
			name:    "template action that is not a variable",
			file:    ruleFile("        expr: up{testid=\"{{ if .testid }}x{{ end }}\"} == 0\n        labels: {severity: error}\n"),
			wantErr: `r.yaml:5: group "g", rule "A", field expr: template action {{ if .testid }}: expected a variable such as {{ .testid }}`,
		},
		{
			name:    "recording rule",
			file:    "groups:\n  - name: g\n    rules:\n      - record: job:up:sum\n        expr: sum(up)\n",
			wantErr: `r.yaml:4: group "g", rule "job:up:sum", field record: recording rules are not evaluated: write an alerting rule (alert, expr, for, labels.severity)`,
		},
		{
			name: "every mistake of a file at once",
			file: "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: sum(rate(x[1m])\n        labels: {severity: error}\n" +
				"      - alert: B\n        expr: up == 0\n        for: 1s\n        labels: {severity: page}\n",
			wantErr: `r.yaml:5: group "g", rule "A", field expr: could not parse expression: 1:16: parse error: unclosed left parenthesis` + "\n" +
				`r.yaml:10: group "g", rule "B", field labels.severity: unknown severity "page": expected one of warning, error, critical` + "\n" +
				`r.yaml:9: group "g", rule "B", field for: 1s is shorter than the push interval 5s: expected 0 or at least 5s`,
		},
		{
			name:    "unknown field",
			file:    ruleFile("        expr: up == 0\n        severity: error\n"),
			wantErr: "r.yaml:6: yaml: unmarshal errors:\n  line 6: field severity not found in type rulefmt.Rule",
		},
		{
			name:    "bad annotation template",
			file:    ruleFile("        expr: up == 0\n        labels: {severity: error}\n        annotations:\n          summary: '{{ $labels.pod '\n"),
			wantErr: `r.yaml:8: group "g", rule "A", field annotations: annotation "summary": template: __alert_A:1: unclosed action`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("r.yaml", []byte(tc.file), 5*time.Second)
			require.EqualError(t, err, tc.wantErr)
			var re *Error
			require.ErrorAs(t, err, &re)
			require.Equal(t, "r.yaml", re.File)
		})
	}
}

func TestLoadIsInvalidConfiguration(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(p, []byte(ruleFile("        expr: up ==\n        labels: {severity: error}\n")), 0o600))
	_, err := Load([]string{p}, 5*time.Second)
	require.ErrorIs(t, err, verdict.ErrInvalid)
	require.ErrorContains(t, err, p+":5:")
	_, err = Load([]string{"builtin:nope"}, 5*time.Second)
	require.ErrorIs(t, err, verdict.ErrInvalid)
	require.ErrorContains(t, err, "unknown rule set builtin:nope: expected one of builtin:cluster, builtin:database")
	_, err = Load([]string{filepath.Join(t.TempDir(), "missing.yaml")}, 5*time.Second)
	require.ErrorIs(t, err, verdict.ErrInvalid)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestBuiltinsLoad(t *testing.T) {
	t.Parallel()
	rs, err := Load([]string{"builtin:cluster", "builtin:database"}, 5*time.Second)
	require.NoError(t, err)
	var names []string
	for _, r := range rs.Rules {
		names = append(names, r.Name)
		require.Contains(t, Severities(), r.Severity)
		require.Positive(t, r.Line)
	}
	require.Equal(t, []string{"CPUThrottlingHigh", "HPAMaxedOutOverTarget", "FailuresInStartupGap", "PodRestarted",
		"PostgresConnectionsNearLimit", "MySQLConnectionsNearLimit", "ConnectionPoolExhausted"}, names)
	require.True(t, rs.Fatal())
	// A run pushing every 30 s cannot judge the 30s windows of the shipped rules.
	_, err = Load([]string{"builtin:cluster"}, time.Minute)
	require.ErrorContains(t, err, "field expr: window [30s] is shorter than the push interval 1m0s")
}

func TestRender(t *testing.T) {
	t.Parallel()
	rules, err := Parse("r.yaml", []byte(ruleFile(
		"        expr: avg_over_time(k6_vus{testid=\"{{ .testid }}\", namespace=~\"{{.namespace}}\"}[{{- .elapsed -}}]) > 1 and on () vector({{ .interval }})\n"+
			"        labels: {severity: warning}\n"+
			"        annotations: {summary: '{{ $value }} VUs for {{ .elapsed }}'}\n")), 5*time.Second)
	require.NoError(t, err)
	require.Len(t, rules, 1)
	r := rules[0]
	require.Equal(t, 4, r.Line)
	require.Equal(t, `avg_over_time(k6_vus{testid="run-1", namespace=~".+"}[1m30s]) > 1 and on () vector(5s)`,
		r.Render(Vars{TestID: "run-1", Elapsed: 90*time.Second + 400*time.Millisecond, Interval: 5 * time.Second}))
	require.Equal(t, `avg_over_time(k6_vus{testid="x", namespace=~"shop"}[1s]) > 1 and on () vector(1s)`,
		r.Render(Vars{TestID: "x", Namespace: "shop"}), "durations are at least 1s")
	require.Equal(t, "{{ $value }} VUs for {{ .elapsed }}", r.Annotations["summary"], "annotations as written")
	tr := newTracker(r)
	tr.vars = Vars{Elapsed: time.Minute}
	tr.step(t.Context(), time.Now(), "x", model.Vector{{Metric: model.Metric{}, Value: 3}})
	require.Equal(t, "3 VUs for 1m", tr.out.Summary)
	require.True(t, usesVar(r.Expr, "elapsed"))
	require.False(t, usesVar(r.Expr, "nope"))
}
