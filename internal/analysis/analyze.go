package analysis

import (
	"slices"

	"github.com/tidemark/tidemark/internal/timeline"
)

// Analysis is every detector's output for one timeline.
type Analysis struct {
	Load        Load          `json:"load"`
	Autoscaling []HPA         `json:"autoscaling"`
	CPU         []WorkloadCPU `json:"cpu"`
	// Memory is each workload's working set against its memory limit, restarts and
	// OOM kills.
	Memory      []WorkloadMemory `json:"memory,omitempty"`
	Database    []Database       `json:"database"`
	Connections Connections      `json:"connections"`
	Errors      Errors           `json:"errors"`
	Events      []Event          `json:"events"`
	Notes       []Note           `json:"notes"`
	// Bottleneck is what limited the load (DecideBottleneck).
	Bottleneck Bottleneck `json:"bottleneck"`
}

// Analyze runs every detector over tl. It is pure.
func Analyze(tl *timeline.Timeline, cfg Config) Analysis {
	var a Analysis
	var ev []Event
	var notes []Note
	a.Load, ev, notes = AnalyzeLoad(tl, cfg)
	a.Events, a.Notes = append(a.Events, ev...), append(a.Notes, notes...)
	a.Autoscaling, ev, notes = AnalyzeAutoscaling(tl, a.Load, cfg)
	a.Events, a.Notes = append(a.Events, ev...), append(a.Notes, notes...)
	a.CPU, ev, notes = AnalyzeCPU(tl, a.Load, a.Autoscaling, cfg)
	a.Events, a.Notes = append(a.Events, ev...), append(a.Notes, notes...)
	a.Memory = AnalyzeMemory(tl)
	a.Database, notes = AnalyzeDatabase(tl, cfg)
	a.Connections = AnalyzeConnections(tl, cfg)
	if !a.Connections.Empty() {
		// The database is seen through its own exporter or the pools: no RDS is expected.
		notes = slices.DeleteFunc(notes, func(n Note) bool { return n.Section == "database" && n.Level == NoteMissing })
	}
	a.Notes = append(a.Notes, notes...)
	a.Errors, ev, notes = AnalyzeErrors(tl, a.Autoscaling, cfg)
	a.Events, a.Notes = append(a.Events, ev...), append(a.Notes, notes...)
	a.Bottleneck = DecideBottleneck(tl, &a, cfg)
	if b := a.Bottleneck; b.At != nil {
		a.Events = append(a.Events, Event{At: b.At.At, Kind: EventBottleneck, Object: b.Resource, Text: b.Text, ResolutionSeconds: b.At.ResolutionSeconds})
	}
	slices.SortStableFunc(a.Events, func(x, y Event) int { return x.At.Compare(y.At) })
	return a
}
