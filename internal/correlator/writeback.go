package correlator

import (
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Names of the written-back series.
const (
	// EventMetric has one sample of value 1 per event, at the event's time, labelled
	// testid, kind and object: Grafana annotations and PromQL can use it.
	EventMetric = "tidemark_event"
	// FactPrefix starts the key facts' series, one sample at the run's end.
	FactPrefix = "tidemark_fact_"
)

// KeyFact is one key fact of a result: the name (without FactPrefix) and labels (without
// testid) of its tidemark_fact_* series, its value, unit and resolution.
type KeyFact struct {
	// Name is the series name without FactPrefix, e.g. "hpa_reaction_seconds".
	Name string `json:"name"`
	// Labels are the series' labels without testid and __name__: object, from, stage,
	// scenario, threshold, step, to … (empty for a run-wide fact).
	Labels map[string]string `json:"labels,omitempty"`
	Value  float64           `json:"value"`
	// Unit is the analysis.Unit* of the fact ("seconds", "ratio", "per_second", "vus",
	// "count" …).
	Unit string `json:"unit"`
	// ResolutionSeconds is the fact's own resolution (analysis.Fact.ResolutionSeconds):
	// the sample interval of its source; 0 when exact (counts).
	ResolutionSeconds float64 `json:"resolution_seconds"`
	// Resolution is the resolution in the fact's unit: the width of the interval the
	// true value lies in around Value, as far as the samples can tell.
	//   - spans in seconds (reactions, gaps, delays): ResolutionSeconds;
	//   - latencies (stage_p95_seconds): 0, the sample interval says nothing about a
	//     latency's precision;
	//   - stage_achieved_ratio: Value × 2·ResolutionSeconds ÷ the stage's length (each
	//     end of the stage is known to within one interval, so the achieved rate's
	//     window is);
	//   - throttling onset VUs and request rate: the range of the VUs (request rate)
	//     series within one cAdvisor interval before the onset, where the true onset
	//     lies (0 when the result has no chart series for them);
	//   - everything else (counts, replicas, ratios of counts, peaks): 0, no bound is
	//     derivable from the samples.
	Resolution float64 `json:"resolution"`
}

// Series returns the tidemark_fact_* label set of the fact for a run.
func (k KeyFact) Series(testID string) map[string]string {
	ls := make(map[string]string, len(k.Labels)+2)
	maps.Copy(ls, k.Labels)
	ls["__name__"] = FactPrefix + k.Name
	ls["testid"] = testID
	return ls
}

// KeyFacts returns the key facts of a result, in a fixed order (load, stages,
// autoscaling, CPU, database, errors): the facts written back as tidemark_fact_* and
// compared between runs. Facts the run does not have are left out.
func KeyFacts(r *Result) []KeyFact {
	var out []KeyFact
	fact := func(name string, f *analysis.Fact, resolution float64, labels ...string) {
		if f == nil {
			return
		}
		kf := KeyFact{Name: name, Value: f.Value, Unit: f.Unit, ResolutionSeconds: f.ResolutionSeconds, Resolution: resolution}
		if len(labels) > 0 {
			kf.Labels = map[string]string{}
			for i := 0; i+1 < len(labels); i += 2 {
				kf.Labels[labels[i]] = labels[i+1]
			}
		}
		out = append(out, kf)
	}
	// span facts: their resolution in seconds is their own.
	span := func(name string, f *analysis.Fact, labels ...string) {
		if f != nil {
			fact(name, f, f.ResolutionSeconds, labels...)
		}
	}
	exact := func(name string, f *analysis.Fact, labels ...string) { fact(name, f, 0, labels...) }
	count := func(v float64) *analysis.Fact { return &analysis.Fact{Value: v, Unit: analysis.UnitCount} }

	exact("requests_total", count(r.Load.Requests))
	exact("failures_total", count(r.Load.Failures))
	exact("error_ratio", r.Load.ErrorRate)
	exact("dropped_iterations_total", count(r.Load.Dropped))
	exact("peak_request_rate", r.Load.PeakRate)
	for _, st := range r.Load.Stages {
		idx := strconv.Itoa(st.Index)
		held := 0.0
		if st.Held {
			held = 1
		}
		exact("stage_held", count(held), "stage", idx, "scenario", st.Scenario)
		fact("stage_achieved_ratio", st.AchievedRatio, achievedResolution(st), "stage", idx, "scenario", st.Scenario)
		exact("stage_error_ratio", st.ErrorRate, "stage", idx, "scenario", st.Scenario)
		exact("stage_p95_seconds", st.P95, "stage", idx, "scenario", st.Scenario)
	}
	for _, h := range r.Autoscaling {
		o := h.Object()
		exact("hpa_baseline_replicas", h.Baseline, "object", o)
		exact("hpa_peak_replicas", h.Peak, "object", o)
		span("hpa_reaction_seconds", h.ReactionFromLoadStep, "object", o, "from", "load_step")
		span("hpa_reaction_seconds", h.ReactionFromCrossing, "object", o, "from", "metric_crossed")
		span("hpa_time_to_max_seconds", h.TimeToMax, "object", o)
		span("hpa_held_at_max_seconds", h.HeldAtMax, "object", o)
		span("hpa_scale_in_delay_seconds", h.ScaleInDelay, "object", o)
		span("hpa_recovery_seconds", h.RecoveryAfterLoadEnd, "object", o)
		for i, st := range h.Steps {
			span("hpa_ready_gap_seconds", st.ReadyGap, "object", o, "step", strconv.Itoa(i), "to", strconv.FormatFloat(st.To, 'f', -1, 64))
		}
	}
	for _, w := range r.CPU {
		o := w.Object()
		exact("cpu_peak_throttled_ratio", w.PeakThrottled, "object", o)
		exact("cpu_peak_usage_of_limit_ratio", w.PeakUsageOfLimit, "object", o)
		for _, on := range w.Onsets {
			th := fmt.Sprintf("%g", on.Threshold)
			fact("throttling_onset_vus", on.VUs, onsetResolution(r, analysis.QVUs, on), "object", o, "threshold", th)
			fact("throttling_onset_request_rate", on.RequestRate, onsetResolution(r, analysis.QHTTPReqRate, on), "object", o, "threshold", th)
		}
	}
	for _, d := range r.Database {
		exact("db_connections_growth", d.ConnectionsGrowth, "object", d.Instance)
		exact("db_cpu_peak_percent", d.CPUPeak, "object", d.Instance)
	}
	exact("errors_in_gap_ratio", r.Errors.InGapShare)
	return out
}

// achievedResolution bounds a stage's achieved ratio: the rate is counted over the stage,
// whose ends are each known to within the fact's resolution.
func achievedResolution(st analysis.StageFacts) float64 {
	f := st.AchievedRatio
	if f == nil {
		return 0
	}
	d := st.To.Sub(st.From).Seconds()
	if d <= 0 || f.ResolutionSeconds <= 0 {
		return 0
	}
	return min(f.Value*2*f.ResolutionSeconds/d, f.Value)
}

// onsetResolution bounds the load read at a throttling onset: the onset happened within
// one interval (of the throttling source) before the sample that showed it, and the load
// took every value of its series over that interval.
func onsetResolution(r *Result, q string, on analysis.Onset) float64 {
	if on.At == nil || on.At.ResolutionSeconds <= 0 || len(r.Series[q]) == 0 {
		return 0
	}
	res := time.Duration(on.At.ResolutionSeconds * float64(time.Second))
	s := r.Series[q].Sum(res)
	lo, hi, _, ok := timeline.Stats(s.Between(timeline.Window{From: on.At.At.Add(-res), To: on.At.At}))
	if !ok {
		return 0
	}
	return hi - lo
}

// WriteBack returns the events and key facts of a result as series to write back to
// Prometheus (remote write): tidemark_event{testid,kind,object} and tidemark_fact_*
// (KeyFacts, one sample at the run's end). Every series carries testid; facts the run
// does not have produce no series.
func WriteBack(r *Result) []timeline.Series {
	var out []timeline.Series
	for _, e := range r.Events {
		out = append(out, timeline.Series{
			Labels: map[string]string{"__name__": EventMetric, "testid": r.TestID, "kind": e.Kind, "object": e.Object},
			Points: []timeline.Point{{T: e.At, V: 1}},
		})
	}
	at := r.Window.Run.To
	for _, k := range KeyFacts(r) {
		out = append(out, timeline.Series{Labels: k.Series(r.TestID), Points: []timeline.Point{{T: at, V: k.Value}}})
	}
	return out
}
