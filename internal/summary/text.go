package summary

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// ANSI SGR codes k6 uses.
const (
	sgrGreen     = "32"
	sgrRed       = "31"
	sgrCyan      = "36"
	sgrWhite     = "37"
	sgrFaintCyan = "2;36"
	sgrFaintGrey = "2;37"
	sgrBold      = "1"
)

// palette decorates text with ANSI codes when colour is on.
type palette bool

func (p palette) paint(s, sgr string) string {
	if !p {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// width is the display width of plain text (no escape sequences).
func width(s string) int { return utf8.RuneCountInString(s) }

func pad(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(" ", n)
}

// indent returns the indentation of a k6 render level: two spaces per level.
func indent(level int) string { return strings.Repeat("  ", level) }

// WriteText writes k6's compact end-of-test summary (reference/k6.md §3.2) followed by
// the per-stage table and the extra lines, exactly as `k6 run` prints it to stdout.
func WriteText(w io.Writer, in Input) error {
	r, err := newReport(in)
	if err != nil {
		return err
	}
	p := palette(in.Color)
	var sections []section
	if len(in.Thresholds) > 0 {
		sections = append(sections, section{"THRESHOLDS", r.thresholdLines(p)})
	}
	if len(in.Rules) > 0 {
		sections = append(sections, section{"SERVER-SIDE RULES", ruleLines(p, in.Rules)})
	}
	total := append(r.checkLines(p, 2), r.metricLines(p, 2)...)
	if note := r.breakdown.note(); note != "" {
		total = append(total, indent(2)+p.paint(note, sgrFaintGrey), blank)
	}
	sections = append(sections, section{"TOTAL RESULTS", total})
	if in.Mode == ModeFull {
		full, err := r.fullSections(p)
		if err != nil {
			return err
		}
		sections = append(sections, full...)
	}
	if len(in.Stages) > 0 || len(in.StageResults) > 0 {
		rows, err := r.stageRows()
		if err != nil {
			return err
		}
		sections = append(sections, section{"STAGES", r.stageLines(p, rows)})
	}
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(joinSections(p, sections))
	for _, l := range in.Extra {
		b.WriteString(indent(1) + l + "\n")
	}
	b.WriteString("\n\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// section is a titled block of lines; a "\n" element is a blank-line marker.
type section struct {
	title string
	lines []string
}

// blank marks a line break without content in section lines, as k6's renderer does.
const blank = "\n"

// joinSections renders k6's layout: each section is its title, its lines and a blank
// marker; a marker adds a newline, anything else starts a new line.
func joinSections(p palette, sections []section) string {
	var b strings.Builder
	for _, s := range sections {
		parts := append([]string{indent(1) + "█ " + p.paint(s.title, sgrBold) + " \n"}, s.lines...)
		parts = append(parts, blank)
		for _, l := range parts {
			if l != blank {
				b.WriteString("\n")
			}
			b.WriteString(l)
		}
	}
	return b.String()
}

// layout holds the column widths and rendered values of a block of metric lines.
type layout struct {
	nameWidth int
	trend     map[string][]string
	trendMax  []int
	main      map[string]string
	extras    map[string][]string
	mainMax   int
	extraMax  []int
}

// displayName is how a metric key is shown: sub-metrics as "  { tags }".
func displayName(key string) string {
	i := strings.Index(key, "{")
	if i < 0 {
		return key
	}
	return "  { " + key[i+1:len(key)-1] + " }"
}

// humanize formats a value in k6's units for the metric's type and contents.
func (r *report) humanize(v float64, m *metrics.Metric) string {
	if m.Type == metrics.Rate {
		return formatRate(v)
	}
	switch m.Contains {
	case metrics.Data:
		return formatBytes(v)
	case metrics.Time:
		return formatDuration(v, r.timeUnit)
	}
	return fixedNoTrailingZeros(v, 6)
}

func (r *report) trendValue(v float64, stat string, m *metrics.Metric) string {
	if math.IsNaN(v) {
		return "n/a" // A stat Input.Trends could not compute.
	}
	if stat == "count" {
		return jsNumber(v)
	}
	return r.humanize(v, m)
}

// nonTrend returns the main value and the extras of a counter, gauge or rate.
func (r *report) nonTrend(e *entry) []string {
	v := e.values
	switch e.metric.Type {
	case metrics.Counter:
		return []string{r.humanize(v["count"], e.metric), r.humanize(v["rate"], e.metric) + "/s"}
	case metrics.Gauge:
		return []string{r.humanize(v["value"], e.metric), "min=" + r.humanize(v["min"], e.metric), "max=" + r.humanize(v["max"], e.metric)}
	case metrics.Rate:
		return []string{r.humanize(v["rate"], e.metric), fmt.Sprintf("%s out of %s", jsNumber(v["passes"]), jsNumber(v["passes"]+v["fails"]))}
	}
	return []string{"[no data]"}
}

// layoutOf computes widths and values for entries rendered at the given level.
func (r *report) layoutOf(entries []*entry, level int) layout {
	l := layout{trend: map[string][]string{}, trendMax: make([]int, len(r.trendStats)), main: map[string]string{}, extras: map[string][]string{}}
	for _, e := range entries {
		l.nameWidth = max(l.nameWidth, width(indent(level)+displayName(e.key)))
		if e.metric.Type == metrics.Trend {
			cols := make([]string, len(r.trendStats))
			for i, st := range r.trendStats {
				cols[i] = r.trendValue(e.values[st], st, e.metric)
				l.trendMax[i] = max(l.trendMax[i], width(cols[i]))
			}
			l.trend[e.key] = cols
			continue
		}
		vals := r.nonTrend(e)
		l.main[e.key] = vals[0]
		l.mainMax = max(l.mainMax, width(vals[0]))
		l.extras[e.key] = vals[1:]
		for i, x := range vals[1:] {
			if i >= len(l.extraMax) {
				l.extraMax = append(l.extraMax, 0)
			}
			l.extraMax[i] = max(l.extraMax[i], width(x))
		}
	}
	return l
}

// metricLine renders "name.....: values" at the given level.
func (r *report) metricLine(p palette, l layout, e *entry, level int) string {
	name := displayName(e.key)
	dots := max(3, l.nameWidth-(width(name)+width(indent(level)))+3)
	var data string
	if e.metric.Type == metrics.Trend {
		cols := l.trend[e.key]
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = r.trendStats[i] + "=" + p.paint(c, sgrCyan) + pad(l.trendMax[i]-width(c))
		}
		data = strings.Join(parts, " ")
	} else {
		main := l.main[e.key]
		data = p.paint(main, sgrCyan) + pad(l.mainMax-width(main))
		extras := l.extras[e.key]
		switch {
		case len(extras) == 1:
			data += " " + p.paint(extras[0], sgrFaintCyan)
		case len(extras) > 1:
			parts := make([]string, len(extras))
			for i, x := range extras {
				parts[i] = p.paint(x, sgrFaintCyan) + pad(l.extraMax[i]-width(x))
			}
			data += " " + strings.Join(parts, " ")
		}
	}
	return indent(level) + name + p.paint(strings.Repeat(".", dots)+":", sgrFaintGrey) + " " + data
}

// thresholdLines renders the THRESHOLDS section: per metric its name, then one line
// per expression with ✓ or ✗, the expression and the value it judged.
func (r *report) thresholdLines(p palette) []string {
	var entries []*entry
	for _, e := range r.entries {
		if _, ok := r.in.Thresholds[e.key]; ok {
			entries = append(entries, e)
		}
	}
	const level = 2
	l := r.layoutOf(entries, level)
	var out []string
	for _, e := range entries {
		parent, _, isSub := strings.Cut(e.key, "{")
		_, parentHas := r.in.Thresholds[parent]
		lvl := level
		name := e.key
		if isSub && parentHas {
			lvl++
			name = e.key[len(parent):]
		}
		out = append(out, indent(lvl)+name)
		for _, th := range r.in.Thresholds[e.key] {
			mark := p.paint("✓", sgrGreen)
			if !th.OK {
				mark = p.paint("✗", sgrRed)
			}
			agg := threshold.MethodOf(th.Expr)
			expr := p.paint("'"+strings.TrimSpace(th.Expr)+"'", sgrWhite)
			if th.Window > 0 {
				out = append(out, indent(lvl)+mark+" "+expr+" over "+threshold.FormatWindow(th.Window)+" "+r.windowLine(p, e.metric, agg, th.Record))
				continue
			}
			value := p.paint(agg, sgrWhite) + "=" + p.paint(r.thresholdValue(l, e, agg, th), sgrCyan)
			out = append(out, indent(lvl)+mark+" "+expr+" "+value)
		}
		out = append(out, blank)
	}
	return out
}

// windowLine tells what a windowed threshold's windows saw: the worst window's value
// and when it was (offsets from the run's start), and the first failing window:
// "worst p(95)=812.3ms in 40s–1m10s; first failed in 31s–1m1s".
func (r *report) windowLine(p palette, m *metrics.Metric, agg string, rec *threshold.WindowRecord) string {
	if rec == nil || rec.Evaluated == 0 || !rec.Worst.HasValue {
		return "no window judged"
	}
	s := "worst " + p.paint(agg, sgrWhite) + "=" + p.paint(r.windowValue(m, agg, rec.Worst.Value), sgrCyan) + " in " + windowSpan(rec.Worst)
	if rec.Failed && rec.FirstFailure.End != rec.Worst.End {
		s += "; first failed in " + windowSpan(rec.FirstFailure)
	}
	return s
}

// windowValue formats a window's value (k6's units) as the THRESHOLDS section does.
func (r *report) windowValue(m *metrics.Metric, agg string, v float64) string {
	switch {
	case m.Type == metrics.Trend:
		return r.trendValue(v, agg, m)
	case m.Type == metrics.Counter && agg == "rate":
		return r.humanize(v, m) + "/s"
	}
	return r.humanize(v, m)
}

// windowSpan is a window's offsets from the run's start, to the second: "40s–1m10s".
func windowSpan(w threshold.WindowValue) string {
	return runOffset(w.Start) + "–" + runOffset(w.End)
}

// runOffset is an offset from the run's start, to the second.
func runOffset(d time.Duration) string {
	return threshold.FormatWindow(d.Round(time.Second))
}

// thresholdValue is the value shown next to a threshold: the summary column of its
// aggregation.
func (r *report) thresholdValue(l layout, e *entry, agg string, th Threshold) string {
	switch e.metric.Type {
	case metrics.Trend:
		if i := slices.Index(r.trendStats, agg); i >= 0 {
			return l.trend[e.key][i]
		}
		// k6 prints "undefined" for a stat outside summaryTrendStats other than p(N);
		// we compute it.
		v, err := r.trendStat(e.metric, e.vals, agg)
		if given, ok := r.in.Trends[e.key]; ok {
			v, err = th.Value, nil // Computed by whoever gave Input.Trends, in k6's units.
			if _, has := given[agg]; !has {
				v = math.NaN()
			}
		}
		if err != nil {
			v = th.Value // Already in k6's units.
		}
		return r.trendValue(v, agg, e.metric)
	case metrics.Counter:
		if agg == "count" {
			return l.main[e.key]
		}
		return l.extras[e.key][0]
	}
	return l.main[e.key]
}

// checkLines renders checks_total, checks_succeeded, checks_failed and one line per
// check at the given level, or nothing when the run had no checks.
func (r *report) checkLines(p palette, level int) []string {
	t := r.checks
	if !t.has {
		return nil
	}
	total := float64(t.total.Total)
	passes := float64(t.total.Passes)
	rate := 0.0
	if r.in.Duration > 0 {
		rate = total / r.in.Duration.Seconds()
	}
	failRate := 0.0
	if total > 0 {
		failRate = (total - passes) / total
	}
	entries := []*entry{
		{key: "checks_total", metric: &metrics.Metric{Name: "checks_total", Type: metrics.Counter}, values: map[string]float64{"count": total, "rate": rate}},
		{key: "checks_succeeded", metric: &metrics.Metric{Name: "checks_succeeded", Type: metrics.Rate}, values: map[string]float64{"rate": t.total.Rate(), "passes": passes, "fails": total - passes}},
		{key: "checks_failed", metric: &metrics.Metric{Name: "checks_failed", Type: metrics.Rate}, values: map[string]float64{"rate": failRate, "passes": total - passes, "fails": passes}},
	}
	l := r.layoutOf(entries, level)
	var out []string
	for _, e := range entries {
		out = append(out, r.metricLine(p, l, e, level))
	}
	out = append(out, blank)
	for _, c := range t.flat {
		if c.Fails == 0 {
			out = append(out, indent(level)+p.paint("✓ "+c.Name, sgrGreen))
			continue
		}
		pct := math.Floor(100 * float64(c.Passes) / float64(c.Passes+c.Fails))
		line := indent(level) + p.paint("✗ "+c.Name, sgrRed) + "\n" +
			indent(level+1) + p.paint(fmt.Sprintf("↳  %s%% — ✓ %d / ✗ %d", jsNumber(pct), c.Passes, c.Fails), sgrRed)
		out = append(out, line)
	}
	return append(out, blank)
}

// category is a block of TOTAL RESULTS.
type category struct {
	title string
	match func(name string) bool
}

// categories in k6's order, CUSTOM (everything else) first. k6 matches by prefix.
func categories() []category {
	oneOf := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if strings.HasPrefix(n, x) {
					return true
				}
			}
			return false
		}
	}
	prefix := func(pre string) func(string) bool {
		return func(n string) bool { return strings.HasPrefix(n, pre) }
	}
	return []category{
		{"HTTP", oneOf("http_reqs", "http_req_failed", "http_req_duration", "http_req_blocked", "http_req_connecting",
			"http_req_tls_handshaking", "http_req_sending", "http_req_waiting", "http_req_receiving")},
		{"EXECUTION", oneOf("vus", "vus_max", "iterations", "iteration_duration", "dropped_iterations")},
		{"NETWORK", oneOf("data_sent", "data_received")},
		{"BROWSER", func(n string) bool {
			return strings.HasPrefix(n, "browser_") && !strings.HasPrefix(n, "browser_web_vital_")
		}},
		{"WEB VITALS", prefix("browser_web_vital_")},
		{"GRPC", prefix("grpc_")},
		{"WEBSOCKETS", prefix("ws_")},
	}
}

