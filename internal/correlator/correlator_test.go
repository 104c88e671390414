package correlator

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

var (
	t0      = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	runFrom = t0.Add(5*time.Minute + 2*time.Second) // not on any step grid
	runTo   = runFrom.Add(10 * time.Minute)
	endAll  = runTo.Add(15 * time.Minute)
	nowT    = endAll.Add(time.Minute)
)

func target(d time.Duration) float64 {
	switch {
	case d < 2*time.Minute:
		return 10
	case d < 7*time.Minute:
		return 50
	default:
		return 0
	}
}

// story1 fills a fake Prometheus with a 10→50 RPS spike: the HPA goes 2→4→5 with ready
// 15 s and 30 s behind; requests fail 20% during the 2 minutes after the spike.
func story1(t *testing.T, cat *query.Catalog, v query.Vars) *fakeProm {
	t.Helper()
	render := func(name string) string {
		e, err := cat.Render(name, v)
		require.NoError(t, err)
		return e
	}
	renderStep := func(name string) string {
		e, err := cat.Render(name, stepVars(v))
		require.NoError(t, err)
		return e
	}
	k6 := 5 * time.Second
	ksm := 15 * time.Second
	rel := func(d time.Duration) time.Duration { return runFrom.Sub(t0) + d }
	ksmFrom := t0.Add(-5 * time.Minute)
	relK := func(d time.Duration) time.Duration { return runFrom.Sub(ksmFrom) + d }
	hpa := model.Metric{"namespace": "shoong", "horizontalpodautoscaler": "order"}
	// k6 series as remote write pushes them: first one interval after the start, then
	// every interval until the end, then a stale marker.
	k6From := runFrom.Add(k6)
	k6Stream := func(labels model.Metric, f func(time.Duration) float64) []*model.SampleStream {
		return withStale(stream(labels, k6From, runTo, k6, func(d time.Duration) float64 { return f(d + k6) }))
	}
	runInfo := k6Stream(model.Metric{"testid": "spike-50"}, func(time.Duration) float64 { return 1 })[0]
	fails := func(d time.Duration) float64 {
		if d >= 2*time.Minute && d < 4*time.Minute {
			return 0.2 * target(d)
		}
		return 0
	}
	_ = rel
	seen := v
	seen.Range = 121 * time.Second // 7 d ÷ 5000, rounded
	seenExpr, err := cat.Render("run_seen", seen)
	require.NoError(t, err)
	probe := func(source string) string {
		e, err := cat.RenderProbe(source, v)
		require.NoError(t, err)
		return e
	}
	f := &fakeProm{exprs: map[string]fakeSeries{
		seenExpr:                    {streams: []*model.SampleStream{runInfo}, countOver: true},
		probe("k6"):                 {streams: []*model.SampleStream{runInfo}},
		render("scenario_target"):   {streams: k6Stream(model.Metric{"scenario": "spike", "unit": "iterations_per_second"}, target)},
		renderStep("http_reqs"):     {streams: withStale(counter(model.Metric{"scenario": "spike"}, runFrom, runTo, k6, target))},
		renderStep("iterations"):    {streams: withStale(counter(model.Metric{"scenario": "spike"}, runFrom, runTo, k6, target))},
		renderStep("http_failures"): {streams: withStale(counter(model.Metric{"scenario": "spike"}, runFrom, runTo, k6, fails))},
		render("http_req_rate"):     {streams: k6Stream(model.Metric{}, target)},
		render("vus"):               {streams: k6Stream(model.Metric{}, func(d time.Duration) float64 { return target(d) / 2 })},
		render("hpa_deployment"):    {streams: []*model.SampleStream{stream(model.Metric{"namespace": "shoong", "horizontalpodautoscaler": "order", "deployment": "order"}, ksmFrom, endAll, ksm, func(time.Duration) float64 { return 1 })}},
		render("hpa_current"):       {streams: []*model.SampleStream{stream(hpa, ksmFrom, endAll, ksm, steps([]time.Duration{0, relK(150 * time.Second), relK(180 * time.Second), relK(12 * time.Minute)}, []float64{2, 4, 5, 2}))}},
		render("hpa_desired"):       {streams: []*model.SampleStream{stream(hpa, ksmFrom, endAll, ksm, steps([]time.Duration{0, relK(150 * time.Second), relK(180 * time.Second), relK(12 * time.Minute)}, []float64{2, 4, 5, 2}))}},
		render("hpa_min"):           {streams: []*model.SampleStream{stream(hpa, ksmFrom, endAll, ksm, func(time.Duration) float64 { return 2 })}},
		render("hpa_max"):           {streams: []*model.SampleStream{stream(hpa, ksmFrom, endAll, ksm, func(time.Duration) float64 { return 5 })}},
		render("deployment_ready"): {streams: []*model.SampleStream{stream(model.Metric{"namespace": "shoong", "deployment": "order"}, ksmFrom, endAll, ksm,
			steps([]time.Duration{0, relK(165 * time.Second), relK(210 * time.Second), relK(12*time.Minute + 15*time.Second)}, []float64{2, 4, 5, 2}))}},
		probe("ksm"): {streams: []*model.SampleStream{stream(hpa, ksmFrom, endAll, ksm, func(time.Duration) float64 { return 2 })}},
	}, errs: map[string]error{}, prefixes: map[string]fakeSeries{
		seenExpr[:strings.Index(seenExpr, "[")+1]: {streams: []*model.SampleStream{runInfo}, countOver: true},
	}}
	// The finding rule "HPA at max while errors" fires from 3:00 to 4:00 of the run.
	rule, err := cat.RenderRule("hpa_at_max_with_errors", v)
	require.NoError(t, err)
	f.exprs[rule] = fakeSeries{streams: []*model.SampleStream{stream(hpa, runFrom.Add(3*time.Minute), runFrom.Add(4*time.Minute), 5*time.Second, func(time.Duration) float64 { return 5 })}, lookback: 5 * time.Second}
	return f
}

