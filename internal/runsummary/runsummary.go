// Package runsummary computes one k6 end-of-test summary for a run spread over several
// instances (processes, pods) from the series they wrote to Prometheus: counters summed
// across the instances' instance_id labels, rates weighted by their counts, trend
// percentiles from the sum of the instances' native histograms, min and max from the
// instances' min and max gauges. Averaged percentiles are never shown: what cannot be
// computed exactly from the series that exist is left out with the reason.
//
// Every series is read at its own instance's last push (the `@` modifier), where its
// cumulative value is the instance's total, so instances that end at different times,
// and the stale markers that end their series, are all counted.
package runsummary

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/threshold"
)

// Querier runs instant PromQL queries; internal/query's Querier is one.
type Querier interface {
	Query(ctx context.Context, expr string, ts time.Time) (model.Value, v1.Warnings, error)
}

// Names of the series read besides the k6_* ones: Tidemark's run metadata.
const (
	runInfoMetric   = series.RunInfoMetric
	thresholdMetric = series.ThresholdMetric
	// k6Prefix is the prefix of every k6 series.
	k6Prefix = series.Prefix
	// labelInstanceID tells instances apart; labelTestID selects the run.
	labelInstanceID = series.LabelInstanceID
	labelTestID     = series.LabelTestID
)

// expectedResponse is the sub-metric k6's summary always shows.
const expectedResponse = "http_req_duration{expected_response:true}"

// Config is one run to summarize.
type Config struct {
	// TestID selects the run; required.
	TestID string
	// From and To are the run's window (correlator.FindRun); To is its last push.
	From, To time.Time
	// Keys are the metric keys, "name" or "name{tag:value}", whose trends are computed
	// besides every trend metric: the keys of the thresholds.
	Keys []string
	// TrendStats are the trend stats to compute, k6 names (avg, min, med, max, count,
	// sum, p(N)).
	TrendStats []string
	// Registry types the metrics; metrics it does not know are typed by their series'
	// names. Nil means k6's built-in metrics.
	Registry *metrics.Registry
}

// Instance is one instance of the run and the time of its last push.
type Instance struct {
	ID   string
	Last time.Time
}

// Result is the run's summary data.
type Result struct {
	// Snapshot holds counters, gauges and rates summed across instances, and every
	// trend series with an empty histogram: their values are in Trends.
	Snapshot *aggregate.Snapshot
	// Registry holds every metric of Snapshot.
	Registry *metrics.Registry
	// Trends are the trend values by metric key and stat in base units (seconds for
	// time trends), for summary.Input.Trends. A stat that cannot be computed is absent.
	Trends map[string]map[string]float64
	// Instances are the instances found, by ID.
	Instances []Instance
	// Schema is the native histograms' schema, when any trend had them.
	Schema int32
	// Native tells whether any trend had native histograms.
	Native bool
	// Declared are the thresholds the run wrote as its metadata (tidemark_threshold),
	// with the types they were declared with.
	Declared []threshold.Def
	// Unsummed are the rate metrics left out of Snapshot because their series hold
	// each instance's ratio without its counts: thresholds on them cannot be judged.
	Unsummed []string
	// Notes say what could not be computed and why, and how exact the percentiles
	// are; one line each, for summary.Input.Extra.
	Notes []string
}

// RelativeError is the bound on the relative error of a percentile read from a
// native histogram of the given schema: Collect reports the geometric middle of the
// bucket the percentile falls in, so it is within 2^(2^-schema / 2) − 1 of the exact
// value (4.4% at schema 3, k6's and Tidemark's).
func RelativeError(schema int32) float64 {
	return math.Exp2(math.Exp2(-float64(schema))/2) - 1
}

// TypeFunc types the run's thresholds by Registry, which holds the metrics of the
// configured registry, those the run's thresholds were declared with, and those typed by
// the names of their series.
func (r *Result) TypeFunc() threshold.TypeFunc {
	return threshold.RegistryTypes(r.Registry)
}

// sample is one series of one instance at its last push.
type sample struct {
	instance string
	name     string // Prometheus name
	labels   map[string]string
	value    float64
	hist     *model.SampleHistogram
}

