package correlator

import (
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/timeline"
)

// SchemaVersion is the version of Result's JSON shape (report.json). Additive changes
// keep the version; renames and removals bump it. testdata/report_schema_v1.txt lists
// every field with its JSON kind ("fact" is the shape listed under "fact.").
const SchemaVersion = 1

// Result is one correlated run: what report.json holds.
type Result struct {
	SchemaVersion int       `json:"schema_version"`
	TestID        string    `json:"testid"`
	GeneratedAt   time.Time `json:"generated_at"`
	Window        Windows   `json:"window"`
	StepSeconds   float64   `json:"step_seconds"`
	Filters       Filters   `json:"filters"`
	Sources       []Source  `json:"sources"`
	Queries       []Query   `json:"queries"`

	Load        analysis.Load          `json:"load"`
	Autoscaling []analysis.HPA         `json:"autoscaling"`
	CPU         []analysis.WorkloadCPU `json:"cpu"`
	Database    []analysis.Database    `json:"database"`
	// Connections are the database's connections through postgres_exporter or
	// mysqld_exporter and the application's pools.
	Connections analysis.Connections `json:"connections"`
	Errors      analysis.Errors      `json:"errors"`
	Findings    []analysis.Finding   `json:"findings"`
	Events      []analysis.Event     `json:"events"`
	Notes       []analysis.Note      `json:"notes"`
	// Bottleneck is what limited the load: one verdict for the run, and one per stage
	// that broke (analysis.DecideBottleneck).
	Bottleneck analysis.Bottleneck `json:"bottleneck"`
	// WebVitals are the browser VUs' Web Vitals over the run and per stage of the load;
	// absent when the run had no browser metrics.
	WebVitals *analysis.WebVitals `json:"web_vitals,omitempty"`
	// SLO is the run judged by server-side rules (--slo): over its window and per
	// stage; absent without rules.
	SLO *slo.Report `json:"slo,omitempty"`

	// Series holds the chart series (one shared time axis) by query name.
	Series map[string]timeline.Set `json:"series"`
}

// Where a run window came from (Windows.From).
const (
	// WindowFromRunInfo: the run's tidemark_run_info series (a Tidemark run).
	WindowFromRunInfo = "run_info"
	// WindowFromK6: the run's k6 series alone (a run k6 made, without Tidemark's metadata).
	WindowFromK6 = "k6"
	// WindowFromFlags: both Config.From and Config.To (--from and --to) were given.
	WindowFromFlags = "flags"
	// WindowMixed: one end from the run's series, the other from Config.
	WindowMixed = "mixed"
)

// Windows are the run's time windows.
type Windows struct {
	Run      timeline.Window `json:"run"`
	Baseline timeline.Window `json:"baseline"`
	After    timeline.Window `json:"after"`
	// From tells where the run window came from: one of the WindowFrom* values.
	From string `json:"from"`
	// Live is set when the run had not ended when it was correlated.
	Live bool `json:"live,omitempty"`
}

// Filters are the namespace and workload regexes applied.
type Filters struct {
	Namespace string `json:"namespace"`
	Workload  string `json:"workload"`
}

// Source describes one metrics source as seen in this run.
type Source struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// ResolutionSeconds is the measured sample interval (or the catalog's assumption).
	ResolutionSeconds float64 `json:"resolution_seconds"`
	Measured          bool    `json:"measured"`
	LagSeconds        float64 `json:"lag_seconds,omitempty"`
	Series            int     `json:"series"`
	// Coverage is the share of the window in which the source had samples (0–1).
	Coverage float64 `json:"coverage"`
	// Found says where the source's selector came from (query.Found*: "catalog",
	// "discovered" or "none"; empty for k6, found by testid), and Selector is the one
	// used, as a catalog template.
	Found    string `json:"found,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// Query records one executed catalog query.
type Query struct {
	Name     string   `json:"name"`
	Source   string   `json:"source"`
	Expr     string   `json:"expr"`
	Series   int      `json:"series"`
	Warnings []string `json:"warnings,omitempty"`
	Error    string   `json:"error,omitempty"`
}
