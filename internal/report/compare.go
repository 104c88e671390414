package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/internal/correlator"
)

// FromComparison turns facts of several runs into a document with one column per run.
// results are the correlated runs in the comparison's order, for their windows and
// notes. With [WithRegressions] (regress.Detect of each later run against the first, as
// `tidemark compare` does), the changes come first and every fact row that changed says
// so in a last column.
func FromComparison(c correlator.Comparison, results []*correlator.Result, opts ...Option) *Document {
	o := applyOptions(opts)
	d := &Document{Title: "Tidemark comparison"}
	if s, ok := regressionsSection(o.changes, true); ok {
		d.Sections = append(d.Sections, s)
	}
	cols := append([]string{"Section", "Object", "Fact"}, c.TestIDs...)
	marks := map[rowKey][]string{}
	for _, ch := range o.changes {
		if k, ok := comparisonRow(ch.Fact); ok {
			kind := "improvement"
			if ch.Regression {
				kind = "regression"
			}
			marks[k] = append(marks[k], ch.TestID+": "+kind+" "+ch.DeltaText())
		}
	}
	if len(o.changes) > 0 {
		cols = append(cols, "Change vs "+c.TestIDs[0])
	}
	byTitle := map[string]int{}
	for _, row := range c.Rows {
		i, ok := byTitle[row.Section]
		if !ok {
			i = len(d.Sections)
			byTitle[row.Section] = i
			d.Sections = append(d.Sections, Section{Title: row.Section, Tables: []Table{{Columns: cols}}})
		}
		cells := []string{row.Section, row.Object, row.Fact}
		for _, f := range row.Values {
			cells = append(cells, FormatFact(f))
		}
		if len(o.changes) > 0 {
			cells = append(cells, strings.Join(marks[rowKey{row.Section, row.Object, row.Fact}], "; "))
		}
		d.Sections[i].Tables[0].Rows = append(d.Sections[i].Tables[0].Rows, cells)
	}
	capacity := Section{Title: "capacity", Tables: []Table{{Columns: []string{"Run", "Capacity", "Judged by"}}}}
	for _, v := range c.Capacity {
		capacity.Tables[0].Rows = append(capacity.Tables[0].Rows, []string{v.TestID, v.Text, v.Rule})
	}
	if len(c.Capacity) > 0 {
		d.Sections = append(d.Sections, capacity)
	}
	for _, r := range results {
		d.Subtitle += r.TestID + ": " + fmtTime(r.Window.Run.From) + " → " + fmtTime(r.Window.Run.To) + " UTC. "
		for _, n := range r.Notes {
			d.Notes = append(d.Notes, r.TestID+": "+n.Text)
		}
	}
	return d
}

// rowKey names a row of a comparison.
type rowKey struct{ section, object, fact string }

// comparisonRow is the comparison row (correlator.Compare) showing a key fact, when
// there is one: stage facts and per-step start-up gaps have none (the regressions
// section lists them).
func comparisonRow(f correlator.KeyFact) (rowKey, bool) {
	o := f.Labels["object"]
	simple := map[string]rowKey{
		"failures_total":                {"load", "", "failures"},
		"error_ratio":                   {"load", "", "error_rate"},
		"dropped_iterations_total":      {"load", "", "dropped_iterations"},
		"peak_request_rate":             {"load", "", "peak_request_rate"},
		"hpa_time_to_max_seconds":       {"autoscaling", o, "time_to_max"},
		"hpa_held_at_max_seconds":       {"autoscaling", o, "held_at_max"},
		"hpa_scale_in_delay_seconds":    {"autoscaling", o, "scale_in_delay"},
		"hpa_recovery_seconds":          {"autoscaling", o, "recovery_after_load_end"},
		"cpu_peak_throttled_ratio":      {"cpu", o, "peak_throttled_ratio"},
		"cpu_peak_usage_of_limit_ratio": {"cpu", o, "peak_usage_of_limit"},
		"db_connections_growth":         {"database", o, "connections_growth"},
		"db_cpu_peak_percent":           {"database", o, "cpu_peak_percent"},
		"errors_in_gap_ratio":           {"errors", "", "in_gap_share"},
	}
	if k, ok := simple[f.Name]; ok {
		return k, true
	}
	switch f.Name {
	case "hpa_reaction_seconds":
		if f.Labels["from"] == "metric_crossed" {
			return rowKey{"autoscaling", o, "reaction_from_crossing"}, true
		}
		return rowKey{"autoscaling", o, "reaction_from_load_step"}, true
	case "throttling_onset_vus", "throttling_onset_request_rate":
		th, err := strconv.ParseFloat(f.Labels["threshold"], 64)
		if err != nil {
			return rowKey{}, false
		}
		suffix := "_vus"
		if f.Name == "throttling_onset_request_rate" {
			suffix = "_request_rate"
		}
		return rowKey{"cpu", o, fmt.Sprintf("throttled_over_%g%%", 100*th) + suffix}, true
	}
	return rowKey{}, false
}
