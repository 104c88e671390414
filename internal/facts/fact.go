package facts

import (
	"maps"
	"strings"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Prefix starts the key facts' series, one sample at the run's end:
// tidemark_fact_<Fact.Name>{testid,<labels>}.
const Prefix = "tidemark_fact_"

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

// Section is the part of a report and of a comparison a fact belongs to; the sections
// come in the order of the constants.
type Section string

// Sections, in report order.
const (
	SectionLoad        Section = "load"
	SectionStages      Section = "stages"
	SectionAutoscaling Section = "autoscaling"
	SectionCPU         Section = "cpu"
	SectionDatabase    Section = "database"
	SectionErrors      Section = "errors"
)

// rank is the section's place in reports; an unknown section comes last.
func (s Section) rank() int {
	switch s {
	case SectionLoad:
		return 0
	case SectionStages:
		return 1
	case SectionAutoscaling:
		return 2
	case SectionCPU:
		return 3
	case SectionDatabase:
		return 4
	case SectionErrors:
		return 5
	}
	return 6
}

// Analysis is what the facts are read from: the analysis of one correlated run
// (correlator.Result.Analysis).
type Analysis struct {
	Load        analysis.Load
	Autoscaling []analysis.HPA
	CPU         []analysis.WorkloadCPU
	Database    []analysis.Database
	Connections analysis.Connections
	Errors      analysis.Errors
	// Series holds the run's chart series by query name (analysis.Q*).
	Series map[string]timeline.Set
}

// Value is one value of a fact in a run: for a fact per object, one per object.
type Value struct {
	// Fact is the value; a nil Fact is left out (the run does not have it).
	Fact *analysis.Fact
	// Labels are the value's labels, without the fact's Fixed ones: object, stage,
	// scenario, step, to, threshold … (nil for a run-wide fact).
	Labels map[string]string
	// Resolution is the value's resolution in the fact's unit (KeyFact.Resolution), when
	// the fact is not a Span.
	Resolution float64
	// Order places the value within its section: the index of its object (stage, HPA,
	// workload, database), then of its part of the object (a workload's onset counted
	// from 1). Values of one place keep the table's order.
	Order [2]int
}

// Fact is one correlation fact, declared once.
type Fact struct {
	// Name is the fact's name, its one identity: the key fact's series is Prefix+Name,
	// and the regression detector, the exporter and the dashboards know it by it.
	Name string
	// Key is set for key facts: written back as series, exposed by the exporter and
	// compared between runs by the regression detector. The other facts only have a row
	// in comparisons.
	Key bool
	// Fixed are labels every value of the fact carries: two facts may share a Name and
	// differ in them (the HPA reaction from the load step and from the metric crossing).
	Fixed map[string]string
	// Labels are the names of the labels each value carries besides Fixed.
	Labels []string
	// Unit is the analysis.Unit* of the fact's values.
	Unit string
	// Direction says which way the fact gets worse.
	Direction Direction
	// Title names the fact for a person; the labels are added (Table.Title).
	Title string
	// Section is where the fact goes in reports and comparisons.
	Section Section
	// Compare is the fact's row in `tidemark compare`; empty for none. CompareBy, when set,
	// names the row from a value's labels instead (one row per onset threshold).
	Compare   string
	CompareBy func(labels map[string]string) string
	// Span marks a span between two moments (a reaction, a gap, a delay): its resolution
	// in seconds is the value's own ResolutionSeconds. Other facts take Value.Resolution.
	Span bool
	// Read reads the fact's values from a run's analysis, in the order of its objects.
	Read func(a Analysis) []Value
}

// Metric is the name of the fact's series.
func (f Fact) Metric() string { return Prefix + f.Name }

// Selector is the fact's Fixed labels as PromQL matchers, each after ", ", in label
// order: appended to a selector of the fact's series, it selects this fact alone.
func (f Fact) Selector() string {
	var b strings.Builder
	for _, k := range sortedKeys(f.Fixed) {
		b.WriteString(`, ` + k + `="` + f.Fixed[k] + `"`)
	}
	return b.String()
}

// row is the comparison row of the fact's value with labels, and whether it has one.
func (f Fact) row(labels map[string]string) (string, bool) {
	if f.CompareBy != nil {
		name := f.CompareBy(labels)
		return name, name != ""
	}
	return f.Compare, f.Compare != ""
}

// matches reports whether a value with labels is of this fact: its Fixed labels.
func (f Fact) matches(labels map[string]string) bool {
	for k, v := range f.Fixed {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// KeyFact is one key fact of a run: the name (without Prefix) and labels (without
// testid) of its tidemark_fact_* series, its value, unit and resolution.
type KeyFact struct {
	// Name is the series name without Prefix: the fact's Name (Fact.Name).
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
	//   - latencies (stage p95): 0, the sample interval says nothing about a latency's
	//     precision;
	//   - a stage's achieved ratio: Value × 2·ResolutionSeconds ÷ the stage's length
	//     (each end of the stage is known to within one interval, so the achieved rate's
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
	ls["__name__"] = Prefix + k.Name
	ls["testid"] = testID
	return ls
}