func newCorrelator(t *testing.T, f *fakeProm) *Correlator {
	t.Helper()
	cat, err := query.Default()
	require.NoError(t, err)
	return New(f, cat, promslog.NewNopLogger(), WithClock(func() time.Time { return nowT }))
}

func vars(t *testing.T) (*query.Catalog, query.Vars) {
	t.Helper()
	cat, err := query.Default()
	require.NoError(t, err)
	return cat, query.Vars{TestID: "spike-50", Namespace: "shoong", Intervals: story1Intervals()}
}

// story1Intervals are the intervals the correlator measures (k6, ksm) or assumes (the
// catalog's scrape_interval of cadvisor and rds) on the story-1 fake: each source's rates
// are rendered with two of them.
func story1Intervals() map[string]time.Duration {
	return map[string]time.Duration{"k6": 5 * time.Second, "ksm": 15 * time.Second, "cadvisor": 30 * time.Second, "rds": time.Minute}
}

func TestCorrelateStory1(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	f := story1(t, cat, v)
	res, err := newCorrelator(t, f).Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong"})
	require.NoError(t, err)

	require.Equal(t, SchemaVersion, res.SchemaVersion)
	require.Equal(t, "run_info", res.Window.From)
	require.Equal(t, runFrom, res.Window.Run.From, "start: the first run-info sample less the push interval")
	require.Equal(t, runTo, res.Window.Run.To)
	require.Equal(t, runFrom.Add(-5*time.Minute), res.Window.Baseline.From)
	require.Equal(t, runTo.Add(10*time.Minute), res.Window.After.To)
	require.False(t, res.Window.Live)

	bySource := map[string]Source{}
	for _, s := range res.Sources {
		bySource[s.Name] = s
	}
	require.True(t, bySource["k6"].Measured)
	require.InDelta(t, 5, bySource["k6"].ResolutionSeconds, 0)
	require.True(t, bySource["ksm"].Measured)
	require.InDelta(t, 15, bySource["ksm"].ResolutionSeconds, 0)
	require.False(t, bySource["rds"].Measured)
	require.InDelta(t, 60, bySource["rds"].ResolutionSeconds, 0)
	require.Equal(t, 0, bySource["rds"].Series)
	require.InDelta(t, 5, res.StepSeconds, 0)

	// Every range query of the catalog was issued.
	for _, q := range query.RequiredQueries() {
		if q == "stage_trend_quantile" || q == "run_seen" {
			continue
		}
		vs := v
		vs.Step = 5 * time.Second // the k6 step; .Step is used by the k6 counters only
		e, err := cat.Render(q, vs)
		require.NoError(t, err)
		if pp, ok, err := cat.RenderPerPod(q, v); ok {
			require.NoError(t, err)
			require.False(t, f.askedExactly(e), "%s: the joined form is for dashboards", q)
			e = pp
		}
		require.True(t, f.askedFor(e), q)
	}

	require.Len(t, res.Autoscaling, 1)
	h := res.Autoscaling[0]
	require.Len(t, h.Steps, 3)
	// KSM samples sit on a 15 s grid; the run starts 2 s off it, so each transition is
	// seen up to one scrape interval late: within the stated resolution.
	within := func(f *analysis.Fact, want float64, msg string) {
		t.Helper()
		require.NotNil(t, f, msg)
		require.InDelta(t, want, f.Value, f.ResolutionSeconds, msg)
	}
	within(h.Steps[0].ReadyGap, 15, "gap 2→4")
	within(h.Steps[1].ReadyGap, 30, "gap 4→5")
	within(h.ReactionFromLoadStep, 30, "reaction")
	within(h.ScaleInDelay, 300, "scale-in delay")
	require.Equal(t, 15.0, h.Steps[0].DesiredAt.ResolutionSeconds)

	require.NotEmpty(t, res.Load.Stages)
	require.NotNil(t, res.Load.Capacity.LastHeld)
	require.InDelta(t, 0.2*50*120, res.Errors.Failures, 0.2*50*5+1)

	require.Len(t, res.Findings, 1)
	fd := res.Findings[0]
	require.Equal(t, "hpa_at_max_with_errors", fd.Rule)
	require.Equal(t, "critical", fd.Severity)
	require.Contains(t, fd.Message, "order at maxReplicas (5) for 1m")
	require.Equal(t, "finding/hpa_at_max_with_errors", fd.Evidence[0].Query)
	require.Equal(t, analysis.Evidence{Query: "hpa_current", Series: `{horizontalpodautoscaler="order", namespace="shoong"}`, Times: []time.Time{fd.From, fd.To}}, fd.Evidence[1])

	// Missing sources are notes, never numbers.
	texts := map[string]bool{}
	for _, n := range res.Notes {
		texts[n.Text] = true
	}
	require.True(t, texts["no cAdvisor series for namespace shoong in the window — is it scraped?"], "%v", res.Notes)
	require.True(t, texts["no RDS (YACE/cloudwatch_exporter) series in the window — is it scraped?"])
	require.True(t, texts["rule skipped: set [db_pool_per_pod] to evaluate it"])
	require.Empty(t, res.CPU)
	require.Empty(t, res.Database)

	// The result serialises (report.json) and keeps chart series.
	b, err := json.Marshal(res)
	require.NoError(t, err)
	require.Contains(t, string(b), `"schema_version":1`)
	require.Contains(t, res.Series, "hpa_current")
}

