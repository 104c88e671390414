package jslib

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/summary"
)

// Summary returns the k6-summary module: textSummary(data, [{indent, enableColors}])
// and jUnit(data, [{name, classname}]).
//
// textSummary draws the text with internal/summary (summary.WriteText), the renderer of
// Tidemark's own end-of-test summary, from an input rebuilt from the handleSummary data:
// counters, gauges, rates, checks, groups, thresholds, trend stats, time unit and
// duration are the data's. The rebuilt input has no stages, so the STAGES table and the
// remote-write lines Tidemark prints after k6's sections are not part of it (nor of
// k6's textSummary). Trend lines are drawn from a histogram rebuilt from the data's
// stats, so a percentile or avg may differ from the data's by the histogram's
// resolution (internal/hist: 0.27%), and a trend with sub-metrics also counts the
// sub-metrics' values in the parent; the sub-metrics of checks show no values.
func Summary() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		rt := vu.Runtime()
		stringify, ok := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
		if !ok {
			return nil, errors.New("k6-summary: JSON.stringify is not a function")
		}
		s := &summaryModule{vu: vu, stringify: stringify}
		return modules.Exports{Named: map[string]any{
			"textSummary": s.textSummary,
			"jUnit":       s.jUnit,
		}}, nil
	})
}

type summaryModule struct {
	vu        modules.VU
	stringify sobek.Callable
}

// data is the part of handleSummary's data the summaries read.
type data struct {
	RootGroup dataGroup `json:"root_group"`
	Options   struct {
		SummaryTrendStats []string `json:"summaryTrendStats"`
		SummaryTimeUnit   string   `json:"summaryTimeUnit"`
	} `json:"options"`
	State struct {
		TestRunDurationMs float64 `json:"testRunDurationMs"`
	} `json:"state"`
	Metrics map[string]dataMetric `json:"metrics"`
}

type dataGroup struct {
	Name   string      `json:"name"`
	Path   string      `json:"path"`
	Groups []dataGroup `json:"groups"`
	Checks []struct {
		Name   string  `json:"name"`
		Passes float64 `json:"passes"`
		Fails  float64 `json:"fails"`
	} `json:"checks"`
}

type dataMetric struct {
	Type       string             `json:"type"`
	Contains   string             `json:"contains"`
	Values     map[string]float64 `json:"values"`
	Thresholds thresholds         `json:"thresholds"`
}

// thresholds are a metric's threshold results in the order of the data's keys.
type thresholds []summary.Threshold

// UnmarshalJSON decodes {"expr": {"ok": bool}, ...} keeping the keys' order.
func (t *thresholds) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("thresholds: expected an object, got %v", tok)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		var v struct {
			OK bool `json:"ok"`
		}
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("threshold %v: %w", key, err)
		}
		*t = append(*t, summary.Threshold{Expr: fmt.Sprint(key), OK: v.OK})
	}
	return nil
}

// decode reads handleSummary's data from the script's value.
func (s *summaryModule) decode(what string, v sobek.Value) *data {
	rt := s.vu.Runtime()
	if sobek.IsUndefined(v) || sobek.IsNull(v) {
		modules.Throw(rt, fmt.Errorf("%s: expected handleSummary's data as the first argument", what))
	}
	text, err := s.stringify(sobek.Undefined(), v)
	if err != nil {
		panic(err)
	}
	var d data
	if err := json.Unmarshal([]byte(text.String()), &d); err != nil {
		modules.Throw(rt, fmt.Errorf("%s: read handleSummary's data: %w", what, err))
	}
	return &d
}

