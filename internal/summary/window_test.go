package summary

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// windowedInput is fullInput with a windowed threshold, `p(95)<500` over 10 s on
// http_req_duration, whose windows ending at 40 s and 41 s failed (812 ms and 650 ms)
// while the whole-run `p(95)<500` passed.
func windowedInput(t *testing.T) Input {
	t.Helper()
	in := fullInput(t)
	var defs []threshold.Def
	for _, th := range in.ThresholdSet.Thresholds() {
		defs = append(defs, threshold.Def{Key: th.Key.Name, Expr: th.Expr.Source})
	}
	defs = append(defs, threshold.Def{Key: "http_req_duration", Expr: "p(95)<500", Window: 10 * time.Second})
	set, err := threshold.NewSet(defs, func(name string) (metrics.Type, metrics.ValueType, bool) {
		if typ, vt, ok := threshold.RegistryTypes(in.Registry)(name); ok {
			return typ, vt, true
		}
		return metrics.Trend, metrics.Default, true
	})
	require.NoError(t, err)
	p95 := map[time.Duration]float64{20 * time.Second: 0.2, 40 * time.Second: 0.812, 41 * time.Second: 0.65, 50 * time.Second: 0.3}
	var res *threshold.Result
	for _, at := range []time.Duration{20 * time.Second, 40 * time.Second, 41 * time.Second, 50 * time.Second} {
		res = set.EvaluateLive(at, at == 50*time.Second, func(*threshold.Key) threshold.Source { return nil },
			func(_ *threshold.Key, w time.Duration) (threshold.Source, time.Duration, bool) {
				return threshold.SourceFunc(func(threshold.Method) (float64, bool) { return p95[at], true }), w, true
			})
	}
	in.ThresholdSet = set
	for _, o := range res.Outcomes {
		if o.Threshold.Window > 0 {
			in.Thresholds["http_req_duration"] = append(in.Thresholds["http_req_duration"],
				Threshold{Expr: o.Threshold.Expr.Source, OK: o.Passed, Value: o.Value, Window: o.Threshold.Window, Record: o.Window})
		}
	}
	return in
}

func TestWindowedThresholdText(t *testing.T) {
	t.Parallel()
	in := windowedInput(t)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, in))
	out := b.String()
	require.Contains(t, out, "    ✓ 'p(95)<500' p(95)=", "the whole-run threshold passes")
	require.Contains(t, out, "    ✗ 'p(95)<500' over 10s worst p(95)=812ms in 30s–40s\n", "the summary names the worst window")

	var stages []string
	for l := range strings.SplitSeq(out, "\n") {
		if strings.Contains(l, "load ") && strings.Contains(l, "/s") && (strings.Contains(l, "held") || strings.Contains(l, "broke")) {
			stages = append(stages, l)
		}
	}
	require.Len(t, stages, 2, out)
	require.NotContains(t, stages[0], "over 10s", "no failing window ended in the first stage")
	require.Contains(t, stages[1], "http_req_duration 'p(95)<500' over 10s", "the failing windows ended in the second stage")
}

func TestWindowedThresholdJSON(t *testing.T) {
	t.Parallel()
	in := windowedInput(t)
	var b bytes.Buffer
	require.NoError(t, WriteExport(&b, in))
	var export struct {
		Metrics          map[string]map[string]any
		ThresholdWindows map[string]map[string]windowed `json:"threshold_windows"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &export))
	require.Equal(t, map[string]any{"p(95)<500": false, "avg<100": true, "p(95)<500 over 10s": true},
		export.Metrics["http_req_duration"]["thresholds"], "k6's shape: expression to failed")
	w := export.ThresholdWindows["http_req_duration"]["p(95)<500 over 10s"]
	require.Equal(t, "10s", w.Window)
	require.Equal(t, 4, w.Windows)
	require.InDelta(t, 812, w.Worst.Value, 1e-9)
	require.InDelta(t, 30, w.Worst.StartSeconds, 1e-9)
	require.InDelta(t, 40, w.Worst.EndSeconds, 1e-9)
	require.Equal(t, in.Start.Add(40*time.Second), w.Worst.End)
	require.Equal(t, []failedSpans{{FirstEndSeconds: 40, LastEndSeconds: 41}}, w.Failed)

	b.Reset()
	require.NoError(t, WriteData(&b, in))
	var data struct {
		Metrics map[string]struct {
			Thresholds map[string]map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &data))
	th := data.Metrics["http_req_duration"].Thresholds
	require.Equal(t, map[string]any{"ok": true}, th["p(95)<500"], "a whole-run threshold keeps k6's {ok}")
	win := th["p(95)<500 over 10s"]
	require.Equal(t, false, win["ok"])
	require.Equal(t, "10s", win["window"])
	require.InDelta(t, 812, win["worst"].(map[string]any)["value"], 1e-9)
	require.InDelta(t, 40, win["first_failure"].(map[string]any)["end_seconds"], 1e-9)
}