func TestCorrelateWindowFromFlags(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	f := story1(t, cat, v)
	from, to := runFrom.Add(time.Minute), runTo.Add(-time.Minute)
	c := New(f, cat, promslog.NewNopLogger(), WithClock(func() time.Time { return nowT }))
	res, err := c.Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong", From: from, To: to, Baseline: time.Minute, After: -1})
	require.NoError(t, err)
	require.Equal(t, "flags", res.Window.From)
	require.Equal(t, from, res.Window.Run.From)
	require.Equal(t, to, res.Window.Run.To)
	require.Equal(t, from.Add(-time.Minute), res.Window.Baseline.From)
	require.Equal(t, to, res.Window.After.To)
	require.False(t, f.askedFor("count_over_time(tidemark_run_info"))
}

func TestCorrelateErrors(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	hpaCurrent, err := cat.Render("hpa_current", v)
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		cfg     Config
		setup   func(f *fakeProm)
		wantErr error
		wantMsg string
		check   func(t *testing.T, res *Result)
	}{
		{name: "no testid", cfg: Config{}, wantMsg: "testid is empty"}, // no "correlate:": the caller prefixes
		{name: "run not found", cfg: Config{TestID: "other"}, wantErr: ErrRunNotFound, wantMsg: `testid="other"`},
		{
			name:    "prometheus unavailable",
			cfg:     Config{TestID: "spike-50", Namespace: "shoong"},
			setup:   func(f *fakeProm) { f.failAll = errors.New("dial tcp 127.0.0.1:9: connection refused") },
			wantMsg: "connection refused",
		},
		{
			name: "bad data in one query is a note",
			cfg:  Config{TestID: "spike-50", Namespace: "shoong"},
			setup: func(f *fakeProm) {
				f.errs[hpaCurrent] = &v1.Error{Type: v1.ErrExec, Msg: "found duplicate series for the match group"}
			},
			check: func(t *testing.T, res *Result) {
				var found bool
				for _, n := range res.Notes {
					if n.Object == "hpa_current" && n.Level == analysis.NoteMissing {
						found = true
						require.Contains(t, n.Text, "duplicate series")
					}
				}
				require.True(t, found)
				require.Empty(t, res.Autoscaling)
			},
		},
		{name: "to before from", cfg: Config{TestID: "x", From: runTo, To: runFrom}, wantMsg: "to (2026-03-01 10:05:02 +0000 UTC) is not after from (2026-03-01 10:15:02 +0000 UTC)"},
		{name: "to after now", cfg: Config{TestID: "spike-50", From: runFrom, To: nowT.Add(time.Hour)}, wantMsg: "to (2026-03-01 11:31:02 +0000 UTC) is after now"},
		{name: "to alone after now", cfg: Config{TestID: "spike-50", To: nowT.Add(time.Second)}, wantMsg: "is after now"},
		{name: "bad namespace regex", cfg: Config{TestID: "x", Namespace: "shoong["}, wantMsg: `namespace regex "shoong["`},
		{name: "unknown param", cfg: Config{TestID: "spike-50", Params: map[string]float64{"db_pool_perpod": 5}}, wantMsg: `param "db_pool_perpod" is not in the catalog; expected one of [db_max_connections db_pool_per_pod]`},
		{name: "param not a number", cfg: Config{TestID: "spike-50", Params: map[string]float64{"db_pool_per_pod": math.NaN()}}, wantMsg: "db_pool_per_pod=NaN: expected a finite number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := story1(t, cat, v)
			if tc.setup != nil {
				tc.setup(f)
			}
			q := query.Querier(f)
			if f.failAll != nil {
				q = unavailable{f}
			}
			cat, err := query.Default()
			require.NoError(t, err)
			c := New(q, cat, promslog.NewNopLogger(), WithClock(func() time.Time { return nowT }))
			res, err := c.Correlate(context.Background(), tc.cfg)
			if tc.check != nil {
				require.NoError(t, err)
				tc.check(t, res)
				return
			}
			require.Error(t, err)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.ErrorContains(t, err, tc.wantMsg)
		})
	}
}

