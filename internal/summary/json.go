package summary

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/threshold"
)

// WriteExport writes the `--summary-export` file: k6's legacy JSON (reference/k6.md
// §3.3). metrics.<key> is the flat values object (a rate's `rate` renamed `value`) with
// thresholds as {expr: failed}; root_group holds groups and checks keyed by name. Time
// values are milliseconds, as in k6. With a summary breakdown (scenario.Test's
// SummaryBreakdown) its rows are sub-metrics of metrics and `breakdown` says what it did.
// Tidemark's own keys sit beside k6's: threshold_windows, and slo for the server-side
// rules (Input.Rules).
func WriteExport(w io.Writer, in Input) error {
	r, err := newReport(in)
	if err != nil {
		return err
	}
	out := struct {
		RootGroup legacyGroup               `json:"root_group"`
		Metrics   map[string]map[string]any `json:"metrics"`
		SetupData json.RawMessage           `json:"setup_data,omitempty"`
		// ThresholdWindows is Tidemark's: per metric key and windowed threshold
		// (thresholdName), what its windows saw. k6's metrics keep their shape.
		ThresholdWindows map[string]map[string]windowed `json:"threshold_windows,omitempty"`
		Breakdown        *breakdownInfo                 `json:"breakdown,omitempty"`
		// SLO is Tidemark's: the server-side rules (--slo).
		SLO *sloJSON `json:"slo,omitempty"`
	}{
		SLO:       sloOf(in),
		Breakdown: r.breakdown,
		SetupData: setupData(in.SetupData),
		RootGroup: legacyGroupOf(r.checks.root),
		Metrics:   map[string]map[string]any{},
	}
	for _, e := range r.entries {
		if runMetadata(e.metric.Name) {
			continue
		}
		m := map[string]any{}
		for k, v := range e.values {
			if k == "rate" && e.metric.Type.String() == "rate" {
				k = "value"
			}
			m[k] = finite(v)
		}
		if ths := in.Thresholds[e.key]; len(ths) > 0 {
			failed := map[string]bool{}
			for _, th := range ths {
				failed[th.Name()] = !th.OK
				if w := windowedOf(in.Start, th); w != nil {
					if out.ThresholdWindows == nil {
						out.ThresholdWindows = map[string]map[string]windowed{}
					}
					if out.ThresholdWindows[e.key] == nil {
						out.ThresholdWindows[e.key] = map[string]windowed{}
					}
					out.ThresholdWindows[e.key][th.Name()] = *w
				}
			}
			m["thresholds"] = failed
		}
		out.Metrics[e.key] = m
	}
	return writeJSON(w, out)
}

// WriteData writes the `--summary-file`: the `data` object k6 passes to handleSummary
// (root_group, options, state, metrics with type, contains, values and thresholds)
// plus Tidemark's per-stage table as `stages` and, with a summary breakdown, its rows
// as sub-metrics and `breakdown`, and the server-side rules (Input.Rules) as `slo`.
func WriteData(w io.Writer, in Input) error {
	r, err := newReport(in)
	if err != nil {
		return err
	}
	rows, err := r.stageRows()
	if err != nil {
		return err
	}
	// threshold is k6's {ok}; a windowed one adds what its windows saw.
	type threshold struct {
		OK bool `json:"ok"`
		*windowed
	}
	type metric struct {
		Type       string               `json:"type"`
		Contains   string               `json:"contains"`
		Values     map[string]float64   `json:"values"`
		Thresholds map[string]threshold `json:"thresholds,omitempty"`
	}
	out := struct {
		RootGroup dataGroup `json:"root_group"`
		Options   struct {
			SummaryTrendStats []string `json:"summaryTrendStats"`
			SummaryTimeUnit   string   `json:"summaryTimeUnit"`
			NoColor           bool     `json:"noColor"`
		} `json:"options"`
		State struct {
			IsStdOutTTY       bool    `json:"isStdOutTTY"`
			IsStdErrTTY       bool    `json:"isStdErrTTY"`
			TestRunDurationMs float64 `json:"testRunDurationMs"`
		} `json:"state"`
		Metrics   map[string]metric `json:"metrics"`
		SetupData json.RawMessage   `json:"setup_data,omitempty"`
		Stages    []stageRow        `json:"stages"`
		Breakdown *breakdownInfo    `json:"breakdown,omitempty"`
		SLO       *sloJSON          `json:"slo,omitempty"`
	}{
		SLO:       sloOf(in),
		Breakdown: r.breakdown,
		SetupData: setupData(in.SetupData),
		RootGroup: dataGroupOf(r.checks.root),
		Metrics:   map[string]metric{},
		Stages:    rows,
	}
	out.Options.SummaryTrendStats = r.trendStats
	out.Options.SummaryTimeUnit = r.timeUnit
	out.Options.NoColor = !in.Color
	out.State.IsStdOutTTY = in.StdoutTTY
	out.State.IsStdErrTTY = in.StderrTTY
	out.State.TestRunDurationMs = float64(in.Duration) / float64(time.Millisecond)
	for _, e := range r.entries {
		if runMetadata(e.metric.Name) {
			continue
		}
		m := metric{Type: e.metric.Type.String(), Contains: e.metric.Contains.String(), Values: map[string]float64{}}
		for k, v := range e.values {
			m.Values[k] = finite(v)
		}
		if ths := in.Thresholds[e.key]; len(ths) > 0 {
			m.Thresholds = map[string]threshold{}
			for _, th := range ths {
				m.Thresholds[th.Name()] = threshold{OK: th.OK, windowed: windowedOf(in.Start, th)}
			}
		}
		out.Metrics[e.key] = m
	}
	return writeJSON(w, out)
}

