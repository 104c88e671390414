// Package correlator runs one correlation: it finds the run's window from its own series,
// measures each source's scrape interval, runs the catalog's queries into a timeline,
// runs the analysis detectors and the catalog's finding rules, and returns a versioned
// Result (report.json).
package correlator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"regexp"
	"slices"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Config is one correlation's input.
type Config struct {
	// TestID selects the run (the testid label of its series). Required.
	TestID string
	// Namespace and Workload are regexes over namespaces and Deployments; empty = all.
	Namespace string
	Workload  string
	// From and To override the run window found from tidemark_run_info.
	From, To time.Time
	// Baseline is the quiet window before the run (default 5m).
	Baseline time.Duration
	// After is the cool-down after the run in which scale-in is observed (default 10m).
	After time.Duration
	// Lookback is how far back from now (or from To) to look for the run (default 7d).
	Lookback time.Duration
	// Step overrides the per-source steps (default: each source's scrape interval).
	Step time.Duration
	// Params overrides catalog params, e.g. db_pool_per_pod.
	Params map[string]float64
	// Concurrency is how many queries run at once (default 4).
	Concurrency int
	// Stages, when set, are the run's stages as the user gave them (analysis.ParseStages,
	// k6's --stage syntax), laid from the window's start; they replace the run's
	// tidemark_scenario_target and the inferred stages. StagesUnit is what their targets
	// count: analysis.StageUnitVUs (default) or analysis.StageUnitIterations.
	Stages     []analysis.GivenStage
	StagesUnit string
	// Selector are label matchers ANDed into every source's selector, k6's too, such as
	// cluster=prod where Thanos, Mimir or a multi-cluster setup add a cluster label.
	Selector map[string]string
	// SLO, when set, are server-side rules (--slo) that judge the run over its window
	// and per stage (Result.SLO).
	SLO *slo.Rules
}

// DefaultConfig holds the defaults applied to zero fields.
var DefaultConfig = Config{Baseline: 5 * time.Minute, After: 10 * time.Minute, Lookback: 7 * 24 * time.Hour, Concurrency: 4}

// ErrRunNotFound means no run-info series was found for the testid.
var ErrRunNotFound = errors.New("run not found")

// chartQueries are the range results kept in Result.Series for charts.
func chartQueries() []string {
	return []string{
		analysis.QScenarioTarget, analysis.QHTTPReqRate, analysis.QVUs, analysis.QLatencyP95,
		analysis.QHPACurrent, analysis.QHPADesired, analysis.QHPAMax, analysis.QDeploymentReady,
		analysis.QCPUUsagePod, analysis.QCPURequestPod, analysis.QCPULimitPod, analysis.QCPUThrottled,
		analysis.QRDSCPU, analysis.QRDSConnections, analysis.QRDSCreditBalance, analysis.QRDSFreeableMem,
		analysis.QPGConnections, analysis.QPGMaxConnections, analysis.QMySQLConnections, analysis.QMySQLMaxConnections,
		analysis.QPoolBusy, analysis.QPoolSize, analysis.QPoolPending,
		analysis.QWebVitalsGauge, analysis.QWebVitalCLSGauge,
	}
}

// windowQueries run before the others, to find the window.
func isWindowQuery(name string) bool {
	// run_sample_time and run_sample_time_min are kept out for catalogs copied from older versions.
	return name == "run_seen" || name == "run_sample_time" || name == "run_sample_time_min"
}

// Correlator runs correlations against one Prometheus-compatible API.
type Correlator struct {
	q      query.Querier
	runner *query.Runner
	cat    *query.Catalog
	logger *slog.Logger
	now    func() time.Time
}

type options struct {
	now func() time.Time
}

// Option configures a Correlator.
type Option func(*options)

// WithClock sets the clock (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// New returns a Correlator.
func New(q query.Querier, cat *query.Catalog, logger *slog.Logger, opts ...Option) *Correlator {
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	return &Correlator{q: q, runner: query.NewRunner(q, cat, logger), cat: cat, logger: logger, now: o.now}
}

// Validate checks what can be checked without the catalog or the API: the testid, the
// namespace and workload regexes and the order of From and To.
func (cfg Config) Validate() error {
	if cfg.TestID == "" {
		return errors.New("testid is empty")
	}
	// Prometheus regexes are RE2, anchored: check them here, not once per query.
	for _, f := range []struct{ what, re string }{{"namespace", cfg.Namespace}, {"workload", cfg.Workload}} {
		if _, err := regexp.Compile("^(?:" + f.re + ")$"); err != nil {
			return fmt.Errorf("%s regex %q: %w", f.what, f.re, err)
		}
	}
	if !cfg.From.IsZero() && !cfg.To.IsZero() && !cfg.To.After(cfg.From) {
		return fmt.Errorf("to (%s) is not after from (%s)", cfg.To, cfg.From)
	}
	return nil
}