// textSummary is textSummary(data, [{indent, enableColors}]): the end-of-test summary
// as text, every line prefixed by indent (default ""), ANSI colours only with
// enableColors (default false).
func (s *summaryModule) textSummary(call sobek.FunctionCall) sobek.Value {
	rt := s.vu.Runtime()
	d := s.decode("textSummary", call.Argument(0))
	indent, color := "", false
	if o := call.Argument(1); !sobek.IsUndefined(o) && !sobek.IsNull(o) {
		opts := o.ToObject(rt)
		if v := opts.Get("indent"); v != nil && !sobek.IsUndefined(v) {
			indent = v.String()
		}
		if v := opts.Get("enableColors"); v != nil {
			color = v.ToBoolean()
		}
	}
	in, err := inputOf(d)
	if err != nil {
		modules.Throw(rt, fmt.Errorf("textSummary: %w", err))
	}
	in.Color = color
	var b strings.Builder
	if err := summary.WriteText(&b, in); err != nil {
		modules.Throw(rt, fmt.Errorf("textSummary: %w", err))
	}
	return rt.ToValue(indentLines(b.String(), indent))
}

// indentLines prefixes every non-empty line of s with indent.
func indentLines(s, indent string) string {
	if indent == "" {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = indent + l
		}
	}
	return strings.Join(lines, "\n")
}

