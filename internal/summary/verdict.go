package summary

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// achievedOK is the share of its mean target an arrival-rate stage must achieve to
// hold: the 95% internal/analysis judges stages by.
const achievedOK = 0.95

// minJudgedRamp is the shortest ramp judged on achieved-vs-target: three push intervals
// of the default 5s (k6's defaultPushInterval, reference/k6.md §1.2). Over a shorter
// ramp the iterations that complete in the window lag a target that moves faster than
// the windows the dashboards and the report read it in, so a short ramp is reported
// but not judged on it.
const minJudgedRamp = 3 * 5 * time.Second

// defaultErrorRatioOK is the error rate a stage may have when the run has no thresholds:
// the catalog's defaults.error_ratio_ok, which the correlator judges such stages by.
const defaultErrorRatioOK = 0.01

// EvaluateStage evaluates every threshold of set in the window of one stage, win being
// the stage's own aggregates (st.To.Since(st.From)), with the rules of k6's final
// evaluation (threshold.Set.EvaluateWindow): a counter's rate is divided by the stage's
// duration, a trend without samples in the stage has every stat 0, and a rate without
// samples has no value and passes. So a stage without requests passes
// `http_req_duration: p(95)<500` and `http_req_failed: rate<0.01`; it is judged by its
// drops and achieved rate.
//
// Samples count for the stage's scenario only: a threshold on a metric whose series
// carry a scenario tag reads the series of st.Scenario, and one keyed on another
// scenario (`http_req_duration{scenario:other}`) is left out of the result. Metrics
// without a scenario tag (vus) are read whole.
func EvaluateStage(set *threshold.Set, st Stage, win *aggregate.Snapshot) []threshold.Outcome {
	if set == nil {
		return nil
	}
	elapsed := st.End.Sub(st.Start)
	res := set.EvaluateWindow(elapsed, func(k *threshold.Key) threshold.Source {
		tags := k.Tags
		if !hasTag(k.Tags, "scenario") && scenarioTagged(win, k.Metric) {
			tags = append(slices.Clone(k.Tags), metrics.Tag{Key: "scenario", Value: st.Scenario})
		}
		se, ok := win.Submetric(k.Metric, tags)
		if !ok {
			return nil
		}
		return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
			v, err := se.Threshold(m.String(), elapsed)
			return v, err == nil
		})
	})
	return slices.DeleteFunc(res.Outcomes, func(o threshold.Outcome) bool {
		v, ok := metrics.TagValue(o.Threshold.Key.Tags, "scenario")
		return ok && v != st.Scenario
	})
}

func hasTag(tags []metrics.Tag, key string) bool {
	_, ok := metrics.TagValue(tags, key)
	return ok
}

// scenarioTagged reports whether any series of the metric carries a scenario tag.
func scenarioTagged(win *aggregate.Snapshot, name string) bool {
	for i := range win.Series {
		if se := &win.Series[i]; se.Metric.Name == name {
			if _, ok := se.Tags.Get("scenario"); ok {
				return true
			}
		}
	}
	return false
}