// Collect reads the run from q and aggregates it.
func Collect(ctx context.Context, q Querier, cfg Config) (*Result, error) {
	if cfg.TestID == "" {
		return nil, errors.New("collect run: empty testid")
	}
	if !cfg.To.After(cfg.From) {
		return nil, fmt.Errorf("collect run %q: window %s to %s is empty", cfg.TestID, cfg.From, cfg.To)
	}
	c := &collector{q: q, cfg: cfg, reg: cfg.Registry, pool: metrics.NewTagPool()}
	if c.reg == nil {
		c.reg = metrics.NewRegistry()
		metrics.RegisterBuiltin(c.reg)
	}
	if err := c.instances(ctx); err != nil {
		return nil, err
	}
	samples, err := c.samples(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Registry: c.reg, Instances: c.insts, Trends: map[string]map[string]float64{}}
	c.declared(samples, res)
	c.typeAll(samples)
	res.Snapshot = c.snapshot(samples, res)
	if err := c.gaugeRanges(ctx, res.Snapshot); err != nil {
		return nil, err
	}
	if err := c.trends(ctx, samples, res); err != nil {
		return nil, err
	}
	return res, nil
}

type collector struct {
	q     Querier
	cfg   Config
	reg   *metrics.Registry
	pool  *metrics.TagPool
	insts []Instance
	// kinds maps a Prometheus name to what it is.
	kinds map[string]kind
	// declaredTypes are the types tidemark_threshold series give.
	declaredTypes map[string][2]string
}

// kind is what one Prometheus series name means.
type kind struct {
	metric *metrics.Metric
	stat   string // trend stat of a k6_<trend>_<stat> gauge; "" otherwise
	native bool   // the trend's native histogram
}

// selector is the testid matcher with extra matchers.
func (c *collector) selector(name string, extra ...string) string {
	ms := append([]string{labelTestID + "=" + strconv.Quote(c.cfg.TestID)}, extra...)
	return name + "{" + strings.Join(ms, ",") + "}"
}

// rangeOf is a PromQL range covering the window and a minute before it.
func (c *collector) rangeOf() string {
	return strconv.FormatInt(int64(math.Ceil(c.cfg.To.Sub(c.cfg.From).Seconds()))+60, 10) + "s"
}

// instances finds every instance and its last push from the raw samples of
// tidemark_run_info (k6_vus for a run k6 made).
func (c *collector) instances(ctx context.Context) error {
	for _, name := range []string{runInfoMetric, k6Prefix + "vus"} {
		v, err := c.query(ctx, c.selector(name)+"["+c.rangeOf()+"]", c.cfg.To)
		if err != nil {
			return err
		}
		m, _ := v.(model.Matrix)
		last := map[string]time.Time{}
		for _, s := range m {
			id := string(s.Metric[labelInstanceID])
			for _, p := range s.Values {
				if t := p.Timestamp.Time(); t.After(last[id]) {
					last[id] = t
				}
			}
		}
		if len(last) == 0 {
			continue
		}
		for _, id := range slices.Sorted(maps.Keys(last)) {
			c.insts = append(c.insts, Instance{ID: id, Last: last[id]})
		}
		return nil
	}
	return fmt.Errorf("collect run %q: no %s or k6_vus samples between %s and %s",
		c.cfg.TestID, runInfoMetric, c.cfg.From.Format(time.RFC3339), c.cfg.To.Format(time.RFC3339))
}

// atLast is expr's selector read at every instance's last push: one operand per
// instance, joined with or (their instance_id labels differ).
func (c *collector) atLast(name string, extra ...string) string {
	parts := make([]string, len(c.insts))
	for i, in := range c.insts {
		ms := append(slices.Clone(extra), labelInstanceID+"="+strconv.Quote(in.ID))
		parts[i] = c.selector(name, ms...) + " @ " + strconv.FormatFloat(float64(in.Last.UnixMilli())/1000, 'f', 3, 64)
	}
	return "(" + strings.Join(parts, " or ") + ")"
}

func (c *collector) query(ctx context.Context, expr string, ts time.Time) (model.Value, error) {
	v, _, err := c.q.Query(ctx, expr, ts)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", shorten(expr), err)
	}
	return v, nil
}

// shorten keeps an error readable when the expression has an operand per instance.
func shorten(expr string) string {
	const limit = 300
	if len(expr) <= limit {
		return expr
	}
	return expr[:limit] + "…"
}

