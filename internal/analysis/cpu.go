package analysis

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/timeline"
)

// Onset is the first moment a workload's throttled ratio exceeded a threshold, and the
// load at that moment.
type Onset struct {
	Threshold   float64 `json:"threshold"`
	At          *Fact   `json:"at"`
	Ratio       float64 `json:"ratio"`
	RequestRate *Fact   `json:"request_rate,omitempty"`
	VUs         *Fact   `json:"vus,omitempty"`
	Target      *Fact   `json:"target,omitempty"`
}

// HoldThrottling is one hold of the load (a stage at a constant target) and the share of
// the workload's active CFS periods that were throttled during it.
type HoldThrottling struct {
	// Stage is the hold's index in Load.Stages.
	Stage int `json:"stage"`
	// Target is the hold's configured target (VUs or iterations/s, as Unit says).
	Target float64 `json:"target"`
	Unit   string  `json:"unit"`
	// Share is throttled ÷ active periods over the hold, from the rates whose window lies
	// inside it (the first rate window after the hold's start reaches back into the ramp
	// and is left out). Its At is the end of the hold.
	Share *Fact `json:"share"`
	// RequestRate is the achieved request rate of the hold.
	RequestRate *Fact `json:"request_rate,omitempty"`
}

// WorkloadCPU holds the CPU facts of one workload (Deployment). Per-pod values are the
// average over the workload's pods.
type WorkloadCPU struct {
	Namespace string `json:"namespace"`
	Workload  string `json:"workload"`
	Request   *Fact  `json:"request_cores,omitempty"`
	Limit     *Fact  `json:"limit_cores,omitempty"`
	// HPATarget is the HPA's CPU target in cores per pod (target utilization × request).
	HPATarget *Fact `json:"hpa_target_cores,omitempty"`
	// PeakUsage is the highest average per-pod CPU.
	PeakUsage *Fact `json:"peak_usage_cores,omitempty"`
	// PeakUsageOfLimit is PeakUsage ÷ Limit.
	PeakUsageOfLimit *Fact `json:"peak_usage_of_limit,omitempty"`
	// PeakUsageOfRequest is PeakUsage ÷ Request: the utilization an HPA compares with its target.
	PeakUsageOfRequest *Fact `json:"peak_usage_of_request,omitempty"`
	// NoLimit: no CPU limit and no CFS series, so the workload cannot be throttled.
	NoLimit bool `json:"no_limit"`
	// PeakThrottled is the highest throttled ÷ active periods ratio.
	PeakThrottled *Fact `json:"peak_throttled_ratio,omitempty"`
	// Onsets are the first moments the throttled ratio (a rate over two scrapes) stayed
	// above each of the catalog's throttle_onsets.
	Onsets []Onset `json:"onsets,omitempty"`
	// Holds is the throttled share of the active CFS periods of every hold of the load,
	// in order: the evidence of StageOnset.
	Holds []HoldThrottling `json:"holds,omitempty"`
	// StageOnset is the throttling onset: the first hold throttled in more than the
	// catalog's throttle_stage_onset share of its active CFS periods. Nil when no hold
	// reached it (or the load had no holds).
	StageOnset *HoldThrottling `json:"stage_onset,omitempty"`
	// StageOnsetShare is the share StageOnset is judged by (Config.ThrottleStageOnset).
	StageOnsetShare float64 `json:"stage_onset_share,omitempty"`
	// UsageOfLimitWhileThrottled is the mean usage ÷ limit while throttled > the highest onset threshold.
	UsageOfLimitWhileThrottled *Fact `json:"usage_of_limit_while_throttled,omitempty"`
	// Usage is the average per-pod CPU over time, for charts.
	Usage timeline.Series `json:"usage"`
	// Throttled is the throttled ratio over time, for charts.
	Throttled timeline.Series `json:"throttled"`
}

// Object names the workload as namespace/workload.
func (w WorkloadCPU) Object() string { return w.Namespace + "/" + w.Workload }

