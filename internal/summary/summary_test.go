package summary

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/threshold"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// run is a synthetic test run: a ramping-arrival-rate scenario "load" with two stages
// (10/s for 30 s, then 50/s for 30 s), HTTP requests with some 500s, checks in the root
// group and in a group, custom metrics, VU gauges and dropped iterations.
type run struct {
	reg   *metrics.Registry
	b     *metrics.Builtin
	pool  *metrics.TagPool
	store *aggregate.Store
	start time.Time
	now   time.Time
}

func newRun() *run {
	reg := metrics.NewRegistry()
	r := &run{reg: reg, b: metrics.RegisterBuiltin(reg), pool: metrics.NewTagPool(), start: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)}
	r.now = r.start
	r.store = aggregate.New(aggregate.WithClock(func() time.Time { return r.now }))
	return r
}

func (r *run) tags(kv ...string) *metrics.TagSet {
	var ts []metrics.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		ts = append(ts, metrics.Tag{Key: kv[i], Value: kv[i+1]})
	}
	return r.pool.Intern(ts)
}

// stage pushes one stage's samples: rps iterations per second for 30 s, each one GET
// whose latency is lognormal around median, failing every failEvery-th request.
func (r *run) stage(rng *rand.Rand, from time.Duration, rps int, median float64, failEvery, dropped int) {
	custom, _ := r.reg.New("custom_waiting_time", metrics.Trend, metrics.Default)
	orders, _ := r.reg.New("orders", metrics.Counter, metrics.Default)
	ok := r.tags("scenario", "load", "method", "GET", "name", "home", "url", "home", "status", "200", "expected_response", "true", "proto", "HTTP/1.1")
	bad := r.tags("scenario", "load", "method", "GET", "name", "home", "url", "home", "status", "500", "expected_response", "false", "proto", "HTTP/1.1", "error_code", "1500")
	sc := r.tags("scenario", "load")
	chk200 := r.tags("scenario", "load", "check", "status is 200")
	chkBody := r.tags("scenario", "load", "check", "body has id", "group", "::api")
	chkNested := r.tags("scenario", "load", "check", "fast", "group", "::api::orders")
	n := rps * 30
	for i := range n {
		at := r.start.Add(from + time.Duration(i)*time.Second/time.Duration(rps))
		d := median * math.Exp(0.5*rng.NormFloat64())
		failed := failEvery > 0 && i%failEvery == failEvery-1
		tags, fail := ok, 0.0
		if failed {
			tags, fail = bad, 1
		}
		pass := 1.0
		if failed {
			pass = 0
		}
		r.store.Push([]metrics.Sample{
			{Metric: r.b.HTTPReqs, Tags: tags, Time: at, Value: 1},
			{Metric: r.b.HTTPReqFailed, Tags: tags, Time: at, Value: fail},
			{Metric: r.b.HTTPReqDuration, Tags: tags, Time: at, Value: d},
			{Metric: r.b.HTTPReqWaiting, Tags: tags, Time: at, Value: d * 0.9},
			{Metric: r.b.Checks, Tags: chk200, Time: at, Value: pass},
			{Metric: r.b.Checks, Tags: chkBody, Time: at.Add(time.Millisecond), Value: 1},
			{Metric: r.b.Checks, Tags: chkNested, Time: at.Add(2 * time.Millisecond), Value: boolf(d < median*1.5)},
			{Metric: r.b.Iterations, Tags: sc, Time: at, Value: 1},
			{Metric: r.b.IterationDuration, Tags: sc, Time: at, Value: d + 0.0012},
			{Metric: r.b.DataSent, Tags: sc, Time: at, Value: 87},
			{Metric: r.b.DataReceived, Tags: sc, Time: at, Value: 1234},
			{Metric: custom, Tags: sc, Time: at, Value: float64(120 + i%60)},
			{Metric: orders, Tags: sc, Time: at, Value: float64(i % 3)},
		})
	}
	for s := range 30 {
		at := r.start.Add(from + time.Duration(s)*time.Second)
		r.store.Push([]metrics.Sample{
			{Metric: r.b.VUs, Tags: r.tags(), Time: at, Value: float64(rps/5 + s%3)},
			{Metric: r.b.VUsMax, Tags: r.tags(), Time: at, Value: float64(rps / 2)},
		})
	}
	if dropped > 0 {
		r.store.Push([]metrics.Sample{{Metric: r.b.DroppedIterations, Tags: sc, Time: r.start.Add(from + time.Second), Value: float64(dropped)}})
	}
	r.now = r.start.Add(from + 30*time.Second)
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fullInput builds the synthetic run and the summary input for it.
func fullInput(t *testing.T) Input {
	t.Helper()
	r := newRun()
	rng := rand.New(rand.NewPCG(42, 42))
	r.stage(rng, 0, 10, 0.045, 0, 0)
	mid := r.store.Snapshot()
	r.stage(rng, 30*time.Second, 50, 0.180, 40, 17)
	final := r.store.Snapshot()
	in := Input{
		Test:     &scenario.Test{SummaryTrendStats: []string{"avg", "min", "med", "max", "p(90)", "p(95)"}},
		Snapshot: final,
		Registry: r.reg,
		Start:    r.start,
		Duration: 60*time.Second + 1500*time.Millisecond,
		Thresholds: map[string][]Threshold{
			"http_req_duration":                         {{Expr: "p(95)<500", OK: true}, {Expr: "avg<100", OK: false}},
			"http_req_duration{expected_response:true}": {{Expr: "p(99.9)<1000", OK: true}},
			"http_req_failed":                           {{Expr: "rate<0.01", OK: false}},
			"http_reqs":                                 {{Expr: "count>1000", OK: true}, {Expr: "rate>10", OK: true}},
			"checks":                                    {{Expr: "rate>0.9", OK: true}},
			"vus":                                       {{Expr: "value<100", OK: true}},
			"iteration_duration{scenario:load}":         {{Expr: "p(99)<2000", OK: true}},
			"ws_connecting":                             {{Expr: "p(95)<100", OK: true}},
		},
		Stages: []Stage{
			{Scenario: "load", Index: 0, Start: r.start, End: r.start.Add(30 * time.Second), StartTarget: 10, Target: 10, TimeUnit: time.Second, To: mid},
			{Scenario: "load", Index: 1, Start: r.start.Add(30 * time.Second), End: r.start.Add(60 * time.Second), StartTarget: 50, Target: 50, TimeUnit: time.Second, From: mid, To: final},
		},
		Extra: []string{
			"remote write: 48,210 samples in 61 requests, 2 retries, 0 dropped",
			"data stored in /tmp/tidemark/load-20261130-020000",
		},
	}
	// The same thresholds, evaluated again per stage for the STAGES verdict.
	keys := slices.Sorted(maps.Keys(in.Thresholds))
	var defs []threshold.Def
	for _, k := range keys {
		for _, th := range in.Thresholds[k] {
			defs = append(defs, threshold.Def{Key: k, Expr: th.Expr})
		}
	}
	registered := threshold.RegistryTypes(r.reg)
	set, err := threshold.NewSet(defs, func(name string) (metrics.Type, metrics.ValueType, bool) {
		if typ, vt, ok := registered(name); ok {
			return typ, vt, true
		}
		return metrics.Trend, metrics.Default, true // ws_connecting, as guessMetric types it
	})
	require.NoError(t, err)
	in.ThresholdSet = set
	return in
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	require.Equal(t, string(want), string(got), "golden file %s differs; run go test -update after checking the diff", path)
}

func TestGolden(t *testing.T) {
	in := fullInput(t)
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer, Input) error
		color bool
	}{
		{"summary.golden", func(b *bytes.Buffer, in Input) error { return WriteText(b, in) }, false},
		{"summary_color.golden", func(b *bytes.Buffer, in Input) error { return WriteText(b, in) }, true},
		{"export.golden.json", func(b *bytes.Buffer, in Input) error { return WriteExport(b, in) }, false},
		{"data.golden.json", func(b *bytes.Buffer, in Input) error { return WriteData(b, in) }, false},
		{"summary_full.golden", func(b *bytes.Buffer, in Input) error { in.Mode = ModeFull; return WriteText(b, in) }, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			in := in
			in.Color = tc.color
			var b bytes.Buffer
			require.NoError(t, tc.write(&b, in))
			golden(t, tc.file, b.Bytes())
		})
	}
}