// inputOf rebuilds a summary input from the data: a snapshot whose series have the
// data's values.
func inputOf(d *data) (summary.Input, error) {
	b := &builder{pool: metrics.NewTagPool(), byName: map[string]*metrics.Metric{}, next: time.Unix(1, 0)}
	in := summary.Input{
		Test:       &scenario.Test{SummaryTrendStats: d.Options.SummaryTrendStats, SummaryTimeUnit: d.Options.SummaryTimeUnit},
		Duration:   time.Duration(math.Round(d.State.TestRunDurationMs * float64(time.Millisecond))),
		Thresholds: map[string][]summary.Threshold{},
	}
	type sub struct {
		key  string
		tags []metrics.Tag
		m    dataMetric
	}
	subs := map[string][]sub{}
	var names []string
	for key, m := range d.Metrics {
		if len(m.Thresholds) > 0 {
			in.Thresholds[key] = m.Thresholds
		}
		name, tags, err := summary.ParseKey(key)
		if err != nil {
			return in, err
		}
		if _, err := b.metric(name, m); err != nil {
			return in, err
		}
		if len(tags) > 0 {
			subs[name] = append(subs[name], sub{key, tags, m})
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		met := b.byName[name]
		if name == "checks" {
			continue // Its series are the checks of root_group.
		}
		parent, hasParent := d.Metrics[name]
		own := b.values(met, parent.Values)
		var tagSets [][]metrics.Tag
		for _, s := range subs[name] {
			tagSets = append(tagSets, s.tags)
		}
		disjoint := pairwiseDisjoint(tagSets)
		var subVals []aggregate.Values
		for _, s := range subs[name] {
			v := b.values(met, s.m.Values)
			b.add(met, s.tags, v)
			subVals = append(subVals, v)
			if disjoint {
				subtract(&own, v)
			}
		}
		if met.Type == metrics.Trend && len(subVals) > 0 {
			own = b.parentTrend(met, parent.Values, subVals)
		}
		if hasParent {
			b.add(met, nil, own) // Last, so that a gauge's value is the parent's.
		}
	}
	if checks, ok := b.byName["checks"]; ok {
		b.checks(checks, d.RootGroup)
	}
	slices.SortStableFunc(b.series, func(x, y aggregate.Series) int {
		if c := strings.Compare(x.Metric.Name, y.Metric.Name); c != 0 {
			return c
		}
		return metrics.CompareTags(x.Tags.Tags(), y.Tags.Tags())
	})
	in.Snapshot = &aggregate.Snapshot{Time: b.next, Series: b.series}
	return in, nil
}

// builder collects the series of a rebuilt snapshot.
type builder struct {
	pool   *metrics.TagPool
	byName map[string]*metrics.Metric
	series []aggregate.Series
	next   time.Time // the time of the next series, so that data order is kept
}

// metric returns the metric called name, typed by the data.
func (b *builder) metric(name string, m dataMetric) (*metrics.Metric, error) {
	if met, ok := b.byName[name]; ok {
		return met, nil
	}
	typ, ok := metrics.ParseType(m.Type)
	if !ok {
		return nil, fmt.Errorf("metric %s: unknown type %q", name, m.Type)
	}
	contains, ok := metrics.ParseValueType(m.Contains)
	if !ok {
		contains = metrics.Default
	}
	met := &metrics.Metric{Name: name, Type: typ, Contains: contains}
	b.byName[name] = met
	return met, nil
}

// add adds one series.
func (b *builder) add(m *metrics.Metric, tags []metrics.Tag, v aggregate.Values) {
	b.next = b.next.Add(time.Millisecond)
	b.series = append(b.series, aggregate.Series{Metric: m, Tags: b.pool.Intern(slices.Clone(tags)), First: b.next, Last: b.next, Values: v})
}

// checks adds one `checks` series per check of g and its sub-groups, in data order.
func (b *builder) checks(m *metrics.Metric, g dataGroup) {
	for _, c := range g.Checks {
		tags := []metrics.Tag{{Key: "check", Value: c.Name}}
		if g.Path != "" {
			tags = append(tags, metrics.Tag{Key: "group", Value: g.Path})
		}
		passes := uint64(math.Max(0, math.Round(c.Passes)))
		b.add(m, tags, aggregate.Values{Type: metrics.Rate, Passes: passes, Total: passes + uint64(math.Max(0, math.Round(c.Fails)))})
	}
	for _, sub := range g.Groups {
		b.checks(m, sub)
	}
}

// values returns the sink of a metric with the data's values (k6's units: time in
// milliseconds) in base units.
func (b *builder) values(m *metrics.Metric, vals map[string]float64) aggregate.Values {
	scale := 1.0
	if m.Contains == metrics.Time {
		scale = 1.0 / 1000
	}
	v := aggregate.Values{Type: m.Type}
	switch m.Type {
	case metrics.Counter:
		v.Count = vals["count"] * scale
	case metrics.Gauge:
		v.Value, v.Min, v.Max = vals["value"]*scale, vals["min"]*scale, vals["max"]*scale
	case metrics.Rate:
		v.Passes = uint64(math.Max(0, math.Round(vals["passes"])))
		v.Total = v.Passes + uint64(math.Max(0, math.Round(vals["fails"])))
	case metrics.Trend:
		v.Trend = trendOf(vals, scale, nil)
	}
	return v
}

// parentTrend rebuilds a trend's own series when sub-metric series (subs) are merged
// with it by the parent's lookup.
func (b *builder) parentTrend(m *metrics.Metric, vals map[string]float64, subs []aggregate.Values) aggregate.Values {
	scale := 1.0
	if m.Contains == metrics.Time {
		scale = 1.0 / 1000
	}
	other := hist.New()
	for _, s := range subs {
		other.Merge(s.Trend)
	}
	return aggregate.Values{Type: metrics.Trend, Trend: trendOf(vals, scale, other)}
}

// subtract removes a sub-metric's counts from its parent's own series.
func subtract(own *aggregate.Values, v aggregate.Values) {
	switch own.Type {
	case metrics.Counter:
		own.Count -= v.Count
	case metrics.Rate:
		if v.Total <= own.Total && v.Passes <= own.Passes {
			own.Passes -= v.Passes
			own.Total -= v.Total
		}
	}
}

// pairwiseDisjoint reports whether no tag set can contain two of sets: each pair has
// a key with different values. Sub-metric series can then be subtracted from their
// parent's without counting anything twice.
func pairwiseDisjoint(sets [][]metrics.Tag) bool {
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			clash := false
			for _, a := range sets[i] {
				if v, ok := metrics.TagValue(sets[j], a.Key); ok && v != a.Value {
					clash = true
					break
				}
			}
			if !clash {
				return false
			}
		}
	}
	return true
}

