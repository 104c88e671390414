//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// TestIntegrationRunThenCorrelate: a run without a remote-write URL lands in the
// embedded store, and `tidemark correlate` on that directory finds it, counts its
// requests exactly, judges its stage by the run's own thresholds (written as
// tidemark_threshold, with trends as native histograms by default in the embedded
// store), writes the three reports and writes its events back.
func TestIntegrationRunThenCorrelate(t *testing.T) {
	ts, url := startTestTarget(t, target.Config{})
	data := filepath.Join(t.TempDir(), "data")
	scen := writeScenario(t, `
scenarios:
  steady:
    executor: constant-arrival-rate
    rate: 20
    duration: 12s
    preAllocatedVUs: 5
thresholds:
  http_req_duration: ['p(95)<500']
  http_reqs: ['count>1000000']
flow:
  - name: home
    url: `+url+`/
`)
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--testid", "rc-1", "--storage.tsdb.path", data, scen}, &stdout, &stderr)
	require.Equal(t, exitcode.ThresholdsFailed, code, stderr.String())
	require.Contains(t, stdout.String(), "data: written to the embedded store in "+data)
	served := ts.Stats().Requests

	out := filepath.Join(t.TempDir(), "report")
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"correlate", "--testid", "rc-1", "--storage.tsdb.path", data, "--output.dir", out}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	require.Contains(t, stdout.String(), "event and fact samples back")
	for _, name := range []string{"report.md", "report.json", "report.html"} {
		require.FileExists(t, filepath.Join(out, name))
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	var res correlator.Result
	require.NoError(t, json.Unmarshal(b, &res))
	require.Equal(t, "rc-1", res.TestID)
	require.InDelta(t, float64(served), res.Load.Requests, 0, "requests in the report equal what the target served")
	require.False(t, res.Window.Live, "the run had ended")

	require.Contains(t, res.Load.VerdictRule, "http_req_duration: p(95)<500; http_reqs: count>1000000")
	require.NotEmpty(t, res.Load.Stages)
	st := res.Load.Stages[0]
	require.Equal(t, analysis.LatencyHistogram, st.LatencySource, "the embedded store gets native histograms")
	require.Len(t, st.Thresholds, 2)
	for _, o := range st.Thresholds {
		require.True(t, o.Judged, "%+v", o)
		require.NotNil(t, o.Value)
	}
	require.True(t, st.Thresholds[0].Passed, "p(95) of a loopback target: %+v", st.Thresholds[0])
	require.False(t, st.Thresholds[1].Passed)
	require.False(t, st.Held)
	require.Contains(t, st.Why, "http_reqs 'count>1000000' count=")
	require.Contains(t, res.Load.Capacity.Text, "the first loaded stage already broke")

	// What limited the load (issue 28): the run has no cluster metrics at all, so the
	// broken stage is unknown and the verdict names every missing source; the load
	// generator, which wrote its own CPU, is ruled out with its numbers. It leads the key
	// facts correlate prints.
	bn := res.Bottleneck
	t.Logf("bottleneck: %s; ruled out %+v; not checked %+v", bn.Text, bn.RuledOut, bn.NotChecked)
	require.Equal(t, analysis.ResourceUnknown, bn.Resource, bn.Text)
	require.Equal(t, analysis.StageNumber(st.Stage), bn.Stage)
	require.Nil(t, bn.At)
	var missing []string
	for _, n := range bn.NotChecked {
		require.NotEmpty(t, n.Missing, n.Resource)
		require.Contains(t, bn.Text, n.Resource+" ("+n.Missing+")")
		missing = append(missing, n.Resource)
	}
	require.ElementsMatch(t, []string{analysis.ResourceStartup, analysis.ResourceReplicas, analysis.ResourceCPU,
		analysis.ResourceMemory, analysis.ResourceDatabase, analysis.ResourcePool}, missing)
	require.Len(t, bn.RuledOut, 1)
	require.Equal(t, analysis.ResourceLoadGenerator, bn.RuledOut[0].Resource)
	require.Contains(t, bn.RuledOut[0].Numbers, "cpu_peak_of_available")
	require.Regexp(t, `\(queried [^\n]*\)\n\nWhat limited the load: `+regexp.QuoteMeta(bn.Text)+"\n", stdout.String(), "the verdict leads the key facts")

	// compare says what limited each run.
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"compare", "rc-1", "rc-1", "--storage.tsdb.path", data, "--output.dir", filepath.Join(t.TempDir(), "compare")}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	require.Contains(t, stdout.String(), "Limited by")
	require.Equal(t, 2, strings.Count(stdout.String(), bn.Text), stdout.String())
}