// samples reads every k6 series and the run's thresholds at each instance's last push.
func (c *collector) samples(ctx context.Context) ([]sample, error) {
	names := `k6_.+|` + thresholdMetric + `|` + series.OwnPrefix + `.+(` + series.PassesSuffix + `|` + series.FailsSuffix + `)`
	v, err := c.query(ctx, c.atLast("", `__name__=~"`+names+`"`), c.cfg.To)
	if err != nil {
		return nil, err
	}
	vec, _ := v.(model.Vector)
	out := make([]sample, 0, len(vec))
	for _, s := range vec {
		ls := map[string]string{}
		for k, v := range s.Metric {
			switch k {
			case model.MetricNameLabel, labelInstanceID, labelTestID:
			default:
				ls[string(k)] = string(v)
			}
		}
		out = append(out, sample{instance: string(s.Metric[labelInstanceID]), name: string(s.Metric[model.MetricNameLabel]),
			labels: ls, value: float64(s.Value), hist: s.Histogram})
	}
	return out, nil
}

// declared collects the tidemark_threshold series.
func (c *collector) declared(samples []sample, res *Result) {
	c.declaredTypes = map[string][2]string{}
	seen := map[string]bool{}
	for _, s := range samples {
		if s.name != thresholdMetric {
			continue
		}
		key, expr := s.labels["metric"], s.labels["threshold"]
		if key == "" || expr == "" || seen[key+"\x00"+expr] {
			continue
		}
		seen[key+"\x00"+expr] = true
		res.Declared = append(res.Declared, threshold.Def{Key: key, Expr: expr})
		if k, err := threshold.ParseKey(key); err == nil {
			c.declaredTypes[k.Metric] = [2]string{s.labels["type"], s.labels["contains"]}
		}
	}
	slices.SortStableFunc(res.Declared, func(a, b threshold.Def) int { return strings.Compare(a.Key, b.Key) })
}

// statOfSuffix returns the k6 stat a gauge suffix names (internal/series' names: avg,
// min, med, max, count, sum, p95, p999, p095).
func statOfSuffix(s string) (string, bool) {
	switch s {
	case "avg", "min", "med", "max", "count", "sum":
		return s, true
	}
	digits, ok := strings.CutPrefix(s, "p")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	// series: p(95)→p95, p(99.9)→p999, p(0.95)→p095: two integer digits, the rest decimals;
	// p(100) → p100.
	switch {
	case digits == "100":
		return "p(100)", true
	case len(digits) == 1:
		return "p(" + digits + ")", true
	case digits[0] == '0':
		return "p(0." + digits[1:] + ")", true
	case len(digits) == 2:
		return "p(" + digits + ")", true
	}
	return "p(" + digits[:2] + "." + digits[2:] + ")", true
}

// typeAll decides what every series name is: the registry's or the declared type of
// its metric first, then its suffix.
func (c *collector) typeAll(samples []sample) {
	c.kinds = map[string]kind{}
	for _, s := range samples {
		if _, ok := c.kinds[s.name]; ok || s.name == thresholdMetric || isRateCount(s.name) {
			continue
		}
		c.kinds[s.name] = c.kindOf(s)
	}
}

func (c *collector) known(name string) *metrics.Metric {
	if m := c.reg.Get(name); m != nil {
		return m
	}
	if tc, ok := c.declaredTypes[name]; ok {
		t, ok1 := metrics.ParseType(tc[0])
		v, ok2 := metrics.ParseValueType(tc[1])
		if ok1 && ok2 {
			m, err := c.reg.New(name, t, v)
			if err == nil {
				return m
			}
		}
	}
	return nil
}

func (c *collector) metric(name string, t metrics.Type, v metrics.ValueType) *metrics.Metric {
	if m := c.known(name); m != nil {
		return m
	}
	m, err := c.reg.New(name, t, v)
	if err != nil { // registered meanwhile with another type: use it
		return c.reg.Get(name)
	}
	return m
}