// skipped are the metrics compact mode hides (k6 matches by prefix), and Tidemark's own
// run metadata (tidemark_run_info, tidemark_scenario_target), which exists for PromQL and
// the correlator, not for people reading the summary. Full mode hides only the run
// metadata and `checks`, which the checks_* lines show.
func skipped(name string, full bool) bool {
	if runMetadata(name) {
		return true
	}
	if full {
		return name == "checks" || strings.HasPrefix(name, "checks{")
	}
	for _, x := range []string{"checks", "group_duration", "http_req_blocked", "http_req_connecting", "http_req_receiving",
		"http_req_sending", "http_req_tls_handshaking", "http_req_waiting"} {
		if strings.HasPrefix(name, x) {
			return true
		}
	}
	return false
}

// metricLines renders the metric categories of TOTAL RESULTS (or of a full-mode
// section) at the given level.
func (r *report) metricLines(p palette, level int) []string {
	cats := categories()
	byCat := make([][]*entry, len(cats))
	var custom, shown []*entry
	for _, e := range r.entries {
		if !e.observed || skipped(e.key, r.in.Mode == ModeFull) {
			continue
		}
		shown = append(shown, e)
		i := slices.IndexFunc(cats, func(c category) bool { return c.match(e.key) })
		if i < 0 {
			custom = append(custom, e)
			continue
		}
		byCat[i] = append(byCat[i], e)
	}
	l := r.layoutOf(shown, level)
	var out []string
	block := func(title string, es []*entry) {
		if len(es) == 0 {
			return
		}
		out = append(out, indent(level)+p.paint(title, sgrBold))
		for _, e := range es {
			out = append(out, r.metricLine(p, l, e, level))
		}
		out = append(out, blank)
	}
	block("CUSTOM", custom)
	for i, c := range cats {
		block(c.title, byCat[i])
	}
	return out
}

// valuesOf is a helper for tests and stage rows: the merged values of a sub-metric in
// a snapshot, and whether any sample reached it.
func valuesOf(s *aggregate.Snapshot, name string, tags []metrics.Tag) (aggregate.Values, bool) {
	se, ok := s.Submetric(name, tags)
	if !ok || se.Empty() {
		return aggregate.Values{}, false
	}
	return se.Values, true
}
