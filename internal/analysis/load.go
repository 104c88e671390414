package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// Latency sources.
const (
	LatencyHistogram  = "native_histogram" // windowed per stage, exact
	LatencyCumulative = "cumulative_gauge" // k6 trend gauge: all samples since the run began
)

// StageFacts are the facts of one load stage.
type StageFacts struct {
	timeline.Stage
	// TargetAvg is the mean configured target over the stage (iterations/s or VUs).
	TargetAvg float64 `json:"target_avg"`
	// Achieved is the achieved iteration rate of the scenario.
	Achieved *Fact `json:"achieved,omitempty"`
	// AchievedRatio is Achieved ÷ TargetAvg for arrival-rate stages.
	AchievedRatio *Fact `json:"achieved_ratio,omitempty"`
	RequestRate   *Fact `json:"request_rate,omitempty"`
	MaxVUs        *Fact `json:"max_vus,omitempty"`
	// Requests, Failures and Dropped are counted in the stage. For a run k6 made they
	// are read from k6's own pushes, and a push whose interval straddles a stage
	// boundary is shared between the stages by time: they may be fractional.
	Requests      float64 `json:"requests"`
	Failures      float64 `json:"failures"`
	ErrorRate     *Fact   `json:"error_rate,omitempty"`
	Dropped       float64 `json:"dropped_iterations"`
	P50           *Fact   `json:"p50,omitempty"`
	P95           *Fact   `json:"p95,omitempty"`
	P99           *Fact   `json:"p99,omitempty"`
	LatencySource string  `json:"latency_source,omitempty"`
	// Thresholds are the run's thresholds judged in the stage (none when the run wrote
	// none: the defaults judge it).
	Thresholds []StageThreshold `json:"thresholds,omitempty"`
	Held       bool             `json:"held"`
	// Why is the verdict: "held", or "broke: " and what broke it.
	Why string `json:"why"`
}

// Capacity is the verdict over the stages in order.
type Capacity struct {
	LastHeld   *int   `json:"last_held_stage,omitempty"`
	FirstBroke *int   `json:"first_broke_stage,omitempty"`
	Text       string `json:"text"`
}

// Load holds the load facts.
type Load struct {
	Scenarios     []string     `json:"scenarios"`
	Stages        []StageFacts `json:"stages"`
	Requests      float64      `json:"requests"`
	Failures      float64      `json:"failures"`
	ErrorRate     *Fact        `json:"error_rate,omitempty"`
	Dropped       float64      `json:"dropped_iterations"`
	PeakRate      *Fact        `json:"peak_request_rate,omitempty"`
	PeakVUs       *Fact        `json:"peak_vus,omitempty"`
	P95           *Fact        `json:"p95,omitempty"`
	CounterResets int          `json:"counter_resets"`
	// LoadSteps are the starts of ramp-up stages: what the HPA reacts to.
	LoadSteps []time.Time `json:"load_steps"`
	// LoadEnd is where the load was taken away: the start of the last ramp-down, else the run end.
	LoadEnd  time.Time `json:"load_end"`
	Capacity Capacity  `json:"capacity"`
	// VerdictRule says what judged each stage: the run's thresholds, or the defaults.
	VerdictRule string `json:"verdict_rule"`
	// ResolutionSeconds is the k6 series' interval: load steps and the load end are known to within it.
	ResolutionSeconds float64 `json:"resolution_seconds"`
	// StagesSource says where the stages came from: StagesScenarioTarget (the configured
	// targets of a Tidemark run), StagesInferred (from the achieved rate or VUs: each
	// stage is marked inferred and its targets are levels achieved) or StagesGiven
	// (Config.GivenStages); "" when there are no stages.
	StagesSource string `json:"stages_source"`
}

func (l Load) res() time.Duration { return time.Duration(l.ResolutionSeconds * float64(time.Second)) }