// AnalyzeCPU derives the CPU facts of every workload that has pods in the timeline.
func AnalyzeCPU(tl *timeline.Timeline, load Load, hpas []HPA, cfg Config) ([]WorkloadCPU, []Event, []Note) {
	var (
		out    []WorkloadCPU
		events []Event
		notes  []Note
	)
	res := tl.Res(SourceCAdvisor)
	span := tl.Span()
	type key struct{ ns, wl string }
	var keys []key
	seen := map[key]bool{}
	for _, q := range []string{QCPUUsagePod, QCPURequestPod, QCPULimitPod, QCPUThrottled} {
		for _, s := range tl.Set(q) {
			k := key{s.Label("namespace"), s.Label("workload")}
			if k.wl != "" && !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(tl.Set(QCPUUsagePod)) == 0 {
		notes = append(notes, note(NoteMissing, "cpu", "", "no container_cpu_usage_seconds_total joined to a Deployment in the window — is cAdvisor scraped, and kube_pod_owner/kube_replicaset_owner from kube-state-metrics?"))
	}
	for _, k := range keys {
		w := WorkloadCPU{Namespace: k.ns, Workload: k.wl}
		m := map[string]string{"namespace": k.ns, "workload": k.wl}
		usage := tl.Set(QCPUUsagePod).Match(m)
		w.Usage = avgSeries(usage, res)
		w.Usage.Labels = m
		if p, ok := timeline.ArgMax(w.Usage.Between(span)); ok {
			w.PeakUsage = value(p.V, UnitCores, p.T, res, Evidence{Query: QCPUUsagePod, Series: timeline.LabelString(m), Times: []time.Time{p.T}})
		}
		if s := tl.Set(QCPURequestPod).Match(m); len(s) > 0 {
			_, hi, _, _ := timeline.Stats(s.First().Points)
			w.Request = value(hi, UnitCores, time.Time{}, tl.Res(SourceKSM), ev(QCPURequestPod, s.First()))
		}
		limits := tl.Set(QCPULimitPod).Match(m)
		if len(limits) > 0 {
			_, hi, _, _ := timeline.Stats(limits.First().Points)
			w.Limit = value(hi, UnitCores, time.Time{}, tl.Res(SourceKSM), ev(QCPULimitPod, limits.First()))
		}
		for _, h := range hpas {
			if h.Namespace == k.ns && h.Deployment == k.wl && h.TargetValue != nil && h.TargetValue.Unit == "utilization" && w.Request != nil {
				w.HPATarget = value(h.TargetValue.Value/100*w.Request.Value, UnitCores, time.Time{}, tl.Res(SourceKSM), append(h.TargetValue.Evidence, w.Request.Evidence...)...)
			}
		}
		if w.PeakUsage != nil && w.Request != nil && w.Request.Value > 0 {
			w.PeakUsageOfRequest = value(w.PeakUsage.Value/w.Request.Value, UnitRatio, w.PeakUsage.At, res, append(w.PeakUsage.Evidence, w.Request.Evidence...)...)
		}
		if w.PeakUsage != nil && w.Limit != nil && w.Limit.Value > 0 {
			w.PeakUsageOfLimit = value(w.PeakUsage.Value/w.Limit.Value, UnitRatio, w.PeakUsage.At, res, w.PeakUsage.Evidence...)
		}
		thr := tl.Set(QCPUThrottled).Match(m).First()
		periods := tl.Set(QCPUCFSPeriods).Match(m)
		if thr.Empty() && len(periods) == 0 {
			if len(limits) == 0 {
				w.NoLimit = true
				notes = append(notes, note(NoteInfo, "cpu", w.Object(), "no CPU limit set: cannot throttle (no container_cpu_cfs_* series)"))
			} else {
				notes = append(notes, note(NoteMissing, "cpu", w.Object(), "a CPU limit is set but there are no container_cpu_cfs_* series — is cAdvisor scraped with CFS metrics?"))
			}
			out = append(out, w)
			continue
		}
		w.Throttled = thr
		w.Throttled.Labels = m
		if p, ok := timeline.ArgMax(thr.Between(span)); ok {
			w.PeakThrottled = value(p.V, UnitRatio, p.T, res, ev(QCPUThrottled, thr, p.T))
		}
		for _, level := range cfg.ThrottleOnsets {
			ps := thr.Between(tl.Run)
			p, i, ok := sustainedFrom(ps, func(v float64) bool { return v > level })
			if !ok {
				continue
			}
			o := Onset{Threshold: level, Ratio: p.V, At: instant(p.T, res, ev(QCPUThrottled, thr, prevTime(ps, i), p.T))}
			o.RequestRate = at(tl, QHTTPReqRate, p.T, UnitPerSec, tl.Res(SourceK6))
			// The load at the onset: browser scenarios' VUs and targets left out.
			targets, _ := loadTargets(tl)
			o.VUs = atSet(timeline.Set{loadVUs(tl, tl.Res(SourceK6))}, QVUs, p.T, UnitVUs, tl.Res(SourceK6))
			o.Target = atSet(targets, QScenarioTarget, p.T, "", tl.Res(SourceK6))
			w.Onsets = append(w.Onsets, o)
			text := fmt.Sprintf("throttled > %.0f%%", 100*level)
			if o.RequestRate != nil {
				text += fmt.Sprintf(" at %.1f req/s", o.RequestRate.Value)
			}
			if o.VUs != nil {
				text += fmt.Sprintf(", %.0f VUs", o.VUs.Value)
			}
			events = append(events, Event{At: p.T, Kind: EventThrottlingOnset, Object: w.Object(), Text: text, ResolutionSeconds: res.Seconds()})
		}
		w.StageOnsetShare = cfg.ThrottleStageOnset
		w.Holds = holdThrottling(load, thr, periods.First(), res, cfg)
		for i := range w.Holds {
			if h := &w.Holds[i]; cfg.ThrottleStageOnset > 0 && h.Share.Value > cfg.ThrottleStageOnset {
				w.StageOnset = h
				break
			}
		}
		if len(w.Onsets) > 0 {
			if n, ok := lagNote(cfg.RateWindows); ok {
				notes = append(notes, note(NoteInfo, "cpu", w.Object(), "%s", n))
			}
		}
		if w.Limit != nil && w.Limit.Value > 0 && len(cfg.ThrottleOnsets) > 0 {
			top := cfg.ThrottleOnsets[len(cfg.ThrottleOnsets)-1]
			var sum float64
			var n int
			for _, p := range thr.Between(tl.Run) {
				if p.V <= top {
					continue
				}
				if u, ok := w.Usage.At(p.T, 2*res); ok {
					sum += u / w.Limit.Value
					n++
				}
			}
			if n > 0 {
				w.UsageOfLimitWhileThrottled = value(sum/float64(n), UnitRatio, time.Time{}, res, ev(QCPUThrottled, thr), Evidence{Query: QCPUUsagePod, Series: timeline.LabelString(m)})
			}
		}
		out = append(out, w)
	}
	return out, events, notes
}

// holdMinPoints is the fewest throttled-ratio samples a hold needs inside it (past its
// first rate window) for its share to be reported: fewer are one or two rate windows,
// which a single burst of CFS periods decides.
const holdMinPoints = 3

// holdThrottling returns the throttled share of the active CFS periods of every hold of
// the load (a stage at a constant, non-zero target that starts before the load ends), in
// order. The share is the mean of the throttled ratio weighted by the active periods at
// each point (so a pod that was idle counts for less), over the points whose rate window
// lies inside the hold. A hold with fewer than holdMinPoints such points has no share.
func holdThrottling(load Load, thr, periods timeline.Series, res time.Duration, cfg Config) []HoldThrottling {
	window := cfg.RateWindows[SourceCAdvisor]
	if window <= 0 {
		window = 2 * res
	}
	var out []HoldThrottling
	for i := range load.Stages {
		s := &load.Stages[i]
		if s.Kind != timeline.Hold || s.EndTarget <= 0 || (!load.LoadEnd.IsZero() && !s.From.Before(load.LoadEnd)) {
			continue
		}
		inside := timeline.Window{From: s.From.Add(window), To: s.To}
		var sum, weight float64
		var n int
		var times []time.Time
		for _, p := range thr.Between(inside) {
			if math.IsNaN(p.V) {
				continue
			}
			w := 1.0
			if !periods.Empty() {
				v, ok := periods.At(p.T, 2*res)
				if !ok {
					continue
				}
				w = v
			}
			sum += p.V * w
			weight += w
			n++
			times = append(times, p.T)
		}
		if n < holdMinPoints || weight <= 0 {
			continue
		}
		evidence := []Evidence{{Query: QCPUThrottled, Series: thr.String(), Times: []time.Time{times[0], times[n-1]}}}
		if !periods.Empty() {
			evidence = append(evidence, Evidence{Query: QCPUCFSPeriods, Series: periods.String(), Times: []time.Time{times[0], times[n-1]}})
		}
		out = append(out, HoldThrottling{
			Stage: s.Index, Target: s.EndTarget, Unit: s.Unit,
			Share:       value(sum/weight, UnitRatio, s.To, res, evidence...),
			RequestRate: s.RequestRate,
		})
	}
	return out
}

// Throttling counts as begun when the ratio stays above the onset threshold for
// onsetPoints samples in a row spanning at least onsetSpan: one burst of CFS periods in a
// rate window of two scrapes (twenty 100 ms periods at a 1 s scrape) is not an onset.
const (
	onsetPoints = 3
	onsetSpan   = 10 * time.Second
)

// sustainedFrom returns the first point from which above holds for onsetPoints samples
// spanning onsetSpan, or a run of them that lasts to the end of ps.
func sustainedFrom(ps []timeline.Point, above func(float64) bool) (timeline.Point, int, bool) {
	for i := 0; i < len(ps); i++ {
		if !above(ps[i].V) {
			continue
		}
		j := i
		for j < len(ps) && above(ps[j].V) {
			j++
		}
		if j-i >= onsetPoints && (ps[j-1].T.Sub(ps[i].T) >= onsetSpan || j == len(ps)) {
			return ps[i], i, true
		}
		i = j
	}
	return timeline.Point{}, -1, false
}

// lagNote says how late the rates an onset is read from are: a rate() over a window is
// about the mean rate over it, so it names the moment about half the window earlier.
// ok is false when neither window is known.
func lagNote(windows map[string]time.Duration) (string, bool) {
	thr, req := windows[SourceCAdvisor], windows[SourceK6]
	var parts []string
	if thr > 0 {
		parts = append(parts, "throttling ratios are rate() over "+model.Duration(thr).String()+" (two cAdvisor scrapes)")
	}
	if req > 0 {
		parts = append(parts, "request rates over "+model.Duration(req).String()+" (two k6 pushes)")
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, ", ") + ": each lags the moment by about half its window", true
}

// at reads the sum of a query's series at t.
func at(tl *timeline.Timeline, q string, t time.Time, unit string, res time.Duration) *Fact {
	return atSet(tl.Set(q), q, t, unit, res)
}

// atSet reads the sum of set's series (of query q) at t; unit "" is the first series'
// unit label.
func atSet(set timeline.Set, q string, t time.Time, unit string, res time.Duration) *Fact {
	if len(set) == 0 || set.First().Empty() && len(set) == 1 {
		return nil
	}
	v, ok := set.Sum(2*res).At(t, 2*res)
	if !ok {
		return nil
	}
	if unit == "" {
		unit = set.First().Label("unit")
	}
	return value(v, unit, t, res, Evidence{Query: q, Series: set.First().String(), Times: []time.Time{t}})
}

// avgSeries averages series point-wise (mean over the series present at each time).
func avgSeries(set timeline.Set, res time.Duration) timeline.Series {
	if len(set) == 0 {
		return timeline.Series{}
	}
	sum := set.Sum(2 * res)
	out := timeline.Series{Labels: map[string]string{}}
	for _, p := range sum.Points {
		n := 0
		for _, s := range set {
			if _, ok := s.At(p.T, 2*res); ok {
				n++
			}
		}
		if n > 0 {
			out.Points = append(out.Points, timeline.Point{T: p.T, V: p.V / float64(n)})
		}
	}
	return out
}
