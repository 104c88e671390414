package correlator

import (
	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/facts"
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
	// Bottleneck is what limited the run (Result.Bottleneck.Resource), and
	// BottleneckText its verdict in one line.
	Bottleneck     string `json:"bottleneck"`
	BottleneckText string `json:"bottleneck_text"`
}

// ComparisonRow is one fact across runs. Values has one entry per run, in TestIDs order;
// nil means the run does not have the fact (see that run's notes).
type ComparisonRow struct {
	Section string           `json:"section"`
	Object  string           `json:"object,omitempty"`
	Fact    string           `json:"fact"`
	Values  []*analysis.Fact `json:"values"`
}

// Compare lines up the facts of several results (facts.Default). Objects (HPAs,
// workloads, databases) are matched by name; a row exists when at least one run has the
// fact.
func Compare(results ...*Result) Comparison { return CompareWith(facts.Default(), results...) }

// CompareWith is Compare with the facts of table t.
func CompareWith(t facts.Table, results ...*Result) Comparison {
	c := Comparison{SchemaVersion: SchemaVersion}
	for _, r := range results {
		c.TestIDs = append(c.TestIDs, r.TestID)
		c.Capacity = append(c.Capacity, CapacityVerdict{TestID: r.TestID, Text: r.Load.Capacity.Text, Rule: r.Load.VerdictRule,
			Bottleneck: r.Bottleneck.Resource, BottleneckText: r.Bottleneck.Text})
	}
	type key struct{ section, object, fact string }
	var order []key
	rows := map[key][]*analysis.Fact{}
	for i, r := range results {
		for _, row := range t.Rows(r.Analysis()) {
			k := key{string(row.Section), row.Object, row.Name}
			if _, ok := rows[k]; !ok {
				order = append(order, k)
				rows[k] = make([]*analysis.Fact, len(results))
			}
			rows[k][i] = row.Fact
		}
	}
	for _, k := range order {
		c.Rows = append(c.Rows, ComparisonRow{Section: k.section, Object: k.object, Fact: k.fact, Values: rows[k]})
	}
	return c
}
