//go:build integration

package correlator

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
)

var update = flag.Bool("update", false, "rewrite testdata/story1.om from the generator")

// Story 1's 10→50 RPS spike, as the fixture's truth: internal/layouts generates it (its
// Minimal layout, written by Tidemark, with YACE) and owns its timeline. Offsets are seconds
// from the run start.
var (
	fxRunFrom = time.Date(2026, 3, 1, 10, 0, 2, 0, time.UTC)
	fxRunTo   = fxRunFrom.Add(layouts.RunSeconds * time.Second)
	fxFrom    = fxRunFrom.Add(-10 * time.Minute)
)

const (
	fxTestID   = layouts.DefaultTestID
	fxK6Step   = layouts.K6Step
	fxKSMStep  = layouts.KSMStep
	fxCadvStep = layouts.CadvisorStep
	fxRDSStep  = layouts.RDSStep
	fxScaleUp1 = layouts.ScaleUp1
	fxReady1   = layouts.Ready1
	fxScaleUp2 = layouts.ScaleUp2
	fxReady2   = layouts.Ready2
	fxLoadStep = layouts.LoadStep
	fxLoadEnd  = layouts.LoadEnd
	fxScaleIn  = layouts.ScaleIn
	fxFailRate = layouts.FailureRate
)

type omSeries struct {
	name   string
	labels string
	lines  []string
}

type omWriter struct {
	base   time.Time // offset 0
	series []*omSeries
}

func (w *omWriter) add(name, labels string, from, to, step, offset float64, f func(r float64) (float64, bool)) {
	s := &omSeries{name: name, labels: labels}
	for r := from + offset; r <= to; r += step {
		v, ok := f(r)
		if !ok {
			continue
		}
		ts := w.base.Add(time.Duration(r * float64(time.Second)))
		s.lines = append(s.lines, fmt.Sprintf("%s{%s} %s %d.%03d", name, labels, fmtFloat(v), ts.Unix(), ts.Nanosecond()/1e6))
	}
	if len(s.lines) > 0 {
		w.series = append(w.series, s)
	}
}

func fmtFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.6g", v)
}