func (c *collector) kindOf(s sample) kind {
	base := strings.TrimPrefix(s.name, k6Prefix)
	if s.hist != nil {
		for _, u := range []struct {
			suffix string
			v      metrics.ValueType
		}{{"_seconds", metrics.Time}, {"_bytes", metrics.Data}, {"", metrics.Default}} {
			if n, ok := strings.CutSuffix(base, u.suffix); ok {
				if m := c.known(n); m != nil && m.Type == metrics.Trend {
					return kind{metric: m, native: true}
				}
			}
		}
		n := base
		v := metrics.Default
		if x, ok := strings.CutSuffix(base, "_seconds"); ok {
			n, v = x, metrics.Time
		} else if x, ok := strings.CutSuffix(base, "_bytes"); ok {
			n, v = x, metrics.Data
		}
		return kind{metric: c.metric(n, metrics.Trend, v), native: true}
	}
	if m := c.known(base); m != nil && m.Type == metrics.Gauge {
		return kind{metric: m}
	}
	if n, ok := strings.CutSuffix(base, "_total"); ok {
		if m := c.known(n); m == nil || m.Type == metrics.Counter {
			return kind{metric: c.metric(n, metrics.Counter, metrics.Default)}
		}
	}
	if n, ok := strings.CutSuffix(base, "_rate"); ok {
		if m := c.known(n); m == nil || m.Type == metrics.Rate {
			return kind{metric: c.metric(n, metrics.Rate, metrics.Default)}
		}
	}
	if i := strings.LastIndexByte(base, '_'); i > 0 {
		if st, ok := statOfSuffix(base[i+1:]); ok {
			if m := c.known(base[:i]); m == nil || m.Type == metrics.Trend {
				return kind{metric: c.metric(base[:i], metrics.Trend, metrics.Default), stat: st}
			}
		}
	}
	return kind{metric: c.metric(base, metrics.Gauge, metrics.Default)}
}

// isRateCount reports whether name is one of the counters Tidemark writes besides a
// rate's ratio (series.RateName): they are read with the rate, not as metrics.
func isRateCount(name string) bool {
	return strings.HasPrefix(name, series.OwnPrefix) &&
		(strings.HasSuffix(name, series.PassesSuffix) || strings.HasSuffix(name, series.FailsSuffix))
}

// tagKey is a label set as a map key.
func tagKey(ls map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(ls)) {
		b.WriteString(k)
		b.WriteByte(0xff)
		b.WriteString(ls[k])
		b.WriteByte(0xfe)
	}
	return b.String()
}

func tagsOf(ls map[string]string) []metrics.Tag {
	out := make([]metrics.Tag, 0, len(ls))
	for _, k := range slices.Sorted(maps.Keys(ls)) {
		out = append(out, metrics.Tag{Key: k, Value: ls[k]})
	}
	return out
}

