//go:build integration

package slo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/sim"
)

// promtoolBinary is promtool of the Debian package prometheus.
const promtoolBinary = "/usr/bin/promtool"

// TestPromtoolAgrees: the shipped rule sets pass `promtool check rules` as they are, and
// on files that promtool rejects (PromQL that does not parse, a bad template) Tidemark
// rejects them too; the files Tidemark alone rejects are the ones it cannot judge
// (severity, windows shorter than the push interval, recording rules).
func TestPromtoolAgrees(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(promtoolBinary); err != nil {
		t.Fatalf("promtool missing (Debian package prometheus): %v", err)
	}
	dir := t.TempDir()
	check := func(name string, content []byte) (bool, string) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, content, 0o600))
		out, err := exec.Command(promtoolBinary, "check", "rules", p).CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("run promtool: %v", err)
		}
		return err == nil, string(out)
	}
	for _, name := range Builtins() {
		b, err := Builtin(name)
		require.NoError(t, err)
		ok, out := check(name+".yaml", b)
		require.True(t, ok, "promtool check rules builtin:%s:\n%s", name, out)
		_, err = Parse(name, b, DefaultPushInterval)
		require.NoError(t, err)
	}
	for _, tc := range []struct {
		name        string
		body        string
		promtoolOK  bool
		tidemarkErr string
	}{
		{"bad PromQL", "        expr: sum(rate(x[1m])\n        labels: {severity: error}\n", false, "field expr: could not parse expression"},
		{"bad annotation", "        expr: up == 0\n        labels: {severity: error}\n        annotations: {summary: '{{ $labels.pod '}\n", false, "field annotations"},
		{"unknown severity", "        expr: up == 0\n        labels: {severity: page}\n", true, "field labels.severity: unknown severity"},
		{"short window", "        expr: rate(up[1s]) > 0\n        labels: {severity: error}\n", true, "field expr: window [1s] is shorter"},
		{"variables in strings", "        expr: up{testid=\"{{ .testid }}\", namespace=~\"{{ .namespace }}\"} == 0\n        labels: {severity: error}\n", true, ""},
	} {
		ok, out := check(strings.ReplaceAll(tc.name, " ", "-")+".yaml", []byte(ruleFile(tc.body)))
		require.Equal(t, tc.promtoolOK, ok, "%s: promtool said:\n%s", tc.name, out)
		_, err := Parse("r.yaml", []byte(ruleFile(tc.body)), DefaultPushInterval)
		if tc.tidemarkErr == "" {
			require.NoError(t, err, tc.name)
			continue
		}
		require.ErrorContains(t, err, tc.tidemarkErr, tc.name)
	}
}

// TestBuiltinClusterMatchesSimulator is the naming contract of builtin:cluster: a real
// Prometheus scrapes the simulated cluster as kube-prometheus scrapes a real one, and
// every series selector of the rules (but the run's own k6 series) finds series, with
// the labels the rules join on.
func TestBuiltinClusterMatchesSimulator(t *testing.T) {
	t.Parallel()
	p, err := sim.LoadProfile("../../examples/cluster-shoong.yaml")
	require.NoError(t, err)
	srv, err := sim.NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	require.NoError(t, srv.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	cfg, err := srv.ScrapeConfig(time.Second)
	require.NoError(t, err)
	prom := promtest.StartPrometheus(t, promtest.WithConfig(cfg))
	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)

	rs, err := Load([]string{"builtin:cluster"}, DefaultPushInterval)
	require.NoError(t, err)
	var selectors []string
	for _, r := range rs.Rules {
		e, err := parser.NewParser(parser.Options{}).ParseExpr(r.Render(Vars{TestID: "t", Namespace: p.Namespace, Elapsed: time.Minute}))
		require.NoError(t, err)
		parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
			if vs, ok := n.(*parser.VectorSelector); ok && !strings.HasPrefix(vs.Name, "k6_") && !slices.Contains(selectors, vs.String()) {
				selectors = append(selectors, vs.String())
			}
			return nil
		})
	}
	require.Len(t, selectors, 9, "%v", selectors)
	var empty []string
	for deadline := time.Now().Add(60 * time.Second); ; {
		empty = empty[:0]
		for _, s := range selectors {
			v, _, err := q.Query(context.Background(), fmt.Sprintf("count(%s)", s), time.Now())
			require.NoError(t, err)
			if vec, _ := asVector(v); len(vec) == 0 {
				empty = append(empty, s)
			}
		}
		if len(empty) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	require.Empty(t, empty, "selectors of builtin:cluster without series in the simulator")

	// Judged over the last 20 s of an idle cluster, nothing fires and every rule was
	// evaluated without a query error.
	now := time.Now()
	outs, err := rs.JudgeSpan(context.Background(), q, Vars{TestID: "t", Namespace: p.Namespace}, now.Add(-20*time.Second), now)
	require.NoError(t, err)
	for _, o := range outs {
		require.Zero(t, o.Errors, "%+v", o)
		require.Positive(t, o.Evaluations, "%+v", o)
		require.False(t, o.Fired, "an idle cluster: %+v", o)
	}
}
