package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
	"github.com/tidemark/tidemark/internal/timeline"
)

// QThresholds is the optional query of the run's thresholds (tidemark_threshold): one
// series per threshold, labelled metric, threshold, type and contains. Without it, or
// for a run that wrote none, stages are judged by the catalog's defaults.
const QThresholds = "thresholds"

// QWindowedFailed is the optional query of the run's windowed thresholds
// (tidemark_threshold_result_pass with a window label): 1 while the latest window
// fails, labelled metric, threshold and window.
const QWindowedFailed = "windowed_thresholds_failed"

// minJudgedRampPushes is the shortest ramp judged on achieved-vs-target, in push
// intervals: over a shorter ramp the iterations counted in the stage's pushes lag a
// target that moves faster than the pushes, so it is reported but not judged on it.
const minJudgedRampPushes = 3

// StageStatSet names the timeline set holding one statistic per stage of a trend
// (sub-)metric, computed from its native histogram: key is the threshold key's ID
// (http_req_duration, http_req_duration{expected_response:true}), stat a threshold
// method (p(95), med, avg). One point per stage, at the stage's end, in seconds for
// time trends.
func StageStatSet(key, stat string) string { return "stage_stat/" + key + "/" + stat }

// StageLatencySet names the set of http_req_duration's per-stage quantile q.
func StageLatencySet(q float64) string {
	return StageStatSet("http_req_duration", QuantileStat(q))
}

// QuantileStat is the threshold method of quantile q: 0.95 → p(95).
func QuantileStat(q float64) string {
	return "p(" + strconv.FormatFloat(q*100, 'g', -1, 64) + ")"
}

// StageThreshold is one of the run's thresholds judged in one stage.
type StageThreshold struct {
	// Metric is the threshold's key as written; Threshold its expression.
	Metric    string `json:"metric"`
	Threshold string `json:"threshold"`
	// Judged is false when the stage's value cannot be read from Prometheus (Why says
	// why); such a threshold neither holds nor breaks the stage.
	Judged bool `json:"judged"`
	// Value is the stage's value in k6's units (milliseconds for time trends), when it
	// has one; a rate with no samples has none and passes, as in k6.
	Value  *float64 `json:"value,omitempty"`
	Passed bool     `json:"passed"`
	Why    string   `json:"why,omitempty"`
	// Text is the outcome as the verdict writes it: http_req_duration 'p(95)<500' p(95)=812ms.
	Text string `json:"text,omitempty"`
}

// RunThresholds are the run's thresholds, parsed from the tidemark_threshold series.
type RunThresholds struct {
	Set *threshold.Set
	// Defs are the thresholds as written, in the Set's order: `metric: expression`.
	Defs []string
}

// ParseRunThresholds reads the run's thresholds from the timeline. A threshold the
// run wrote that does not parse is reported in a note and left out.
func ParseRunThresholds(tl *timeline.Timeline) (*RunThresholds, []Note) {
	var (
		defs  []threshold.Def
		types = map[string][2]string{}
		notes []Note
	)
	seen := map[string]bool{}
	for _, s := range tl.Set(QThresholds) {
		key, expr := s.Label("metric"), s.Label("threshold")
		if key == "" || expr == "" || seen[key+"\x00"+expr] {
			continue
		}
		seen[key+"\x00"+expr] = true
		k, err := threshold.ParseKey(key)
		if err != nil {
			notes = append(notes, note(NoteInfo, "load", "", "the run's threshold %q on %q is not understood (%v): stages are judged without it", expr, key, err))
			continue
		}
		types[k.Metric] = [2]string{s.Label("type"), s.Label("contains")}
		defs = append(defs, threshold.Def{Key: key, Expr: expr})
	}
	if len(defs) == 0 {
		return nil, notes
	}
	typeOf := func(name string) (metrics.Type, metrics.ValueType, bool) {
		tc, ok := types[name]
		if !ok {
			return 0, 0, false
		}
		t, ok1 := metrics.ParseType(tc[0])
		c, ok2 := metrics.ParseValueType(tc[1])
		return t, c, ok1 && ok2
	}
	var kept []threshold.Def
	for _, d := range defs {
		if _, err := threshold.NewSet([]threshold.Def{d}, typeOf); err != nil {
			notes = append(notes, note(NoteInfo, "load", "", "the run's threshold %q on %q is not understood (%v): stages are judged without it", d.Expr, d.Key, unwrapSyntax(err)))
			continue
		}
		kept = append(kept, d)
	}
	if len(kept) == 0 {
		return nil, notes
	}
	set, err := threshold.NewSet(kept, typeOf)
	if err != nil { // each parsed alone: cannot happen
		return nil, append(notes, note(NoteInfo, "load", "", "the run's thresholds: %v", err))
	}
	rt := &RunThresholds{Set: set}
	for _, th := range set.Thresholds() {
		rt.Defs = append(rt.Defs, th.Key.Name+": "+strings.TrimSpace(th.Expr.Source))
	}
	return rt, notes
}

