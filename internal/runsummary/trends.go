package runsummary

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// trendKey is one trend metric or sub-metric to compute.
type trendKey struct {
	key    string
	metric *metrics.Metric
	tags   []metrics.Tag
}

// trendKeys are every trend metric of the run, the trend keys of cfg.Keys and k6's
// expected_response sub-metric.
func (c *collector) trendKeys() []trendKey {
	byName := map[string]*metrics.Metric{}
	for _, k := range c.kinds {
		if k.metric.Type == metrics.Trend {
			byName[k.metric.Name] = k.metric
		}
	}
	seen := map[string]bool{}
	var out []trendKey
	add := func(key string) {
		k, err := threshold.ParseKey(key)
		if err != nil || seen[key] {
			return
		}
		m := byName[k.Metric]
		if m == nil {
			return
		}
		seen[key] = true
		out = append(out, trendKey{key: key, metric: m, tags: k.Tags})
	}
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		add(n)
	}
	for _, k := range c.cfg.Keys {
		add(k)
	}
	add(expectedResponse)
	return out
}

// contains reports whether labels hold every tag.
func contains(labels map[string]string, tags []metrics.Tag) bool {
	for _, t := range tags {
		if labels[t.Key] != t.Value {
			return false
		}
	}
	return true
}

// matchers are PromQL equality matchers for tags.
func matchers(tags []metrics.Tag) []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = t.Key + "=" + strconv.Quote(t.Value)
	}
	return out
}

// gaugeStats sums or bounds the instances' trend stat gauges of one key: min of mins,
// max of maxes, sums of counts and sums, and Σ avg·count for a sum the run did not write.
type gaugeStats struct {
	has                     map[string]bool
	min, max, count, sum    float64
	avgCount                float64 // Σ avg·count over series with both
	avgCountOK              bool
	avgs, counts            map[string]float64 // by instance and labels
	histName                string             // the native histogram's series name
	histSeries, gaugeSeries int
}

func (c *collector) gauges(samples []sample, tk trendKey) *gaugeStats {
	g := &gaugeStats{has: map[string]bool{}, min: math.Inf(1), max: math.Inf(-1), avgs: map[string]float64{}, counts: map[string]float64{}}
	for _, s := range samples {
		k, ok := c.kinds[s.name]
		if !ok || k.metric != tk.metric || !contains(s.labels, tk.tags) {
			continue
		}
		if k.native {
			g.histName = s.name
			g.histSeries++
			continue
		}
		id := s.instance + "\x00" + tagKey(s.labels)
		g.has[k.stat] = true
		switch k.stat {
		case "min":
			g.min = min(g.min, s.value)
		case "max":
			g.max = max(g.max, s.value)
		case "count":
			g.count += s.value
			g.counts[id] = s.value
		case "sum":
			g.sum += s.value
		case "avg":
			g.avgs[id] = s.value
		}
		g.gaugeSeries++
	}
	if g.has["avg"] && g.has["count"] && len(g.avgs) == len(g.counts) {
		g.avgCountOK = true
		for id, a := range g.avgs {
			n, ok := g.counts[id]
			if !ok {
				g.avgCountOK = false
				break
			}
			g.avgCount += a * n
		}
	}
	return g
}

// trends computes every trend key's stats into res.Trends.
func (c *collector) trends(ctx context.Context, samples []sample, res *Result) error {
	var noNative, noMinMax []string
	for _, tk := range c.trendKeys() {
		g := c.gauges(samples, tk)
		if g.histSeries == 0 && g.gaugeSeries == 0 {
			continue
		}
		vals := map[string]float64{}
		if g.has["min"] {
			vals["min"] = g.min
		}
		if g.has["max"] {
			vals["max"] = g.max
		}
		if g.histName != "" {
			if err := c.native(ctx, tk, g, vals, res); err != nil {
				return err
			}
		} else {
			if g.has["count"] {
				vals["count"] = g.count
				switch {
				case g.has["sum"]:
					vals["sum"] = g.sum
				case g.avgCountOK:
					vals["sum"] = g.avgCount
				}
				if s, ok := vals["sum"]; ok {
					vals["avg"] = 0
					if g.count > 0 {
						vals["avg"] = s / g.count
					}
				}
			}
			if !strings.Contains(tk.key, "{") {
				noNative = append(noNative, tk.key)
			}
		}
		if (!g.has["min"] || !g.has["max"]) && !strings.Contains(tk.key, "{") {
			noMinMax = append(noMinMax, tk.key)
		}
		res.Trends[tk.key] = vals
	}
	if res.Native {
		res.Notes = append(res.Notes, fmt.Sprintf("percentiles (med, p(N)): from the instances' native histograms summed in PromQL (schema %d): "+
			"each within ±%s%% of the exact value; count, avg, min and max are exact", res.Schema, strconv.FormatFloat(100*RelativeError(res.Schema), 'f', 1, 64)))
	}
	if len(noNative) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: med and p(N) not computed — the run wrote no native histograms for them, and "+
			"percentiles of several instances cannot be combined from each instance's percentile gauges (averaging them is wrong); "+
			"avg is shown where the instances wrote count with sum or avg. Run with --remote-write.native-histograms "+
			"(K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true) for exact percentiles", strings.Join(noNative, ", ")))
	}
	if len(noMinMax) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: min and max not computed — the run wrote no min and max gauges for them "+
			"(add min,max to --remote-write.trend-stats)", strings.Join(noMinMax, ", ")))
	}
	return nil
}

