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

// judge sets the row's verdict: the stage held when every threshold of the run passed
// in its window, it dropped no iteration, and an arrival-rate stage achieved at least
// achievedOK of its mean target (ramps shorter than minJudgedRamp, and mean targets
// below one iteration per time unit, whose window counts are too coarse, are not
// judged on that). Broke lists what failed, in that order.
func (r *report) judge(st Stage, win *aggregate.Snapshot, row *stageRow) {
	row.Broke = nil
	if r.in.ThresholdSet == nil && row.ErrorRate != nil && *row.ErrorRate > defaultErrorRatioOK {
		row.Broke = append(row.Broke, fmt.Sprintf("error rate %s%% > %s%% (default)",
			fixedNoTrailingZeros(100**row.ErrorRate, 2), jsNumber(100*defaultErrorRatioOK)))
	}
	for _, o := range EvaluateStage(r.in.ThresholdSet, st, win) {
		if o.Passed {
			continue
		}
		th := o.Threshold
		row.Broke = append(row.Broke, fmt.Sprintf("%s '%s' %s=%s",
			th.Key.Name, strings.TrimSpace(th.Expr.Source), th.Expr.Method, r.outcomeValue(th, o.Value)))
	}
	if row.Dropped > 0 {
		row.Broke = append(row.Broke, jsNumber(row.Dropped)+" dropped")
	}
	mean := (st.StartTarget + st.Target) / 2
	ramp := st.StartTarget != st.Target
	if st.TimeUnit > 0 && mean >= 1 && (!ramp || st.End.Sub(st.Start) >= minJudgedRamp) && row.Achieved < achievedOK*mean {
		u := "/" + unitName(st.TimeUnit)
		row.Broke = append(row.Broke, fmt.Sprintf("achieved %s < %s of %s",
			fixedNoTrailingZeros(row.Achieved, 2)+u, jsNumber(achievedOK*100)+"%", fixedNoTrailingZeros(mean, 2)+u))
	}
	row.Held = len(row.Broke) == 0
	row.Verdict = "held"
	if !row.Held {
		row.Verdict = "broke: " + strings.Join(row.Broke, ", ")
	}
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
	rest := fmt.Sprintf("0 dropped and an arrival-rate stage achieves ≥ %s%% of its mean target (not judged on ramps under %s)",
		jsNumber(achievedOK*100), minJudgedRamp)
	if r.in.ThresholdSet == nil {
		return "verdict: no thresholds, so the defaults: held when the error rate is ≤ " + jsNumber(100*defaultErrorRatioOK) + "%, " + rest
	}
	return "verdict: held when every threshold of the run passes in the stage, " + rest
}