// snapshot sums the instances' counters, weights their rates and keeps their gauges.
func (c *collector) snapshot(samples []sample, res *Result) *aggregate.Snapshot {
	type acc struct {
		m      *metrics.Metric
		labels map[string]string
		vals   aggregate.Values
		n      int
	}
	accs := map[string]*acc{}
	get := func(m *metrics.Metric, ls map[string]string) *acc {
		k := m.Name + "\x00" + tagKey(ls)
		a := accs[k]
		if a == nil {
			a = &acc{m: m, labels: ls, vals: aggregate.Values{Type: m.Type}}
			if m.Type == metrics.Trend {
				a.vals.Trend = hist.New()
			}
			accs[k] = a
		}
		return a
	}
	// http_reqs by instance and labels weighs http_req_failed, which k6 tags alike.
	reqs := map[string]float64{}
	for _, s := range samples {
		if s.name == k6Prefix+"http_reqs_total" {
			reqs[s.instance+"\x00"+tagKey(s.labels)] = s.value
		}
	}
	// A rate's counts, where Tidemark wrote them: by series name, instance and labels.
	counts := map[string]float64{}
	for _, s := range samples {
		if isRateCount(s.name) {
			counts[s.name+"\x00"+s.instance+"\x00"+tagKey(s.labels)] = s.value
		}
	}
	unweighted := map[string][2]float64{} // rate metric → min and max ratio seen
	for _, s := range samples {
		k, ok := c.kinds[s.name]
		if !ok {
			continue
		}
		m := k.metric
		switch m.Type {
		case metrics.Counter:
			a := get(m, s.labels)
			a.vals.Count += s.value
		case metrics.Gauge:
			a := get(m, s.labels)
			if a.n == 0 {
				a.vals.Min, a.vals.Max = s.value, s.value
			}
			// The instances' gauges add up: vus, vus_max and most custom gauges count
			// something each instance has. Min and max of the sum over the run are
			// gaugeRanges'.
			a.vals.Value += s.value
			a.vals.Min, a.vals.Max = min(a.vals.Min, s.value), max(a.vals.Max, s.value)
			a.n++
		case metrics.Rate:
			id := s.instance + "\x00" + tagKey(s.labels)
			base := series.RateName(m)
			passes, okP := counts[base+series.PassesSuffix+"\x00"+id]
			fails, okF := counts[base+series.FailsSuffix+"\x00"+id]
			if okP && okF {
				a := get(m, s.labels)
				a.vals.Passes += uint64(math.Round(passes))
				a.vals.Total += uint64(math.Round(passes + fails))
				continue
			}
			n, ok := reqs[id]
			if m.Name != "http_req_failed" || !ok {
				mm, seen := unweighted[m.Name]
				if !seen {
					mm = [2]float64{s.value, s.value}
				}
				unweighted[m.Name] = [2]float64{min(mm[0], s.value), max(mm[1], s.value)}
				continue
			}
			a := get(m, s.labels)
			a.vals.Total += uint64(math.Round(n))
			a.vals.Passes += uint64(math.Round(n * s.value))
		case metrics.Trend:
			get(m, s.labels)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(unweighted)) {
		mm := unweighted[name]
		res.Unsummed = append(res.Unsummed, name)
		res.Notes = append(res.Notes, fmt.Sprintf("%s: not combined across instances — the run wrote only k6_%s_rate, each instance's ratio "+
			"without the counts behind it (as k6 does), and averaging ratios of instances with different counts is wrong "+
			"(per-instance ratios %s to %s); Tidemark writes the counts as %s%s and %s%s, which sum",
			name, name, strconv.FormatFloat(mm[0], 'f', -1, 64), strconv.FormatFloat(mm[1], 'f', -1, 64),
			series.OwnPrefix+name, series.PassesSuffix, series.OwnPrefix+name, series.FailsSuffix))
	}
	snap := &aggregate.Snapshot{Time: c.cfg.To}
	for _, a := range accs {
		if a.m.Type == metrics.Rate && slices.Contains(res.Unsummed, a.m.Name) {
			continue // part of its instances only
		}
		snap.Series = append(snap.Series, aggregate.Series{Metric: a.m, Tags: c.pool.Intern(tagsOf(a.labels)),
			First: c.cfg.From, Last: c.cfg.To, Values: a.vals})
	}
	slices.SortFunc(snap.Series, func(a, b aggregate.Series) int {
		return cmp.Or(strings.Compare(a.Metric.Name, b.Metric.Name), metrics.CompareTags(a.Tags.Tags(), b.Tags.Tags()))
	})
	return snap
}

// gaugeResolution is the step at which gaugeRanges reads the instances' summed gauges:
// the engine samples its gauges every 250 ms and pushes them every push interval (1 s
// at the least), so a second sees every pushed value.
const gaugeResolution = "1s"

// gaugeRanges sets every gauge's min and max to those of the instances' sum over the
// run's window.
func (c *collector) gaugeRanges(ctx context.Context, snap *aggregate.Snapshot) error {
	done := map[string]bool{}
	for i := range snap.Series {
		m := snap.Series[i].Metric
		if m.Type != metrics.Gauge || done[m.Name] {
			continue
		}
		done[m.Name] = true
		name := k6Prefix + m.Name
		if strings.HasPrefix(m.Name, "tidemark_") {
			name = m.Name
		}
		inner := "sum without(" + labelInstanceID + ") (" + c.selector(name) + ")[" + c.rangeOf() + ":" + gaugeResolution + "]"
		for _, f := range []string{"min_over_time", "max_over_time"} {
			v, err := c.query(ctx, f+"("+inner+")", c.cfg.To)
			if err != nil {
				return err
			}
			vec, _ := v.(model.Vector)
			byKey := map[string]float64{}
			for _, s := range vec {
				ls := map[string]string{}
				for k, v := range s.Metric {
					if k != model.MetricNameLabel && k != labelTestID {
						ls[string(k)] = string(v)
					}
				}
				byKey[tagKey(ls)] = float64(s.Value)
			}
			for j := range snap.Series {
				se := &snap.Series[j]
				if se.Metric != m {
					continue
				}
				ls := map[string]string{}
				for _, t := range se.Tags.Tags() {
					ls[t.Key] = t.Value
				}
				x, ok := byKey[tagKey(ls)]
				if !ok {
					continue
				}
				if f == "min_over_time" {
					se.Min = min(x, se.Value)
				} else {
					se.Max = max(x, se.Value)
				}
			}
		}
	}
	return nil
}