// native reads a trend key's summed native histogram: count, sum and avg exactly, the
// percentiles with histogram_quantile, each moved to the geometric middle of its
// bucket and kept within the exact min and max.
func (c *collector) native(ctx context.Context, tk trendKey, g *gaugeStats, vals map[string]float64, res *Result) error {
	sum := "sum(" + c.atLast(g.histName, matchers(tk.tags)...) + ")"
	v, err := c.query(ctx, sum, c.cfg.To)
	if err != nil {
		return err
	}
	vec, _ := v.(model.Vector)
	if len(vec) != 1 || vec[0].Histogram == nil {
		return fmt.Errorf("query %s: expected one native histogram, got %d samples", shorten(sum), len(vec))
	}
	h := vec[0].Histogram
	schema, ok := schemaOf(h)
	if !ok {
		schema = 3 // Tidemark's and k6's (internal/series.NativeSchema).
	}
	if !res.Native || schema < res.Schema {
		res.Schema = schema
	}
	res.Native = true
	vals["count"] = float64(h.Count)
	vals["sum"] = float64(h.Sum)
	vals["avg"] = 0
	if h.Count > 0 {
		vals["avg"] = float64(h.Sum) / float64(h.Count)
	}
	stats := slices.Clone(c.cfg.TrendStats)
	stats = append(stats, "med")
	for _, st := range stats {
		q, ok := aggregate.Percentile(st)
		if st == "med" {
			q, ok = 0.5, true
		}
		if _, done := vals[st]; !ok || done {
			continue
		}
		if h.Count == 0 {
			vals[st] = 0
			continue
		}
		qv, err := c.query(ctx, "histogram_quantile("+strconv.FormatFloat(q, 'g', -1, 64)+", "+sum+")", c.cfg.To)
		if err != nil {
			return err
		}
		qvec, _ := qv.(model.Vector)
		if len(qvec) != 1 {
			return fmt.Errorf("histogram_quantile(%g) of %s: expected one sample, got %d", q, tk.key, len(qvec))
		}
		x := middle(float64(qvec[0].Value), schema)
		if lo, ok := vals["min"]; ok {
			x = max(x, lo)
		}
		if hi, ok := vals["max"]; ok {
			x = min(x, hi)
		}
		vals[st] = x
	}
	return nil
}

// schemaOf derives a native histogram's schema from one of its positive buckets, whose
// bounds are 2^(i·2^-schema) apart.
func schemaOf(h *model.SampleHistogram) (int32, bool) {
	for _, b := range h.Buckets {
		lo, hi := float64(b.Lower), float64(b.Upper)
		if lo <= 0 || hi <= lo || math.IsInf(hi, 0) {
			continue
		}
		s := -math.Log2(math.Log2(hi / lo))
		return int32(math.Round(s)), true
	}
	return 0, false
}

// middle returns the geometric middle of the schema's bucket that holds x: Prometheus
// interpolates anywhere in the bucket, the middle is at most half a bucket from any
// value in it.
func middle(x float64, schema int32) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	f := math.Exp2(float64(schema))
	idx := math.Ceil(math.Log2(x)*f - 1e-9) // the bucket (2^((idx-1)/f), 2^(idx/f)]
	return math.Exp2((idx - 0.5) / f)
}
