package report

import (
	"strings"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/facts"
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
	t := facts.Default()
	for _, ch := range o.changes {
		if k, ok := comparisonRow(t, ch.Fact); ok {
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
	capacity := Section{Title: "capacity", Tables: []Table{{Columns: []string{"Run", "Limited by", "Capacity", "Judged by"}}}}
	for _, v := range c.Capacity {
		capacity.Tables[0].Rows = append(capacity.Tables[0].Rows, []string{v.TestID, v.BottleneckText, v.Text, v.Rule})
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
func comparisonRow(t facts.Table, f facts.KeyFact) (rowKey, bool) {
	row, ok := t.CompareRow(f)
	return rowKey{string(row.Section), row.Object, row.Name}, ok
}
