package report

import (
	"fmt"
	"strings"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
)

// BottleneckTitle heads the verdict in every output.
const BottleneckTitle = "What limited the load"

// bottleneckSection is the report's lead: the verdict, its evidence, what was ruled out
// with its numbers and what could not be checked, then one row per broken stage.
func bottleneckSection(r *correlator.Result) *Section {
	b := r.Bottleneck
	if b.Resource == "" {
		return nil
	}
	s := &Section{Title: BottleneckTitle, Text: []string{bottleneckHeadline(b)}}
	for _, e := range b.Evidence {
		s.Text = append(s.Text, "Evidence: "+e)
	}
	for _, o := range b.RuledOut {
		s.Text = append(s.Text, "Ruled out: "+o.Text)
	}
	for _, n := range b.NotChecked {
		s.Text = append(s.Text, fmt.Sprintf("Not checked: %s (missing %s)", n.Resource, n.Missing))
	}
	if len(b.Stages) > 1 {
		t := Table{Title: "Stages that broke", Columns: []string{"Stage", "Limited by", "At (UTC)", "Load", "Evidence"}}
		for _, st := range b.Stages {
			t.Rows = append(t.Rows, []string{fmt.Sprint(st.Stage), resourceName(st.Resource, st.Object), at(st.At),
				strings.TrimSuffix(strings.TrimPrefix(loadText(st.Load), " ("), ")"), strings.Join(st.Evidence, "; ")})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// bottleneckHeadline is the verdict in one line: "cpu (shop/api) in stage 3 at
// 10:06:30, 75 VUs, 150.0/s requests".
func bottleneckHeadline(b analysis.Bottleneck) string {
	switch b.Resource {
	case analysis.ResourceNone, analysis.ResourceUnknown:
		return b.Text
	}
	h := resourceName(b.Resource, b.Object)
	if b.Stage > 0 {
		h += fmt.Sprintf(" in stage %d", b.Stage)
	}
	if b.At != nil {
		h += " from " + at(b.At)
	}
	if l := loadText(b.Load); l != "" {
		h += " at " + strings.TrimSuffix(strings.TrimPrefix(l, " ("), ")")
	}
	if b.Resource == analysis.ResourceLoadGenerator {
		h += ": the run measured the load generator, not the service"
	}
	return h
}

func resourceName(resource, object string) string {
	if object == "" {
		return resource
	}
	return resource + " (" + object + ")"
}

func loadText(l analysis.BottleneckLoad) string {
	var parts []string
	if l.VUs != nil {
		parts = append(parts, FormatFact(l.VUs))
	}
	if l.RequestRate != nil {
		parts = append(parts, FormatFact(l.RequestRate)+" requests")
	}
	if l.Achieved != nil {
		parts = append(parts, FormatFact(l.Achieved)+" iterations achieved")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
