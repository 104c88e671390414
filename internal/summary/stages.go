package summary

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// stageRow is one computed row of the per-stage table. Durations are milliseconds and
// rates per second; a nil pointer means the window had no such samples.
type stageRow struct {
	Scenario string  `json:"scenario"`
	Stage    int     `json:"stage"`
	StartMs  float64 `json:"startMs"` // Offset from the run start.
	EndMs    float64 `json:"endMs"`
	Target   float64 `json:"target"`
	// TargetUnit is "vus" or "iterations/<timeUnit>".
	TargetUnit string `json:"targetUnit"`
	// Achieved is in the target's unit: iterations per TimeUnit completed in the window,
	// or the VUs active at its end.
	Achieved    float64  `json:"achieved"`
	Iterations  float64  `json:"iterations"`
	RequestRate float64  `json:"httpReqRate"`
	P50         *float64 `json:"p50Ms"`
	P95         *float64 `json:"p95Ms"`
	P99         *float64 `json:"p99Ms"`
	ErrorRate   *float64 `json:"errorRate"`
	Dropped     float64  `json:"droppedIterations"`
	// Held is the stage's verdict (judge); Broke names what broke it, and Verdict is
	// the text the table shows: "held" or "broke: " and Broke.
	Held         bool     `json:"held"`
	Broke        []string `json:"broke,omitempty"`
	Verdict      string   `json:"verdict"`
	unitTimeUnit time.Duration
}

// StageResult is one row of the STAGES table computed outside the run's Store, in base
// units: `tidemark summarize` computes it for a run over several instances from the
// series they wrote. A nil pointer means the stage had no such samples.
type StageResult struct {
	Scenario string
	// Index is the stage's position in the scenario, from 0.
	Index      int
	Start, End time.Time
	// Target is the stage's target at its end: VUs when TimeUnit is 0, otherwise
	// iterations per TimeUnit.
	Target   float64
	TimeUnit time.Duration
	// Achieved is in the target's unit.
	Achieved, Iterations float64
	// RequestRate is requests per second.
	RequestRate float64
	// P50, P95 and P99 are http_req_duration's quantiles in seconds.
	P50, P95, P99 *float64
	ErrorRate     *float64
	Dropped       float64
	// Held is the verdict, Broke what broke it, and Verdict the text the table shows.
	Held    bool
	Broke   []string
	Verdict string
}

// resultRow is the table row of a stage computed elsewhere.
func (r *report) resultRow(st StageResult) stageRow {
	msOf := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		x := *v * 1000
		return &x
	}
	row := stageRow{
		Scenario: st.Scenario, Stage: st.Index,
		StartMs: ms(st.Start.Sub(r.in.Start)), EndMs: ms(st.End.Sub(r.in.Start)),
		Target: st.Target, Achieved: st.Achieved, Iterations: st.Iterations, RequestRate: st.RequestRate,
		P50: msOf(st.P50), P95: msOf(st.P95), P99: msOf(st.P99), ErrorRate: st.ErrorRate, Dropped: st.Dropped,
		Held: st.Held, Broke: st.Broke, Verdict: st.Verdict, unitTimeUnit: st.TimeUnit,
	}
	row.TargetUnit = "vus"
	if st.TimeUnit > 0 {
		row.TargetUnit = "iterations/" + unitName(st.TimeUnit)
	}
	return row
}

