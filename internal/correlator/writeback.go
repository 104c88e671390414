package correlator

import (
	"fmt"
	"strconv"

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

// WriteBack returns the events and key facts of a result as series to write back to
// Prometheus (remote write): tidemark_event{testid,kind,object} and tidemark_fact_*.
// Every series carries testid; facts the run does not have produce no series.
func WriteBack(r *Result) []timeline.Series {
	var out []timeline.Series
	for _, e := range r.Events {
		out = append(out, timeline.Series{
			Labels: map[string]string{"__name__": EventMetric, "testid": r.TestID, "kind": e.Kind, "object": e.Object},
			Points: []timeline.Point{{T: e.At, V: 1}},
		})
	}
	at := r.Window.Run.To
	fact := func(name string, f *analysis.Fact, labels ...string) {
		if f == nil {
			return
		}
		ls := map[string]string{"__name__": FactPrefix + name, "testid": r.TestID}
		for i := 0; i+1 < len(labels); i += 2 {
			ls[labels[i]] = labels[i+1]
		}
		out = append(out, timeline.Series{Labels: ls, Points: []timeline.Point{{T: at, V: f.Value}}})
	}
	count := func(v float64) *analysis.Fact { return &analysis.Fact{Value: v} }
	fact("requests_total", count(r.Load.Requests))
	fact("failures_total", count(r.Load.Failures))
	fact("error_ratio", r.Load.ErrorRate)
	fact("dropped_iterations_total", count(r.Load.Dropped))
	fact("peak_request_rate", r.Load.PeakRate)
	for _, st := range r.Load.Stages {
		idx := strconv.Itoa(st.Index)
		held := 0.0
		if st.Held {
			held = 1
		}
		fact("stage_held", count(held), "stage", idx, "scenario", st.Scenario)
		fact("stage_achieved_ratio", st.AchievedRatio, "stage", idx, "scenario", st.Scenario)
		fact("stage_error_ratio", st.ErrorRate, "stage", idx, "scenario", st.Scenario)
		fact("stage_p95_seconds", st.P95, "stage", idx, "scenario", st.Scenario)
	}
	for _, h := range r.Autoscaling {
		o := h.Object()
		fact("hpa_baseline_replicas", h.Baseline, "object", o)
		fact("hpa_peak_replicas", h.Peak, "object", o)
		fact("hpa_reaction_seconds", h.ReactionFromLoadStep, "object", o, "from", "load_step")
		fact("hpa_reaction_seconds", h.ReactionFromCrossing, "object", o, "from", "metric_crossed")
		fact("hpa_time_to_max_seconds", h.TimeToMax, "object", o)
		fact("hpa_held_at_max_seconds", h.HeldAtMax, "object", o)
		fact("hpa_scale_in_delay_seconds", h.ScaleInDelay, "object", o)
		fact("hpa_recovery_seconds", h.RecoveryAfterLoadEnd, "object", o)
		for i, st := range h.Steps {
			fact("hpa_ready_gap_seconds", st.ReadyGap, "object", o, "step", strconv.Itoa(i), "to", strconv.FormatFloat(st.To, 'f', -1, 64))
		}
	}
	for _, w := range r.CPU {
		o := w.Object()
		fact("cpu_peak_throttled_ratio", w.PeakThrottled, "object", o)
		fact("cpu_peak_usage_of_limit_ratio", w.PeakUsageOfLimit, "object", o)
		for _, on := range w.Onsets {
			th := fmt.Sprintf("%g", on.Threshold)
			fact("throttling_onset_vus", on.VUs, "object", o, "threshold", th)
			fact("throttling_onset_request_rate", on.RequestRate, "object", o, "threshold", th)
		}
	}
	for _, d := range r.Database {
		fact("db_connections_growth", d.ConnectionsGrowth, "object", d.Instance)
		fact("db_cpu_peak_percent", d.CPUPeak, "object", d.Instance)
	}
	fact("errors_in_gap_ratio", r.Errors.InGapShare)
	return out
}
