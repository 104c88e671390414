package webdash

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/report"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/webvital"
)

// maxPoints bounds the history: past it every other point is dropped, so a long run
// costs a fixed amount of memory and every update draws at most this many points per
// line. 600 is 10 minutes at the default period before the first thinning.
const maxPoints = 600

// percentiles are the http_req_duration percentiles the page shows.
var percentiles = []struct{ stat, name string }{{"p(50)", "p50"}, {"p(90)", "p90"}, {"p(95)", "p95"}, {"p(99)", "p99"}}

// point is the run at one tick: cumulative counts (so that a rate between any two
// kept points is exact, also after thinning), the VUs then, and the percentiles of
// the requests since the previous tick.
type point struct {
	t                         time.Time
	reqs, iterations          float64
	failed, requests          uint64 // http_req_failed passes (failed requests) and total
	checksPass, checksTotal   uint64
	vus                       float64
	period                    [4]float64 // percentiles of the period, seconds; NaN without requests
	totalPercentiles          [4]float64
	vusMax, dataRecv, dataSnt float64
	// vitals are the browser VUs' Web Vitals at vitalStat, in the order of
	// webvital.Vitals(), of the period and of the whole run (seconds for the timed
	// ones, as the samples); NaN where the run has none.
	vitals, totalVitals []float64
}

// vitalStat is the percentile the page shows of every Web Vital: the 75th, at which
// web.dev rates a page good, needs improvement or poor.
const vitalStat = "p(75)"

// sample reads the point of snapshot snap, whose window since the previous tick is win.
func sample(snap, win *aggregate.Snapshot) point {
	p := point{t: snap.Time}
	if se, ok := snap.Metric("http_reqs"); ok {
		p.reqs = se.Count
	}
	if se, ok := snap.Metric("iterations"); ok {
		p.iterations = se.Count
	}
	if se, ok := snap.Metric("http_req_failed"); ok {
		p.failed, p.requests = se.Passes, se.Total
	}
	if se, ok := snap.Metric("checks"); ok {
		p.checksPass, p.checksTotal = se.Passes, se.Total
	}
	if se, ok := snap.Metric("vus"); ok {
		p.vus = se.Value
	}
	if se, ok := snap.Metric("vus_max"); ok {
		p.vusMax = se.Value
	}
	if se, ok := snap.Metric("data_received"); ok {
		p.dataRecv = se.Count
	}
	if se, ok := snap.Metric("data_sent"); ok {
		p.dataSnt = se.Count
	}
	p.period = trendPercentiles(win)
	p.totalPercentiles = trendPercentiles(snap)
	p.vitals, p.totalVitals = vitalStats(win), vitalStats(snap)
	return p
}

// vitalStats are the Web Vitals' vitalStat in s, in the order of webvital.Vitals(); nil
// when s has none.
func vitalStats(s *aggregate.Snapshot) []float64 {
	var out []float64
	for i, v := range webvital.Vitals() {
		se, ok := s.Metric(v.Metric)
		if !ok || se.Empty() {
			continue
		}
		if out == nil {
			out = make([]float64, len(webvital.Vitals()))
			for j := range out {
				out[j] = math.NaN()
			}
		}
		if x, err := se.Stat(vitalStat); err == nil {
			out[i] = x
		}
	}
	return out
}

// trendPercentiles are http_req_duration's percentiles in s; NaN when it has no samples.
func trendPercentiles(s *aggregate.Snapshot) [4]float64 {
	var out [4]float64
	se, ok := s.Metric("http_req_duration")
	for i, pc := range percentiles {
		out[i] = math.NaN()
		if !ok || se.Empty() {
			continue
		}
		if v, err := se.Stat(pc.stat); err == nil {
			out[i] = v
		}
	}
	return out
}

// thin drops every other point but the first and the last.
func thin(pts []point) []point {
	out := pts[:0:0]
	for i, p := range pts {
		if i%2 == 0 || i == len(pts)-1 {
			out = append(out, p)
		}
	}
	return out
}