func (cfg *Config) applyDefaults() {
	if cfg.Baseline <= 0 {
		cfg.Baseline = DefaultConfig.Baseline
	}
	if cfg.After < 0 {
		cfg.After = 0
	} else if cfg.After == 0 {
		cfg.After = DefaultConfig.After
	}
	if cfg.Lookback <= 0 {
		cfg.Lookback = DefaultConfig.Lookback
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConfig.Concurrency
	}
}

// Correlate analyses one run. It fails when the API is unavailable or the run cannot be
// found; query errors about single expressions and missing data become notes.
func (c *Correlator) Correlate(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// A misspelt param would otherwise be ignored and its rules skipped without a word.
	for _, name := range slices.Sorted(maps.Keys(cfg.Params)) {
		if _, ok := c.cat.Params[name]; !ok {
			return nil, fmt.Errorf("param %q is not in the catalog; expected one of %v", name, slices.Sorted(maps.Keys(c.cat.Params)))
		}
		if v := cfg.Params[name]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("param %s=%v: expected a finite number", name, v)
		}
	}
	cfg.applyDefaults()
	now := c.now().UTC()
	// vars.Intervals, and with them each source's rate() window, are set once measured.
	vars := query.Vars{TestID: cfg.TestID, Namespace: cfg.Namespace, Workload: cfg.Workload, Params: cfg.Params, Selector: cfg.Selector}
	res := &Result{SchemaVersion: SchemaVersion, TestID: cfg.TestID, GeneratedAt: now,
		Filters: Filters{Namespace: orAll(cfg.Namespace), Workload: orAll(cfg.Workload)}}

	rw, err := c.window(ctx, cfg, vars, now)
	if err != nil {
		return nil, err
	}
	run, src, live := rw.run, rw.src, rw.live
	res.Window = Windows{Run: run, From: src, Live: live,
		Baseline: timeline.Window{From: run.From.Add(-cfg.Baseline), To: run.From},
		After:    timeline.Window{From: run.To, To: minTime(run.To.Add(cfg.After), now)}}
	if live {
		res.Notes = append(res.Notes, analysis.Note{Level: analysis.NotePartial, Section: "run", Text: "the run was still live when correlated: facts after now are missing"})
	}
	// Where each cluster source's series are: the catalog's selectors, else the scrape
	// identity its metrics were found under (another Helm chart's job names).
	d, err := query.Discover(ctx, c.q, c.cat, vars, timeline.Window{From: res.Window.Baseline.From, To: res.Window.After.To})
	if err != nil {
		return nil, err
	}
	cc := c
	if sel := d.Selectors(); len(sel) > 0 {
		cat, err := d.Apply(c.cat)
		if err != nil {
			return nil, fmt.Errorf("apply the discovered selectors: %w", err)
		}
		cc = &Correlator{q: c.q, runner: query.NewRunner(c.q, cat, c.logger), cat: cat, logger: c.logger, now: c.now}
	}
	return cc.correlate(ctx, cfg, res, rw, vars, now, d)
}

// Discover finds the run's window as Correlate does and where each cluster source's
// series are in it (query.Discover), without correlating: what `tidemark correlate
// --discover` prints.
func (c *Correlator) Discover(ctx context.Context, cfg Config) (query.Discovery, error) {
	if err := cfg.Validate(); err != nil {
		return query.Discovery{}, err
	}
	cfg.applyDefaults()
	now := c.now().UTC()
	vars := query.Vars{TestID: cfg.TestID, Namespace: cfg.Namespace, Workload: cfg.Workload, Params: cfg.Params, Selector: cfg.Selector}
	rw, err := c.window(ctx, cfg, vars, now)
	if err != nil {
		return query.Discovery{}, err
	}
	return query.Discover(ctx, c.q, c.cat, vars, timeline.Window{From: rw.run.From.Add(-cfg.Baseline), To: minTime(rw.run.To.Add(cfg.After), now)})
}

// Catalog is the catalog the correlator was made with.
func (c *Correlator) Catalog() *query.Catalog { return c.cat }

