package summary

import (
	"slices"
	"time"
)

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
	// Firing are the spans over which it fired (from the first evaluation that found
	// it firing to the last), which name it in the STAGES rows they overlap.
	Firing []Interval
}

// Interval is a span of time.
type Interval struct{ From, To time.Time }

// firedBetween reports whether the rule fired at some time in [from, to].
func (r Rule) firedBetween(from, to time.Time) bool {
	return slices.ContainsFunc(r.Firing, func(iv Interval) bool { return !iv.From.After(to) && !iv.To.Before(from) })
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