// charts draws the history: request rate, latency percentiles, VUs, failed requests
// and checks, over the run's window.
func charts(pts []point) *report.Document {
	d := &report.Document{}
	if len(pts) == 0 {
		return d
	}
	d.Window = report.Window{From: pts[0].t, To: pts[len(pts)-1].t}
	if !d.Window.To.After(d.Window.From) {
		d.Window.To = d.Window.From.Add(time.Second)
	}
	var (
		reqRate, failRate, failPct, checkPass, checkFail, vus report.Series
		lat                                                   = make([]report.Series, len(percentiles))
	)
	reqRate.Name, failRate.Name = "requests", "failed requests"
	failPct.Name = "http_req_failed"
	checkPass.Name, checkFail.Name = "passes", "fails"
	vus.Name, vus.Step = "vus", true
	for i, pc := range percentiles {
		lat[i].Name = pc.name
	}
	for i, p := range pts {
		vus.Points = append(vus.Points, report.Point{T: p.t, V: p.vus})
		for j := range percentiles {
			lat[j].Points = append(lat[j].Points, report.Point{T: p.t, V: p.period[j] * 1000})
		}
		if i == 0 {
			continue
		}
		prev := pts[i-1]
		dt := p.t.Sub(prev.t).Seconds()
		if dt <= 0 {
			continue
		}
		reqRate.Points = append(reqRate.Points, report.Point{T: p.t, V: (p.reqs - prev.reqs) / dt})
		failRate.Points = append(failRate.Points, report.Point{T: p.t, V: float64(p.failed-prev.failed) / dt})
		failPct.Points = append(failPct.Points, report.Point{T: p.t, V: ratio(p.failed-prev.failed, p.requests-prev.requests) * 100})
		checkPass.Points = append(checkPass.Points, report.Point{T: p.t, V: float64(p.checksPass-prev.checksPass) / dt})
		checkFail.Points = append(checkFail.Points, report.Point{T: p.t, V: float64((p.checksTotal-prev.checksTotal)-(p.checksPass-prev.checksPass)) / dt})
	}
	d.Charts = []report.Chart{
		{Title: "Request rate", Unit: "req/s", Series: []report.Series{reqRate, failRate}},
		{Title: "Request duration (http_req_duration)", Unit: "ms", Series: lat},
		{Title: "Virtual users", Unit: "VUs", Series: []report.Series{vus}},
		{Title: "Failed requests (http_req_failed)", Unit: "%", Series: []report.Series{failPct}},
		{Title: "Checks", Unit: "checks/s", Series: []report.Series{checkPass, checkFail}},
	}
	if c, ok := vitalsChart(pts); ok {
		d.Charts = append(d.Charts, c)
	}
	return d
}

// vitalsChart is the timed Web Vitals' p75 of each period, in ms, when the run's browser
// VUs reported some.
func vitalsChart(pts []point) (report.Chart, bool) {
	if pts[len(pts)-1].totalVitals == nil {
		return report.Chart{}, false
	}
	var series []report.Series
	for i, v := range webvital.Vitals() {
		if !v.Timed || math.IsNaN(pts[len(pts)-1].totalVitals[i]) {
			continue
		}
		s := report.Series{Name: strings.ToUpper(v.Short)}
		for _, p := range pts {
			val := math.NaN()
			if p.vitals != nil {
				val = p.vitals[i] * 1000
			}
			s.Points = append(s.Points, report.Point{T: p.t, V: val})
		}
		series = append(series, s)
	}
	return report.Chart{Title: "Web Vitals p75 (browser VUs)", Unit: "ms", Series: series}, len(series) > 0
}

// ratio is a/b, NaN (a gap) when b is 0.
func ratio(a, b uint64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// stageLines describe what every scenario is doing: the stage in progress and its
// target for a staged scenario, else its executor and progress.
func stageLines(status []engine.ScenarioStatus, scens []*scenario.Scenario) []string {
	var out []string
	for _, st := range status {
		var stages []scenario.Stage
		for _, sc := range scens {
			if sc.Name == st.Name {
				stages = sc.Stages
			}
		}
		out = append(out, stageLine(st, stages))
	}
	return out
}

func stageLine(st engine.ScenarioStatus, stages []scenario.Stage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): ", st.Name, st.Executor)
	switch {
	case st.Done:
		b.WriteString("done")
	case st.Elapsed <= 0 && st.VUs == 0:
		b.WriteString("not started")
	case len(stages) > 0:
		var end time.Duration
		idx := -1
		for i, s := range stages {
			end += s.Duration
			if st.Elapsed < end {
				idx = i
				break
			}
		}
		if idx < 0 {
			b.WriteString("stages done, graceful stop")
			break
		}
		fmt.Fprintf(&b, "stage %d of %d, to %s %s over %s", idx+1, len(stages), fmtNumber(stages[idx].Target), unitName(st.Unit), stages[idx].Duration)
	default:
		b.WriteString("running")
	}
	if !st.Done {
		fmt.Fprintf(&b, " · %s of %s · target %s %s · %d VUs", st.Elapsed.Round(time.Second), st.Duration.Round(time.Second), fmtNumber(st.Target), unitName(st.Unit), st.VUs)
	}
	fmt.Fprintf(&b, " · %d iterations", st.Iterations)
	return b.String()
}