func (w *omWriter) String() string {
	slices.SortStableFunc(w.series, func(a, b *omSeries) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	for _, s := range w.series {
		for _, l := range s.lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// story1OpenMetrics generates the fixture (internal/layouts' Minimal layout).
func story1OpenMetrics() string {
	f, err := layouts.Story1(layouts.Options{})
	if err != nil {
		panic(err) // the zero Options are valid; TestMinimalIsTheCorrelatorFixture runs them
	}
	return f.OpenMetrics()
}

func TestFixturesAreGenerated(t *testing.T) {
	for file, gen := range map[string]func() string{"story1.om": story1OpenMetrics, "story3.om": story3OpenMetrics} {
		path := filepath.Join("testdata", file)
		got := gen()
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(want), got, "testdata/%s is stale: go test -tags integration -run TestFixturesAreGenerated ./internal/correlator/ -args -update", file)
	}
}

// loadFixtures starts a real Prometheus and loads OpenMetrics fixtures into it with
// promtool, waiting until the server has picked up the blocks.
func loadFixtures(t *testing.T, files ...string) *promtest.Server {
	// Paths are relative to testdata unless absolute.
	t.Helper()
	promtool := "/usr/bin/promtool"
	_, err := os.Stat(promtool)
	require.NoError(t, err, "promtool is required (apt-get install prometheus)")
	prom := promtest.StartPrometheus(t)
	for _, f := range files {
		blocks := t.TempDir()
		if !filepath.IsAbs(f) {
			f = filepath.Join("testdata", f)
		}
		out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "--quiet", f, blocks).CombinedOutput()
		require.NoError(t, err, "promtool: %s", out)
		// Move the blocks into the running server's data directory; the TSDB loads new
		// blocks on its once-a-minute reload.
		entries, err := os.ReadDir(blocks)
		require.NoError(t, err)
		require.NotEmpty(t, entries)
		for _, e := range entries {
			require.NoError(t, os.Rename(filepath.Join(blocks, e.Name()), filepath.Join(prom.DataDir, e.Name())))
		}
	}
	promtest.Poll(t, 150*time.Second, time.Second, func() (bool, error) {
		ok := true
		for _, at := range []time.Time{fxRunFrom.Add(time.Minute), s3RunFrom.Add(time.Minute), bRunFrom.Add(time.Minute)} {
			v, err := promtest.Query(context.Background(), prom.URL, `count(tidemark_run_info)`, at)
			if err != nil {
				return false, err
			}
			ok = ok && promtest.NonEmpty(v)
		}
		return ok, nil
	})
	return prom
}

// TestCorrelatePrometheus runs the correlator against a real Prometheus 2.42 holding the
// seed stories as promtool-created blocks.
func TestCorrelatePrometheus(t *testing.T) {
	prom := loadFixtures(t, "story1.om", "story3.om", writeBenchFixture(t))
	t.Run("story1 spike", func(t *testing.T) { testStory1(t, prom) })
	t.Run("story3 throttling", func(t *testing.T) { testStory3(t, prom) })
	t.Run("benchmark 1h 5 HPAs 50 pods", func(t *testing.T) { testBenchmark(t, prom) })
}

// testStory1 checks that the facts of story 1's spike equal the fixture's truth within
// the stated resolution (one scrape interval per end of a span; rate-derived facts also
// lag by up to the rate window).
func testStory1(t *testing.T, prom *promtest.Server) {
	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	c := New(q, cat, promslog.NewNopLogger())
	start := time.Now()
	res, err := c.Correlate(context.Background(), Config{
		TestID: fxTestID, Namespace: "shoong", Lookback: time.Since(fxFrom) + time.Hour,
		Params: map[string]float64{"db_pool_per_pod": 8},
	})
	require.NoError(t, err)
	t.Logf("correlated in %s", time.Since(start))
	for _, n := range res.Notes {
		t.Logf("note: %s/%s %s: %s", n.Section, n.Object, n.Level, n.Text)
	}
	for _, q := range res.Queries {
		require.Empty(t, q.Error, q.Name)
	}

	// Window and resolutions.
	require.Equal(t, fxRunFrom, res.Window.Run.From)
	require.Equal(t, fxRunTo, res.Window.Run.To)
	bySource := map[string]Source{}
	for _, s := range res.Sources {
		bySource[s.Name] = s
		if cat.Sources[s.Name].Optional {
			// Story 1's fixture has no database exporter or pool: nothing measured, and
			// no note asking whether they are scraped.
			require.False(t, s.Measured, s.Name)
			require.Zero(t, s.Series, s.Name)
			for _, n := range res.Notes {
				require.NotEqual(t, s.Name, n.Object, "note on an optional source without series: %s", n.Text)
			}
			continue
		}
		require.True(t, s.Measured, s.Name)
		require.Positive(t, s.Series, s.Name)
	}
	require.InDelta(t, fxK6Step, bySource["k6"].ResolutionSeconds, 0)
	require.InDelta(t, fxKSMStep, bySource["ksm"].ResolutionSeconds, 0)
	require.InDelta(t, fxCadvStep, bySource["cadvisor"].ResolutionSeconds, 0)
	require.InDelta(t, fxRDSStep, bySource["rds"].ResolutionSeconds, 0)

	within := func(f *analysis.Fact, want float64, msg string) {
		t.Helper()
		require.NotNil(t, f, msg)
		require.InDelta(t, want, f.Value, f.ResolutionSeconds, msg)
		require.Positive(t, f.ResolutionSeconds, msg)
	}
	withinAt := func(f *analysis.Fact, off float64, slack time.Duration, msg string) {
		t.Helper()
		require.NotNil(t, f, msg)
		want := fxRunFrom.Add(time.Duration(off) * time.Second)
		require.False(t, f.At.Before(want.Add(-time.Second)), "%s: %s is before the truth %s", msg, f.At, want)
		require.LessOrEqual(t, f.At.Sub(want), slack, "%s: %s vs truth %s", msg, f.At, want)
	}
	ksmRes := time.Duration(fxKSMStep) * time.Second

	// Load.
	require.InDelta(t, 19200, res.Load.Requests, 1)
	require.InDelta(t, 1200, res.Load.Failures, 1)
	require.Equal(t, []time.Time{fxRunFrom.Add((fxLoadStep - fxK6Step) * time.Second)}, res.Load.LoadSteps, "the jump happens between two pushes")
	require.Equal(t, fxRunFrom.Add(fxLoadEnd*time.Second), res.Load.LoadEnd)
	require.NotNil(t, res.Load.Capacity.LastHeld)
	require.NotNil(t, res.Load.Capacity.FirstBroke)
	require.InDelta(t, 10, res.Load.Stages[*res.Load.Capacity.LastHeld].EndTarget, 0)

	// Autoscaling.
	require.Len(t, res.Autoscaling, 1)
	h := res.Autoscaling[0]
	require.Equal(t, "order", h.Deployment)
	require.InDelta(t, 2, h.Baseline.Value, 0)
	require.Len(t, h.Steps, 3)
	withinAt(h.Steps[0].DesiredAt, fxScaleUp1, ksmRes, "scale-up 1")
	withinAt(h.Steps[1].DesiredAt, fxScaleUp2, ksmRes, "scale-up 2")
	withinAt(h.Steps[2].DesiredAt, fxScaleIn, ksmRes, "scale-in")
	within(h.Steps[0].ReadyGap, fxReady1-fxScaleUp1, "gap 2→4")
	within(h.Steps[1].ReadyGap, fxReady2-fxScaleUp2, "gap 4→5")
	within(h.ReactionFromLoadStep, fxScaleUp1-fxLoadStep, "reaction from load step")
	withinAt(h.MetricCrossed, 135, ksmRes, "metric crossed")
	within(h.ReactionFromCrossing, fxScaleUp1-135, "reaction from crossing")
	within(h.TimeToMax, fxScaleUp2-fxLoadStep, "time to max")
	within(h.HeldAtMax, fxScaleIn-fxScaleUp2, "held at max")
	within(h.ScaleInDelay, fxScaleIn-fxLoadEnd, "scale-in delay")
	within(h.RecoveryAfterLoadEnd, fxScaleIn-fxLoadEnd, "recovery")
	startups := map[string]float64{}
	for _, p := range h.Pods {
		require.NotNil(t, p.Startup, p.Pod)
		startups[p.Pod] = p.Startup.Value
	}
	require.Equal(t, map[string]float64{"order-7d9f-c": 13, "order-7d9f-d": 13, "order-7d9f-e": 28}, startups)

	// CPU.
	byWl := map[string]analysis.WorkloadCPU{}
	for _, w := range res.CPU {
		byWl[w.Workload] = w
	}
	require.Len(t, byWl, 2)
	order := byWl["order"]
	require.InDelta(t, 0.07, order.HPATarget.Value, 1e-9)
	require.InDelta(t, 0.2, order.Limit.Value, 1e-9)
	require.InDelta(t, 0.12, order.PeakUsage.Value, 0.005, "the pause container is filtered out")
	require.InDelta(t, 0.3, order.PeakThrottled.Value, 0.01, "the sandbox's periods are filtered out")
	require.Len(t, order.Onsets, 2)
	// A rate over two cAdvisor scrapes lags by up to its window, seen up to a step late.
	rw := cat.RateWindowOf("cadvisor", query.Vars{Intervals: map[string]time.Duration{"cadvisor": time.Duration(fxCadvStep) * time.Second}}) +
		time.Duration(fxCadvStep)*time.Second
	withinAt(order.Onsets[0].At, 135, rw, "throttling > 5%")
	withinAt(order.Onsets[1].At, fxScaleUp1, rw, "throttling > 25%")
	require.InDelta(t, 25, order.Onsets[0].VUs.Value, 0)
	require.True(t, byWl["delivery"].NoLimit)

	// Database.
	require.Len(t, res.Database, 1)
	d := res.Database[0]
	require.InDelta(t, 5, d.CPUBaseline.Value, 0)
	require.InDelta(t, 12, d.CPUPeak.Value, 0)
	require.InDelta(t, 21, d.ConnectionsGrowth.Value, 0)
	require.InDelta(t, 41, d.Plateau.Value, 0)
	require.Equal(t, "rising", d.CreditTrend)
	require.InDelta(t, 3e8, d.FreeableMin.Value, 0)
	require.InDelta(t, 60, d.Cadence.Value, 0)

	// Errors: 450 of 1200 failures fell in the two start-up gaps (15 s and 30 s at 10/s).
	require.Len(t, res.Errors.Bursts, 1)
	require.InDelta(t, 1, res.Errors.Bursts[0].Share, 1e-9)
	require.InDelta(t, 450.0/1200, res.Errors.InGapShare.Value, 2*fxFailRate*fxKSMStep/1200)

	// Findings kept as data in the catalog fire on real Prometheus.
	rules := map[string]bool{}
	for _, f := range res.Findings {
		rules[f.Rule] = true
	}
	for _, want := range []string{"hpa_at_max_with_errors", "ready_lagging_during_errors", "throttled_below_limit"} {
		require.True(t, rules[want], "finding %s; got %v", want, keys(rules))
	}
	logBottleneck(t, res.Bottleneck)
	// The fixture throttles order > 25% (at fxScaleUp1), the CPU its HPA scales on,
	// then the HPA reaches max with its metric over target: replicas limited the spike,
	// the CPU is its evidence; the database (CPU 12%, credits rising: story 1's RDS) and
	// the pool (41 of 56) are ruled out, and so is start-up (450 of 1200 failures in the
	// gaps, under the rule's half; story 1 itself, and the demo, fail mostly there).
	b := res.Bottleneck
	require.Equal(t, analysis.ResourceReplicas, b.Resource)
	require.Equal(t, "shoong/order", b.Object)
	require.True(t, b.At.At.After(order.Onsets[1].At.At))
	require.True(t, slices.ContainsFunc(b.Evidence, func(e string) bool { return strings.Contains(e, "which its HPA scales on") }), "%v", b.Evidence)
	requireRuledOutWithNumbers(t, b, analysis.ResourceStartup, analysis.ResourceDatabase, analysis.ResourcePool)
	for _, o := range b.RuledOut {
		if o.Resource == analysis.ResourceDatabase {
			require.InDelta(t, 12, o.Numbers["shoong-db_cpu_peak_percent"], 0)
		}
	}
	// The moment of saturation is an event, written back as tidemark_event{kind="bottleneck",
	// object=<resource>} at that moment: the dashboards' event annotation shows it there.
	require.NotNil(t, b.At)
	var written []time.Time
	for _, s := range WriteBack(res) {
		if s.Label("__name__") == EventMetric && s.Label("kind") == analysis.EventBottleneck {
			require.Equal(t, analysis.ResourceReplicas, s.Label("object"))
			require.Equal(t, fxTestID, s.Label("testid"))
			for _, p := range s.Points {
				written = append(written, p.T)
			}
		}
	}
	require.Equal(t, []time.Time{b.At.At}, written, "one bottleneck event, at the moment of saturation")
	require.Less(t, time.Since(start), 10*time.Second)
}

// requireRuledOutWithNumbers requires each resource ruled out, with numbers.
func requireRuledOutWithNumbers(t *testing.T, b analysis.Bottleneck, resources ...string) {
	t.Helper()
	for _, r := range resources {
		i := slices.IndexFunc(b.RuledOut, func(o analysis.RuledOut) bool { return o.Resource == r })
		require.GreaterOrEqual(t, i, 0, "%s ruled out", r)
		require.NotEmpty(t, b.RuledOut[i].Numbers, "%s ruled out with numbers", r)
	}
}

// requireRuledOutNumbers returns the ruled-out entry of resource, which must carry
// numbers.
func requireRuledOutNumbers(t *testing.T, b analysis.Bottleneck, resource string) analysis.RuledOut {
	t.Helper()
	requireRuledOutWithNumbers(t, b, resource)
	return b.RuledOut[slices.IndexFunc(b.RuledOut, func(o analysis.RuledOut) bool { return o.Resource == resource })]
}

// logBottleneck logs a verdict whole, for a failing assertion on it.
func logBottleneck(t *testing.T, b analysis.Bottleneck) {
	t.Helper()
	out, _ := json.MarshalIndent(b, "", "  ")
	t.Logf("bottleneck: %s", out)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