func text(t *testing.T, in Input) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, in))
	return b.String()
}

// TestTextLayout checks k6's layout rules on the full run independently of the golden
// file: section framing, dot alignment, value columns, sub-metric lines, checks.
func TestTextLayout(t *testing.T) {
	t.Parallel()
	out := text(t, fullInput(t))
	require.True(t, strings.HasPrefix(out, "\n\n  █ THRESHOLDS \n\n    checks\n    ✓ 'rate>0.9' rate=92.18%\n\n    http_req_duration\n"), "k6 frames the summary with a blank line and a titled section")
	require.True(t, strings.HasSuffix(out, "\n\n"))
	require.NotContains(t, out, "\x1b[", "no colour unless asked")

	// Sub-metric thresholds of a thresholded parent are indented under it, by their tags.
	require.Contains(t, out, "    ✓ 'p(95)<500' p(95)=")
	require.Contains(t, out, "    ✗ 'avg<100' avg=")
	require.Contains(t, out, "\n      {expected_response:true}\n      ✓ 'p(99.9)<1000' p(99.9)=")
	// A sub-metric whose parent has no threshold is shown by its full key.
	require.Contains(t, out, "\n    iteration_duration{scenario:load}\n    ✓ 'p(99)<2000' p(99)=")
	require.Contains(t, out, "    ✗ 'rate<0.01' rate=2.05%")
	require.Contains(t, out, "    ✓ 'count>1000' count=1800\n    ✓ 'rate>10' rate=29.268293/s\n")
	require.Contains(t, out, "    ✓ 'value<100' value=")
	// A thresholded metric without samples still shows, with empty values.
	require.Contains(t, out, "    ws_connecting\n    ✓ 'p(95)<100' p(95)=0\n")

	// Checks: own column widths, then one line per check, failures with their share.
	require.Contains(t, out, "\n  █ TOTAL RESULTS \n\n    checks_total.......: 5400   87.804878/s\n    checks_succeeded...: ")
	require.Regexp(t, `\n    checks_failed\.\.\.\.\.\.: \d+\.\d\d% +\d+ out of 5400\n`, out)
	require.Contains(t, out, "\n    ✗ status is 200\n      ↳  97% — ✓ 1763 / ✗ 37\n    ✓ body has id\n    ✗ fast\n      ↳  ")

	// Metric lines: every colon of TOTAL RESULTS in one column, and at least 3 dots.
	total := out[strings.Index(out, "TOTAL RESULTS"):strings.Index(out, "█ STAGES")]
	col := -1
	for line := range strings.SplitSeq(total, "\n") {
		if !strings.Contains(line, "...:") || strings.HasPrefix(line, "    checks_") {
			continue
		}
		c := width(line[:strings.Index(line, "...:")])
		if col < 0 {
			col = c
		}
		require.Equal(t, col, c, "misaligned line %q", line)
	}
	require.Positive(t, col)
	require.Regexp(t, `\n      \{ expected_response:true \}\.{3}: avg=`, total, "the longest name gets exactly three dots")
	// Compact mode hides checks, http_req_waiting; categories in k6's order.
	require.NotContains(t, total, "http_req_waiting")
	require.NotRegexp(t, `\n    checks\.`, total)
	require.Less(t, strings.Index(total, "CUSTOM"), strings.Index(total, "HTTP"))
	require.Less(t, strings.Index(total, "HTTP"), strings.Index(total, "EXECUTION"))
	require.Less(t, strings.Index(total, "EXECUTION"), strings.Index(total, "NETWORK"))
	require.Regexp(t, `\n    orders\.+: 1800   29\.268293/s\n`, total)
	require.Regexp(t, `\n    data_received\.+: 2\.2 MB +36 kB/s\n`, total)
	require.Regexp(t, `\n    vus\.+: 12 +min=2 +max=12 *\n`, total)
	require.Regexp(t, `\n    http_req_failed\.+: 2\.05% +37 out of 1800\n`, total)
	require.Regexp(t, `\n    custom_waiting_time\.+: avg=149\.5 +min=120 `, total)

	// The stage table: one row per stage, numbers right-aligned.
	stages := out[strings.Index(out, "█ STAGES"):]
	require.Contains(t, stages, "    stage    window    target  achieved  req/s")
	require.Regexp(t, `\n    load #1  0s-30s +10/s +10/s +10 +\S+ms +\S+ms +\S+ms +0\.00% +0  held; crossed in this stage: http_reqs 'rate>10' rate=10/s\n`, stages,
		"a counter's rate is the stage's (10/s), its count (300 of the run's 1800) is not judged per stage, and the run passed both")
	require.Regexp(t, `\n    load #2  30s-1m0s +50/s +50/s +50 +\S+ms +\S+ms +\S+ms +2\.46% +17  broke: http_req_duration 'avg<100' avg=201\.81ms, http_req_failed 'rate<0\.01' rate=2\.46%; 17 dropped\n`, stages)
	require.Contains(t, out, "\n  remote write: 48,210 samples in 61 requests, 2 retries, 0 dropped\n  data stored in /tmp/tidemark/load-20261130-020000\n\n\n")
}