// unitName is a target's unit as people read it.
func unitName(u string) string {
	if u == "iterations_per_second" {
		return "iterations/s"
	}
	return "VUs"
}

// fmtNumber writes n with at most two decimals and no trailing zeros.
func fmtNumber(n float64) string {
	if math.IsNaN(n) {
		return "—"
	}
	s := fmt.Sprintf("%.2f", n)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// cards are the headline values at the last point: the request rate over the last
// interval, the whole run's percentiles, failed requests, VUs, checks and iterations.
func cards(pts []point) []Card {
	last := pts[len(pts)-1]
	rate := math.NaN()
	if len(pts) > 1 {
		prev := pts[len(pts)-2]
		if dt := last.t.Sub(prev.t).Seconds(); dt > 0 {
			rate = (last.reqs - prev.reqs) / dt
		}
	}
	avg := math.NaN()
	if dt := last.t.Sub(pts[0].t).Seconds(); dt > 0 {
		avg = (last.reqs - pts[0].reqs) / dt
	}
	p := last.totalPercentiles
	fails := last.checksTotal - last.checksPass
	out := []Card{
		{ID: "http_reqs", Label: "Requests", Value: fmtNumber(last.reqs), Raw: last.reqs,
			Detail: fmt.Sprintf("%s/s now · %s/s average", fmtNumber(rate), fmtNumber(avg))},
		{ID: "http_req_duration", Label: "Request duration p95", Value: fmtMillis(p[2]), Raw: p[2] * 1000,
			Detail: fmt.Sprintf("p50 %s · p90 %s · p99 %s (whole run)", fmtMillis(p[0]), fmtMillis(p[1]), fmtMillis(p[3]))},
		{ID: "http_req_failed", Label: "Failed requests", Value: fmtPercent(ratio(last.failed, last.requests)), Raw: zeroNaN(ratio(last.failed, last.requests)),
			Detail: fmt.Sprintf("%d of %d (http_req_failed)", last.failed, last.requests)},
		{ID: "vus", Label: "VUs", Value: fmtNumber(last.vus), Raw: last.vus, Detail: "max " + fmtNumber(last.vusMax)},
		{ID: "checks", Label: "Checks passed", Value: fmtPercent(ratio(last.checksPass, last.checksTotal)), Raw: float64(last.checksPass),
			Detail: fmt.Sprintf("%d passes · %d fails", last.checksPass, fails)},
		{ID: "iterations", Label: "Iterations", Value: fmtNumber(last.iterations), Raw: last.iterations,
			Detail: fmt.Sprintf("data received %s · sent %s", fmtBytes(last.dataRecv), fmtBytes(last.dataSnt))},
	}
	return append(out, vitalCards(last.totalVitals)...)
}

// vitalCards are the whole run's Web Vitals at p75, each rated as web.dev rates it; none
// without browser VUs.
func vitalCards(vitals []float64) []Card {
	var out []Card
	for i, v := range webvital.Vitals() {
		if vitals == nil || math.IsNaN(vitals[i]) {
			continue
		}
		x := vitals[i]
		c := Card{ID: v.Metric, Label: strings.ToUpper(v.Short) + " p75", Raw: x,
			Detail: fmt.Sprintf("%s · %s (whole run)", strings.ReplaceAll(v.RateBase(x), "_", " "), v.Title)}
		if v.Timed {
			c.Value, c.Raw = fmtMillis(x), x*1000
		} else {
			c.Value = strconv.FormatFloat(x, 'f', 3, 64)
		}
		out = append(out, c)
	}
	return out
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// fmtMillis writes a duration in seconds as milliseconds, or seconds from 1 s up.
func fmtMillis(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case s >= 1:
		return fmtNumber(s) + " s"
	}
	return fmtNumber(s*1000) + " ms"
}

// fmtPercent writes a ratio as a percentage.
func fmtPercent(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return fmtNumber(r*100) + "%"
}

// fmtBytes writes a byte count in kB, MB or GB (powers of 1000, as k6).
func fmtBytes(b float64) string {
	for _, u := range []struct {
		unit string
		div  float64
	}{{"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if b >= u.div {
			return fmtNumber(b/u.div) + " " + u.unit
		}
	}
	return fmtNumber(b) + " B"
}