// sloJSON is the run's server-side rules (--slo) in both JSON shapes, under a key of
// Tidemark's own: failed is set when an error or critical rule fired.
type sloJSON struct {
	Failed bool       `json:"failed"`
	Rules  []ruleJSON `json:"rules"`
}

// ruleJSON is one rule: how it went, and the spans over which it fired as times and
// as offsets from the run's start in seconds.
type ruleJSON struct {
	Name     string       `json:"name"`
	Severity string       `json:"severity"`
	Fired    bool         `json:"fired"`
	Text     string       `json:"text"`
	Firing   []firingJSON `json:"firing,omitempty"`
}

type firingJSON struct {
	StartSeconds float64   `json:"start_seconds"`
	EndSeconds   float64   `json:"end_seconds"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
}

// sloOf returns the JSON of the run's rules, nil without rules.
func sloOf(in Input) *sloJSON {
	if len(in.Rules) == 0 {
		return nil
	}
	out := &sloJSON{Rules: make([]ruleJSON, 0, len(in.Rules))}
	for _, r := range in.Rules {
		rj := ruleJSON{Name: r.Name, Severity: r.Severity, Fired: r.Fired, Text: r.Text}
		for _, iv := range r.Firing {
			rj.Firing = append(rj.Firing, firingJSON{StartSeconds: iv.From.Sub(in.Start).Seconds(), EndSeconds: iv.To.Sub(in.Start).Seconds(),
				Start: iv.From.UTC(), End: iv.To.UTC()})
		}
		out.Failed = out.Failed || (r.Fired && r.Severity != "warning")
		out.Rules = append(out.Rules, rj)
	}
	return out
}

// windowed is what a windowed threshold's windows saw, in both JSON shapes: its
// window, how many windows were judged, the worst one, the first failing one, and the
// runs of failing windows.
type windowed struct {
	Window       string        `json:"window"`
	Windows      int           `json:"windows"`
	Worst        *windowJSON   `json:"worst,omitempty"`
	FirstFailure *windowJSON   `json:"first_failure,omitempty"`
	Failed       []failedSpans `json:"failed,omitempty"`
	// Truncated is true when more runs of failing windows were seen than kept.
	Truncated bool `json:"failed_truncated,omitempty"`
}

// windowJSON is one window: its value in k6's units and when it was, as offsets from
// the run's start in seconds and as times.
type windowJSON struct {
	Value        float64   `json:"value"`
	StartSeconds float64   `json:"start_seconds"`
	EndSeconds   float64   `json:"end_seconds"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
}

