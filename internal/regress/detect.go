package regress

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/facts"
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
	Facts  []facts.KeyFact
}

// NewRun makes the Run of a correlated result, in its default group.
func NewRun(r *correlator.Result) Run {
	return Run{TestID: r.TestID, Group: Group(r.TestID), End: r.Window.Run.To, Facts: correlator.KeyFacts(r)}
}

// AgainstFirst compares each run after the first with the first (`tidemark compare`), by
// the rule the exporter applies to a group's history, with a history of one run: the
// resolution decides. The order of the results decides what is compared, not the runs'
// times: the first is the baseline even when it ran later. Never nil.
func AgainstFirst(results []*correlator.Result) []Change {
	changes := []Change{}
	if len(results) < 2 {
		return changes
	}
	first := NewRun(results[0])
	for _, r := range results[1:] {
		cur := NewRun(r)
		cur.End = time.Time{}
		changes = append(changes, Detect([]Run{first}, cur)...)
	}
	return changes
}

// Change is a fact that moved beyond its resolution and the history's spread.
type Change struct {
	// Fact is the current run's.
	Fact   facts.KeyFact `json:"fact"`
	TestID string        `json:"testid"`
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

// sameFact reports whether two facts are the same measurement: same name, same labels.
func sameFact(a, b facts.KeyFact) bool {
	return a.Name == b.Name && maps.Equal(a.Labels, b.Labels)
}

// point is one history run's value of a fact.
type point struct {
	testID string
	end    time.Time
	fact   facts.KeyFact
}

// Detect compares current with history by the directions of facts.Default: DetectWith
// its table.
func Detect(history []Run, current Run) []Change {
	return DetectWith(facts.Default(), history, current)
}

// DetectWith compares current with history (older runs of its group, any order) and returns
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
func DetectWith(t facts.Table, history []Run, current Run) []Change {
	var out []Change
	for _, f := range current.Facts {
		dir := t.Direction(f)
		if dir == facts.Neutral || math.IsNaN(f.Value) {
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
			Delta: delta, Regression: (dir == facts.UpIsWorse) == (delta > 0),
			Resolution: res, Median: med, Spread: spread, HistoryRuns: len(pts),
		}
		c.Text = text(t, c)
		out = append(out, c)
	}
	return out
}

// text is a change for a person: what, now, before, where, by how much, how exactly.
func text(t facts.Table, c Change) string {
	f := c.Fact
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, was %s in %s (%s", t.Title(f), analysis.FormatValue(f.Unit, f.Value), analysis.FormatValue(f.Unit, c.Baseline), c.BaselineTestID, formatDelta(f.Unit, c.Delta))
	if c.Resolution > 0 {
		fmt.Fprintf(&b, ", resolution ±%s", analysis.FormatValue(f.Unit, c.Resolution))
	}
	if c.HistoryRuns > 1 && c.Spread > c.Resolution {
		fmt.Fprintf(&b, ", outside %s ± %s of the last %d runs", analysis.FormatValue(f.Unit, c.Median), analysis.FormatValue(f.Unit, c.Spread), c.HistoryRuns)
	}
	b.WriteString(")")
	return b.String()
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
	t := facts.Default()
	slices.SortStableFunc(cs, func(a, b Change) int {
		if a.Regression != b.Regression {
			if a.Regression {
				return -1
			}
			return 1
		}
		return cmp.Compare(t.Title(a.Fact), t.Title(b.Fact))
	})
}

// DeltaText is the change in the fact's unit with its sign, e.g. "+30 s" or "−4.00 pp".
func (c Change) DeltaText() string { return formatDelta(c.Fact.Unit, c.Delta) }
