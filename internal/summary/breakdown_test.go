package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// endpoint is one endpoint of breakdownRun: n requests of one latency, failed of them
// answered 500.
type endpoint struct {
	method, name string
	n, failed    int
	latency      float64
}

// breakdownRun is a 10 s run of the endpoints in scenario "api", with a check and a
// group so that full mode has sections.
func breakdownRun(t *testing.T, eps []endpoint, test *scenario.Test) Input {
	t.Helper()
	r := newRun()
	for _, ep := range eps {
		for i := range ep.n {
			status, fail, exp := "200", 0.0, "true"
			if i < ep.failed {
				status, fail, exp = "500", 1, "false"
			}
			tags := r.tags("scenario", "api", "group", "::users", "method", ep.method, "name", ep.name, "url", ep.name,
				"status", status, "expected_response", exp)
			at := r.start.Add(time.Duration(i) * time.Millisecond)
			r.store.Push([]metrics.Sample{
				{Metric: r.b.HTTPReqs, Tags: tags, Time: at, Value: 1},
				{Metric: r.b.HTTPReqFailed, Tags: tags, Time: at, Value: fail},
				{Metric: r.b.HTTPReqDuration, Tags: tags, Time: at, Value: ep.latency},
				{Metric: r.b.Checks, Tags: r.tags("scenario", "api", "group", "::users", "check", "ok"), Time: at, Value: 1 - fail},
			})
		}
	}
	r.now = r.start.Add(10 * time.Second)
	return Input{Test: test, Snapshot: r.store.Snapshot(), Registry: r.reg, Start: r.start, Duration: 10 * time.Second}
}

func threeEndpoints() []endpoint {
	return []endpoint{
		{"GET", "/api/users", 40, 0, 0.012},
		{"POST", "/api/orders", 20, 5, 0.150},
		{"GET", "/health", 10, 0, 0.002},
	}
}

func breakdownTest(keys []string, limit int) *scenario.Test {
	return &scenario.Test{SummaryTrendStats: DefaultTrendStats(), SummaryBreakdown: keys, SummaryBreakdownLimit: limit}
}

// exportMetrics writes the --summary-export of in and returns its metrics and its
// breakdown object.
func exportMetrics(t *testing.T, in Input) (map[string]map[string]any, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteExport(&buf, in))
	var out struct {
		Metrics   map[string]map[string]any `json:"metrics"`
		Breakdown map[string]any            `json:"breakdown"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &out))
	return out.Metrics, out.Breakdown
}

func TestBreakdownText(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{ModeCompact, ModeFull} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			in := breakdownRun(t, threeEndpoints(), breakdownTest([]string{"name", "method"}, 0))
			in.Mode = mode
			var buf bytes.Buffer
			require.NoError(t, WriteText(&buf, in))
			out := buf.String()
			if mode == ModeCompact {
				golden(t, "breakdown.golden", buf.Bytes())
			}
			total, _, _ := strings.Cut(out, "█ GROUP:")
			// One row per endpoint for each of the three metrics, in TOTAL RESULTS only:
			// full mode's group and scenario sections do not repeat them.
			for _, row := range []string{"{ name:/api/orders,method:POST }", "{ name:/api/users,method:GET }", "{ name:/health,method:GET }"} {
				require.Equal(t, 3, strings.Count(total, row), "row %s in:\n%s", row, out)
				require.Equal(t, 3, strings.Count(out, row), "row %s outside TOTAL RESULTS:\n%s", row, out)
			}
			require.Regexp(t, `\{ name:/api/orders,method:POST \}\.+: 20 +2/s`, total)
			require.Regexp(t, `\{ name:/api/orders,method:POST \}\.+: 25\.00% 5 out of 20`, total)
			require.Regexp(t, `\{ name:/api/users,method:GET \}\.+: avg=12ms +min=12ms`, total)
			require.NotContains(t, out, "breakdown capped")
		})
	}
}

func TestBreakdownOffChangesNothing(t *testing.T) {
	t.Parallel()
	var outs []string
	for _, test := range []*scenario.Test{nil, breakdownTest(nil, 0), {SummaryTrendStats: DefaultTrendStats(), SummaryBreakdownLimit: 3}} {
		in := breakdownRun(t, threeEndpoints(), test)
		var text, export bytes.Buffer
		require.NoError(t, WriteText(&text, in))
		require.NoError(t, WriteExport(&export, in))
		require.NotContains(t, text.String(), "name:")
		require.NotContains(t, export.String(), "breakdown")
		outs = append(outs, text.String()+export.String())
	}
	require.Equal(t, outs[0], outs[1])
	require.Equal(t, outs[0], outs[2])
}

func TestBreakdownExport(t *testing.T) {
	t.Parallel()
	in := breakdownRun(t, threeEndpoints(), breakdownTest([]string{"name", "method", "status"}, 0))
	ms, info := exportMetrics(t, in)
	want := map[string]float64{ // http_reqs count per row
		"http_reqs{name:/api/users,method:GET,status:200}":   40,
		"http_reqs{name:/api/orders,method:POST,status:200}": 15,
		"http_reqs{name:/api/orders,method:POST,status:500}": 5,
		"http_reqs{name:/health,method:GET,status:200}":      10,
	}
	got := map[string]float64{}
	for k, m := range ms {
		if strings.HasPrefix(k, "http_reqs{") {
			got[k] = m["count"].(float64)
		}
	}
	require.Equal(t, want, got)
	failed := ms["http_req_failed{name:/api/orders,method:POST,status:500}"]
	require.Equal(t, map[string]any{"value": 1.0, "passes": 5.0, "fails": 0.0}, failed)
	dur := ms["http_req_duration{name:/api/orders,method:POST,status:200}"]
	require.InDelta(t, 150, dur["p(95)"].(float64), 150*0.01)
	require.Equal(t, map[string]any{"tags": []any{"name", "method", "status"}, "limit": 50.0, "rows": 4.0, "combinations": 4.0}, info)

	// handleSummary's data: the same keys, typed as k6's sub-metrics are.
	var buf bytes.Buffer
	require.NoError(t, WriteData(&buf, in))
	var data struct {
		Metrics map[string]struct {
			Type     string             `json:"type"`
			Contains string             `json:"contains"`
			Values   map[string]float64 `json:"values"`
		} `json:"metrics"`
		Breakdown map[string]any `json:"breakdown"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &data))
	d := data.Metrics["http_req_duration{name:/health,method:GET,status:200}"]
	require.Equal(t, "trend", d.Type)
	require.Equal(t, "time", d.Contains)
	require.InDelta(t, 2, d.Values["avg"], 2*0.01)
	require.Equal(t, 10.0, data.Metrics["http_reqs{name:/health,method:GET,status:200}"].Values["count"])
	require.Equal(t, 4.0, data.Breakdown["rows"])
}

