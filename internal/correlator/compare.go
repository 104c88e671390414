package correlator

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
)

// Comparison is the same facts for several runs side by side (`tidemark compare`):
// story 1's 100 vs 50 RPS spike, story 3's 500m vs 1000m CPU limit.
type Comparison struct {
	SchemaVersion int             `json:"schema_version"`
	TestIDs       []string        `json:"testids"`
	Rows          []ComparisonRow `json:"rows"`
	// Capacity is each run's capacity verdict and what judged its stages, in TestIDs
	// order: the same text as the run's report.
	Capacity []CapacityVerdict `json:"capacity"`
}

// CapacityVerdict is one run's capacity verdict.
type CapacityVerdict struct {
	TestID string `json:"testid"`
	Text   string `json:"text"`
	Rule   string `json:"rule"`
}

// ComparisonRow is one fact across runs. Values has one entry per run, in TestIDs order;
// nil means the run does not have the fact (see that run's notes).
type ComparisonRow struct {
	Section string           `json:"section"`
	Object  string           `json:"object,omitempty"`
	Fact    string           `json:"fact"`
	Values  []*analysis.Fact `json:"values"`
}

// Compare lines up the facts of several results. Objects (HPAs, workloads, databases)
// are matched by name; a row exists when at least one run has the fact.
func Compare(results ...*Result) Comparison {
	c := Comparison{SchemaVersion: SchemaVersion}
	for _, r := range results {
		c.TestIDs = append(c.TestIDs, r.TestID)
		c.Capacity = append(c.Capacity, CapacityVerdict{TestID: r.TestID, Text: r.Load.Capacity.Text, Rule: r.Load.VerdictRule})
	}
	type key struct{ section, object, fact string }
	var order []key
	rows := map[key][]*analysis.Fact{}
	add := func(i int, section, object, fact string, f *analysis.Fact) {
		if f == nil {
			return
		}
		k := key{section, object, fact}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
			rows[k] = make([]*analysis.Fact, len(results))
		}
		rows[k][i] = f
	}
	count := func(v float64, unit string) *analysis.Fact { return &analysis.Fact{Value: v, Unit: unit} }
	for i, r := range results {
		l := r.Load
		add(i, "load", "", "requests", count(l.Requests, analysis.UnitCount))
		add(i, "load", "", "failures", count(l.Failures, analysis.UnitCount))
		add(i, "load", "", "error_rate", l.ErrorRate)
		add(i, "load", "", "dropped_iterations", count(l.Dropped, analysis.UnitCount))
		add(i, "load", "", "peak_request_rate", l.PeakRate)
		add(i, "load", "", "peak_vus", l.PeakVUs)
		add(i, "load", "", "p95", l.P95)
		if l.Capacity.LastHeld != nil {
			add(i, "load", "", "last_held_stage_target", count(l.Stages[*l.Capacity.LastHeld].EndTarget, l.Stages[*l.Capacity.LastHeld].Unit))
		}
		if l.Capacity.FirstBroke != nil {
			add(i, "load", "", "first_broken_stage_target", count(l.Stages[*l.Capacity.FirstBroke].EndTarget, l.Stages[*l.Capacity.FirstBroke].Unit))
		}
		for _, h := range r.Autoscaling {
			o := h.Object()
			add(i, "autoscaling", o, "baseline_replicas", h.Baseline)
			add(i, "autoscaling", o, "peak_replicas", h.Peak)
			add(i, "autoscaling", o, "reaction_from_load_step", h.ReactionFromLoadStep)
			add(i, "autoscaling", o, "reaction_from_crossing", h.ReactionFromCrossing)
			add(i, "autoscaling", o, "time_to_max", h.TimeToMax)
			add(i, "autoscaling", o, "held_at_max", h.HeldAtMax)
			add(i, "autoscaling", o, "max_ready_gap", h.LargestStartupGap())
			add(i, "autoscaling", o, "scale_in_delay", h.ScaleInDelay)
			add(i, "autoscaling", o, "recovery_after_load_end", h.RecoveryAfterLoadEnd)
		}
		for _, w := range r.CPU {
			o := w.Object()
			add(i, "cpu", o, "peak_usage_of_request", w.PeakUsageOfRequest)
			add(i, "cpu", o, "peak_usage_of_limit", w.PeakUsageOfLimit)
			add(i, "cpu", o, "peak_throttled_ratio", w.PeakThrottled)
			for _, on := range w.Onsets {
				name := fmt.Sprintf("throttled_over_%g%%", 100*on.Threshold)
				add(i, "cpu", o, name+"_vus", on.VUs)
				add(i, "cpu", o, name+"_request_rate", on.RequestRate)
			}
		}
		for _, d := range r.Database {
			add(i, "database", d.Instance, "cpu_peak_percent", d.CPUPeak)
			add(i, "database", d.Instance, "connections_peak", d.ConnectionsPeak)
			add(i, "database", d.Instance, "connections_growth", d.ConnectionsGrowth)
			add(i, "database", d.Instance, "freeable_memory_min", d.FreeableMin)
		}
		e := r.Errors
		add(i, "errors", "", "in_gap_share", e.InGapShare)
		add(i, "errors", "", "bursts", count(float64(len(e.Bursts)), analysis.UnitCount))
		if len(e.Bursts) > 0 {
			top := slices.MaxFunc(e.Bursts, func(a, b analysis.Burst) int { return cmp.Compare(a.Share, b.Share) })
			add(i, "errors", "", "largest_burst_share", count(top.Share, analysis.UnitRatio))
			add(i, "errors", "", "largest_burst_seconds", count(top.Duration().Round(time.Second).Seconds(), analysis.UnitSeconds))
		}
	}
	for _, k := range order {
		c.Rows = append(c.Rows, ComparisonRow{Section: k.section, Object: k.object, Fact: k.fact, Values: rows[k]})
	}
	return c
}