// failedSpans is a run of consecutive failing windows: the ends of the first and of
// the last, in seconds from the run's start.
type failedSpans struct {
	FirstEndSeconds float64 `json:"first_end_seconds"`
	LastEndSeconds  float64 `json:"last_end_seconds"`
}

// windowedOf returns the JSON of a windowed threshold, nil for a whole-run one.
func windowedOf(start time.Time, th Threshold) *windowed {
	if th.Window <= 0 {
		return nil
	}
	w := &windowed{Window: threshold.FormatWindow(th.Window)}
	rec := th.Record
	if rec == nil {
		return w
	}
	win := func(v threshold.WindowValue) *windowJSON {
		return &windowJSON{Value: finite(v.Value), StartSeconds: v.Start.Seconds(), EndSeconds: v.End.Seconds(),
			Start: start.Add(v.Start).UTC(), End: start.Add(v.End).UTC()}
	}
	w.Windows = rec.Evaluated
	if rec.Worst.HasValue {
		w.Worst = win(rec.Worst)
	}
	if rec.Failed {
		w.FirstFailure = win(rec.FirstFailure)
	}
	for _, s := range rec.Fails {
		w.Failed = append(w.Failed, failedSpans{FirstEndSeconds: s.First.Seconds(), LastEndSeconds: s.Last.Seconds()})
	}
	w.Truncated = rec.Truncated
	return w
}

// dataCheck is a check in both JSON shapes.
type dataCheck struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	ID     string `json:"id"`
	Passes uint64 `json:"passes"`
	Fails  uint64 `json:"fails"`
}

// dataGroup is a group in handleSummary's data: groups and checks are arrays.
type dataGroup struct {
	Name   string      `json:"name"`
	Path   string      `json:"path"`
	ID     string      `json:"id"`
	Groups []dataGroup `json:"groups"`
	Checks []dataCheck `json:"checks"`
}

// legacyGroup is a group in the legacy export: groups and checks are keyed by name.
type legacyGroup struct {
	Name   string                 `json:"name"`
	Path   string                 `json:"path"`
	ID     string                 `json:"id"`
	Groups map[string]legacyGroup `json:"groups"`
	Checks map[string]dataCheck   `json:"checks"`
}

func checkOf(c *aggregate.Check) dataCheck {
	return dataCheck{Name: c.Name, Path: c.Path, ID: aggregate.GroupID(c.Path), Passes: c.Passes, Fails: c.Fails}
}

func dataGroupOf(g *aggregate.Group) dataGroup {
	out := dataGroup{Name: g.Name, Path: g.Path, ID: aggregate.GroupID(g.Path), Groups: []dataGroup{}, Checks: []dataCheck{}}
	for _, sub := range g.Groups {
		out.Groups = append(out.Groups, dataGroupOf(sub))
	}
	for _, c := range g.Checks {
		out.Checks = append(out.Checks, checkOf(c))
	}
	return out
}

func legacyGroupOf(g *aggregate.Group) legacyGroup {
	out := legacyGroup{Name: g.Name, Path: g.Path, ID: aggregate.GroupID(g.Path), Groups: map[string]legacyGroup{}, Checks: map[string]dataCheck{}}
	for _, sub := range g.Groups {
		out.Groups[sub.Name] = legacyGroupOf(sub)
	}
	for _, c := range g.Checks {
		out.Checks[c.Name] = checkOf(c)
	}
	return out
}

// setupData returns data when it is one JSON value, nil otherwise (no setup_data key).
func setupData(data json.RawMessage) json.RawMessage {
	if len(data) == 0 || !json.Valid(data) {
		return nil
	}
	return data
}

// finite replaces values JSON cannot carry: NaN becomes 0 and ±Inf the largest float.
func finite(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case math.IsInf(v, 1):
		return math.MaxFloat64
	case math.IsInf(v, -1):
		return -math.MaxFloat64
	}
	return v
}

// writeJSON writes v indented by four spaces, as k6's JSON.stringify(data, null, 4).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// runMetadata reports whether a metric is Tidemark's run metadata (tidemark_run_info,
// tidemark_scenario_target, tidemark_threshold): series for PromQL and the correlator,
// which k6's summary files do not have, so they are left out of them.
func runMetadata(name string) bool { return strings.HasPrefix(name, "tidemark_") }
