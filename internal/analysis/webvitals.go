package analysis

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
	"github.com/tidemark/tidemark/internal/webvital"
)

// Query names of the Web Vitals (browser VUs): k6's trend gauges of each timed vital
// (label vital) and of CLS, by stat (p75, p95, p99: those the run was written with; k6's
// default is p99 alone). A catalog without them correlates without the gauges.
const (
	QWebVitalsGauge   = "web_vitals_gauge"
	QWebVitalCLSGauge = "web_vital_cls_gauge"
)

// gaugeStats are the trend stats of the gauges (label stat) read, in the order reported:
// p75 (Google's assessment percentile), p95 (Tidemark's default), p99 (k6's default).
func gaugeStats() []string { return []string{"p75", "p95", "p99"} }

// Where a Web Vital statistic was read from (VitalStat.Source).
const (
	// VitalHistogram: the native histogram's quantile over the stage (or run) alone.
	VitalHistogram = "histogram"
	// VitalCumulative: k6's trend gauge at the stage's end, cumulative since the run
	// started (without native histograms).
	VitalCumulative = "cumulative"
)

// WebVitalQuantiles are the quantiles read from the native histograms: p75, Google's
// assessment percentile, and p95.
func WebVitalQuantiles() []float64 { return []float64{0.75, 0.95} }

// WebVitalSet names the timeline set of a vital's quantile q over one stage's window
// (stage index ≥ 0) or over the whole run (stage −1), which the correlator fills from
// the native histograms: one point at the window's end.
func WebVitalSet(metric string, q float64, stage int) string {
	w := "run"
	if stage >= 0 {
		w = "stage/" + strconv.Itoa(stage)
	}
	return "web_vital/" + metric + "/" + QuantileStat(q) + "/" + w
}

// VitalStat is one statistic of one Web Vital.
type VitalStat struct {
	// Metric is k6's name, e.g. browser_web_vital_lcp; Stat the statistic, p(75) or p(95).
	Metric string `json:"metric"`
	Stat   string `json:"stat"`
	// Value is in seconds for timed vitals, a score (UnitScore) for CLS.
	Value *Fact `json:"value"`
	// Rating is the value rated by Google's thresholds: good, needs_improvement, poor.
	Rating string `json:"rating"`
	Source string `json:"source"`
}

// StageVitals are the Web Vitals measured while one stage of the load ran.
type StageVitals struct {
	// Stage is the index of the stage in Load.Stages.
	Stage    int    `json:"stage"`
	Scenario string `json:"scenario"`
	// NotReady is the most replicas any time in the stage that the Deployments wanted
	// (spec, which the HPA sets) and did not have Ready, summed over the Deployments.
	NotReady *Fact       `json:"not_ready,omitempty"`
	Vitals   []VitalStat `json:"vitals"`
}

// WebVitals are the browser VUs' Web Vitals: over the whole run and per stage of the
// load. Absent (nil) when the run had no browser metrics.
type WebVitals struct {
	Run    []VitalStat   `json:"run"`
	Stages []StageVitals `json:"stages"`
}

// Vital returns the statistic of a metric and stat, or nil.
func Vital(stats []VitalStat, metric, stat string) *VitalStat {
	for i := range stats {
		if stats[i].Metric == metric && stats[i].Stat == stat {
			return &stats[i]
		}
	}
	return nil
}

