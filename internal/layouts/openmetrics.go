package layouts

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// omSeries is one series' sample lines.
type omSeries struct {
	name  string
	lines []string
}

// omWriter collects series and writes them as OpenMetrics text, grouped by metric name in
// the order first added (promtool wants a family's lines together).
type omWriter struct {
	series []*omSeries
}

// add writes f at offsets from+offset, from+offset+step, … up to to (seconds from the
// story's start), skipping offsets where f reports false.
func (w *omWriter) add(st story, name string, ls []label, from, to, step, offset float64, f func(r float64) (float64, bool)) {
	var times []float64
	for k := 0; ; k++ {
		r := from + offset + float64(k)*step
		if r > to+1e-9 {
			break
		}
		times = append(times, r)
	}
	w.addAt(st, name, ls, times, f)
}

// addAt writes f at the given offsets (increasing), skipping those where f reports false.
func (w *omWriter) addAt(st story, name string, ls []label, times []float64, f func(r float64) (float64, bool)) {
	s := &omSeries{name: name}
	sel := name + "{" + renderLabels(ls) + "}"
	for _, r := range times {
		v, ok := f(r)
		if !ok {
			continue
		}
		ts := st.at(r)
		s.lines = append(s.lines, fmt.Sprintf("%s %s %d.%03d", sel, fmtFloat(v), ts.Unix(), ts.Nanosecond()/1e6))
	}
	if len(s.lines) > 0 {
		w.series = append(w.series, s)
	}
}

func renderLabels(ls []label) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.name)
		b.WriteString(`="`)
		b.WriteString(escapeValue(l.value))
		b.WriteByte('"')
	}
	return b.String()
}

// escapeValue escapes a label value as the OpenMetrics text format does.
func escapeValue(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}

func fmtFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.6g", v)
}

func (w *omWriter) bytes() []byte {
	series := slices.Clone(w.series)
	slices.SortStableFunc(series, func(a, b *omSeries) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	for _, s := range series {
		for _, l := range s.lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	b.WriteString("# EOF\n")
	return []byte(b.String())
}
