package report

import (
	"github.com/tidemark/tidemark/internal/correlator"
)

// FromComparison turns facts of several runs into a document with one column per run.
// results are the correlated runs in the comparison's order, for their windows and
// notes.
func FromComparison(c correlator.Comparison, results []*correlator.Result) *Document {
	d := &Document{Title: "Tidemark comparison"}
	cols := append([]string{"Section", "Object", "Fact"}, c.TestIDs...)
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