// trendPoints is the number of values a rebuilt trend draws from its quantile curve:
// every p(N) with N a multiple of 0.1 falls on one of them. A trend whose sub-metric
// series the parent's lookup also merges draws at least parentWeight times as many for
// its own series, so that its known points can be placed around the sub-metrics'.
const (
	trendPoints  = 1001
	parentWeight = 10
)

// trendOf rebuilds a histogram from a trend's stats. Its values follow a quantile
// curve through the known points (min, med, p(N), max), each placed at the rank where
// the merge of these values and of other (the sub-metric values merged with them by
// the parent's lookup; nil for none) has that quantile. Between two known points a
// and b the values are a + (b−a)·t^γ for t evenly spread over [0, 1]; γ (one for every
// segment) is solved so that the merge's mean is avg, and one value of the widest
// segment takes the rounding rest.
func trendOf(vals map[string]float64, scale float64, other *hist.Histogram) *hist.Histogram {
	var pts []point
	for stat, v := range vals {
		q, ok := aggregate.Percentile(stat)
		switch stat {
		case "min":
			q, ok = 0, true
		case "max":
			q, ok = 1, true
		case "med":
			q, ok = 0.5, true
		}
		if ok {
			pts = append(pts, point{q: q, v: v * scale})
		}
	}
	h := hist.New()
	avg, hasAvg := vals["avg"]
	avg *= scale
	if len(pts) == 0 {
		if hasAvg {
			h.Observe(avg)
		}
		return h
	}
	slices.SortFunc(pts, func(a, b point) int {
		if a.q != b.q {
			return cmpFloat(a.q, b.q)
		}
		return cmpFloat(a.v, b.v)
	})
	for i := 1; i < len(pts); i++ {
		pts[i].v = math.Max(pts[i].v, pts[i-1].v) // A quantile curve does not go down.
	}
	if pts[0].q > 0 {
		pts = append([]point{{q: 0, v: pts[0].v}}, pts...)
	}
	if pts[len(pts)-1].q < 1 {
		pts = append(pts, point{q: 1, v: pts[len(pts)-1].v})
	}
	// Ranks: n own values, N = n + m in the merge, with N-1 a multiple of
	// trendPoints-1 so that every known quantile is an order statistic of the merge.
	n, m := trendPoints, 0
	var otherSum float64
	if other != nil && other.Count() > 0 {
		m = int(other.Count())
		otherSum = other.Sum()
		steps := (parentWeight*trendPoints + m + trendPoints - 2) / (trendPoints - 1)
		n = steps*(trendPoints-1) + 1 - m
	}
	total := n + m
	for i := range pts {
		r := int(math.Round(pts[i].q * float64(total-1)))
		if m > 0 {
			r -= otherBelow(other, pts[i].v)
		}
		pts[i].r = min(n-1, max(0, r))
		if i > 0 {
			pts[i].r = max(pts[i].r, pts[i-1].r)
		}
	}
	pts[0].r, pts[len(pts)-1].r = 0, n-1
	xs := make([]float64, n)
	mean := func(gamma float64) float64 {
		curve(xs, pts, gamma)
		s := otherSum
		for _, x := range xs {
			s += x
		}
		return s / float64(total)
	}
	gamma := 1.0
	if hasAvg {
		// The mean falls as γ grows: bisect log γ.
		lo, hi := math.Log(1e-4), math.Log(1e4)
		for range 50 {
			mid := (lo + hi) / 2
			if mean(math.Exp(mid)) > avg {
				lo = mid
			} else {
				hi = mid
			}
		}
		gamma = math.Exp((lo + hi) / 2)
	}
	curve(xs, pts, gamma)
	if hasAvg {
		rest := avg*float64(total) - otherSum
		for _, x := range xs {
			rest -= x
		}
		// The widest segment's middle value absorbs the rest if it stays in order.
		i := widestMiddle(pts)
		if x := xs[i] + rest; x >= xs[max(i-1, 0)] && x <= xs[min(i+1, n-1)] {
			xs[i] = x
		}
	}
	for _, x := range xs {
		h.Observe(x)
	}
	return h
}