// correlate analyses the run in the window found, with the catalog its sources were
// discovered with.
func (c *Correlator) correlate(ctx context.Context, cfg Config, res *Result, rw runWindow, vars query.Vars, now time.Time, d query.Discovery) (*Result, error) {
	run, src := rw.run, rw.src
	for _, sd := range d.Sources {
		if sd.Found == query.FoundDiscovered {
			res.Notes = append(res.Notes, analysis.Note{Level: analysis.NoteInfo, Section: "sources", Object: sd.Source, Text: sd.Note})
		}
	}
	tl := &timeline.Timeline{Run: run, Baseline: res.Window.Baseline, After: res.Window.After,
		Sets: map[string]timeline.Set{}, Resolution: map[string]time.Duration{}, Queries: map[string]string{}}
	span := tl.Span()

	// Resolution of every source: measured from raw samples, else the catalog's assumption.
	sources := slices.Sorted(maps.Keys(c.cat.Sources))
	res.Sources = make([]Source, len(sources))
	phases := make([]time.Time, len(sources)) // a sample time of each scraped source
	err := parallel(ctx, len(sources), cfg.Concurrency, func(ctx context.Context, i int) error {
		name := sources[i]
		s := c.cat.Sources[name]
		r := time.Duration(s.ScrapeInterval)
		measured := false
		if name == analysis.SourceK6 && src != WindowFromFlags {
			// Measured while finding the window, without the final push's partial interval.
			res.Sources[i] = Source{Name: name, Description: s.Description, ResolutionSeconds: rw.k6.Seconds(), Measured: rw.k6Measured}
			return nil
		}
		lookback := min(run.Duration()+cfg.Baseline, 10*time.Minute)
		cad, err := c.runner.MeasureCadence(ctx, name, vars, minTime(run.To.Add(time.Duration(s.Lag)), now), lookback)
		switch {
		case err == nil:
			r, measured = cad.Interval, true
			if name != analysis.SourceK6 { // k6's grid stays on the run's end
				phases[i] = cad.Last
			}
		case errors.Is(err, query.ErrUnavailable):
			return err
		default:
			c.logger.Debug("Could not measure scrape interval", "source", name, "err", err)
		}
		res.Sources[i] = Source{Name: name, Description: s.Description, ResolutionSeconds: r.Seconds(), Measured: measured, LagSeconds: time.Duration(s.Lag).Seconds()}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("measure scrape intervals: %w", err)
	}
	phase := map[string]time.Time{}
	for i, s := range res.Sources {
		tl.Resolution[s.Name] = time.Duration(s.ResolutionSeconds * float64(time.Second))
		if !phases[i].IsZero() {
			phase[s.Name] = phases[i]
		}
		if j := slices.IndexFunc(d.Sources, func(sd query.SourceDiscovery) bool { return sd.Source == s.Name }); j >= 0 {
			res.Sources[i].Found, res.Sources[i].Selector = string(d.Sources[j].Found), d.Sources[j].Selector
		}
	}
	// Rates of every source use two of its own intervals (query.Catalog.RateWindowOf):
	// the load at a moment is the load of the last push or two, not of the last minute.
	vars.Intervals = maps.Clone(tl.Resolution)
	// A step given in Config.Step applies unless it is coarser than a tenth of the run and
	// than the source's resolution: a 1m step over a 10 s run would see nothing of it.
	userStep := func(res time.Duration) time.Duration {
		return min(cfg.Step, max(res, run.Duration()/10))
	}
	step := func(source string) time.Duration {
		if cfg.Step > 0 {
			return userStep(tl.Resolution[source])
		}
		return tl.Resolution[source]
	}
	tl.Step = slices.Min(slices.Collect(maps.Values(tl.Resolution)))
	if cfg.Step > 0 {
		tl.Step = userStep(tl.Step)
	}
	res.StepSeconds = tl.Step.Seconds()

	// Range queries, a few at a time.
	var names []string
	for _, name := range slices.Sorted(maps.Keys(c.cat.Queries)) {
		if q := c.cat.Queries[name]; !isWindowQuery(name) && q.KindOrDefault() == query.KindRange {
			names = append(names, name)
		}
	}
	results := make([]query.Result, len(names))
	qerrs := make([]error, len(names))
	perPod := make([]bool, len(names))
	err = parallel(ctx, len(names), cfg.Concurrency, func(ctx context.Context, i int) error {
		q := c.cat.Queries[names[i]]
		// The run's end is on every query's grid: its final push (the gauges' final
		// values, the p95 of the whole run) is visible only there, before its stale
		// marker. Counters read each step's newest sample (.Step), so the final push of
		// an instance that ended earlier counts too.
		st := query.EffectiveStep(span, step(q.Source))
		w := query.AlignEnd(span, run.To, st)
		if at, ok := phase[q.Source]; ok {
			// A scraped source's grid falls just after its samples (phaseGuard), not
			// on the run's end: a change is read when it was scraped, not up to a step
			// later.
			w = query.AlignEnd(span, at.Add(min(phaseGuard, st/10)), st)
		}
		v := vars
		v.Step = st
		var expr string
		expr, perPod[i], qerrs[i] = c.cat.RenderPerPod(names[i], v)
		switch {
		case qerrs[i] != nil:
		case perPod[i]:
			w.To = w.To.Add(time.Duration(c.cat.Sources[q.Source].Lag))
			results[i], qerrs[i] = c.runner.RangeExpr(ctx, names[i], expr, w, st)
		default:
			results[i], qerrs[i] = c.runner.Range(ctx, names[i], v, w, st)
		}
		if qerrs[i] != nil && (errors.Is(qerrs[i], query.ErrUnavailable) || ctx.Err() != nil) {
			return qerrs[i]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run range queries: %w", err)
	}
	for i, name := range names {
		r, err := results[i], qerrs[i]
		qi := Query{Name: name, Source: c.cat.Queries[name].Source, Expr: r.Expr, Series: len(r.Set), Warnings: r.Warnings}
		if err != nil {
			qi.Error = err.Error()
			if qe := (*query.Error)(nil); errors.As(err, &qe) {
				qi.Expr = qe.Expr
			}
			res.Notes = append(res.Notes, analysis.Note{Level: analysis.NoteMissing, Section: "query", Object: name, Text: "query failed: " + err.Error()})
		}
		tl.Sets[name] = r.Set
		tl.Queries[name] = qi.Expr
		res.Queries = append(res.Queries, qi)
	}
	if cfg.Workload != "" {
		filterHPAs(tl)
	}
	rawNotes, err := c.rawCounters(ctx, tl, vars)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, rawNotes...)
	// Per-pod results get their workload from pod_workload here, once, instead of a
	// pod → ReplicaSet → Deployment join inside every query.
	for i, name := range names {
		if perPod[i] {
			tl.Sets[name] = joinWorkload(tl.Set(name), tl.Set("pod_workload"))
		}
	}

	// The windows the range queries used (a long run's step may exceed two intervals).
	windows := map[string]time.Duration{}
	for name := range c.cat.Sources {
		v := vars
		v.Step = query.EffectiveStep(span, step(name))
		windows[name] = c.cat.RateWindowOf(name, v)
	}
	acfg := c.analysisConfig(cfg, windows)
	a := analysis.Analyze(tl, acfg)
	// Per-stage trend statistics from the native histograms, when they exist.
	if err := c.stageStats(ctx, tl, vars, a.Load); err != nil {
		return nil, err
	}
	a = analysis.Analyze(tl, acfg)
	if res.WebVitals, err = c.webVitals(ctx, tl, vars, a.Load); err != nil {
		return nil, err
	}
	res.Load, res.Autoscaling, res.CPU, res.Database, res.Errors = a.Load, a.Autoscaling, a.CPU, a.Database, a.Errors
	res.Bottleneck = a.Bottleneck
	res.Connections = a.Connections
	res.Events = a.Events
	res.Notes = append(res.Notes, c.coverage(tl, res, cfg, step)...)
	res.Notes = append(res.Notes, a.Notes...)

	findings, notes, err := c.findings(ctx, tl, vars, cfg.Concurrency)
	if err != nil {
		return nil, err
	}
	res.Findings, res.Notes = findings, append(res.Notes, notes...)
	dups, err := c.duplicates(ctx, tl, vars)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, dups...)
	if cfg.SLO != nil {
		if res.SLO, err = judge(ctx, c.q, cfg, res); err != nil {
			return nil, err
		}
	}

	res.Series = map[string]timeline.Set{}
	for _, q := range chartQueries() {
		if s := tl.Set(q); len(s) > 0 {
			res.Series[q] = s
		}
	}
	return res, nil
}

func (c *Correlator) analysisConfig(cfg Config, windows map[string]time.Duration) analysis.Config {
	d := c.cat.Defaults
	return analysis.Config{
		HPATolerance: d.HPATolerance, ThrottleOnsets: d.ThrottleOnsets, ErrorBurstRatio: d.ErrorBurstRatio,
		ThrottleStageOnset: d.ThrottleStageOnset,
		StageAchievedOK:    d.StageAchievedOK, ErrorRatioOK: d.ErrorRatioOK, RateWindows: windows,
		PoolPerPod:       c.cat.Param("db_pool_per_pod", query.Vars{Params: cfg.Params}),
		DBMaxConnections: c.cat.Param("db_max_connections", query.Vars{Params: cfg.Params}),
		GivenStages:      cfg.Stages, GivenStagesUnit: cfg.StagesUnit,
		Bottleneck: c.cat.Bottleneck,
	}
}

// runWindow is what window found.
type runWindow struct {
	run  timeline.Window
	src  string // a WindowFrom* value
	live bool
	// k6 is the run's push interval, measured from its run-info samples when k6Measured.
	k6         time.Duration
	k6Measured bool
}

// window finds the run's window from the raw samples of tidemark_run_info{testid} (the
// k6 source's probe). Remote write stamps each push with its time and carries what
// happened in the interval before it: the first sample comes one push interval after the
// start, the last is the final push when the run stopped, and a stale marker follows it
// (tidemark_run_info's 1 ms later, the other series' one push interval later). So the run is (first sample − push interval, last sample]. Raw samples
// (a range selector) are read for both ends because an instant selector at a step never
// shows a sample that a stale marker follows by less than the step.
func (c *Correlator) window(ctx context.Context, cfg Config, vars query.Vars, now time.Time) (runWindow, error) {
	// A window reaching past now would have a cool-down that ends before it starts.
	if !cfg.From.IsZero() && !cfg.From.Before(now) {
		return runWindow{}, fmt.Errorf("from (%s) is after now (%s)", cfg.From, now)
	}
	if cfg.To.After(now) {
		return runWindow{}, fmt.Errorf("to (%s) is after now (%s); leave it out for a run still going", cfg.To, now)
	}
	if !cfg.From.IsZero() && !cfg.To.IsZero() { // in order: Validate checked them
		return runWindow{run: timeline.Window{From: cfg.From.UTC(), To: cfg.To.UTC()}, src: WindowFromFlags}, nil
	}
	// The lookback ends at To when given, so To alone finds a run older than it.
	search := timeline.Window{From: now.Add(-cfg.Lookback), To: now}
	if !cfg.To.IsZero() {
		search = timeline.Window{From: cfg.To.Add(-cfg.Lookback), To: cfg.To}
	}
	if !cfg.From.IsZero() {
		search.From = cfg.From
	}
	// Coarse pass: at most ~5000 steps over the lookback, each counting the run-info
	// samples in the step before it, so no run is missed between steps. The grid ends
	// at the end of the search, so a run that ended less than a step ago is seen whole.
	coarse := max(search.Duration()/5000, time.Second).Round(time.Second)
	n := (search.Duration() + coarse - 1) / coarse
	cv := vars
	cv.Range = coarse
	r, err := c.runner.Range(ctx, "run_seen", cv, timeline.Window{From: search.To.Add(-n * coarse), To: search.To}, coarse)
	if err != nil {
		return runWindow{}, fmt.Errorf("find run: %w", err)
	}
	first, last := timeBounds(r.Set, func(v float64) bool { return v > 0 })
	if first.IsZero() {
		return runWindow{}, fmt.Errorf("%w: no tidemark_run_info or k6_vus series with testid=%q between %s and %s — is the testid right, did the run write to this Prometheus, and is it older than --lookback?",
			ErrRunNotFound, cfg.TestID, search.From.Format(time.RFC3339), search.To.Format(time.RFC3339))
	}
	// Fine pass: the raw samples in the first and last coarse steps.
	firstSample, _, runInfo, err := c.sampleBounds(ctx, vars, first, coarse)
	if err != nil {
		return runWindow{}, err
	}
	_, lastSample, _, err := c.sampleBounds(ctx, vars, last, coarse)
	if err != nil {
		return runWindow{}, err
	}
	rw := runWindow{src: WindowFromRunInfo, k6: time.Duration(c.cat.Sources[analysis.SourceK6].ScrapeInterval)}
	if !runInfo {
		rw.src = WindowFromK6
	}
	if d, ok, err := c.pushInterval(ctx, vars, firstSample, lastSample); err != nil {
		return runWindow{}, err
	} else if ok {
		rw.k6, rw.k6Measured = d, true
	}
	rw.run = timeline.Window{From: firstSample.Add(-rw.k6), To: lastSample}
	if !cfg.From.IsZero() {
		rw.run.From, rw.src = cfg.From.UTC(), WindowMixed
	}
	if !cfg.To.IsZero() {
		rw.run.To, rw.src = cfg.To.UTC(), WindowMixed
	}
	if !rw.run.To.After(rw.run.From) {
		return runWindow{}, fmt.Errorf("run spans %s to %s: from and to leave an empty window",
			rw.run.From.Format(time.RFC3339), rw.run.To.Format(time.RFC3339))
	}
	rw.live, err = c.live(ctx, vars, lastSample, rw.k6, now, runInfo)
	if err != nil {
		return runWindow{}, err
	}
	return rw, nil
}

// sampleBounds returns the first and last raw sample of the k6 source's probe in
// (at−d, at], and whether any was tidemark_run_info (a run Tidemark made; a run k6 made
// has only its k6 series).
func (c *Correlator) sampleBounds(ctx context.Context, vars query.Vars, at time.Time, d time.Duration) (first, last time.Time, runInfo bool, err error) {
	set, err := c.runner.Samples(ctx, analysis.SourceK6, vars, at, d)
	if err != nil {
		return first, last, false, fmt.Errorf("find run bounds: %w", err)
	}
	first, last = timeBounds(set, func(float64) bool { return true })
	if first.IsZero() {
		return first, last, false, fmt.Errorf("%w: run samples for testid=%q vanished between queries", ErrRunNotFound, vars.TestID)
	}
	runInfo = slices.ContainsFunc(set, func(s timeline.Series) bool {
		name := s.Label(model.MetricNameLabel)
		return name == "" || name == runInfoMetric
	})
	return first.Round(time.Millisecond), last.Round(time.Millisecond), runInfo, nil
}

// rawCounters reads the raw samples of k6's counters into the timeline
// (analysis.QIterationsRaw, QHTTPReqsRaw, QDroppedRaw) for a run without
// tidemark_scenario_target, one k6 made: its stages are inferred from, or its given
// stages cut on, samples at k6's own stamps. Copies of a series that differ only by a
// replica label are one: the first is kept. A failed query leaves the timeline's grid
// samples to the stages, with a note.
func (c *Correlator) rawCounters(ctx context.Context, tl *timeline.Timeline, vars query.Vars) ([]analysis.Note, error) {
	if len(tl.Set(analysis.QScenarioTarget)) > 0 {
		return nil, nil
	}
	v := vars
	v.Range = tl.Run.Duration() + time.Second
	var notes []analysis.Note
	for _, name := range []string{analysis.QIterationsRaw, analysis.QHTTPReqsRaw, analysis.QDroppedRaw} {
		if _, ok := c.cat.Queries[name]; !ok {
			continue
		}
		r, err := c.runner.Instant(ctx, name, v, tl.Run.To)
		if err != nil {
			if errors.Is(err, query.ErrUnavailable) || ctx.Err() != nil {
				return nil, err
			}
			notes = append(notes, analysis.Note{Level: analysis.NoteMissing, Section: "query", Object: name,
				Text: "query failed: " + err.Error() + "; the stages are read from the step grid's samples"})
			continue
		}
		seen := map[string]bool{}
		var set timeline.Set
		for _, s := range r.Set {
			key := timeline.LabelString(withoutReplica(s.Labels))
			if !seen[key] {
				seen[key] = true
				set = append(set, s)
			}
		}
		tl.Sets[name] = set
	}
	return notes, nil
}

// withoutReplica returns ls without the labels that tell replicas of one series apart.
func withoutReplica(ls map[string]string) map[string]string {
	out := make(map[string]string, len(ls))
	for k, v := range ls {
		switch k {
		case "prometheus", "prometheus_replica", "replica":
		default:
			out[k] = v
		}
	}
	return out
}

// runInfoMetric is the run metadata series `tidemark run` writes with every push.
const runInfoMetric = series.RunInfoMetric

// timeBounds returns the times of the earliest and the latest point of the set whose
// value satisfies keep; both are zero when there is none.
func timeBounds(set timeline.Set, keep func(float64) bool) (first, last time.Time) {
	for _, s := range set {
		for _, p := range s.Points {
			if !keep(p.V) {
				continue
			}
			if first.IsZero() || p.T.Before(first) {
				first = p.T
			}
			if p.T.After(last) {
				last = p.T
			}
		}
	}
	return first, last
}

// pushInterval measures the run's push interval: the median spacing of its run-info
// samples over the last ten minutes of the run, leaving out each series' last interval,
// which ends at the final push (stamped when the run stopped, so usually shorter).
func (c *Correlator) pushInterval(ctx context.Context, vars query.Vars, first, last time.Time) (time.Duration, bool, error) {
	set, err := c.runner.Samples(ctx, analysis.SourceK6, vars, last, min(last.Sub(first)+time.Second, 10*time.Minute))
	if err != nil {
		if errors.Is(err, query.ErrUnavailable) {
			return 0, false, err
		}
		c.logger.Debug("Could not measure the push interval", "err", err)
		return 0, false, nil
	}
	var ds []time.Duration
	for _, s := range set {
		for i := 2; i < len(s.Points); i++ {
			ds = append(ds, s.Points[i-1].T.Sub(s.Points[i-2].T))
		}
	}
	if len(ds) == 0 {
		return 0, false, nil
	}
	slices.Sort(ds)
	return ds[len(ds)/2], true, nil
}

// live tells whether the run is still running: its run-info series is still visible now
// (no stale marker ended it) and its newest sample is no older than a few push
// intervals (a run killed without stale markers stays visible for the lookback delta).
// For a Tidemark run (runInfo) only tidemark_run_info counts: its stale marker follows
// the final push, while the k6 series keep their final values for a push interval more.
func (c *Correlator) live(ctx context.Context, vars query.Vars, lastSample time.Time, interval time.Duration, now time.Time, runInfo bool) (bool, error) {
	if now.Sub(lastSample) > max(3*interval, 15*time.Second) {
		return false, nil
	}
	set, err := c.runner.Samples(ctx, analysis.SourceK6, vars, now, 0)
	if err != nil {
		return false, fmt.Errorf("find whether the run is live: %w", err)
	}
	if runInfo {
		set = slices.DeleteFunc(set, func(s timeline.Series) bool {
			name := s.Label(model.MetricNameLabel)
			return name != "" && name != runInfoMetric
		})
	}
	return len(set) > 0, nil
}

// Per-stage trend queries of the catalog. The _from_start forms are for a stage that
// starts with the run: the histogram counts from zero there, which increase() would
// miss until the first push.
const (
	stageTrendQuantile = "stage_trend_quantile"
	stageTrendAvg      = "stage_trend_avg"
	fromStart          = "_from_start"
)

// stageStats computes, per stage, every trend statistic the STAGES columns and the
// run's thresholds need (analysis.RunThresholds.TrendStats) from the native histograms,
// into the timeline sets analysis.StageStatSet names. A statistic whose histogram does
// not exist gets no set: the analysis then says so.
func (c *Correlator) stageStats(ctx context.Context, tl *timeline.Timeline, vars query.Vars, load analysis.Load) error {
	rt, _ := analysis.ParseRunThresholds(tl)
	for _, ts := range rt.TrendStats() {
		set, err := c.stageStat(ctx, tl, vars, load, ts)
		if err != nil {
			return err
		}
		if len(set.Points) > 0 {
			tl.Sets[analysis.StageStatSet(ts.Key.ID(), ts.Stat)] = timeline.Set{set}
		}
	}
	return nil
}

func (c *Correlator) stageStat(ctx context.Context, tl *timeline.Timeline, vars query.Vars, load analysis.Load, ts analysis.TrendStat) (timeline.Series, error) {
	set := timeline.Series{Labels: map[string]string{"metric": ts.Key.Name, "stat": ts.Stat}}
	name := stageTrendQuantile
	if ts.Quantile == 0 {
		name = stageTrendAvg
	}
	if _, ok := c.cat.Queries[name]; !ok {
		return set, nil // a catalog from before per-stage trends
	}
	for _, st := range load.Stages {
		if st.Duration() <= 0 {
			continue
		}
		// The window reaches one push interval before the stage, so that increase()
		// starts from the push at the stage's start.
		v := vars
		v.Range, v.Quantile, v.Metric = st.Duration()+tl.Res(analysis.SourceK6), ts.Quantile, ts.HistogramName()
		v.Match = map[string]string{}
		for _, t := range ts.Key.Tags {
			v.Match[t.Key] = t.Value
		}
		if _, ok := v.Match["scenario"]; !ok && len(load.Scenarios) > 1 {
			v.Match["scenario"] = st.Scenario // a stage counts its own scenario's samples, as the STAGES table does
		}
		q := name
		if _, ok := c.cat.Queries[name+fromStart]; ok && !st.From.After(tl.Run.From) {
			q = name + fromStart
		}
		r, err := c.runner.Instant(ctx, q, v, st.To)
		if err != nil {
			if errors.Is(err, query.ErrUnavailable) {
				return set, err
			}
			return set, nil // e.g. a tag that is not a label name: the analysis says it is unknown
		}
		if len(r.Set) == 0 || r.Set[0].Empty() {
			if len(set.Points) == 0 {
				return set, nil // no native histogram
			}
			continue
		}
		set.Points = append(set.Points, timeline.Point{T: st.To, V: r.Set[0].Points[0].V})
	}
	return set, nil
}

// coverage states per source how much of the window had samples, and says clearly when a
// source had none at all.
func (c *Correlator) coverage(tl *timeline.Timeline, res *Result, cfg Config, step func(source string) time.Duration) []analysis.Note {
	var notes []analysis.Note
	span := tl.Span()
	for i, s := range res.Sources {
		var series int
		var best float64
		for name, q := range c.cat.Queries {
			if q.Source != s.Name {
				continue
			}
			w := span
			if s.Name == analysis.SourceK6 {
				w = tl.Run // the load series exist only while the run is live
			}
			for _, ser := range tl.Set(name) {
				series++
				// A series has one point per step: a step coarser than the source is no gap.
				best = max(best, coverageOf(ser, w, max(tl.Res(s.Name), query.EffectiveStep(span, step(s.Name)))))
			}
		}
		res.Sources[i].Series, res.Sources[i].Coverage = series, best
		what := map[string]string{
			analysis.SourceK6:       "k6 series for testid " + cfg.TestID,
			analysis.SourceKSM:      "kube-state-metrics series for namespace " + orAll(cfg.Namespace),
			analysis.SourceCAdvisor: "cAdvisor series for namespace " + orAll(cfg.Namespace),
			analysis.SourceRDS:      "RDS (YACE/cloudwatch_exporter) series",
			analysis.SourcePostgres: "postgres_exporter series",
			analysis.SourceMySQL:    "mysqld_exporter series",
			analysis.SourcePool:     "connection pool series for namespace " + orAll(cfg.Namespace),
		}[s.Name]
		if what == "" {
			what = s.Name + " series"
		}
		switch {
		case series == 0 && c.cat.Sources[s.Name].Optional:
		case series == 0:
			notes = append(notes, analysis.Note{Level: analysis.NoteMissing, Section: "sources", Object: s.Name, Text: fmt.Sprintf("no %s in the window — is it scraped?", what)})
		case best < 0.9:
			notes = append(notes, analysis.Note{Level: analysis.NotePartial, Section: "sources", Object: s.Name, Text: fmt.Sprintf("%s cover only %.0f%% of the window", what, 100*best)})
		}
	}
	return notes
}

// coverageOf is the share of w not inside gaps longer than two resolutions.
func coverageOf(s timeline.Series, w timeline.Window, res time.Duration) float64 {
	if w.Duration() <= 0 {
		return 0
	}
	var missing time.Duration
	for _, g := range timeline.Gaps(s, w, 2*res) {
		missing += g.Duration()
	}
	return max(0, 1-missing.Seconds()/w.Duration().Seconds())
}

// findings evaluates the catalog's rules over the run and cool-down at the base step, so
// a rule's `for` is measured as finely as the load series allow.
func (c *Correlator) findings(ctx context.Context, tl *timeline.Timeline, vars query.Vars, concurrency int) ([]analysis.Finding, []analysis.Note, error) {
	w := timeline.Window{From: tl.Run.From, To: tl.After.To}
	step := query.EffectiveStep(w, tl.Step)
	w = query.AlignEnd(w, tl.Run.To, step)
	rules := c.cat.Findings
	found := make([][]analysis.Finding, len(rules))
	notes := make([]*analysis.Note, len(rules))
	err := parallel(ctx, len(rules), concurrency, func(ctx context.Context, i int) error {
		rule := rules[i]
		var missing []string
		for _, p := range rule.Requires {
			if c.cat.Param(p, vars) == 0 {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			notes[i] = &analysis.Note{Level: analysis.NoteInfo, Section: "findings", Object: rule.Name, Text: fmt.Sprintf("rule skipped: set %v to evaluate it", missing)}
			return nil
		}
		// Rates no finer than the rule's step, which may be coarser than a source's interval.
		v := vars
		v.Step = step
		expr, err := c.cat.RenderRule(rule.Name, v)
		if err != nil {
			return err
		}
		r, err := c.runner.RangeExpr(ctx, "finding/"+rule.Name, expr, w, step)
		if err != nil {
			if errors.Is(err, query.ErrUnavailable) {
				return err
			}
			notes[i] = &analysis.Note{Level: analysis.NoteMissing, Section: "findings", Object: rule.Name, Text: "rule failed: " + err.Error()}
			return nil
		}
		for _, s := range r.Set {
			for _, f := range analysis.Firing(s, step, time.Duration(rule.For)) {
				f.Rule, f.Severity, f.Expr = rule.Name, rule.Severity, expr
				msg, err := c.cat.Message(rule.Name, query.MessageData{Labels: f.Labels, Value: f.Value, From: f.From, To: f.To, Duration: model.Duration(f.Duration()).String()})
				if err != nil {
					return err
				}
				f.Message = msg
				f.Evidence = append(f.Evidence, analysis.Evidence{Query: "finding/" + rule.Name, Series: s.String(), Times: []time.Time{f.From, f.To}})
				for _, q := range rule.Evidence {
					f.Evidence = append(f.Evidence, evidenceFor(tl, q, f.Labels, f.Window)...)
				}
				found[i] = append(found[i], f)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var (
		out []analysis.Finding
		ns  []analysis.Note
	)
	for i := range rules {
		out = append(out, found[i]...)
		if notes[i] != nil {
			ns = append(ns, *notes[i])
		}
	}
	slices.SortStableFunc(out, func(a, b analysis.Finding) int { return a.From.Compare(b.From) })
	return out, ns, nil
}

// filterHPAs keeps only the HPAs whose scale target matched the workload filter (the
// hpa_deployment query applies it); the other hpa_* queries select by namespace only.
func filterHPAs(tl *timeline.Timeline) {
	type key struct{ ns, hpa string }
	keep := map[key]bool{}
	for _, s := range tl.Set(analysis.QHPADeployment) {
		keep[key{s.Label("namespace"), s.Label("horizontalpodautoscaler")}] = true
	}
	for _, q := range []string{analysis.QHPACurrent, analysis.QHPADesired, analysis.QHPAMin, analysis.QHPAMax,
		analysis.QHPATargetMetric, analysis.QHPAStatusMetric, analysis.QHPATolerance} {
		var out timeline.Set
		for _, s := range tl.Set(q) {
			if keep[key{s.Label("namespace"), s.Label("horizontalpodautoscaler")}] {
				out = append(out, s)
			}
		}
		tl.Sets[q] = out
	}
}

// joinWorkload adds the workload label to per-pod series from the pod_workload series
// (labels namespace, workload, pod) and drops pods that belong to no selected workload,
// as the PromQL join would.
func joinWorkload(perPod, podWorkload timeline.Set) timeline.Set {
	type key struct{ ns, pod string }
	wl := map[key]string{}
	for _, s := range podWorkload {
		wl[key{s.Label("namespace"), s.Label("pod")}] = s.Label("workload")
	}
	out := make(timeline.Set, 0, len(perPod))
	for _, s := range perPod {
		w, ok := wl[key{s.Label("namespace"), s.Label("pod")}]
		if !ok {
			continue
		}
		ls := maps.Clone(s.Labels)
		ls["workload"] = w
		out = append(out, timeline.Series{Labels: ls, Points: s.Points})
	}
	return out
}

// maxEvidenceSeries caps the series cited per evidence query of a finding.
const maxEvidenceSeries = 5

// phaseGuard is how long after a scraped source's sample its range queries' grid falls
// (at most a tenth of the step): the scrapes of one target are stamped at one offset
// within milliseconds, and a grid a little after them still reads each at its scrape.
const phaseGuard = time.Second

// evidenceFor cites the series of query q that agree with a finding's labels on every
// label both have (so a per-HPA finding cites that HPA's series), or the query's
// expression when none does.
func evidenceFor(tl *timeline.Timeline, q string, labels map[string]string, w timeline.Window) []analysis.Evidence {
	var out []analysis.Evidence
	for _, s := range tl.Set(q) {
		agree := true
		for k, v := range labels {
			if sv, ok := s.Labels[k]; ok && sv != v {
				agree = false
				break
			}
		}
		if !agree || len(s.Between(w)) == 0 {
			continue
		}
		out = append(out, analysis.Evidence{Query: q, Series: s.String(), Times: []time.Time{w.From, w.To}})
		if len(out) == maxEvidenceSeries {
			break
		}
	}
	if len(out) == 0 {
		out = append(out, analysis.Evidence{Query: q, Series: tl.Queries[q], Times: []time.Time{w.From, w.To}})
	}
	return out
}

func orAll(s string) string {
	if s == "" {
		return ".+"
	}
	return s
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