// AnalyzeLoad cuts the target series into stages and computes per-stage facts.
func AnalyzeLoad(tl *timeline.Timeline, cfg Config) (Load, []Event, []Note) {
	var (
		out    Load
		events []Event
		notes  []Note
	)
	res := tl.Res(SourceK6)
	out.ResolutionSeconds = res.Seconds()
	span := tl.Span()
	events = append(events,
		Event{At: tl.Run.From, Kind: EventRunStart, Object: "run", Text: "run started", ResolutionSeconds: res.Seconds()},
		Event{At: tl.Run.To, Kind: EventRunEnd, Object: "run", Text: "run ended", ResolutionSeconds: res.Seconds()})

	reqD, r1 := counterDeltas(tl.Set(QHTTPReqs), span.From, res)
	failD, r2 := counterDeltas(tl.Set(QHTTPFailures), span.From, res)
	dropD, r3 := counterDeltas(tl.Set(QDropped), span.From, res)
	out.CounterResets = r1 + r2 + r3
	if out.CounterResets > 0 {
		notes = append(notes, note(NoteInfo, "load", "", "%d counter reset(s) in the k6 series (an instance restarted); increases were computed across them", out.CounterResets))
	}
	if len(tl.Set(QHTTPReqs)) == 0 {
		notes = append(notes, note(NoteMissing, "load", "", "no k6_http_reqs_total series for this testid in the window — did the run write with remote write and the testid tag?"))
	}
	out.Requests = sumIn(reqD, tl.Run)
	out.Failures = sumIn(failD, tl.Run)
	out.Dropped = sumIn(dropD, tl.Run)
	if out.Requests > 0 {
		out.ErrorRate = value(out.Failures/out.Requests, UnitRatio, time.Time{}, res, ev(QHTTPFailures, tl.Set(QHTTPFailures).First()), ev(QHTTPReqs, tl.Set(QHTTPReqs).First()))
	}
	rate := tl.Set(QHTTPReqRate).First()
	if p, ok := timeline.ArgMax(rate.Between(tl.Run)); ok {
		out.PeakRate = value(p.V, UnitPerSec, p.T, res, ev(QHTTPReqRate, rate, p.T))
	}
	vus := loadVUs(tl, res)
	if p, ok := timeline.ArgMax(vus.Between(tl.Run)); ok {
		out.PeakVUs = value(p.V, UnitVUs, p.T, res, ev(QVUs, vus, p.T))
	}
	p95 := tl.Set(QLatencyP95).First()
	if v, ok := lastIn(p95, tl.Run); ok {
		out.P95 = value(v.V, UnitSeconds, v.T, res, ev(QLatencyP95, p95, v.T))
	}

	targets, browser := loadTargets(tl)
	if len(browser) > 0 {
		notes = append(notes, note(NoteInfo, "load", "", "browser scenario(s) %s left out of the load's stages: their VUs drive Chromium and measure pages (Web Vitals), they are not load",
			strings.Join(browser, ", ")))
	}
	rt, thNotes := ParseRunThresholds(tl)
	notes = append(notes, thNotes...)
	out.VerdictRule = VerdictRule(rt, cfg, res)
	iters := tl.Set(QIterations)
	if len(cfg.GivenStages) > 0 || len(targets) == 0 {
		// Stages over the whole run, from the user or inferred: judged on the totals.
		sc, scenarios := runScenario(tl)
		out.Scenarios = scenarios
		var stages []timeline.Stage
		var stNotes []Note
		if len(cfg.GivenStages) > 0 {
			out.StagesSource = StagesGiven
			stages, stNotes = cutGivenStages(cfg.GivenStages, cmp.Or(cfg.GivenStagesUnit, StageUnitVUs), sc, tl.Run, res)
		} else {
			out.StagesSource = StagesInferred
			stages, stNotes = inferStages(tl, sc, out.Dropped, res)
			out.VerdictRule += "; the stages were inferred from what the run achieved, so their targets are the levels achieved and achieved-vs-target is not judged"
		}
		notes = append(notes, stNotes...)
		// A browser scenario's iterations (page loads) are not the load's.
		isBrowser := BrowserScenarios(tl)
		itD, _ := counterDeltas(loadSeries(iters, isBrowser), span.From, res)
		var notBrowser func(map[string]string) bool
		if len(loadSeries(tl.Set(QIterationsRaw), isBrowser)) < len(tl.Set(QIterationsRaw)) || len(loadSeries(iters, isBrowser)) < len(iters) {
			notBrowser = func(l map[string]string) bool { return !isBrowser[l["scenario"]] }
			notes = append(notes, note(NoteInfo, "load", "", "browser scenario(s) %s left out of the inferred stages' iterations: their VUs drive Chromium and measure pages (Web Vitals), they are not load",
				strings.Join(slices.Sorted(maps.Keys(isBrowser)), ", ")))
		}
		c := stageCounters{
			vus:        vus,
			iterations: stageCounter(tl, QIterationsRaw, nil, notBrowser, itD, res),
			requests:   stageCounter(tl, QHTTPReqsRaw, nil, nil, reqD, res),
			failures:   stageCounter(tl, QHTTPReqsRaw, nil, failedRequest, failD, res),
			dropped:    stageCounter(tl, QDroppedRaw, nil, nil, dropD, res),
		}
		for _, st := range stages {
			sf := stageFacts(tl, st, c, res)
			if st.Inferred {
				sf.AchievedRatio = nil // the target is the level achieved
			}
			judgeStage(tl, &sf, rt, res, cfg)
			out.Stages = append(out.Stages, sf)
			if st.Kind == timeline.RampUp {
				out.LoadSteps = append(out.LoadSteps, st.From)
			}
		}
		if len(stages) == 0 {
			out.StagesSource = ""
		}
		targets = nil // given stages replace the target series; inferred ones stand for it
	} else {
		out.StagesSource = StagesScenarioTarget
	}
	for _, ts := range targets {
		sc, unit := ts.Label("scenario"), ts.Label("unit")
		out.Scenarios = append(out.Scenarios, sc)
		tol := stageTolerance(ts, unit)
		itD, _ := counterDeltas(iters.Match(map[string]string{"scenario": sc}), span.From, res)
		scReqD, _ := counterDeltas(tl.Set(QHTTPReqs).Match(map[string]string{"scenario": sc}), span.From, res)
		scFailD, _ := counterDeltas(tl.Set(QHTTPFailures).Match(map[string]string{"scenario": sc}), span.From, res)
		scDropD, _ := counterDeltas(tl.Set(QDropped).Match(map[string]string{"scenario": sc}), span.From, res)
		if len(targets) == 1 && len(scReqD) == 0 {
			// Requests without a scenario label: use the totals.
			scReqD, scFailD, scDropD = reqD, failD, dropD
		}
		runPts, toEnd := stagePoints(ts, tl.Run)
		c := stageCounters{vus: vus, iterations: gridIncreases(itD), requests: gridIncreases(scReqD), failures: gridIncreases(scFailD), dropped: gridIncreases(scDropD)}
		stages, ok := instanceStages(tl.Set(QScenarioTargetInstances).Match(map[string]string{"scenario": sc, "unit": unit}), tl.Run, tl.Res(SourceK6))
		if !ok {
			stages = settleStages(timeline.Stages(timeline.Series{Labels: ts.Labels, Points: runPts}, sc, unit, tol), runPts, tol)
		}
		for _, st := range coverRun(stages, tl.Run, toEnd) {
			sf := stageFacts(tl, st, c, res)
			judgeStage(tl, &sf, rt, res, cfg)
			out.Stages = append(out.Stages, sf)
			if st.Kind == timeline.RampUp {
				out.LoadSteps = append(out.LoadSteps, st.From)
			}
		}
	}
	slices.SortStableFunc(out.Stages, func(a, b StageFacts) int { return a.From.Compare(b.From) })
	for i := range out.Stages {
		out.Stages[i].Index = i // unique across scenarios, in time order
		st := out.Stages[i].Stage
		events = append(events, Event{At: st.From, Kind: EventStageStart, Object: st.Scenario, ResolutionSeconds: res.Seconds(),
			Text: fmt.Sprintf("stage %d: %s", StageNumber(st), StageTarget(st))})
	}
	slices.SortFunc(out.LoadSteps, func(a, b time.Time) int { return a.Compare(b) })
	out.LoadEnd = tl.Run.To
	for _, st := range out.Stages {
		if st.Kind == timeline.RampDown {
			out.LoadEnd = st.From
		}
	}
	events = append(events, Event{At: out.LoadEnd, Kind: EventLoadEnd, Object: "run", Text: "load taken away (last ramp-down or run end)", ResolutionSeconds: res.Seconds()})
	out.Capacity = capacity(out.Stages)
	notes = append(notes, unjudgedNotes(out.Stages)...)
	return out, events, notes
}