// AnalyzeWebVitals reads the Web Vitals of the run and of each stage of the load: from
// the native histograms (WebVitalSet) when the correlator found them, else from k6's
// cumulative trend gauges (p75, p95 and p99, those the run wrote) at the window's end. Stages of a scenario that itself wrote Web
// Vitals (the browser scenario) are left out when other scenarios' stages exist: the
// vitals are read per stage of the load the other scenarios put on. It returns nil
// when the run has no Web Vitals.
func AnalyzeWebVitals(tl *timeline.Timeline, load Load) *WebVitals {
	res := tl.Res(SourceK6)
	// The gauges by vital and stat: one series per scenario that wrote it.
	type key struct{ metric, stat string }
	gauges := map[key]timeline.Set{}
	for _, s := range tl.Set(QWebVitalsGauge) {
		if v, ok := webvital.ByShort(s.Label("vital")); ok && !s.Empty() {
			k := key{v.Metric, s.Label("stat")}
			gauges[k] = append(gauges[k], s)
		}
	}
	for _, s := range tl.Set(QWebVitalCLSGauge) {
		if !s.Empty() {
			k := key{"browser_web_vital_cls", s.Label("stat")}
			gauges[k] = append(gauges[k], s)
		}
	}
	read := func(stage int, at time.Time) []VitalStat {
		var out []VitalStat
		for _, v := range webvital.Vitals() {
			unit := UnitSeconds
			if !v.Timed {
				unit = UnitScore
			}
			found := false
			for _, q := range WebVitalQuantiles() {
				name := WebVitalSet(v.Metric, q, stage)
				h := tl.Set(name).First()
				if x, ok := h.At(at, time.Second); ok && !math.IsNaN(x) {
					out = append(out, VitalStat{Metric: v.Metric, Stat: QuantileStat(q), Value: value(x, unit, at, res, ev(name, h, at)),
						Rating: v.RateBase(x), Source: VitalHistogram})
					found = true
				}
			}
			if found {
				continue
			}
			// Each stat's worst scenario gauge.
			q := QWebVitalsGauge
			if !v.Timed {
				q = QWebVitalCLSGauge
			}
			for _, stat := range gaugeStats() {
				var worst *Fact
				for _, g := range gauges[key{v.Metric, stat}] {
					if x, ok := g.At(at, 2*res); ok && !math.IsNaN(x) && (worst == nil || x > worst.Value) {
						worst = value(x, unit, at, res, ev(q, g, at))
					}
				}
				if worst != nil {
					out = append(out, VitalStat{Metric: v.Metric, Stat: "p(" + strings.TrimPrefix(stat, "p") + ")", Value: worst, Rating: v.RateBase(worst.Value), Source: VitalCumulative})
				}
			}
		}
		return out
	}
	wv := &WebVitals{Run: read(-1, tl.Run.To)}
	if len(wv.Run) == 0 {
		return nil
	}
	browser := BrowserScenarios(tl)
	others := false
	for _, st := range load.Stages {
		others = others || !browser[st.Scenario]
	}
	for _, st := range load.Stages {
		if others && browser[st.Scenario] {
			continue
		}
		if st.Duration() <= 0 {
			continue
		}
		sv := StageVitals{Stage: st.Index, Scenario: st.Scenario, NotReady: notReady(tl, st.Window), Vitals: read(st.Index, st.To)}
		if len(sv.Vitals) > 0 {
			wv.Stages = append(wv.Stages, sv)
		}
	}
	return wv
}

// notReady is the most replicas wanted and not Ready in the window, summed over the
// Deployments (QDeploymentSpec − QDeploymentReady), or nil without both.
func notReady(tl *timeline.Timeline, w timeline.Window) *Fact {
	spec, ready := tl.Set(QDeploymentSpec), tl.Set(QDeploymentReady)
	if len(spec) == 0 || len(ready) == 0 {
		return nil
	}
	res := tl.Res(SourceKSM)
	var best *Fact
	for t := w.From; !t.After(w.To); t = t.Add(res) {
		var gap float64
		for _, s := range spec {
			want, ok := s.At(t, 2*res)
			if !ok {
				continue
			}
			m := ready.Match(map[string]string{"namespace": s.Label("namespace"), "deployment": s.Label("deployment")})
			have, ok := m.First().At(t, 2*res)
			if !ok {
				continue
			}
			gap += math.Max(0, want-have)
		}
		if best == nil || gap > best.Value {
			best = value(gap, UnitReplicas, t, res, Evidence{Query: QDeploymentSpec, Times: []time.Time{t}}, Evidence{Query: QDeploymentReady, Times: []time.Time{t}})
		}
	}
	return best
}
