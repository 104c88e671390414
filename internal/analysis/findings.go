package analysis

import (
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// Finding is one rule of the catalog that held during the run.
type Finding struct {
	Rule     string            `json:"rule"`
	Severity string            `json:"severity"`
	Message  string            `json:"message"`
	Labels   map[string]string `json:"labels"`
	timeline.Window
	// Value is the largest value of the rule's expression while it held.
	Value    float64    `json:"value"`
	Expr     string     `json:"expr"`
	Evidence []Evidence `json:"evidence"`
}

// Firing returns the spans in which a rule's series held: runs of points no further apart
// than 1.5 steps, kept when they last at least minFor, each with its largest value.
func Firing(s timeline.Series, step, minFor time.Duration) []Finding {
	var out []Finding
	ps := s.Points
	start := 0
	flush := func(end int) {
		if end < start {
			return
		}
		w := timeline.Window{From: ps[start].T, To: ps[end].T}
		if w.Duration() < minFor {
			return
		}
		_, hi, _, _ := timeline.Stats(ps[start : end+1])
		out = append(out, Finding{Labels: s.Labels, Window: w, Value: hi})
	}
	for i := 1; i <= len(ps); i++ {
		if i == len(ps) || ps[i].T.Sub(ps[i-1].T) > step*3/2 {
			flush(i - 1)
			start = i
		}
	}
	return out
}
