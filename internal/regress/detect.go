package regress

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
)

// RegressionMetric is the exporter's gauge of the changes of a run:
// tidemark_fact_regression{testid,fact,object,baseline_testid}, value Change.Delta in
// the fact's unit.
const RegressionMetric = "tidemark_fact_regression"

// Parameters of the rule (docs/regressions.md explains each with examples).
const (
	// HistoryWindow is how many of the most recent comparable runs make the history: a
	// stable median and spread, yet one that describes the group as it is now.
	HistoryWindow = 10
	// SpreadK is how many robust standard deviations (MADScale × MAD) from the history's
	// median a fact must lie to count: 3, the usual outlier bound (≈ 0.3 % of normal noise
	// falls outside it).
	SpreadK = 3
	// MADScale turns a median absolute deviation into a standard deviation for normal
	// noise.
	MADScale = 1.4826
	// RelativeFloor is the smallest change counted, relative to the history's median: 5 %,
	// for facts without a resolution (latencies, rates, peaks) whose history is too short
	// or too steady to show their run-to-run noise.
	RelativeFloor = 0.05
)

// Run is one run of a group: its testid, end time and key facts.
type Run struct {
	TestID string
	Group  string
	End    time.Time
	Facts  []correlator.KeyFact
}

// NewRun makes the Run of a correlated result, in its default group.
func NewRun(r *correlator.Result) Run {
	return Run{TestID: r.TestID, Group: Group(r.TestID), End: r.Window.Run.To, Facts: correlator.KeyFacts(r)}
}

// Change is a fact that moved beyond its resolution and the history's spread.
type Change struct {
	// Fact is the current run's.
	Fact   correlator.KeyFact `json:"fact"`
	TestID string             `json:"testid"`
	// BaselineTestID is the run it is compared with: the history run whose value is
	// nearest the history's median (the most recent of those as near), so with one run
	// of history that run, and after a one-off outlier the runs before it.
	BaselineTestID string `json:"baseline_testid"`
	// Baseline is the baseline run's value of the fact.
	Baseline float64 `json:"baseline"`
	// Delta is current − baseline, in the fact's unit.
	Delta float64 `json:"delta"`
	// Regression is true when the fact got worse, false for an improvement.
	Regression bool `json:"regression"`
	// Resolution is the combined resolution of both runs' values (the larger of the two).
	Resolution float64 `json:"resolution"`
	// Median and Spread are the history's median and the half-width of the band around
	// it that the current value left (SpreadK × MADScale × MAD, at least Resolution and
	// RelativeFloor × |Median|); HistoryRuns is how many runs it was computed from.
	Median      float64 `json:"median"`
	Spread      float64 `json:"spread"`
	HistoryRuns int     `json:"history_runs"`
	// Text says it for a person, e.g. "HPA reaction shoong/dev-shoong-order: 55 s, was
	// 25 s in spike-50-20260528 (+30 s, resolution ±15 s)".
	Text string `json:"text"`
}

// Direction says which way a fact gets worse.
type Direction int

// Directions.
const (
	// Neutral facts describe the run rather than judge it (requests, replicas): their
	// changes are not reported.
	Neutral Direction = iota
	// UpIsWorse facts are delays, gaps, errors and latencies.
	UpIsWorse
	// DownIsWorse facts are capacities: rates held, stages held, onset loads.
	DownIsWorse
)

// directions are the facts' directions by name (the tidemark_fact_* name without the
// prefix); a name not listed is Neutral.
func directions() map[string]Direction {
	return map[string]Direction{
		"hpa_reaction_seconds":          UpIsWorse,
		"hpa_ready_gap_seconds":         UpIsWorse,
		"hpa_time_to_max_seconds":       UpIsWorse,
		"hpa_scale_in_delay_seconds":    UpIsWorse,
		"hpa_recovery_seconds":          UpIsWorse,
		"error_ratio":                   UpIsWorse,
		"failures_total":                UpIsWorse,
		"dropped_iterations_total":      UpIsWorse,
		"stage_error_ratio":             UpIsWorse,
		"stage_p95_seconds":             UpIsWorse,
		"cpu_peak_throttled_ratio":      UpIsWorse,
		"cpu_peak_usage_of_limit_ratio": UpIsWorse,
		"db_connections_growth":         UpIsWorse,
		"db_cpu_peak_percent":           UpIsWorse,
		"errors_in_gap_ratio":           UpIsWorse,
		"peak_request_rate":             DownIsWorse,
		"stage_held":                    DownIsWorse,
		"stage_achieved_ratio":          DownIsWorse,
		"throttling_onset_vus":          DownIsWorse,
		"throttling_onset_request_rate": DownIsWorse,
		"requests_total":                Neutral,
		"hpa_baseline_replicas":         Neutral,
		"hpa_peak_replicas":             Neutral,
		"hpa_held_at_max_seconds":       Neutral,
	}
}