// unavailable wraps transport failures the way the real adapter does.
type unavailable struct{ f *fakeProm }

func (u unavailable) Query(ctx context.Context, e string, ts time.Time) (model.Value, v1.Warnings, error) {
	v, w, err := u.f.Query(ctx, e, ts)
	if err != nil {
		err = errors.Join(query.ErrUnavailable, err)
	}
	return v, w, err
}

func (u unavailable) QueryRange(ctx context.Context, e string, r v1.Range) (model.Value, v1.Warnings, error) {
	v, w, err := u.f.QueryRange(ctx, e, r)
	if err != nil {
		err = errors.Join(query.ErrUnavailable, err)
	}
	return v, w, err
}

func TestCorrelateStageLatencyFromNativeHistogram(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	f := story1(t, cat, v)
	// Stage durations of story1's target sampled every 5 s (see target); the first
	// starts with the run. Each window reaches one push interval (5 s) before the stage.
	for i, d := range []time.Duration{115 * time.Second, 5 * time.Second, 295 * time.Second, 180 * time.Second} {
		for _, q := range []float64{0.5, 0.95, 0.99} {
			sv := v
			sv.Range, sv.Quantile = d+5*time.Second, q
			name := "stage_trend_quantile"
			if i == 0 {
				name = "stage_trend_quantile_from_start"
			}
			e, err := cat.Render(name, sv)
			require.NoError(t, err)
			f.exprs[e] = fakeSeries{streams: []*model.SampleStream{stream(model.Metric{}, runFrom, runTo, 5*time.Second, func(time.Duration) float64 { return q + d.Seconds()/1000 })}}
		}
	}
	res, err := newCorrelator(t, f).Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong"})
	require.NoError(t, err)
	require.NotEmpty(t, res.Load.Stages)
	for _, st := range res.Load.Stages {
		require.Equal(t, analysis.LatencyHistogram, st.LatencySource, "stage %d", st.Index)
		d := st.Duration().Seconds()
		require.InDelta(t, 0.95+d/1000, st.P95.Value, 1e-9, "stage %d", st.Index)
		require.InDelta(t, 0.5+d/1000, st.P50.Value, 1e-9)
		require.Equal(t, st.To, st.P95.At)
	}
}