func TestBreakdownCap(t *testing.T) {
	t.Parallel()
	var eps []endpoint
	for i := range 7 {
		eps = append(eps, endpoint{"GET", fmt.Sprintf("/item/%d", i), i + 1, 0, 0.01})
	}
	in := breakdownRun(t, eps, breakdownTest([]string{"name"}, 3))
	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, in))
	out := buf.String()
	require.Contains(t, out, "breakdown capped at 3 rows (the busiest); 7 tag combinations seen")
	for i := range 7 {
		require.Equal(t, i >= 4, strings.Contains(out, fmt.Sprintf("{ name:/item/%d }", i)), "row /item/%d", i)
	}
	ms, info := exportMetrics(t, in)
	require.Equal(t, map[string]any{"tags": []any{"name"}, "limit": 3.0, "rows": 3.0, "combinations": 7.0}, info)
	require.Contains(t, ms, "http_reqs{name:/item/6}")
	require.NotContains(t, ms, "http_reqs{name:/item/3}")
}

// A row whose key a threshold already names keeps the threshold's entry.
func TestBreakdownKeepsThresholdEntry(t *testing.T) {
	t.Parallel()
	in := breakdownRun(t, threeEndpoints(), breakdownTest([]string{"name"}, 0))
	in.Thresholds = map[string][]Threshold{"http_reqs{name:/health}": {{Expr: "count>5", OK: true, Value: 10}}}
	ms, _ := exportMetrics(t, in)
	require.Equal(t, map[string]any{"count>5": false}, ms["http_reqs{name:/health}"]["thresholds"])
	require.Equal(t, 10.0, ms["http_reqs{name:/health}"]["count"])
}

// `tidemark summarize` gives trends from Prometheus: a row it computed shows its
// values, a row it did not shows n/a rather than the empty histogram's zeros.
func TestBreakdownGivenTrends(t *testing.T) {
	t.Parallel()
	in := breakdownRun(t, threeEndpoints(), breakdownTest([]string{"name"}, 0))
	in.Trends = map[string]map[string]float64{
		"http_req_duration":                  {"avg": 0.04, "min": 0.002, "med": 0.012, "max": 0.15, "p(90)": 0.15, "p(95)": 0.15},
		"http_req_duration{name:/api/users}": {"avg": 0.012, "min": 0.012, "med": 0.012, "max": 0.012, "p(90)": 0.012, "p(95)": 0.012},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, in))
	out := buf.String()
	require.Regexp(t, `\{ name:/api/users \}\.+: avg=12ms`, out)
	require.Regexp(t, `\{ name:/health \}\.+: avg=n/a`, out)
	require.Equal(t, []string{"http_req_duration{name:/api/orders}", "http_req_duration{name:/api/users}", "http_req_duration{name:/health}"},
		BreakdownKeys(in.Snapshot, []string{"name"}, 50))
}