// stageRows computes the per-stage windows from the cumulative snapshots: every
// quantity is the difference between the snapshots at the window's end and start, for
// the series tagged with the stage's scenario.
func (r *report) stageRows() ([]stageRow, error) {
	rows := make([]stageRow, 0, len(r.in.Stages)+len(r.in.StageResults))
	for _, st := range r.in.Stages {
		if st.To == nil {
			return nil, fmt.Errorf("stage %d of scenario %q has no end snapshot", st.Index, st.Scenario)
		}
		win, err := st.To.Since(st.From)
		if err != nil {
			return nil, fmt.Errorf("stage %d of scenario %q: %w", st.Index, st.Scenario, err)
		}
		secs := st.End.Sub(st.Start).Seconds()
		perSec := func(x float64) float64 {
			if secs <= 0 {
				return 0
			}
			return x / secs
		}
		sel := []metrics.Tag{{Key: "scenario", Value: st.Scenario}}
		row := stageRow{
			Scenario:     st.Scenario,
			Stage:        st.Index,
			StartMs:      ms(st.Start.Sub(r.in.Start)),
			EndMs:        ms(st.End.Sub(r.in.Start)),
			Target:       st.Target,
			unitTimeUnit: st.TimeUnit,
		}
		if it, ok := valuesOf(win, "iterations", sel); ok {
			row.Iterations = it.Count
		}
		if st.TimeUnit > 0 {
			row.TargetUnit = "iterations/" + unitName(st.TimeUnit)
			row.Achieved = perSec(row.Iterations) * st.TimeUnit.Seconds()
		} else {
			row.TargetUnit = "vus"
			if st.VUs != nil && !r.externallyControlled(st.Scenario) {
				row.Achieved = *st.VUs
			} else if v, ok := valuesOf(win, "vus", nil); ok {
				row.Achieved = v.Value
				if r.externallyControlled(st.Scenario) {
					// Its target is the most VUs asked for over the REST API, and
					// the run ends with none active: the peak is what compares.
					row.Achieved = v.Max
				}
			}
		}
		if reqs, ok := valuesOf(win, "http_reqs", sel); ok {
			row.RequestRate = perSec(reqs.Count)
		}
		if d, ok := valuesOf(win, "http_req_duration", sel); ok {
			for _, q := range []struct {
				dst **float64
				q   float64
			}{{&row.P50, 0.5}, {&row.P95, 0.95}, {&row.P99, 0.99}} {
				v := d.Trend.Quantile(q.q) * 1000
				*q.dst = &v
			}
		}
		if f, ok := valuesOf(win, "http_req_failed", sel); ok {
			v := f.Rate()
			row.ErrorRate = &v
		}
		if d, ok := valuesOf(win, "dropped_iterations", sel); ok {
			row.Dropped = d.Count
		}
		r.judge(st, win, &row)
		rows = append(rows, row)
	}
	for _, st := range r.in.StageResults {
		rows = append(rows, r.resultRow(st))
	}
	return rows, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// unitName prints a time unit the way a rate reads: "s" for 1s, "1m" for a minute.
func unitName(d time.Duration) string {
	if d == time.Second {
		return "s"
	}
	return d.String()
}

// offset prints a window bound relative to the run start, to a tenth of a second.
func offset(msec float64) string {
	return (time.Duration(msec * float64(time.Millisecond))).Round(100 * time.Millisecond).String()
}

// stageLines renders the per-stage table with aligned columns: text columns left,
// numbers right, then the note on what the verdict judged.
func (r *report) stageLines(p palette, rows []stageRow) []string {
	header := []string{"stage", "window", "target", "achieved", "req/s", "p50", "p95", "p99", "errors", "dropped", "verdict"}
	const verdictCol = 10
	leftAligned := func(c int) bool { return c < 2 || c == verdictCol }
	dur := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return formatDuration(*v, r.timeUnit)
	}
	cells := make([][]string, len(rows))
	alert := make([][]bool, len(rows))
	var browsers []string
	for i, row := range rows {
		target, achieved := jsNumber(row.Target)+" VUs", jsNumber(row.Achieved)+" VUs"
		if row.unitTimeUnit > 0 {
			u := "/" + unitName(row.unitTimeUnit)
			target = jsNumber(row.Target) + u
			achieved = fixedNoTrailingZeros(row.Achieved, 2) + u
		}
		errs := "-"
		if row.ErrorRate != nil {
			errs = formatRate(*row.ErrorRate)
		}
		name := fmt.Sprintf("%s #%d", row.Scenario, row.Stage+1)
		if r.browser(row.Scenario) {
			name += " (browser)"
			browsers = append(browsers, row.Scenario)
		}
		cells[i] = []string{
			name,
			offset(row.StartMs) + "-" + offset(row.EndMs),
			target,
			achieved,
			fixedNoTrailingZeros(row.RequestRate, 2),
			dur(row.P50), dur(row.P95), dur(row.P99),
			errs,
			jsNumber(row.Dropped),
			row.Verdict,
		}
		alert[i] = make([]bool, len(header))
		alert[i][8] = row.ErrorRate != nil && *row.ErrorRate > 0
		alert[i][9] = row.Dropped > 0
		alert[i][verdictCol] = !row.Held
	}
	widths := make([]int, len(header))
	for c, h := range header {
		widths[c] = width(h)
		for _, row := range cells {
			widths[c] = max(widths[c], width(row[c]))
		}
	}
	render := func(row []string, style func(c int, s string) string) string {
		var b strings.Builder
		b.WriteString(indent(2))
		for c, s := range row {
			if c > 0 {
				b.WriteString("  ")
			}
			gap := pad(widths[c] - width(s))
			switch {
			case leftAligned(c) && c == len(row)-1:
				b.WriteString(style(c, s))
			case leftAligned(c):
				b.WriteString(style(c, s) + gap)
			default:
				b.WriteString(gap + style(c, s))
			}
		}
		return b.String()
	}
	out := []string{render(header, func(_ int, s string) string { return p.paint(s, sgrBold) })}
	for i, row := range cells {
		out = append(out, render(row, func(c int, s string) string {
			if alert[i][c] {
				return p.paint(s, sgrRed)
			}
			return s
		}))
	}
	out = append(out, indent(2)+p.paint(r.verdictNote(), sgrFaintGrey))
	if browsers = slices.Compact(browsers); len(browsers) > 0 {
		out = append(out, indent(2)+p.paint("browser scenarios ("+strings.Join(browsers, ", ")+"): their VUs drive Chromium and measure pages; "+
			"their rows count their own VUs, and beside other scenarios `tidemark correlate` leaves them out of the load's stages", sgrFaintGrey))
	}
	return out
}

// externallyControlled reports whether the test's scenario name has the
// externally-controlled executor.
func (r *report) externallyControlled(name string) bool {
	sc := r.scenario(name)
	return sc != nil && sc.Executor == scenario.ExternallyControlled
}

// browser reports whether the test's scenario name is a browser scenario
// (options.browser.type).
func (r *report) browser(name string) bool {
	sc := r.scenario(name)
	return sc != nil && sc.Browser != ""
}

// scenario returns the test's scenario of that name, or nil.
func (r *report) scenario(name string) *scenario.Scenario {
	if r.in.Test == nil {
		return nil
	}
	for _, sc := range r.in.Test.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}