func TestTextColor(t *testing.T) {
	t.Parallel()
	in := fullInput(t)
	in.Color = true
	out := text(t, in)
	require.Contains(t, out, "█ \x1b[1mTHRESHOLDS\x1b[0m \n")
	require.Contains(t, out, "\x1b[32m✓\x1b[0m \x1b[37m'p(95)<500'\x1b[0m \x1b[37mp(95)\x1b[0m=\x1b[36m")
	require.Contains(t, out, "\x1b[31m✗\x1b[0m")
	require.Contains(t, out, "\x1b[2;37m...:\x1b[0m")
	require.Contains(t, out, "\x1b[32m✓ body has id\x1b[0m")
	// Colour codes never shift the alignment: stripped, the text equals the plain one.
	in.Color = false
	plain := text(t, in)
	require.Equal(t, plain, regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, ""))
}

func TestTextMinimal(t *testing.T) {
	t.Parallel()
	r := newRun()
	r.store.Push([]metrics.Sample{
		{Metric: r.b.Iterations, Tags: r.tags("scenario", "default"), Time: r.start, Value: 1},
		{Metric: r.b.IterationDuration, Tags: r.tags("scenario", "default"), Time: r.start, Value: 0.000000123},
		{Metric: r.b.VUs, Tags: r.tags(), Time: r.start, Value: 1},
	})
	out := text(t, Input{Snapshot: r.store.Snapshot(), Duration: time.Second})
	require.Equal(t, "\n\n  █ TOTAL RESULTS \n\n"+
		"    EXECUTION\n"+
		"    iteration_duration...: avg=123ns min=123ns med=123ns max=123ns p(90)=123ns p(95)=123ns\n"+
		"    iterations...........: 1 1/s\n"+
		"    vus..................: 1 min=1 max=1\n"+
		"\n\n\n", out)
}

