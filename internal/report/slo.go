package report

import (
	"fmt"
	"strings"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/slo"
)

// sloSection is the run judged by its server-side rules (--slo): one row per rule over
// the run's window, then the rules that fired in each stage.
func sloSection(r *correlator.Result) (Section, bool) {
	rep := r.SLO
	if rep == nil {
		return Section{}, false
	}
	s := Section{Title: "Server-side rules"}
	verdict := "passed: no error or critical rule fired"
	if failed := slo.Failed(rep.Run.Outcomes); len(failed) > 0 {
		verdict = fmt.Sprintf("FAILED: %d error or critical rule(s) fired", len(failed))
	}
	s.Text = append(s.Text, fmt.Sprintf("Rules of %s over the run's window: %s.", strings.Join(rep.Sources, ", "), verdict))
	t := Table{Title: "Over the run", Columns: []string{"Rule", "Severity", "Result", "State", "Where"}}
	for _, o := range slo.Sorted(rep.Run.Outcomes) {
		t.Rows = append(t.Rows, []string{ruleMark(o) + " " + o.Alert, o.Severity, o.Text(rep.Run.From), o.State, fmt.Sprintf("%s:%d", o.File, o.Line)})
	}
	s.Tables = append(s.Tables, t)
	if len(rep.Stages) > 0 {
		st := Table{Title: "Per stage", Columns: []string{"Stage", "From", "To", "Fired"}}
		for _, sp := range rep.Stages {
			var fired []string
			for _, o := range slo.Sorted(sp.Outcomes) {
				if o.Fired {
					fired = append(fired, fmt.Sprintf("%s %s (%s) %s", ruleMark(o), o.Alert, o.Severity, o.Text(sp.From)))
				}
			}
			if len(fired) == 0 {
				fired = []string{"none"}
			}
			st.Rows = append(st.Rows, []string{sp.Name, fmtTime(sp.From), fmtTime(sp.To), strings.Join(fired, "; ")})
		}
		s.Tables = append(s.Tables, st)
	}
	return s, true
}

// ruleMark is ✗ for a rule that fails the run, ! for a warning that fired, else ✓.
func ruleMark(o slo.Outcome) string {
	switch {
	case o.Fatal():
		return "✗"
	case o.Fired:
		return "!"
	}
	return "✓"
}

// stageRules names the server-side rules (--slo) that fired in the i-th stage of the
// Load section, for its verdict cell: "; rules fired: CPUThrottlingHigh [error]". The
// rules' stages are the Load section's, in its order.
func stageRules(r *correlator.Result, i int) string {
	if r.SLO == nil || i >= len(r.SLO.Stages) {
		return ""
	}
	var fired []string
	for _, o := range slo.Sorted(r.SLO.Stages[i].Outcomes) {
		if o.Fired {
			fired = append(fired, fmt.Sprintf("%s [%s]", o.Alert, o.Severity))
		}
	}
	if len(fired) == 0 {
		return ""
	}
	return "; server-side rules fired: " + strings.Join(fired, ", ")
}
