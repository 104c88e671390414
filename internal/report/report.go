// Package report writes a correlation report as Markdown and as a self-contained HTML
// page whose charts share one time axis.
//
// The package knows nothing about how facts are derived: callers build a Document
// (tables, charts, event markers, notes) and pick a format.
package report

import (
	"math"
	"time"
)

// Document is one report. Every chart is drawn over Window so that a moment sits at the
// same horizontal position in every chart.
type Document struct {
	Title    string
	Subtitle string
	// Generated is when the report was written, shown in the footer.
	Generated time.Time
	Window    Window
	// Lead is the verdict shown before everything else: what limited the load.
	Lead *Section
	// KeyFacts are the headline numbers, shown first after the lead.
	KeyFacts []KeyFact
	// Charts are drawn in order, stacked, on the shared time axis.
	Charts []Chart
	// Events are drawn as vertical markers on every chart and listed in a table.
	Events   []Event
	Sections []Section
	// Notes are caveats such as missing sources; they are shown prominently, never
	// hidden.
	Notes []string
}

// Window is the time range a report covers.
type Window struct {
	From, To time.Time
}

// KeyFact is one headline number with how precise it is.
type KeyFact struct {
	Label string
	Value string
	// Detail says where the number came from or how precise it is
	// (e.g. "±15 s, kube-state-metrics scrape interval").
	Detail string
}

// Section is a titled block of paragraphs and tables.
type Section struct {
	Title  string
	Text   []string
	Tables []Table
}

// Table is a plain table of strings. Rows shorter than Columns are padded.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
}

// Chart is one time-series chart.
type Chart struct {
	Title string
	// Unit labels the Y axis, e.g. "req/s", "replicas", "%".
	Unit   string
	Series []Series
	// Lines are horizontal reference lines such as an HPA target or a CPU limit.
	Lines []RefLine
}

// Series is one line on a chart. A NaN value is a gap.
type Series struct {
	Name   string
	Points []Point
	// Step draws the series as a step function (replica counts).
	Step bool
}

// Point is one value at one time.
type Point struct {
	T time.Time
	V float64
}

// RefLine is a horizontal line at Value.
type RefLine struct {
	Label string
	Value float64
}

// Event is a moment worth marking, such as "scale-up order 2→4".
type Event struct {
	Time  time.Time
	Kind  string
	Label string
}

// empty reports whether a chart has no finite value to draw.
func (c Chart) empty() bool {
	for _, s := range c.Series {
		for _, p := range s.Points {
			if !math.IsNaN(p.V) && !math.IsInf(p.V, 0) {
				return false
			}
		}
	}
	return true
}
