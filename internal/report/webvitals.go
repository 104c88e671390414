package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/webvital"
)

// webVitalsSection lists the browser VUs' Web Vitals over the run and per stage of the
// load, beside the replicas the Deployments were short of Ready in that stage; present
// only when the run had browser metrics.
func webVitalsSection(r *correlator.Result) (Section, bool) {
	wv := r.WebVitals
	if wv == nil {
		return Section{}, false
	}
	s := Section{Title: "Web Vitals"}
	s.Text = append(s.Text, "What the browser VUs' pages showed while the load ran: p75 (Google's assessment percentile) and p95 of each stage's page loads "+
		"from the native histograms, or, without them, k6's trend gauges (cumulative since the run started) at the stage's end: "+
		"p75, p95 or p99, the stats the run was written with (k6's default K6_PROMETHEUS_RW_TREND_STATS is p(99) alone). "+
		"Ratings use Google's thresholds (LCP 2.5 s / 4 s, INP 200 ms / 500 ms, CLS 0.1 / 0.25, FCP 1.8 s / 3 s, TTFB 0.8 s / 1.8 s, FID 100 ms / 300 ms).")
	if lcp := worstStage(r, "browser_web_vital_lcp"); lcp != "" {
		s.Text = append(s.Text, lcp)
	}
	// p99 is a column when the run has it: k6's only gauge by default.
	withP99 := slices.ContainsFunc(wv.Run, func(x analysis.VitalStat) bool { return x.Stat == analysis.QuantileStat(0.99) })
	cols := []string{"Vital", "p75", "p95"}
	if withP99 {
		cols = append(cols, "p99")
	}
	run := Table{Title: "Over the run", Columns: append(cols, "Rating", "Read from")}
	for _, v := range webvital.Vitals() {
		var stats []*analysis.VitalStat
		for _, q := range []float64{0.75, 0.95, 0.99} {
			stats = append(stats, analysis.Vital(wv.Run, v.Metric, analysis.QuantileStat(q)))
		}
		if !slices.ContainsFunc(stats, func(x *analysis.VitalStat) bool { return x != nil }) {
			continue
		}
		rating, src := "", ""
		for _, x := range slices.Backward(stats) { // the lowest percentile's rating: p75's when there is one
			if x != nil {
				rating, src = x.Rating, x.Source
			}
		}
		row := []string{strings.ToUpper(v.Short) + " (" + v.Title + ")", vitalValue(stats[0]), vitalValue(stats[1])}
		if withP99 {
			row = append(row, vitalValue(stats[2]))
		}
		run.Rows = append(run.Rows, append(row, ratingText(rating), src))
	}
	s.Tables = append(s.Tables, run)
	if len(wv.Stages) == 0 {
		return s, true
	}
	cols = []string{"Stage", "Scenario", "Window", "Target"}
	var shown []webvital.Vital
	for _, v := range webvital.Vitals() {
		for _, st := range wv.Stages {
			if stageVital(st, v.Metric) != nil {
				shown = append(shown, v)
				cols = append(cols, strings.ToUpper(v.Short))
				break
			}
		}
	}
	cols = append(cols, "Not Ready (max)")
	t := Table{Title: "Per stage of the load", Columns: cols}
	for _, sv := range wv.Stages {
		row := []string{fmt.Sprint(sv.Stage + 1), sv.Scenario, "", ""}
		if sv.Stage < len(r.Load.Stages) {
			st := r.Load.Stages[sv.Stage]
			row[0] = fmt.Sprintf("%d (%s)", st.Index+1, st.Kind)
			row[2] = fmtOffset(st.From.Sub(r.Window.Run.From)) + " – " + fmtOffset(st.To.Sub(r.Window.Run.From))
			row[3] = analysis.StageTarget(st.Stage)
		}
		for _, v := range shown {
			x := stageVital(sv, v.Metric)
			cell := "—"
			if x != nil {
				cell = vitalValue(x) + " " + statName(x.Stat) + " " + ratingText(x.Rating)
			}
			row = append(row, cell)
		}
		nr := "—"
		if sv.NotReady != nil {
			nr = analysis.FormatNum(sv.NotReady.Value)
		}
		row = append(row, nr)
		t.Rows = append(t.Rows, row)
	}
	s.Tables = append(s.Tables, t)
	return s, true
}