func unwrapSyntax(err error) error {
	if u := errors.Unwrap(err); u != nil && !errors.Is(u, threshold.ErrSyntax) {
		return u
	}
	return err
}

// TrendStats lists the per-stage trend statistics the run's thresholds need, as
// (key ID, threshold key, stat) for StageStatSet: the correlator computes them from the
// native histograms. http_req_duration's p(50), p(95) and p(99) are always included
// (the STAGES columns).
func (rt *RunThresholds) TrendStats() []TrendStat {
	out := []TrendStat{}
	add := func(ts TrendStat) {
		if !slices.ContainsFunc(out, func(o TrendStat) bool { return o.Key.ID() == ts.Key.ID() && o.Stat == ts.Stat }) {
			out = append(out, ts)
		}
	}
	base := threshold.Key{Metric: "http_req_duration", Name: "http_req_duration"}
	for _, q := range []float64{0.5, 0.95, 0.99} {
		add(TrendStat{Key: base, Stat: QuantileStat(q), Quantile: q, Contains: metrics.Time})
	}
	if rt == nil {
		return out
	}
	for _, th := range rt.Set.Thresholds() {
		if th.Type != metrics.Trend {
			continue
		}
		m := th.Expr.Method
		ts := TrendStat{Key: *th.Key, Stat: m.String(), Contains: th.Contains}
		switch m.Agg {
		case threshold.Percentile:
			ts.Quantile = m.P / 100
		case threshold.Med:
			ts.Quantile = 0.5
		case threshold.Avg:
		default:
			continue // min and max: not in a histogram
		}
		add(ts)
	}
	return out
}

// TrendStat is one per-stage statistic of a trend (sub-)metric.
type TrendStat struct {
	Key      threshold.Key
	Stat     string  // threshold method: p(95), med, avg
	Quantile float64 // 0 for avg
	Contains metrics.ValueType
}

// HistogramName is the native histogram k6 writes for the trend: k6_<name>_seconds
// for time trends, _bytes for data, no suffix otherwise (reference/k6.md §1.4).
func (ts TrendStat) HistogramName() string {
	switch ts.Contains {
	case metrics.Time:
		return "k6_" + ts.Key.Metric + "_seconds"
	case metrics.Data:
		return "k6_" + ts.Key.Metric + "_bytes"
	}
	return "k6_" + ts.Key.Metric
}