// stagePoints are the target samples stages are cut from: those in the run, without the
// final push's. Remote write stamps the final push at the run's end and it carries the
// target after the run (0), which is the run ending, not a ramp-down stage; it is kept
// when it is the only sample. toEnd tells that the series lasted until the run's end.
func stagePoints(ts timeline.Series, run timeline.Window) (ps []timeline.Point, toEnd bool) {
	ps = ts.Between(run)
	if n := len(ps); n > 1 && ps[n-1].T.Equal(run.To) {
		return ps[:n-1], true
	}
	return ps, false
}

// instanceStages cuts the stages of a scenario run by several instances (execution
// segments of one test) from each instance's own target, and lays them over each other:
// a stage's targets are the instances' summed, its inner boundaries the instances' median.
// Cut from the sum instead, instances that started or ended a push apart would add
// stages of partial sums at the run's start and end (0→10→20→30 for three instances of
// a hold at 10 each). Each stage's TargetMean is what the instances were scheduled for
// over its window, each counted only while it ran (from about its first push to its
// last, res being the push interval): a hold at 30/s of three instances, one of which
// started a second late, was planned for less than 30/s over its first seconds. ok is
// false unless there are two or more instances and all of them cut into stages of the
// same kinds: then the summed target is cut as for one instance.
func instanceStages(instances timeline.Set, run timeline.Window, res time.Duration) ([]timeline.Stage, bool) {
	if len(instances) < 2 {
		return nil, false
	}
	var per []instanceTarget
	for _, is := range instances {
		pts, toEnd := stagePoints(is, run)
		tol := stageTolerance(is, is.Label("unit"))
		st := settleStages(timeline.Stages(timeline.Series{Labels: is.Labels, Points: pts}, is.Label("scenario"), is.Label("unit"), tol), pts, tol)
		if len(st) == 0 || (len(per) > 0 && !sameKinds(st, per[0].stages)) {
			return nil, false
		}
		// The instance ran from about its first push (half a step before the first grid
		// point that saw it) to its final push (run's end when it was the last to end).
		it := instanceTarget{stages: st, ran: timeline.Window{From: pts[0].T.Add(-res / 2), To: pts[len(pts)-1].T.Add(res / 2)}}
		if toEnd {
			it.ran.To = run.To
		}
		it.ran.From, it.ran.To = maxTime(it.ran.From, run.From), minTime(it.ran.To, run.To)
		per = append(per, it)
	}
	out := slices.Clone(per[0].stages)
	for i := range out {
		var froms, tos []time.Time
		out[i].StartTarget, out[i].EndTarget = 0, 0
		for _, it := range per {
			froms, tos = append(froms, it.stages[i].From), append(tos, it.stages[i].To)
			out[i].StartTarget += it.stages[i].StartTarget
			out[i].EndTarget += it.stages[i].EndTarget
		}
		out[i].From, out[i].To = medianTime(froms), medianTime(tos)
		if i > 0 {
			out[i].From = out[i-1].To // the boundary is one instant
		}
	}
	// The run's first and last stage reach its start and end (coverRun); the mean is
	// taken over the windows the stages will have.
	windows := make([]timeline.Window, len(out))
	for i := range out {
		windows[i] = out[i].Window
	}
	windows[0].From = run.From
	windows[len(windows)-1].To = maxTime(windows[len(windows)-1].To, per[0].ran.To)
	for _, it := range per[1:] {
		windows[len(windows)-1].To = maxTime(windows[len(windows)-1].To, it.ran.To)
	}
	for i, w := range windows {
		if d := w.Duration(); d > 0 {
			var sum float64
			for _, it := range per {
				sum += it.integral(w)
			}
			out[i].TargetMean = sum / d.Seconds()
		}
	}
	return out, true
}

