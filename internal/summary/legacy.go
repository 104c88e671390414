package summary

import (
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/internal/metrics"
)

// LegacyData is what the jslib k6-summary textSummary reads of handleSummary's data: the
// metrics with their values as the data has them (k6's units: milliseconds for time
// metrics), the group tree with its checks, and the trend stats and time unit options.
type LegacyData struct {
	Metrics    []LegacyMetric
	Root       LegacyGroup
	TrendStats []string
	TimeUnit   string
}

// LegacyMetric is one metric or sub-metric of the data.
type LegacyMetric struct {
	// Key is the metric's name, or "name{tag:value}" for a sub-metric.
	Key      string
	Type     metrics.Type
	Contains metrics.ValueType
	// Values are the data's: counter count and rate, gauge value, min and max, rate
	// rate, passes and fails, trend one per stat.
	Values map[string]float64
	// Thresholds are its threshold results; only their outcomes are shown.
	Thresholds []Threshold
}

// LegacyGroup is a group of the data (the root group has no name).
type LegacyGroup struct {
	Name   string
	Checks []LegacyCheck
	Groups []LegacyGroup
}

// LegacyCheck is a check of a group.
type LegacyCheck struct {
	Name          string
	Passes, Fails float64
}

// WriteLegacyText writes the text the jslib k6-summary textSummary(data, {indent,
// enableColors}) returns, the layout of k6's end-of-test summary before v1.0: the
// groups (`█ name`) and their checks, then every metric in name order, each sub-metric
// under its parent, a metric with thresholds marked ✓ or ✗ (✗ when one failed).
// Every number is the data's own, formatted as k6 formats it. Each line starts with
// indent and four spaces.
func WriteLegacyText(w io.Writer, d LegacyData, indent string, color bool) error {
	p := palette(color)
	lines := legacyGroupLines(p, d.Root, indent+"    ")
	lines = append(lines, legacyMetricLines(p, d, indent+"    ")...)
	_, err := io.WriteString(w, "\n"+strings.Join(lines, "\n")+"\n\n")
	return err
}

// legacyGroupLines renders a group's checks, then its sub-groups, as k6 did.
func legacyGroupLines(p palette, g LegacyGroup, indent string) []string {
	var out []string
	if g.Name != "" {
		out = append(out, indent+"█ "+g.Name, "")
		indent += "  "
	}
	for _, c := range g.Checks {
		if c.Fails == 0 {
			out = append(out, indent+p.paint("✓ "+c.Name, sgrGreen))
			continue
		}
		pct := 0.0
		if c.Passes+c.Fails > 0 {
			pct = math.Floor(100 * c.Passes / (c.Passes + c.Fails))
		}
		out = append(out, indent+p.paint("✗ "+c.Name, sgrRed),
			indent+" "+p.paint("↳  "+jsNumber(pct)+"% — ✓ "+jsNumber(c.Passes)+" / ✗ "+jsNumber(c.Fails), sgrRed))
	}
	if len(g.Checks) > 0 {
		out = append(out, "")
	}
	for _, sub := range g.Groups {
		out = append(out, legacyGroupLines(p, sub, indent)...)
	}
	return out
}

// legacyMetricLines renders the metric lines: names padded with dots to one column,
// values in aligned columns.
func legacyMetricLines(p palette, d LegacyData, indent string) []string {
	ms := slices.Clone(d.Metrics)
	slices.SortStableFunc(ms, func(a, b LegacyMetric) int { return compareKeys(a.Key, b.Key) })
	r := &report{trendStats: d.TrendStats, timeUnit: d.TimeUnit}
	if len(r.trendStats) == 0 {
		r.trendStats = DefaultTrendStats()
	}
	names := make([]string, len(ms))
	cols := make([][]string, len(ms))
	nameWidth := 0
	var widths []int
	for i, m := range ms {
		names[i] = legacyName(m.Key)
		nameWidth = max(nameWidth, width(names[i]))
		cols[i] = r.legacyValues(m)
		off := 0
		if m.Type != metrics.Trend {
			off = len(r.trendStats) // non-trend columns are aligned among themselves
		}
		for j, c := range cols[i] {
			for len(widths) <= off+j {
				widths = append(widths, 0)
			}
			widths[off+j] = max(widths[off+j], width(c))
		}
	}
	out := make([]string, 0, len(ms))
	for i, m := range ms {
		off := 0
		if m.Type != metrics.Trend {
			off = len(r.trendStats)
		}
		parts := make([]string, len(cols[i]))
		for j, c := range cols[i] {
			parts[j] = legacyCell(p, m, j, c) + pad(widths[off+j]-width(c))
		}
		lead := indent
		if len(m.Thresholds) > 0 {
			mark := p.paint("✓", sgrGreen)
			if slices.ContainsFunc(m.Thresholds, func(t Threshold) bool { return !t.OK }) {
				mark = p.paint("✗", sgrRed)
			}
			lead = indent[:max(len(indent)-2, 0)] + mark + " "
		}
		dots := strings.Repeat(".", nameWidth-width(names[i])+3)
		out = append(out, lead+names[i]+p.paint(dots+":", sgrFaintGrey)+" "+strings.Join(parts, " "))
	}
	return out
}

// legacyName is how the legacy layout names a metric: a sub-metric by its tags,
// indented under its parent.
func legacyName(key string) string {
	if i := strings.Index(key, "{"); i >= 0 {
		return "  { " + key[i+1:len(key)-1] + " }"
	}
	return key
}

// legacyCell colours one value column: a trend's "stat=" stays plain, the main value
// cyan, the others faint.
func legacyCell(p palette, m LegacyMetric, col int, s string) string {
	if m.Type == metrics.Trend {
		stat, val, _ := strings.Cut(s, "=")
		return stat + "=" + p.paint(val, sgrCyan)
	}
	if col == 0 {
		return p.paint(s, sgrCyan)
	}
	return p.paint(s, sgrFaintCyan)
}

// legacyValues are a metric's value columns: a trend's stat=value per trend stat, a
// counter's count and rate per second, a gauge's value, min= and max=, a rate's
// percentage, ✓ passes and ✗ fails.
func (r *report) legacyValues(m LegacyMetric) []string {
	met := &metrics.Metric{Name: m.Key, Type: m.Type, Contains: m.Contains}
	v := m.Values
	switch m.Type {
	case metrics.Counter:
		return []string{r.humanize(v["count"], met), r.humanize(v["rate"], met) + "/s"}
	case metrics.Gauge:
		return []string{r.humanize(v["value"], met), "min=" + r.humanize(v["min"], met), "max=" + r.humanize(v["max"], met)}
	case metrics.Rate:
		return []string{r.humanize(v["rate"], met), "✓ " + jsNumber(v["passes"]), "✗ " + jsNumber(v["fails"])}
	}
	out := make([]string, 0, len(r.trendStats))
	for _, st := range r.trendStats {
		x, ok := v[st]
		if !ok {
			out = append(out, st+"=n/a")
			continue
		}
		out = append(out, st+"="+r.trendValue(x, st, met))
	}
	return out
}