// otherBelow estimates how many values of h are below v: h's count times the largest
// quantile whose value is below v (found by bisection; the histogram's quantiles are
// monotone).
func otherBelow(h *hist.Histogram, v float64) int {
	if v <= h.Min() {
		return 0
	}
	if v > h.Max() {
		return int(h.Count())
	}
	lo, hi := 0.0, 1.0
	for range 40 {
		mid := (lo + hi) / 2
		if h.Quantile(mid) < v {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int(math.Round(lo*float64(h.Count()-1))) + 1
}

// point is a known point of a quantile curve: quantile q, value v, at rank r.
type point struct {
	q, v float64
	r    int
}

// curve fills xs with the quantile curve through pts (by rank), shaped by gamma.
func curve(xs []float64, pts []point, gamma float64) {
	k := 0
	for i := range xs {
		for k < len(pts)-2 && i > pts[k+1].r {
			k++
		}
		a, b := pts[k], pts[k+1]
		if b.r == a.r {
			xs[i] = b.v
			continue
		}
		t := float64(i-a.r) / float64(b.r-a.r)
		xs[i] = a.v + (b.v-a.v)*math.Pow(t, gamma)
	}
}

// widestMiddle returns the rank in the middle of the widest segment.
func widestMiddle(pts []point) int {
	best := 0
	for k := 1; k < len(pts)-1; k++ {
		if pts[k+1].r-pts[k].r > pts[best+1].r-pts[best].r {
			best = k
		}
	}
	return (pts[best].r + pts[best+1].r) / 2
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jUnit is jUnit(data, [{name, classname}]): JUnit XML with one testcase per threshold,
// failed when the threshold failed. The layout is Tidemark's: one testsuite named
// name (default "k6 thresholds"), testcases named "<metric> - <expression>" in metric
// order, of class classname (default "k6").
func (s *summaryModule) jUnit(call sobek.FunctionCall) sobek.Value {
	rt := s.vu.Runtime()
	d := s.decode("jUnit", call.Argument(0))
	name, class := "k6 thresholds", "k6"
	if o := call.Argument(1); !sobek.IsUndefined(o) && !sobek.IsNull(o) {
		opts := o.ToObject(rt)
		if v := opts.Get("name"); v != nil && !sobek.IsUndefined(v) {
			name = v.String()
		}
		if v := opts.Get("classname"); v != nil && !sobek.IsUndefined(v) {
			class = v.String()
		}
	}
	keys := make([]string, 0, len(d.Metrics))
	for k := range d.Metrics {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var cases strings.Builder
	tests, failures := 0, 0
	for _, k := range keys {
		for _, th := range d.Metrics[k].Thresholds {
			tests++
			fmt.Fprintf(&cases, "    <testcase name=%s classname=%s>", attr(k+" - "+th.Expr), attr(class))
			if !th.OK {
				failures++
				fmt.Fprintf(&cases, "<failure message=%s></failure>", attr(fmt.Sprintf("%s threshold %s failed", k, th.Expr)))
			}
			cases.WriteString("</testcase>\n")
		}
	}
	var out strings.Builder
	out.WriteString(xml.Header)
	fmt.Fprintf(&out, "<testsuites tests=\"%d\" failures=\"%d\">\n", tests, failures)
	fmt.Fprintf(&out, "  <testsuite name=%s tests=\"%d\" failures=\"%d\">\n", attr(name), tests, failures)
	out.WriteString(cases.String())
	out.WriteString("  </testsuite>\n</testsuites>\n")
	return rt.ToValue(out.String())
}

// attr is s as a quoted XML attribute value.
func attr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	_ = xml.EscapeText(&b, []byte(s)) // A strings.Builder does not fail.
	b.WriteByte('"')
	return b.String()
}