// instanceTarget is one instance's stages and the window it ran in.
type instanceTarget struct {
	stages []timeline.Stage
	ran    timeline.Window
}

// integral is the instance's target integrated over w (target × seconds): its stages'
// straight lines, held before the first and after the last, zero while it was not running.
func (it instanceTarget) integral(w timeline.Window) float64 {
	from, to := maxTime(w.From, it.ran.From), minTime(w.To, it.ran.To)
	if !to.After(from) {
		return 0
	}
	// The midpoint rule over 1,000 pieces: the target is piecewise linear, so the error
	// is at most a thousandth of one piece's change around each of the few kinks.
	const pieces = 1000
	dt := to.Sub(from) / pieces
	var sum float64
	for k := range pieces {
		sum += it.at(from.Add(dt*time.Duration(k) + dt/2))
	}
	return sum * dt.Seconds()
}

// at is the instance's target at t along its stages.
func (it instanceTarget) at(t time.Time) float64 {
	st := it.stages
	if !t.After(st[0].From) {
		return st[0].StartTarget
	}
	for _, s := range st {
		if t.After(s.To) {
			continue
		}
		d := s.To.Sub(s.From).Seconds()
		if d <= 0 {
			return s.EndTarget
		}
		return s.StartTarget + (s.EndTarget-s.StartTarget)*t.Sub(s.From).Seconds()/d
	}
	return st[len(st)-1].EndTarget
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// sameKinds tells whether two cuts have the same stages in the same order.
func sameKinds(a, b []timeline.Stage) bool {
	return slices.EqualFunc(a, b, func(x, y timeline.Stage) bool { return x.Kind == y.Kind })
}

// medianTime is the middle of ts (the earlier of the two middles of an even count).
func medianTime(ts []time.Time) time.Time {
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	return ts[(len(ts)-1)/2]
}

// coverRun stretches a scenario's stages over the run. The first target sample comes
// one push interval after the start: the first stage is extended back to the start (a
// ramp along its slope, never below zero). When the series lasted until the run's end
// (toEnd), the last stage does too: its final push is no longer among the stage points.
func coverRun(stages []timeline.Stage, run timeline.Window, toEnd bool) []timeline.Stage {
	if len(stages) == 0 {
		return stages
	}
	first := &stages[0]
	if first.From.After(run.From) {
		if d := first.To.Sub(first.From); d > 0 {
			slope := (first.EndTarget - first.StartTarget) / d.Seconds()
			first.StartTarget = max(0, first.StartTarget-slope*first.From.Sub(run.From).Seconds())
		}
		first.From = run.From
	}
	if last := &stages[len(stages)-1]; toEnd && last.To.Before(run.To) {
		last.To = run.To
	}
	return stages
}

// stageTolerance is the slack for cutting a target into stages: whole VUs jitter by one.
func stageTolerance(s timeline.Series, unit string) float64 {
	_, hi, _, _ := timeline.Stats(s.Points)
	tol := 0.01 * hi
	if unit == "vus" {
		tol = max(tol, 1)
	}
	return max(tol, 1e-9)
}

func lastIn(s timeline.Series, w timeline.Window) (timeline.Point, bool) {
	ps := s.Between(w)
	if len(ps) == 0 {
		return timeline.Point{}, false
	}
	return ps[len(ps)-1], true
}

// stageCounters are the counters a stage's facts count.
type stageCounters struct {
	// vus are the load's active VUs (loadVUs).
	vus                                     timeline.Series
	iterations, requests, failures, dropped increases
}

func stageFacts(tl *timeline.Timeline, st timeline.Stage, c stageCounters, res time.Duration) StageFacts {
	sf := StageFacts{Stage: st, TargetAvg: cmp.Or(st.TargetMean, (st.StartTarget+st.EndTarget)/2)}
	d := st.Duration().Seconds()
	sf.Requests = c.requests.in(st.Window)
	sf.Failures = c.failures.in(st.Window)
	sf.Dropped = c.dropped.in(st.Window)
	times := []time.Time{st.From, st.To}
	if d > 0 {
		if len(c.iterations) > 0 {
			sf.Achieved = value(c.iterations.in(st.Window)/d, UnitPerSec, time.Time{}, res, Evidence{Query: QIterations, Series: "scenario=" + st.Scenario, Times: times})
		}
		if len(c.requests) > 0 {
			sf.RequestRate = value(sf.Requests/d, UnitPerSec, time.Time{}, res, Evidence{Query: QHTTPReqs, Series: "scenario=" + st.Scenario, Times: times})
		}
	}
	if st.Unit == "iterations_per_second" && sf.Achieved != nil && sf.TargetAvg > 0 {
		sf.AchievedRatio = value(sf.Achieved.Value/sf.TargetAvg, UnitRatio, time.Time{}, res, sf.Achieved.Evidence...)
	}
	if sf.Requests > 0 {
		sf.ErrorRate = value(sf.Failures/sf.Requests, UnitRatio, time.Time{}, res, Evidence{Query: QHTTPFailures, Series: "scenario=" + st.Scenario, Times: times})
	}
	if p, ok := timeline.ArgMax(c.vus.Between(st.Window)); ok {
		sf.MaxVUs = value(p.V, UnitVUs, p.T, res, ev(QVUs, c.vus, p.T))
	}
	// Latency: the native histogram's windowed quantile when present, else k6's cumulative gauge at the stage end.
	for _, l := range []struct {
		q    float64
		name string
		dst  **Fact
	}{{0.5, QLatencyP50, &sf.P50}, {0.95, QLatencyP95, &sf.P95}, {0.99, QLatencyP99, &sf.P99}} {
		hs := tl.Set(StageLatencySet(l.q)).First()
		if v, ok := hs.At(st.To, time.Second); ok && !math.IsNaN(v) {
			*l.dst = value(v, UnitSeconds, st.To, res, ev(StageLatencySet(l.q), hs, st.To))
			sf.LatencySource = LatencyHistogram
			continue
		}
		g := tl.Set(l.name).First()
		if v, ok := g.At(st.To, 2*res); ok {
			*l.dst = value(v, UnitSeconds, st.To, res, ev(l.name, g, st.To))
			if sf.LatencySource == "" {
				sf.LatencySource = LatencyCumulative
			}
		}
	}
	return sf
}

// unjudgedNotes names, once each, the thresholds no stage could be judged by.
func unjudgedNotes(stages []StageFacts) []Note {
	var notes []Note
	seen := map[string]bool{}
	for _, st := range stages {
		for _, o := range st.Thresholds {
			if o.Judged || seen[o.Metric+o.Threshold] {
				continue
			}
			seen[o.Metric+o.Threshold] = true
			notes = append(notes, note(NoteInfo, "load", "", "threshold %s '%s' is not judged per stage: %s", o.Metric, o.Threshold, o.Why))
		}
	}
	return notes
}

// capacity finds the first loaded stage that broke and the last one that held before
// it: the last hold that held, when one did (a level the service sustained, not a
// transition through it), else the last ramp. Ramp-downs and stages without a target
// are not judged for capacity.
func capacity(stages []StageFacts) Capacity {
	var c Capacity
	var lastHold, lastAny *int
	for _, st := range stages {
		if st.TargetAvg <= 0 || st.Kind == timeline.RampDown || c.FirstBroke != nil {
			continue
		}
		idx := st.Index
		switch {
		case !st.Held:
			c.FirstBroke = &idx
		case st.Kind == timeline.Hold:
			lastHold, lastAny = &idx, &idx
		default:
			lastAny = &idx
		}
	}
	c.LastHeld = cmp.Or(lastHold, lastAny)
	desc := func(p *int) string {
		st := stages[*p].Stage
		return fmt.Sprintf("stage %d (%s, %s)", StageNumber(st), st.Scenario, StageTarget(st))
	}
	switch {
	case c.LastHeld == nil && c.FirstBroke == nil:
		c.Text = "no loaded stages to judge"
	case c.FirstBroke == nil:
		c.Text = "every stage held; last: " + desc(c.LastHeld)
	case c.LastHeld == nil:
		c.Text = "the first loaded stage already broke: " + desc(c.FirstBroke) + ": " + brokeBy(stages[*c.FirstBroke])
	default:
		c.Text = "last stage that held: " + desc(c.LastHeld) + "; first that broke: " + desc(c.FirstBroke) + ": " + brokeBy(stages[*c.FirstBroke])
	}
	return c
}

// brokeBy is what broke a stage, from its verdict.
func brokeBy(st StageFacts) string { return strings.TrimPrefix(st.Why, "broke: ") }

// splitRampEnd handles a configured ramp whose end fell between two samples: the sample
// just before the end catches the target short of the new level (the engine's gauge is
// up to a second older than the push), leaving a steep piece and a shallow one to the
// level. Merged, the ramp would reach one push interval into the hold, and the hold's
// first push (the spike's worst moment) would be judged as part of the ramp. The
// configured ramp ends where the steep piece's slope reaches the shallow piece's end: a
// is the ramp up to there, b the rest as a hold at that level. The mirror case, a
// shallow piece before a steep one, is a ramp that began between two samples. ok is
// false unless one slope is under half the other.
func splitRampEnd(prev, next timeline.Stage) (a, b timeline.Stage, ok bool) {
	slope := func(st timeline.Stage) float64 {
		if d := st.To.Sub(st.From).Seconds(); d > 0 {
			return (st.EndTarget - st.StartTarget) / d
		}
		return 0
	}
	sp, sn := slope(prev), slope(next)
	at := func(base time.Time, secs float64, lo, hi time.Time) time.Time {
		t := base.Add(time.Duration(secs * float64(time.Second)))
		if t.Before(lo) {
			return lo
		}
		if t.After(hi) {
			return hi
		}
		return t
	}
	switch {
	case sp != 0 && math.Abs(sn) < math.Abs(sp)/2:
		cut := at(prev.To, (next.EndTarget-prev.EndTarget)/sp, prev.To, next.To)
		a, b = prev, next
		a.To, a.EndTarget = cut, next.EndTarget
		b.From, b.Kind, b.StartTarget = cut, timeline.Hold, next.EndTarget
		return a, b, true
	case sn != 0 && math.Abs(sp) < math.Abs(sn)/2:
		cut := at(next.From, -(next.StartTarget-prev.StartTarget)/sn, prev.From, next.From)
		a, b = prev, next
		a.To, a.Kind, a.EndTarget = cut, timeline.Hold, prev.StartTarget
		b.From, b.StartTarget = cut, prev.StartTarget
		return a, b, true
	}
	return prev, next, false
}

// StageNumber is how texts name a stage: counted from 1 in time order, as the STAGES table
// of `tidemark run` does. Stage.Index stays the 0-based position in Load.Stages.
func StageNumber(st timeline.Stage) int { return st.Index + 1 }

// StageTarget describes a stage's target for people: "hold at 10 iterations/s",
// "ramp-up 10→50 VUs", "hold at 30 requests/s (inferred)".
func StageTarget(st timeline.Stage) string {
	u := TargetUnit(st.Unit)
	if st.Inferred {
		u += " (inferred)"
	}
	if st.Kind == timeline.Hold {
		return fmt.Sprintf("%s at %s %s", st.Kind, FormatTarget(st.EndTarget), u)
	}
	return fmt.Sprintf("%s %s→%s %s", st.Kind, FormatTarget(st.StartTarget), FormatTarget(st.EndTarget), u)
}

// TargetUnit writes a tidemark_scenario_target unit for people.
func TargetUnit(unit string) string {
	switch unit {
	case "iterations_per_second":
		return "iterations/s"
	case "vus":
		return "VUs"
	}
	return strings.ReplaceAll(unit, "_per_second", "/s")
}

// FormatTarget rounds a sampled target to one decimal (whole numbers print without one):
// a sample taken just after a ramp began reads 10.0013 for a configured 10.
func FormatTarget(v float64) string {
	r := math.Round(v*10) / 10
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// settleStages turns the pieces timeline.Stages cut from the sampled target into the stages
// the scenario configured, as closely as the samples allow. A configured ramp whose ends fall
// between two samples comes out as extra pieces spanning one sample interval each (no sample
// inside, a slope that fits neither neighbour): such a piece is merged into the neighbouring
// piece of the same direction. Then each hold takes the median of its samples as its level
// and a ramp's end within tol of a neighbouring hold's level takes that level.
func settleStages(pieces []timeline.Stage, ps []timeline.Point, tol float64) []timeline.Stage {
	inside := func(st timeline.Stage) int {
		n := 0
		for _, p := range ps {
			if p.T.After(st.From) && p.T.Before(st.To) {
				n++
			}
		}
		return n
	}
	// appendStage appends st; a hold joins a hold before it at its level (one split off
	// a ramp's end or start).
	appendStage := func(out []timeline.Stage, st timeline.Stage) []timeline.Stage {
		if n := len(out); n > 0 && st.Kind == timeline.Hold && out[n-1].Kind == timeline.Hold && math.Abs(st.StartTarget-out[n-1].EndTarget) <= tol {
			out[n-1].To = st.To
			return out
		}
		return append(out, st)
	}
	var out []timeline.Stage
	for _, st := range pieces {
		if n := len(out); n > 0 && st.Kind != timeline.Hold && out[n-1].Kind == st.Kind && (inside(st) == 0 || inside(out[n-1]) == 0) {
			if a, b, ok := splitRampEnd(out[n-1], st); ok {
				out = appendStage(appendStage(out[:n-1], a), b)
				continue
			}
			out[n-1].To, out[n-1].EndTarget = st.To, st.EndTarget
			continue
		}
		out = appendStage(out, st)
	}
	for i := range out {
		if out[i].Kind != timeline.Hold {
			continue
		}
		var vs []float64
		for _, p := range ps {
			if !p.T.Before(out[i].From) && !p.T.After(out[i].To) {
				vs = append(vs, p.V)
			}
		}
		if len(vs) > 0 {
			slices.Sort(vs)
			out[i].StartTarget, out[i].EndTarget = vs[len(vs)/2], vs[len(vs)/2]
		}
	}
	for i := range out {
		out[i].Index = i
		if out[i].Kind == timeline.Hold {
			continue
		}
		if i > 0 && out[i-1].Kind == timeline.Hold && math.Abs(out[i].StartTarget-out[i-1].EndTarget) <= tol {
			out[i].StartTarget = out[i-1].EndTarget
		}
		if i+1 < len(out) && out[i+1].Kind == timeline.Hold && math.Abs(out[i].EndTarget-out[i+1].StartTarget) <= tol {
			out[i].EndTarget = out[i+1].StartTarget
		}
	}
	return out
}