// judgeStage evaluates the run's thresholds in one stage, and the stage's drops and
// achieved rate, and sets its verdict. Without thresholds, the catalog's default error
// ratio stands in for them. A threshold whose value the series cannot give is listed
// as not judged; a threshold on another scenario is left out.
func judgeStage(tl *timeline.Timeline, sf *StageFacts, rt *RunThresholds, res time.Duration, cfg Config) {
	var broke []string
	if rt == nil {
		if sf.ErrorRate != nil && sf.ErrorRate.Value > cfg.ErrorRatioOK {
			broke = append(broke, fmt.Sprintf("error rate %s > %s (default)", formatPercent(sf.ErrorRate.Value), formatPercent(cfg.ErrorRatioOK)))
		}
	} else {
		sf.Thresholds = stageThresholds(tl, sf, rt)
		for _, o := range sf.Thresholds {
			if o.Judged && !o.Passed {
				broke = append(broke, o.Text)
			}
		}
	}
	broke = append(broke, windowsFailed(tl, sf, res)...)
	if sf.Dropped > 0 {
		broke = append(broke, strconv.FormatFloat(sf.Dropped, 'f', -1, 64)+" dropped")
	}
	ramp := sf.StartTarget != sf.EndTarget
	if sf.AchievedRatio != nil && sf.TargetAvg >= 1 && sf.AchievedRatio.Value < cfg.StageAchievedOK &&
		(!ramp || sf.Duration() >= minJudgedRampPushes*res) {
		broke = append(broke, fmt.Sprintf("achieved %s < %s of %s", FormatTarget(sf.Achieved.Value)+"/s",
			formatPercent(cfg.StageAchievedOK), FormatTarget(sf.TargetAvg)+"/s"))
	}
	if sf.Requests == 0 && sf.Achieved == nil && len(broke) == 0 {
		sf.Held, sf.Why = false, "no requests measured in this stage"
		return
	}
	sf.Held = len(broke) == 0
	sf.Why = "held"
	if !sf.Held {
		sf.Why = "broke: " + strings.Join(broke, ", ")
	}
}

// VerdictRule says what a stage verdict judged, for the report.
func VerdictRule(rt *RunThresholds, cfg Config, res time.Duration) string {
	rest := fmt.Sprintf("0 dropped and an arrival-rate stage achieves ≥ %s of its mean target (not judged on ramps under %s)",
		formatPercent(cfg.StageAchievedOK), minJudgedRampPushes*res)
	if rt == nil {
		return fmt.Sprintf("the run wrote no thresholds, so the defaults: held when the error rate is ≤ %s, %s", formatPercent(cfg.ErrorRatioOK), rest)
	}
	return "held when every threshold of the run passes in the stage (" + strings.Join(rt.Defs, "; ") + "), " + rest
}

func stageThresholds(tl *timeline.Timeline, sf *StageFacts, rt *RunThresholds) []StageThreshold {
	why := map[string]string{}
	r := rt.Set.EvaluateWindow(sf.Duration(), func(k *threshold.Key) threshold.Source {
		return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
			v, ok, reason := stageValue(tl, sf, k, m)
			if reason != "" {
				why[k.ID()+" "+m.String()] = reason
			}
			return v, ok
		})
	})
	var out []StageThreshold
	for _, o := range r.Outcomes {
		th := o.Threshold
		if v, ok := metrics.TagValue(th.Key.Tags, "scenario"); ok && v != sf.Scenario {
			continue // another scenario's threshold
		}
		asked := th.Expr.Method
		if th.Type == metrics.Counter && asked.Agg == threshold.Rate {
			asked = threshold.Method{Agg: threshold.Count}
		}
		st := StageThreshold{Metric: th.Key.Name, Threshold: strings.TrimSpace(th.Expr.Source), Judged: true, Passed: o.Passed}
		if reason, ok := why[th.Key.ID()+" "+asked.String()]; ok {
			st.Judged, st.Passed, st.Why = false, false, reason
		} else if o.HasValue {
			v := o.Value
			st.Value = &v
		}
		st.Text = fmt.Sprintf("%s '%s' %s=%s", st.Metric, st.Threshold, th.Expr.Method, thresholdValue(th, st.Value))
		out = append(out, st)
	}
	return out
}