// TestTextHidesRunMetadata: Tidemark's own run-metadata gauges are for PromQL, not for the
// summary, so a run with them prints the same as one without.
func TestTextHidesRunMetadata(t *testing.T) {
	t.Parallel()
	r := newRun()
	info := &metrics.Metric{Name: "tidemark_run_info", Type: metrics.Gauge}
	target := &metrics.Metric{Name: "tidemark_scenario_target", Type: metrics.Gauge}
	r.store.Push([]metrics.Sample{
		{Metric: r.b.Iterations, Tags: r.tags("scenario", "default"), Time: r.start, Value: 1},
		{Metric: info, Tags: r.tags(), Time: r.start, Value: 1},
		{Metric: target, Tags: r.tags("scenario", "default"), Time: r.start, Value: 5},
	})
	in := Input{Snapshot: r.store.Snapshot(), Duration: time.Second}
	out := text(t, in)
	require.NotContains(t, out, "tidemark_")
	require.NotContains(t, out, "CUSTOM")
	require.Contains(t, out, "    iterations...: 1 1/s\n")
	// Nor are they in the files k6's summary options write (k6 has no such metrics).
	for _, write := range []func(io.Writer, Input) error{WriteExport, WriteData} {
		var b bytes.Buffer
		require.NoError(t, write(&b, in))
		require.NotContains(t, b.String(), "tidemark_")
		require.Contains(t, b.String(), `"iterations"`)
	}
}

func TestTextTimeUnitAndTrendStats(t *testing.T) {
	t.Parallel()
	r := newRun()
	tags := r.tags("scenario", "default")
	for _, v := range []float64{0.001, 0.002, 0.0035, 120} {
		r.store.Push([]metrics.Sample{{Metric: r.b.HTTPReqDuration, Tags: tags, Time: r.start, Value: v}})
	}
	in := Input{
		Test:     &scenario.Test{SummaryTrendStats: []string{"count", "sum", "p(99.9)", "max"}, SummaryTimeUnit: "ms"},
		Snapshot: r.store.Snapshot(), Duration: time.Second,
	}
	require.Contains(t, text(t, in), "    http_req_duration...: count=4 sum=120006.50ms p(99.9)=119640.01ms max=120000.00ms\n")
	in.Test.SummaryTimeUnit = ""
	require.Contains(t, text(t, in), "    http_req_duration...: count=4 sum=2m0s p(99.9)=1m59s max=2m0s\n")
	in.Test.SummaryTrendStats = []string{"p(95", "avg"}
	require.ErrorIs(t, WriteText(&bytes.Buffer{}, in), aggregate.ErrUnknownStat)
	require.ErrorIs(t, WriteText(&bytes.Buffer{}, Input{}), errNoSnapshot)
}

func TestExportShape(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteExport(&b, fullInput(t)))
	var got struct {
		RootGroup struct {
			Name, Path, ID string
			Groups         map[string]struct {
				Name, Path, ID string
				Groups         map[string]json.RawMessage
				Checks         map[string]struct {
					Name, Path, ID string
					Passes, Fails  uint64
				}
			}
			Checks map[string]struct {
				Path          string
				Passes, Fails uint64
			}
		} `json:"root_group"`
		Metrics map[string]map[string]any
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	require.Equal(t, "d41d8cd98f00b204e9800998ecf8427e", got.RootGroup.ID, "k6's id of the root group, md5 of the empty path")
	require.Equal(t, "::api", got.RootGroup.Groups["api"].Path)
	require.Equal(t, "::api::body has id", got.RootGroup.Groups["api"].Checks["body has id"].Path)
	require.Equal(t, uint64(1800), got.RootGroup.Groups["api"].Checks["body has id"].Passes)
	require.Contains(t, got.RootGroup.Groups["api"].Groups, "orders")
	require.Equal(t, uint64(37), got.RootGroup.Checks["status is 200"].Fails)
	checks := got.Metrics["checks"]
	require.Contains(t, checks, "value", "a rate's rate is renamed value")
	require.NotContains(t, checks, "rate")
	require.Equal(t, map[string]any{"rate>0.9": false}, checks["thresholds"], "thresholds map to failed")
	require.Equal(t, map[string]any{"p(95)<500": false, "avg<100": true}, got.Metrics["http_req_duration"]["thresholds"])
	require.Equal(t, 1800.0, got.Metrics["http_reqs"]["count"])
	require.InDelta(t, 180, got.Metrics["http_req_duration"]["med"], 60, "trend values are milliseconds")
	require.Contains(t, got.Metrics, "http_req_duration{expected_response:true}")
	require.Equal(t, map[string]any{"value": 12.0, "min": 2.0, "max": 12.0, "thresholds": map[string]any{"value<100": false}}, got.Metrics["vus"])
}