// judge sets the row's verdict. A stage broke when a threshold that failed the run is
// crossed in the stage's own samples too: it names where the run's failure happened.
// Nothing else breaks a stage, so a run whose thresholds passed (k6's exit 0) never
// shows a broken stage. What else stood out is noted after "held" (or after what
// broke): a passing threshold crossed in the stage, dropped iterations, an
// arrival-rate stage that achieved less than achievedOK of its mean target (ramps
// shorter than minJudgedRamp, and mean targets below one iteration per time unit,
// whose window counts are too coarse, are not judged on that) and, in a run without
// thresholds, an error rate over the default. A threshold on a counter's count is not
// evaluated per stage: a total over the run says nothing of one stage's share of it.
// A server-side rule (Input.Rules) of severity error or critical that fired in the
// stage broke it too (it failed the run); a warning that fired is noted.
func (r *report) judge(st Stage, win *aggregate.Snapshot, row *stageRow) {
	row.Broke = nil
	var notes []string
	failed := r.runFailed()
	for _, o := range EvaluateStage(r.in.ThresholdSet, st, win) {
		th := o.Threshold
		if th.Window > 0 {
			// A windowed threshold fails the run when any window fails: it broke the
			// stages in which a failing window ended.
			if o.Window != nil && o.Window.FailedBetween(st.Start.Sub(r.in.Start), st.End.Sub(r.in.Start)) {
				row.Broke = append(row.Broke, fmt.Sprintf("%s '%s' over %s", th.Key.Name, strings.TrimSpace(th.Expr.Source), threshold.FormatWindow(th.Window)))
			}
			continue
		}
		if o.Passed || (th.Type == metrics.Counter && th.Expr.Method.Agg == threshold.Count) {
			continue
		}
		desc := fmt.Sprintf("%s '%s' %s=%s", th.Key.Name, strings.TrimSpace(th.Expr.Source), th.Expr.Method, r.outcomeValue(th, o.Value))
		if failed[thresholdID(th.Key.Name, th.Name())] {
			row.Broke = append(row.Broke, desc)
			continue
		}
		notes = append(notes, "crossed in this stage: "+desc)
	}
	// A server-side rule broke the stages it fired in when it fails the run (error,
	// critical); a warning that fired is noted.
	for _, rule := range r.in.Rules {
		if !rule.firedBetween(st.Start, st.End) {
			continue
		}
		desc := fmt.Sprintf("rule %s [%s]", rule.Name, rule.Severity)
		if rule.Severity == "warning" {
			notes = append(notes, desc+" fired")
			continue
		}
		row.Broke = append(row.Broke, desc)
	}
	if r.in.ThresholdSet == nil && row.ErrorRate != nil && *row.ErrorRate > defaultErrorRatioOK {
		notes = append(notes, fmt.Sprintf("error rate %s%% > %s%%",
			fixedNoTrailingZeros(100**row.ErrorRate, 2), jsNumber(100*defaultErrorRatioOK)))
	}
	if row.Dropped > 0 {
		notes = append(notes, jsNumber(row.Dropped)+" dropped")
	}
	mean := (st.StartTarget + st.Target) / 2
	ramp := st.StartTarget != st.Target
	if st.TimeUnit > 0 && mean >= 1 && (!ramp || st.End.Sub(st.Start) >= minJudgedRamp) && row.Achieved < achievedOK*mean {
		u := "/" + unitName(st.TimeUnit)
		notes = append(notes, fmt.Sprintf("achieved %s < %s of %s",
			fixedNoTrailingZeros(row.Achieved, 2)+u, jsNumber(achievedOK*100)+"%", fixedNoTrailingZeros(mean, 2)+u))
	}
	row.Held = len(row.Broke) == 0
	row.Verdict = "held"
	if !row.Held {
		row.Verdict = "broke: " + strings.Join(row.Broke, ", ")
	}
	if len(notes) > 0 {
		row.Verdict += "; " + strings.Join(notes, ", ")
	}
}

// thresholdID identifies a threshold by its metric key and its name (the expression as
// written, and a windowed one's window).
func thresholdID(key, expr string) string {
	return strings.TrimSpace(key) + "\x00" + strings.TrimSpace(expr)
}

// runFailed returns the thresholds that failed the run: those of Input.Thresholds that
// are not OK or, without them, those ThresholdSet fails over the whole run.
func (r *report) runFailed() map[string]bool {
	if r.failed != nil {
		return r.failed
	}
	r.failed = map[string]bool{}
	if r.in.Thresholds != nil {
		for k, ths := range r.in.Thresholds {
			for _, th := range ths {
				if !th.OK {
					r.failed[thresholdID(k, th.Name())] = true
				}
			}
		}
		return r.failed
	}
	if r.in.ThresholdSet == nil {
		return r.failed
	}
	res := r.in.ThresholdSet.EvaluateWindow(r.in.Duration, func(k *threshold.Key) threshold.Source {
		se, ok := r.in.Snapshot.Submetric(k.Metric, k.Tags)
		if !ok {
			return nil
		}
		return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
			v, err := se.Threshold(m.String(), r.in.Duration)
			return v, err == nil
		})
	})
	for _, o := range res.Outcomes {
		if !o.Passed {
			r.failed[thresholdID(o.Threshold.Key.Name, o.Threshold.Name())] = true
		}
	}
	return r.failed
}

// outcomeValue prints a threshold's observed value (k6's units) as the THRESHOLDS
// section does: durations and bytes humanized, rates as percentages, counter rates
// per second.
func (r *report) outcomeValue(th *threshold.Threshold, v float64) string {
	m := &metrics.Metric{Type: th.Type, Contains: th.Contains}
	switch {
	case th.Type == metrics.Counter && th.Expr.Method.Agg == threshold.Rate:
		return r.humanize(v, m) + "/s"
	case th.Type == metrics.Trend:
		return r.trendValue(v, th.Expr.Method.String(), m)
	}
	return r.humanize(v, m)
}

// verdictNote is the line under the STAGES table that says what a verdict judged.
func (r *report) verdictNote() string {
	if r.in.StageNote != "" {
		return r.in.StageNote
	}
	rules := ""
	if len(r.in.Rules) > 0 {
		rules = " or an error or critical server-side rule fired in it"
	}
	return fmt.Sprintf("verdict: a stage broke when a threshold that failed the run is crossed in its own samples"+rules+"; "+
		"after the ';', what else stood out: drops, an arrival-rate stage under %s%% of its mean target (ramps under %s not judged), ",
		jsNumber(achievedOK*100), minJudgedRamp) + r.noteTail()
}

// noteTail ends the verdict note with what else a note names.
func (r *report) noteTail() string {
	if r.in.ThresholdSet == nil {
		return "an error rate over " + jsNumber(100*defaultErrorRatioOK) + "% (the run has no thresholds)"
	}
	return "a passing threshold crossed in the stage"
}