// webVitalsKeyFact is the browser pages' LCP over the run (p75 when known), rated, with
// the stage where it was worst.
func webVitalsKeyFact(r *correlator.Result) (KeyFact, bool) {
	if r.WebVitals == nil {
		return KeyFact{}, false
	}
	const lcp = "browser_web_vital_lcp"
	x := lowestStat(r.WebVitals.Run, lcp)
	if x == nil {
		return KeyFact{}, false
	}
	detail := "browser VUs, whole run"
	if w := worstStage(r, lcp); w != "" {
		detail = w
	}
	return KeyFact{Label: "LCP " + statName(x.Stat), Value: vitalValue(x) + " (" + ratingText(x.Rating) + ")", Detail: detail}, true
}

// stageVital is the stage's p75 of a vital when known, else its p95, else its p99.
func stageVital(sv analysis.StageVitals, metric string) *analysis.VitalStat {
	return lowestStat(sv.Vitals, metric)
}

// lowestStat is a vital's p75 when known, else its p95, else its p99 (k6's default
// trend stat), or nil.
func lowestStat(stats []analysis.VitalStat, metric string) *analysis.VitalStat {
	for _, q := range []float64{0.75, 0.95, 0.99} {
		if x := analysis.Vital(stats, metric, analysis.QuantileStat(q)); x != nil {
			return x
		}
	}
	return nil
}

// worstStage says in which stage a vital was worst, against the first stage and the
// replicas not Ready then, or "" with fewer than two stages.
func worstStage(r *correlator.Result, metric string) string {
	wv := r.WebVitals
	var first, worst *analysis.StageVitals
	for i := range wv.Stages {
		x := stageVital(wv.Stages[i], metric)
		if x == nil {
			continue
		}
		if first == nil {
			first = &wv.Stages[i]
		}
		if worst == nil || x.Value.Value > stageVital(*worst, metric).Value.Value {
			worst = &wv.Stages[i]
		}
	}
	if first == nil || first == worst {
		return ""
	}
	v, _ := webvital.ByMetric(metric)
	w, f := stageVital(*worst, metric), stageVital(*first, metric)
	text := fmt.Sprintf("%s was worst in stage %d: %s (%s, %s) against %s in stage %d", strings.ToUpper(v.Short), worst.Stage+1,
		vitalValue(w), statName(w.Stat), ratingText(w.Rating), vitalValue(f), first.Stage+1)
	if worst.NotReady != nil && worst.NotReady.Value > 0 {
		text += fmt.Sprintf(", while up to %s replicas the HPA asked for were not Ready", analysis.FormatNum(worst.NotReady.Value))
	}
	return text + "."
}

// vitalValue prints a vital: milliseconds under a second, seconds with two decimals
// (the thresholds are 2.5 s and 4 s), CLS with three.
func vitalValue(x *analysis.VitalStat) string {
	switch {
	case x == nil || x.Value == nil:
		return "—"
	case x.Value.Unit == analysis.UnitScore:
		return fmt.Sprintf("%.3f", x.Value.Value)
	case x.Value.Value < 1:
		return fmt.Sprintf("%.0f ms", x.Value.Value*1000)
	}
	return fmt.Sprintf("%.2f s", x.Value.Value)
}

// statName prints p(75) as p75.
func statName(stat string) string {
	return strings.NewReplacer("(", "", ")", "").Replace(stat)
}

func ratingText(r string) string { return strings.ReplaceAll(r, "_", " ") }

// webVitalsChart draws the timed vitals' trend gauges (k6's, cumulative since the run
// started: p75, p95 or p99, those the run wrote) on the report's time axis.
func webVitalsChart(r *correlator.Result) Chart {
	c := Chart{Title: "Web Vitals trend gauges (browser)", Unit: "ms"}
	for _, s := range r.Series[analysis.QWebVitalsGauge] {
		c.Series = append(c.Series, series(strings.ToUpper(s.Labels["vital"])+" "+s.Labels["stat"]+suffix(s.Labels, "scenario"), s, 1000, false))
	}
	return c
}