func TestDataShape(t *testing.T) {
	t.Parallel()
	in := fullInput(t)
	in.StdoutTTY = true
	var b bytes.Buffer
	require.NoError(t, WriteData(&b, in))
	var got struct {
		RootGroup struct {
			ID     string
			Groups []struct{ Name string }
			Checks []struct {
				Name   string
				Passes uint64
			}
		} `json:"root_group"`
		Options struct {
			SummaryTrendStats []string
			SummaryTimeUnit   string
			NoColor           bool
		}
		State struct {
			IsStdOutTTY, IsStdErrTTY bool
			TestRunDurationMs        float64
		}
		Metrics map[string]struct {
			Type, Contains string
			Values         map[string]float64
			Thresholds     map[string]struct{ OK bool }
		}
		Stages []map[string]any
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	require.Equal(t, "status is 200", got.RootGroup.Checks[0].Name)
	require.Equal(t, "api", got.RootGroup.Groups[0].Name)
	require.Equal(t, []string{"avg", "min", "med", "max", "p(90)", "p(95)"}, got.Options.SummaryTrendStats)
	require.True(t, got.Options.NoColor)
	require.True(t, got.State.IsStdOutTTY)
	require.InDelta(t, 61500.0, got.State.TestRunDurationMs, 1e-9)
	dur := got.Metrics["http_req_duration"]
	require.Equal(t, "trend", dur.Type)
	require.Equal(t, "time", dur.Contains)
	require.False(t, dur.Thresholds["avg<100"].OK)
	require.Len(t, dur.Values, 6)
	require.Equal(t, "data", got.Metrics["data_sent"].Contains)
	require.Equal(t, map[string]float64{"rate": 37.0 / 1800, "passes": 37, "fails": 1763}, got.Metrics["http_req_failed"].Values)
	require.Contains(t, got.Metrics, "ws_connecting", "thresholded metrics appear without samples")
	require.Len(t, got.Stages, 2)
	require.Equal(t, 10.0, got.Stages[0]["achieved"])
	require.Equal(t, 17.0, got.Stages[1]["droppedIterations"])
	require.Equal(t, 0.0, got.Stages[0]["errorRate"])
}

func TestStageTableVUsAndEmptyWindows(t *testing.T) {
	t.Parallel()
	r := newRun()
	sc := r.tags("scenario", "ramp")
	push := func(sec int, vus float64, reqs int) {
		at := r.start.Add(time.Duration(sec) * time.Second)
		batch := []metrics.Sample{{Metric: r.b.VUs, Tags: r.tags(), Time: at, Value: vus}}
		for range reqs {
			batch = append(batch,
				metrics.Sample{Metric: r.b.HTTPReqs, Tags: sc, Time: at, Value: 1},
				metrics.Sample{Metric: r.b.HTTPReqDuration, Tags: sc, Time: at, Value: 0.25},
				metrics.Sample{Metric: r.b.Iterations, Tags: sc, Time: at, Value: 1})
		}
		r.store.Push(batch)
	}
	push(1, 30, 0) // First stage: VUs start, no request finishes yet.
	s1 := r.store.Snapshot()
	push(20, 300, 40)
	s2 := r.store.Snapshot()
	in := Input{
		Snapshot: s2, Start: r.start, Duration: 20 * time.Second,
		Stages: []Stage{
			{Scenario: "ramp", Index: 0, Start: r.start, End: r.start.Add(10 * time.Second), Target: 30, To: s1},
			{Scenario: "ramp", Index: 1, Start: r.start.Add(10 * time.Second), End: r.start.Add(20 * time.Second), Target: 300, From: s1, To: s2},
		},
	}
	out := text(t, in)
	require.Contains(t, out, "\n  █ STAGES \n\n"+
		"    stage    window    target  achieved  req/s    p50    p95    p99  errors  dropped  verdict\n"+
		"    ramp #1  0s-10s    30 VUs    30 VUs      0      -      -      -       -        0  held\n"+
		"    ramp #2  10s-20s  300 VUs   300 VUs      4  250ms  250ms  250ms       -        0  held\n"+
		"    verdict: a stage broke when a threshold that failed the run is crossed in its own samples; after the ';', what else stood out: drops, an arrival-rate stage under 95% of its mean target (ramps under 15s not judged), an error rate over 1% (the run has no thresholds)\n")

	in.Stages[1].To = nil
	require.ErrorContains(t, WriteText(&bytes.Buffer{}, in), `stage 1 of scenario "ramp" has no end snapshot`)
	push(25, 300, 5)
	s3 := r.store.Snapshot()
	in.Stages[1].To, in.Stages[1].From = s2, s3
	require.ErrorIs(t, WriteData(&bytes.Buffer{}, in), hist.ErrNotPrior, "windows must run forward")
}

// TestObservedWithoutSamples follows k6's cmd test for thresholds on a sub-metric of a
// counter that got no samples: the metric and the sub-metric show with zeros.
func TestObservedWithoutSamples(t *testing.T) {
	t.Parallel()
	r := newRun()
	one, err := r.reg.New("one", metrics.Counter, metrics.Default)
	require.NoError(t, err)
	two, err := r.reg.New("two", metrics.Counter, metrics.Default)
	require.NoError(t, err)
	_ = one
	sc := r.tags("scenario", "default")
	r.store.Push([]metrics.Sample{
		{Metric: two, Tags: sc, Time: r.start, Value: 42},
		{Metric: r.b.Iterations, Tags: sc, Time: r.start, Value: 1},
		{Metric: r.b.IterationDuration, Tags: sc, Time: r.start, Value: 0.0001},
		{Metric: r.b.VUs, Tags: r.tags(), Time: r.start, Value: 1},
		{Metric: r.b.VUsMax, Tags: r.tags(), Time: r.start, Value: 1},
		{Metric: r.b.DataSent, Tags: sc, Time: r.start, Value: 0},
		{Metric: r.b.DataReceived, Tags: sc, Time: r.start, Value: 0},
	})
	out := text(t, Input{
		Snapshot: r.store.Snapshot(), Registry: r.reg, Duration: time.Second,
		Thresholds: map[string][]Threshold{"one{tag:xyz}": nil},
	})
	require.Contains(t, out, "\n    one..................: 0   0/s\n      { tag:xyz }........: 0   0/s\n    two..................: 42")
}

// TestThresholdSubmetricsLayout follows k6's cmd test for sub-metric thresholds of a
// thresholded parent: indented, shown by their tags, values per sub-metric.
func TestThresholdSubmetricsLayout(t *testing.T) {
	t.Parallel()
	r := newRun()
	tc, err := r.reg.New("tc", metrics.Counter, metrics.Default)
	require.NoError(t, err)
	sc := r.tags("scenario", "default")
	r.store.Push([]metrics.Sample{
		{Metric: tc, Tags: r.tags("group", "::teardown"), Time: r.start, Value: 1},
		{Metric: r.b.Iterations, Tags: sc, Time: r.start, Value: 3},
	})
	out := text(t, Input{
		Snapshot: r.store.Snapshot(), Registry: r.reg, Duration: time.Second,
		Thresholds: map[string][]Threshold{
			"iterations":           {{Expr: "count >= 1", OK: true}},
			"tc":                   {{Expr: "count == 1", OK: true}},
			"tc{group:::setup}":    {{Expr: "count == 0", OK: true}},
			"tc{group:::teardown}": {{Expr: "count == 1", OK: true}},
		},
	})
	require.Contains(t, out, `
    iterations
    ✓ 'count >= 1' count=3

    tc
    ✓ 'count == 1' count=1

      {group:::setup}
      ✓ 'count == 0' count=0

      {group:::teardown}
      ✓ 'count == 1' count=1`)
}

// TestThresholdValueFallback shows the threshold engine's observed value (k6 units) for
// an aggregation the summary cannot compute itself.
func TestThresholdValueFallback(t *testing.T) {
	t.Parallel()
	r := newRun()
	r.store.Push([]metrics.Sample{{Metric: r.b.HTTPReqDuration, Tags: r.tags("scenario", "default"), Time: r.start, Value: 0.2}})
	out := text(t, Input{
		Snapshot: r.store.Snapshot(), Duration: time.Second,
		Thresholds: map[string][]Threshold{"http_req_duration": {{Expr: "p95<100", OK: false, Value: 123.45}, {Expr: "avg<100", OK: false, Value: 200}}},
	})
	require.Contains(t, out, "    http_req_duration\n    ✗ 'p95<100' p95=123.45ms\n    ✗ 'avg<100' avg=200ms\n")
}

// TestStageTableExternallyControlled: an externally-controlled scenario's one row
// compares the most VUs asked for with the most VUs that ran, not with the 0 VUs left
// at the end.
func TestStageTableExternallyControlled(t *testing.T) {
	t.Parallel()
	r := newRun()
	for sec, vus := range []float64{2, 5, 0} {
		r.store.Push([]metrics.Sample{{Metric: r.b.VUs, Tags: r.tags(), Time: r.start.Add(time.Duration(sec) * time.Second), Value: vus}})
	}
	s := r.store.Snapshot()
	test := &scenario.Test{Scenarios: []*scenario.Scenario{{Name: "ext", Executor: scenario.ExternallyControlled, VUs: 2, MaxVUs: 5}}}
	in := Input{
		Test: test, Snapshot: s, Start: r.start, Duration: 3 * time.Second,
		Stages: []Stage{{Scenario: "ext", Start: r.start, End: r.start.Add(3 * time.Second), StartTarget: 2, Target: 5, To: s}},
	}
	require.Contains(t, text(t, in), "\n    ext #1  0s-3s    5 VUs     5 VUs ")
}

// TestStageTableBrowserScenario: in a hybrid run, a 1-VU browser scenario's row counts
// its own VU, not the 197 of the run (k6's vus has no scenario label), and is marked and
// explained as a browser scenario; so does the row of a browser scenario alone, whose
// window ends after the run's VUs are gone (vus 0).
func TestStageTableBrowserScenario(t *testing.T) {
	t.Parallel()
	r := newRun()
	r.store.Push([]metrics.Sample{{Metric: r.b.VUs, Tags: r.tags(), Time: r.start.Add(time.Second), Value: 197}})
	s := r.store.Snapshot()
	test := &scenario.Test{Scenarios: []*scenario.Scenario{
		{Name: "spike", Executor: scenario.RampingVUs},
		{Name: "page", Executor: scenario.ConstantVUs, VUs: 1, Browser: "chromium"},
	}}
	in := Input{
		Test: test, Snapshot: s, Start: r.start, Duration: 3 * time.Second,
		Stages: []Stage{
			{Scenario: "page", Start: r.start, End: r.start.Add(3 * time.Second), StartTarget: 1, Target: 1, To: s, VUs: new(1.0)},
			{Scenario: "spike", Start: r.start, End: r.start.Add(3 * time.Second), StartTarget: 0, Target: 196, To: s, VUs: new(196.0)},
		},
	}
	out := text(t, in)
	require.Contains(t, out, "\n    page #1 (browser)  0s-3s     1 VUs     1 VUs ")
	require.Contains(t, out, "\n    spike #1           0s-3s   196 VUs   196 VUs ")
	require.Contains(t, out, "browser scenarios (page): their VUs drive Chromium and measure pages")

	r.store.Push([]metrics.Sample{{Metric: r.b.VUs, Tags: r.tags(), Time: r.start.Add(3 * time.Second), Value: 0}})
	in.Snapshot = r.store.Snapshot()
	in.Stages = []Stage{{Scenario: "page", Start: r.start, End: r.start.Add(3 * time.Second), StartTarget: 1, Target: 1, To: in.Snapshot, VUs: new(1.0)}}
	require.Contains(t, text(t, in), "\n    page #1 (browser)  0s-3s    1 VUs     1 VUs ")
}

// TestStageResults: stages computed elsewhere (tidemark summarize) print as rows of the
// STAGES table with their own verdicts and note, and go to the --summary-file as given.
func TestStageResults(t *testing.T) {
	t.Parallel()
	r := newRun()
	r.store.Push([]metrics.Sample{{Metric: r.b.VUs, Tags: r.tags(), Time: r.start, Value: 1}})
	p95, errRate := 0.0388, 0.0
	in := Input{
		Snapshot: r.store.Snapshot(), Start: r.start, Duration: 10 * time.Second,
		StageResults: []StageResult{
			{Scenario: "load", Index: 0, Start: r.start, End: r.start.Add(4 * time.Second), Target: 30, TimeUnit: time.Second,
				Achieved: 29.82, Iterations: 119.28, RequestRate: 29.82, P95: &p95, ErrorRate: &errRate, Held: true, Verdict: "held"},
			{Scenario: "load", Index: 1, Start: r.start.Add(4 * time.Second), End: r.start.Add(10 * time.Second), Target: 5,
				Achieved: 5, Dropped: 2, Broke: []string{"2 dropped"}, Verdict: "broke: 2 dropped"},
		},
		StageNote: "verdict: by the run's thresholds",
	}
	out := text(t, in)
	require.Contains(t, out, "\n  █ STAGES \n\n"+
		"    stage    window  target  achieved  req/s  p50     p95  p99  errors  dropped  verdict\n"+
		"    load #1  0s-4s     30/s   29.82/s  29.82    -  38.8ms    -   0.00%        0  held\n"+
		"    load #2  4s-10s   5 VUs     5 VUs      0    -       -    -       -        2  broke: 2 dropped\n"+
		"    verdict: by the run's thresholds\n")

	var b bytes.Buffer
	require.NoError(t, WriteData(&b, in))
	var data struct {
		Stages []stageRow `json:"stages"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &data))
	require.Len(t, data.Stages, 2)
	require.Equal(t, "iterations/s", data.Stages[0].TargetUnit)
	require.InDelta(t, 38.8, *data.Stages[0].P95, 1e-9, "milliseconds, as the run's rows")
	require.InDelta(t, 4000, data.Stages[1].StartMs, 0)
	require.Equal(t, "vus", data.Stages[1].TargetUnit)
	require.False(t, data.Stages[1].Held)
	require.Equal(t, []string{"2 dropped"}, data.Stages[1].Broke)
}

// TestNoDroppedIterationsWithoutDrops: the executors start dropped_iterations at 0 for
// the dashboards; k6 has no such sample, so its summary (text, export and
// handleSummary data) shows dropped_iterations only when an iteration was dropped, or
// when a threshold names it.
func TestNoDroppedIterationsWithoutDrops(t *testing.T) {
	t.Parallel()
	r := newRun()
	sc := r.tags("scenario", "default")
	r.store.Push([]metrics.Sample{
		{Metric: r.b.Iterations, Tags: sc, Time: r.start, Value: 1},
		{Metric: r.b.DroppedIterations, Tags: sc, Time: r.start, Value: 0},
	})
	in := Input{Snapshot: r.store.Snapshot(), Duration: time.Second}
	require.NotContains(t, text(t, in), "dropped_iterations")
	for _, write := range []func(io.Writer, Input) error{WriteExport, WriteData} {
		var b bytes.Buffer
		require.NoError(t, write(&b, in))
		require.NotContains(t, b.String(), "dropped_iterations")
	}
	in.Thresholds = map[string][]Threshold{"dropped_iterations": {{Expr: "count==0", OK: true}}}
	require.Contains(t, text(t, in), "    dropped_iterations...: 0 0/s\n")
	r.store.Push([]metrics.Sample{{Metric: r.b.DroppedIterations, Tags: sc, Time: r.start, Value: 2}})
	require.Contains(t, text(t, Input{Snapshot: r.store.Snapshot(), Duration: time.Second}), "    dropped_iterations...: 2 2/s\n")
}

// TestSetupData: setup()'s data is `setup_data` in handleSummary's data and in the
// --summary-export file, as k6 puts it; a run whose setup returned nothing has none.
func TestSetupData(t *testing.T) {
	t.Parallel()
	r := newRun()
	r.store.Push([]metrics.Sample{{Metric: r.b.Iterations, Tags: r.tags("scenario", "default"), Time: r.start, Value: 1}})
	in := Input{Snapshot: r.store.Snapshot(), Duration: time.Second, SetupData: json.RawMessage(`{"token":"abc","ids":[1,2]}`)}
	for _, write := range []func(io.Writer, Input) error{WriteExport, WriteData} {
		var b bytes.Buffer
		require.NoError(t, write(&b, in))
		var got struct {
			SetupData any `json:"setup_data"`
		}
		require.NoError(t, json.Unmarshal(b.Bytes(), &got))
		require.Equal(t, map[string]any{"token": "abc", "ids": []any{1.0, 2.0}}, got.SetupData)
		require.Contains(t, b.String(), "\n    \"setup_data\": {\n        \"token\": \"abc\",", "indented as the rest")
		b.Reset()
		none := in
		none.SetupData = nil
		require.NoError(t, write(&b, none))
		require.NotContains(t, b.String(), "setup_data")
	}
}

// TestFullMode: --summary-mode full prints compact's sections with the metrics compact
// hides, then a section per group and per scenario with their own checks and metrics,
// sub-groups nested as "↳ GROUP:"; compact has none of it.
func TestFullMode(t *testing.T) {
	t.Parallel()
	in := fullInput(t)
	compact := text(t, in)
	in.Mode = ModeFull
	full := text(t, in)
	for _, s := range []string{"█ GROUP:", "█ SCENARIO:", "http_req_waiting"} {
		require.NotContains(t, compact, s)
		require.Contains(t, full, s)
	}
	group := full[strings.Index(full, "  █ GROUP: api \n"):strings.Index(full, "  █ SCENARIO: load \n")]
	require.Contains(t, group, "\n    ✓ body has id\n\n    ↳ GROUP: orders \n\n      checks_total.......: 1800 ")
	require.Contains(t, group, "\n      ✗ fast\n        ↳  78% — ✓ 1415 / ✗ 385\n")
	require.NotContains(t, group, "status is 200", "a check of the root group is not the group's")
	scenario := full[strings.Index(full, "  █ SCENARIO: load \n"):strings.Index(full, "  █ STAGES")]
	require.Contains(t, scenario, "    ✗ status is 200\n")
	require.Regexp(t, `\n    http_reqs\.+: 1800 +29\.268293/s\n`, scenario)
	require.NotContains(t, scenario, "\n    vus", "vus has no scenario tag")
	require.Contains(t, scenario, "\n    ↳ GROUP: api \n\n      checks_total")
	require.Contains(t, scenario, "\n      ↳ GROUP: orders \n\n        checks_total")
	require.Equal(t, strings.Index(full, "█ STAGES"), strings.LastIndex(full, "█ STAGES"))
}
