package summary

// Rule is the result of one server-side rule (internal/slo) of the run, shown in the
// SERVER-SIDE RULES section beside the thresholds.
type Rule struct {
	// Name is the alert's name, Severity its labels.severity.
	Name     string
	Severity string
	// Fired is set when the rule fired during the run or at its end.
	Fired bool
	// Text says how it went, e.g. "fired 12s in: 0.62 {pod="api-1"}".
	Text string
}

// ruleLines renders the SERVER-SIDE RULES section: per rule ✓ or ✗ (a warning that
// fired is marked !), its name, severity and how it went.
func ruleLines(p palette, rules []Rule) []string {
	out := make([]string, 0, len(rules)+1)
	for _, r := range rules {
		mark := p.paint("✓", sgrGreen)
		switch {
		case r.Fired && r.Severity == "warning":
			mark = p.paint("!", sgrWhite)
		case r.Fired:
			mark = p.paint("✗", sgrRed)
		}
		out = append(out, indent(2)+mark+" "+p.paint(r.Name, sgrWhite)+" ["+r.Severity+"] "+r.Text)
	}
	return append(out, blank)
}
