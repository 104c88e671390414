package summary

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

// TestTextServerSideRules: the run's server-side rules get their own section before the
// total results, beside the thresholds: ✗ for a failing rule that fired, ! for a
// warning that fired, ✓ for one that did not.
func TestTextServerSideRules(t *testing.T) {
	t.Parallel()
	r := newRun()
	r.store.Push([]metrics.Sample{{Metric: r.b.Iterations, Tags: r.tags("scenario", "default"), Time: r.start, Value: 1}})
	out := text(t, Input{Snapshot: r.store.Snapshot(), Duration: time.Second, Rules: []Rule{
		{Name: "CPUThrottlingHigh", Severity: "error", Fired: true, Text: `fired 12s in: 0.6 {pod="api-1"}`},
		{Name: "FailuresInStartupGap", Severity: "warning", Fired: true, Text: "fired 3s in: 1"},
		{Name: "PodRestarted", Severity: "critical", Text: "did not fire (4 evaluations)"},
	}})
	require.Contains(t, out, "\n\n  █ SERVER-SIDE RULES \n\n"+
		"    ✗ CPUThrottlingHigh [error] fired 12s in: 0.6 {pod=\"api-1\"}\n"+
		"    ! FailuresInStartupGap [warning] fired 3s in: 1\n"+
		"    ✓ PodRestarted [critical] did not fire (4 evaluations)\n"+
		"\n\n  █ TOTAL RESULTS \n")
}

// TestRulesInStagesAndJSON: a server-side rule that fired in the second stage breaks
// that stage's STAGES row (error), a warning that fired in the first is noted there,
// and both JSON files carry the rules under slo with their firing spans while k6's keys
// keep their shape.
func TestRulesInStagesAndJSON(t *testing.T) {
	t.Parallel()
	in := fullInput(t)
	in.Rules = []Rule{
		{Name: "CPUThrottlingHigh", Severity: "error", Fired: true, Text: "fired 41s in: 0.6",
			Firing: []Interval{{From: in.Start.Add(41 * time.Second), To: in.Start.Add(50 * time.Second)}}},
		{Name: "PodRestarted", Severity: "warning", Fired: true, Text: "fired 10s in: 1",
			Firing: []Interval{{From: in.Start.Add(10 * time.Second), To: in.Start.Add(10 * time.Second)}}},
		{Name: "HPAMaxedOut", Severity: "critical", Text: "did not fire (12 evaluations)"},
	}
	out := text(t, in)
	var stages []string
	for l := range strings.SplitSeq(out, "\n") {
		if strings.Contains(l, "load #") {
			stages = append(stages, l)
		}
	}
	require.Len(t, stages, 2, out)
	require.Contains(t, stages[0], "rule PodRestarted [warning] fired")
	require.NotContains(t, stages[0], "CPUThrottlingHigh")
	require.Regexp(t, `broke: .*, rule CPUThrottlingHigh \[error\];`, stages[1])
	require.NotContains(t, strings.Join(stages, "\n"), "HPAMaxedOut", "a rule that did not fire is in no stage")
	require.Contains(t, out, "or an error or critical server-side rule fired in it")

	type rules struct {
		Metrics map[string]json.RawMessage `json:"metrics"`
		SLO     *struct {
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
	}
	for name, write := range map[string]func(io.Writer, Input) error{"export": WriteExport, "data": WriteData} {
		var b bytes.Buffer
		require.NoError(t, write(&b, in), name)
		var got rules
		require.NoError(t, json.Unmarshal(b.Bytes(), &got), name)
		require.NotNil(t, got.SLO, name)
		require.True(t, got.SLO.Failed, name)
		require.Len(t, got.SLO.Rules, 3, name)
		require.Equal(t, "CPUThrottlingHigh", got.SLO.Rules[0].Name)
		require.Equal(t, []struct {
			StartSeconds float64 `json:"start_seconds"`
			EndSeconds   float64 `json:"end_seconds"`
		}{{41, 50}}, got.SLO.Rules[0].Firing, name)
		require.False(t, got.SLO.Rules[2].Fired, name)
		require.Contains(t, got.Metrics, "http_req_duration", name)

		// Without rules, neither file has the key.
		in2 := fullInput(t)
		b.Reset()
		require.NoError(t, write(&b, in2), name)
		require.NotContains(t, b.String(), `"slo"`, name)
	}
}