// DirectionOf returns which way the fact called name (without FactPrefix) gets worse.
func DirectionOf(name string) Direction { return directions()[name] }

// sameFact reports whether two facts are the same measurement: same name, same labels.
func sameFact(a, b correlator.KeyFact) bool {
	return a.Name == b.Name && maps.Equal(a.Labels, b.Labels)
}

// point is one history run's value of a fact.
type point struct {
	testID string
	end    time.Time
	fact   correlator.KeyFact
}

// Detect compares current with history (older runs of its group, any order) and returns
// the changes, in the order of current's facts. Runs of history with current's testid or
// that ended after it are ignored. For each fact of current with a direction:
//
//   - the history is the last HistoryWindow runs that have the same fact (same name and
//     labels: stage indexes of runs with different stages are not compared);
//   - the baseline is the history run nearest the history's median;
//   - it changed when |current − baseline| exceeds the larger of both values'
//     resolutions, and |current − median| exceeds SpreadK × MADScale × MAD of the
//     history, at least that resolution and RelativeFloor × |median|, both on the same
//     side.
func Detect(history []Run, current Run) []Change {
	dirs := directions()
	var out []Change
	for _, f := range current.Facts {
		dir := dirs[f.Name]
		if dir == Neutral || math.IsNaN(f.Value) {
			continue
		}
		var pts []point
		for _, h := range history {
			if h.TestID == current.TestID || (!current.End.IsZero() && h.End.After(current.End)) {
				continue
			}
			for _, hf := range h.Facts {
				if sameFact(f, hf) && !math.IsNaN(hf.Value) {
					pts = append(pts, point{testID: h.TestID, end: h.End, fact: hf})
					break
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		slices.SortStableFunc(pts, func(a, b point) int { return a.end.Compare(b.end) })
		if len(pts) > HistoryWindow {
			pts = pts[len(pts)-HistoryWindow:]
		}
		vals := make([]float64, len(pts))
		for i, p := range pts {
			vals[i] = p.fact.Value
		}
		med := analysis.Median(vals)
		devs := make([]float64, len(vals))
		for i, v := range vals {
			devs[i] = math.Abs(v - med)
		}
		mad := analysis.Median(devs)
		// The baseline: nearest the median, the most recent on a tie.
		base := pts[0]
		for _, p := range pts[1:] {
			if math.Abs(p.fact.Value-med) <= math.Abs(base.fact.Value-med) {
				base = p
			}
		}
		res := max(f.Resolution, base.fact.Resolution)
		spread := max(SpreadK*MADScale*mad, res, RelativeFloor*math.Abs(med))
		delta := f.Value - base.fact.Value
		fromMedian := f.Value - med
		if math.Abs(delta) <= res || math.Abs(fromMedian) <= spread || (delta > 0) != (fromMedian > 0) {
			continue
		}
		c := Change{
			Fact: f, TestID: current.TestID, BaselineTestID: base.testID, Baseline: base.fact.Value,
			Delta: delta, Regression: (dir == UpIsWorse) == (delta > 0),
			Resolution: res, Median: med, Spread: spread, HistoryRuns: len(pts),
		}
		c.Text = text(c)
		out = append(out, c)
	}
	return out
}

// text is a change for a person: what, now, before, where, by how much, how exactly.
func text(c Change) string {
	f := c.Fact
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, was %s in %s (%s", Title(f), analysis.FormatValue(f.Unit, f.Value), analysis.FormatValue(f.Unit, c.Baseline), c.BaselineTestID, formatDelta(f.Unit, c.Delta))
	if c.Resolution > 0 {
		fmt.Fprintf(&b, ", resolution ±%s", analysis.FormatValue(f.Unit, c.Resolution))
	}
	if c.HistoryRuns > 1 && c.Spread > c.Resolution {
		fmt.Fprintf(&b, ", outside %s ± %s of the last %d runs", analysis.FormatValue(f.Unit, c.Median), analysis.FormatValue(f.Unit, c.Spread), c.HistoryRuns)
	}
	b.WriteString(")")
	return b.String()
}

// titles name the facts for a person.
func titles() map[string]string {
	return map[string]string{
		"requests_total":                "Requests",
		"failures_total":                "Failures",
		"error_ratio":                   "Error rate",
		"dropped_iterations_total":      "Dropped iterations",
		"peak_request_rate":             "Peak request rate",
		"stage_held":                    "held",
		"stage_achieved_ratio":          "achieved of target",
		"stage_error_ratio":             "error rate",
		"stage_p95_seconds":             "p95 latency",
		"hpa_baseline_replicas":         "HPA baseline replicas",
		"hpa_peak_replicas":             "HPA peak replicas",
		"hpa_reaction_seconds":          "HPA reaction",
		"hpa_time_to_max_seconds":       "Time to max",
		"hpa_held_at_max_seconds":       "Held at max",
		"hpa_scale_in_delay_seconds":    "Scale-in delay",
		"hpa_recovery_seconds":          "Recovery to min",
		"hpa_ready_gap_seconds":         "Start-up gap",
		"cpu_peak_throttled_ratio":      "Peak CPU throttling",
		"cpu_peak_usage_of_limit_ratio": "Peak CPU of limit",
		"throttling_onset_vus":          "Throttling onset VUs",
		"throttling_onset_request_rate": "Throttling onset request rate",
		"db_connections_growth":         "DB connections growth",
		"db_cpu_peak_percent":           "DB CPU peak",
		"errors_in_gap_ratio":           "Failures inside start-up gaps",
	}
}

// Title names a fact with its labels for a person: "HPA reaction shoong/order",
// "Start-up gap shoong/order (step 1, to 4 replicas)", "Stage 2 (spike) p95 latency".
func Title(f correlator.KeyFact) string {
	t, ok := titles()[f.Name]
	if !ok {
		t = strings.ReplaceAll(f.Name, "_", " ")
	}
	l := f.Labels
	if st, ok := l["stage"]; ok {
		n := st
		if i, err := strconv.Atoi(st); err == nil {
			n = strconv.Itoa(i + 1) // stages are numbered from 1 in reports
		}
		scen := ""
		if s := l["scenario"]; s != "" {
			scen = " (" + s + ")"
		}
		t = "Stage " + n + scen + " " + t
	}
	if f.Name == "hpa_reaction_seconds" && l["from"] == "metric_crossed" {
		t = "HPA reaction after crossing"
	}
	if o := l["object"]; o != "" {
		t += " " + o
	}
	var extra []string
	if s, ok := l["step"]; ok {
		if i, err := strconv.Atoi(s); err == nil {
			s = strconv.Itoa(i + 1)
		}
		extra = append(extra, "step "+s)
	}
	if to, ok := l["to"]; ok {
		extra = append(extra, "to "+to+" replicas")
	}
	if th, ok := l["threshold"]; ok {
		if v, err := strconv.ParseFloat(th, 64); err == nil {
			th = fmt.Sprintf("%g%%", v*100)
		}
		extra = append(extra, "throttled > "+th)
	}
	// Any other label, sorted, so two facts never read the same.
	known := map[string]bool{"stage": true, "scenario": true, "from": true, "object": true, "step": true, "to": true, "threshold": true}
	for _, k := range slices.Sorted(maps.Keys(l)) {
		if !known[k] {
			extra = append(extra, k+"="+l[k])
		}
	}
	if len(extra) > 0 {
		t += " (" + strings.Join(extra, ", ") + ")"
	}
	return t
}

// formatDelta prints a signed change; ratios and percentages change in percentage
// points.
func formatDelta(unit string, d float64) string {
	sign := "+"
	if d < 0 {
		sign = "−"
	}
	a := math.Abs(d)
	switch unit {
	case analysis.UnitRatio:
		return fmt.Sprintf("%s%.2f pp", sign, a*100)
	case analysis.UnitPercent:
		return fmt.Sprintf("%s%.1f pp", sign, a)
	}
	return sign + analysis.FormatValue(unit, a)
}

// Sort orders changes regressions first, then by fact title: for reports.
func Sort(cs []Change) {
	slices.SortStableFunc(cs, func(a, b Change) int {
		if a.Regression != b.Regression {
			if a.Regression {
				return -1
			}
			return 1
		}
		return cmp.Compare(Title(a.Fact), Title(b.Fact))
	})
}

// DeltaText is the change in the fact's unit with its sign, e.g. "+30 s" or "−4.00 pp".
func (c Change) DeltaText() string { return formatDelta(c.Fact.Unit, c.Delta) }