// stageValue is the value of method m of the (sub-)metric k in the stage, in
// Tidemark's units (seconds for time trends), as threshold.Source asks it. ok false
// with no reason is "no value" (a rate without samples: passes); a reason means the
// series cannot tell.
func stageValue(tl *timeline.Timeline, sf *StageFacts, k *threshold.Key, m threshold.Method) (v float64, ok bool, reason string) {
	perScenario := !slices.ContainsFunc(k.Tags, func(t metrics.Tag) bool { return t.Key != "scenario" })
	switch k.Metric {
	case "http_reqs", "dropped_iterations", "iterations", "http_req_failed", "vus":
		if !perScenario {
			return 0, false, fmt.Sprintf("per-stage values of %s are read per scenario only, not by other tags", k.Metric)
		}
	}
	switch k.Metric {
	case "http_reqs":
		return sf.Requests, true, ""
	case "dropped_iterations":
		return sf.Dropped, true, ""
	case "iterations":
		if sf.Achieved == nil {
			return 0, false, "no k6_iterations_total series"
		}
		return sf.Achieved.Value * sf.Duration().Seconds(), true, ""
	case "http_req_failed":
		if sf.ErrorRate == nil {
			return 0, false, "" // no requests: a rate without samples passes
		}
		return sf.ErrorRate.Value, true, ""
	case "vus":
		p, found := lastIn(tl.Set(QVUs).First(), sf.Window)
		if !found {
			return 0, false, "no k6_vus samples in the stage"
		}
		return p.V, true, ""
	}
	if m.Agg == threshold.Min || m.Agg == threshold.Max {
		return 0, false, "min and max per stage are not in Prometheus (k6's trend gauges cover the whole run)"
	}
	if m.Agg == threshold.Avg || m.Agg == threshold.Med || m.Agg == threshold.Percentile {
		s := tl.Set(StageStatSet(k.ID(), m.String()))
		if len(s) == 0 {
			return 0, false, "no native histogram for " + k.Name + ": k6's trend gauges cover the whole run and cannot be cut into stages (send native histograms: K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true)"
		}
		x, found := s.First().At(sf.To, time.Second)
		if !found {
			return 0, false, "no per-stage value of " + k.Name + " " + m.String()
		}
		if math.IsNaN(x) {
			return 0, true, "" // no observation in the stage: a trend's stats are 0, as in k6
		}
		return x, true, ""
	}
	return 0, false, k.Name + " is not among the metrics read per stage (http_reqs, http_req_failed, iterations, dropped_iterations, vus, trends with native histograms)"
}

// thresholdValue writes a threshold's observed value (k6's units) for a verdict:
// times in ms or s, rates as percentages, counter rates per second.
func thresholdValue(th *threshold.Threshold, v *float64) string {
	if v == nil {
		return "n/a"
	}
	x := *v
	switch {
	case th.Type == metrics.Rate:
		return formatPercent(x)
	case th.Contains == metrics.Time:
		return FormatMillis(x)
	case th.Type == metrics.Counter && th.Expr.Method.Agg == threshold.Rate:
		return strconv.FormatFloat(roundTo(x, 2), 'f', -1, 64) + "/s"
	}
	return strconv.FormatFloat(roundTo(x, 2), 'f', -1, 64)
}

// FormatMillis writes a duration given in milliseconds as k6's summary does: 812.4ms,
// 5.43s, 2m3s.
func FormatMillis(ms float64) string {
	switch {
	case ms < 1000:
		return strconv.FormatFloat(roundTo(ms, 2), 'f', -1, 64) + "ms"
	case ms < 60_000:
		return strconv.FormatFloat(roundTo(ms/1000, 2), 'f', -1, 64) + "s"
	}
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Second).String()
}

func formatPercent(r float64) string {
	return strconv.FormatFloat(roundTo(100*r, 2), 'f', -1, 64) + "%"
}

func roundTo(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// windowsFailed names the windowed thresholds whose windows failed in the stage, as
// "http_req_duration 'p(95)<500' over 30s". The run's last push carries each windowed
// threshold's verdict (0 when any window failed) rather than its latest window, so the
// points of the run's last push interval are not read. A stage in which its scenario
// had no target, and a threshold keyed on another scenario, are left out.
func windowsFailed(tl *timeline.Timeline, sf *StageFacts, res time.Duration) []string {
	if sf.StartTarget == 0 && sf.EndTarget == 0 {
		return nil // its scenario was idle: the windows judged the others' samples
	}
	var out []string
	last := tl.Run.To.Add(-res)
	for _, s := range tl.Set(QWindowedFailed) {
		if k, err := threshold.ParseKey(s.Label("metric")); err == nil {
			if v, ok := metrics.TagValue(k.Tags, "scenario"); ok && v != sf.Scenario {
				continue // another scenario's threshold
			}
		}
		for _, p := range s.Points {
			if p.V == 1 && !p.T.Before(sf.From) && p.T.Before(sf.To) && p.T.Before(last) {
				out = append(out, fmt.Sprintf("%s '%s' over %s", s.Label("metric"), s.Label("threshold"), s.Label("window")))
				break
			}
		}
	}
	return out
}