func TestCorrelateWindowMixedAndLive(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	f := story1(t, cat, v)
	from := runFrom.Add(30 * time.Second)
	res, err := newCorrelator(t, f).Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong", From: from})
	require.NoError(t, err)
	require.Equal(t, "mixed", res.Window.From)
	require.Equal(t, from, res.Window.Run.From)
	require.Equal(t, runTo, res.Window.Run.To, "the end still comes from the run's own series")

	for _, tc := range []struct {
		name  string
		after time.Duration // now, after the newest run-info sample
		stale bool          // the run ended with stale markers
		live  bool
	}{
		{name: "running: no stale marker yet", after: 4 * time.Second, live: true},
		{name: "ended a second ago: stale markers", after: time.Second, stale: true},
		{name: "killed without stale markers, a minute ago", after: time.Minute},
		{name: "ended with stale markers, a minute ago", after: time.Minute, stale: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := story1(t, cat, v)
			if !tc.stale {
				for _, fs := range f.exprs {
					for _, s := range fs.streams {
						if n := len(s.Values); n > 0 && isStale(s.Values[n-1].Value) {
							s.Values = s.Values[:n-1]
						}
					}
				}
			}
			now := runTo.Add(tc.after)
			res, err := New(f, cat, promslog.NewNopLogger(), WithClock(func() time.Time { return now })).
				Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong"})
			require.NoError(t, err)
			require.Equal(t, tc.live, res.Window.Live)
			require.Equal(t, runTo, res.Window.Run.To)
			require.Equal(t, now, res.Window.After.To, "the cool-down ends now")
			var liveNote bool
			for _, n := range res.Notes {
				liveNote = liveNote || (n.Section == "run" && n.Level == analysis.NotePartial)
			}
			require.Equal(t, tc.live, liveNote)
		})
	}
}

func TestJoinWorkload(t *testing.T) {
	t.Parallel()
	pt := []timeline.Point{{T: t0, V: 1}}
	perPod := timeline.Set{
		{Labels: map[string]string{"namespace": "a", "pod": "order-1"}, Points: pt},
		{Labels: map[string]string{"namespace": "b", "pod": "order-1"}, Points: pt}, // same name, other namespace
		{Labels: map[string]string{"namespace": "a", "pod": "stray"}, Points: pt},   // no owner: dropped
	}
	pw := timeline.Set{
		{Labels: map[string]string{"namespace": "a", "pod": "order-1", "workload": "order"}},
		{Labels: map[string]string{"namespace": "b", "pod": "order-1", "workload": "order-b"}},
	}
	got := joinWorkload(perPod, pw)
	require.Len(t, got, 2)
	require.Equal(t, "order", got[0].Label("workload"))
	require.Equal(t, "order-b", got[1].Label("workload"))
	require.Empty(t, perPod[0].Label("workload"), "the input is not modified")
}

func TestCorrelateWorkloadFilterDropsOtherHPAs(t *testing.T) {
	t.Parallel()
	cat, _ := vars(t)
	v := query.Vars{TestID: "spike-50", Namespace: "shoong", Workload: "kitchen", Intervals: story1Intervals()}
	f := story1(t, cat, v) // hpa_deployment (filtered to kitchen) returns only order's HPA…
	e, err := cat.Render("hpa_deployment", v)
	require.NoError(t, err)
	delete(f.exprs, e) // …so make it return nothing, as Prometheus would for kitchen.
	res, err := newCorrelator(t, f).Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong", Workload: "kitchen"})
	require.NoError(t, err)
	require.Empty(t, res.Autoscaling, "order's HPA targets another workload")
	require.Equal(t, "kitchen", res.Filters.Workload)
}

func TestCorrelateWindowToOnlyOlderThanLookback(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	f := story1(t, cat, v)
	// Two days later, --to alone names a run older than the 24 h lookback: the search
	// for its series must end at --to, not at now.
	now := nowT.Add(48 * time.Hour)
	res, err := New(f, cat, promslog.NewNopLogger(), WithClock(func() time.Time { return now })).
		Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong", To: runTo})
	require.NoError(t, err)
	require.Equal(t, "mixed", res.Window.From)
	require.Equal(t, runFrom, res.Window.Run.From, "the start still comes from the run's own series")
	require.Equal(t, runTo, res.Window.Run.To)
}

func TestCorrelateWindowFromInTheFuture(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	f := story1(t, cat, v)
	_, err := newCorrelator(t, f).Correlate(context.Background(), Config{TestID: "spike-50", From: nowT.Add(time.Hour)})
	require.EqualError(t, err, "from (2026-03-01 11:31:02 +0000 UTC) is after now (2026-03-01 10:31:02 +0000 UTC)")
}

func TestCorrelateWindowFromAfterRunEnd(t *testing.T) {
	t.Parallel()
	cat, v := vars(t)
	f := story1(t, cat, v)
	// --from alone, just after the run's final push: the search's first coarse step
	// still sees that push, but the run's own end lies before --from.
	_, err := newCorrelator(t, f).Correlate(context.Background(), Config{TestID: "spike-50", Namespace: "shoong", From: runTo.Add(time.Millisecond)})
	require.ErrorContains(t, err, "from and to leave an empty window")
}
