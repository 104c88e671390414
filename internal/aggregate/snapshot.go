package aggregate

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/metrics"
)

// seriesKey identifies a series: metrics and tag sets are interned pointers.
type seriesKey struct {
	metric *metrics.Metric
	tags   *metrics.TagSet
}

// Snapshot is the state of every series at Time. It is immutable: callers must not
// modify it, its slices or its histograms.
type Snapshot struct {
	// Time is when the snapshot was taken, by the Store's clock.
	Time time.Time
	// Series sorted by metric name, then by tags.
	Series []Series
}

// Series is one series of a Snapshot, or several merged (then Tags is nil or the
// selector they were merged by).
type Series struct {
	Metric *metrics.Metric
	Tags   *metrics.TagSet
	// First and Last are the earliest and latest sample times.
	First, Last time.Time
	Values
}

// Values is the state of one sink, or of several merged. Which fields are set depends
// on Type. Time values are in seconds and data values in bytes, as in the samples.
type Values struct {
	Type metrics.Type
	// Count is a counter's sum of sample values.
	Count float64
	// Value, Min and Max are a gauge's last, smallest and largest value.
	Value, Min, Max float64
	// Passes and Total are a rate's non-zero samples and all samples.
	Passes, Total uint64
	// Trend is a trend's histogram. It is shared and must not be modified.
	Trend *hist.Histogram
}

// ErrUnknownStat is returned for a trend stat or threshold method k6 does not know for
// the metric type.
var ErrUnknownStat = errors.New("unknown aggregation method")

// ErrNoValue is returned by Threshold when the sink has no value for the method, as a
// rate with no samples has no `rate`; k6 counts such a threshold as passed.
var ErrNoValue = errors.New("no value")

// Rate returns passes/total, 0 when there are no samples.
func (v Values) Rate() float64 {
	if v.Total == 0 {
		return 0
	}
	return float64(v.Passes) / float64(v.Total)
}

// Fails returns Total-Passes.
func (v Values) Fails() uint64 { return v.Total - v.Passes }

// Empty reports whether no sample reached the sink.
func (v Values) Empty() bool {
	switch v.Type {
	case metrics.Rate:
		return v.Total == 0
	case metrics.Trend:
		return v.Trend == nil || v.Trend.Count() == 0
	}
	return false
}

// Percentile parses k6's "p(N)" (0 ≤ N ≤ 100, decimals allowed) into the quantile N/100.
func Percentile(stat string) (float64, bool) {
	inner, ok := strings.CutPrefix(stat, "p(")
	if !ok {
		return 0, false
	}
	inner, ok = strings.CutSuffix(inner, ")")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(inner), 64)
	if err != nil || n < 0 || n > 100 || n != n {
		return 0, false
	}
	return n / 100, true
}

// Stat returns a trend stat by its k6 name: avg, min, med, max, count, sum or p(N).
// Empty trends give 0, as in k6. Time values are in seconds.
func (v Values) Stat(name string) (float64, error) {
	if v.Type != metrics.Trend {
		return 0, fmt.Errorf("trend stat %q of a %s: %w", name, v.Type, ErrUnknownStat)
	}
	h := v.Trend
	if h == nil {
		h = hist.New()
	}
	switch name {
	case "avg":
		return h.Mean(), nil
	case "min":
		return h.Min(), nil
	case "med":
		return h.Quantile(0.5), nil
	case "max":
		return h.Max(), nil
	case "count":
		return float64(h.Count()), nil
	case "sum":
		return h.Sum(), nil
	}
	if q, ok := Percentile(name); ok {
		return h.Quantile(q), nil
	}
	return 0, fmt.Errorf("trend stat %q: %w", name, ErrUnknownStat)
}

// Threshold returns the value a k6 threshold method reads (reference/k6.md §4.2):
// counter count and rate (count per second of elapsed), gauge value, rate rate, trend
// avg, min, max, med and p(N) (and count and sum). Values are in base units (seconds
// for time trends; k6 thresholds compare milliseconds). A rate without samples returns
// ErrNoValue; other empty sinks return 0 as in k6.
func (v Values) Threshold(method string, elapsed time.Duration) (float64, error) {
	switch v.Type {
	case metrics.Counter:
		switch method {
		case "count":
			return v.Count, nil
		case "rate":
			if elapsed <= 0 {
				return 0, nil
			}
			return v.Count / elapsed.Seconds(), nil
		}
	case metrics.Gauge:
		if method == "value" {
			return v.Value, nil
		}
	case metrics.Rate:
		if method == "rate" {
			if v.Total == 0 {
				return 0, ErrNoValue
			}
			return v.Rate(), nil
		}
	case metrics.Trend:
		return v.Stat(method)
	}
	return 0, fmt.Errorf("threshold method %q of a %s: %w", method, v.Type, ErrUnknownStat)
}

// merge adds o into v: counters and rates sum, trends merge their buckets, and a gauge
// keeps the value of the series with the latest sample (oLater) and the overall min and
// max. v.Trend must be a histogram v owns.
func (v *Values) merge(o Values, first, oLater bool) {
	switch v.Type {
	case metrics.Counter:
		v.Count += o.Count
	case metrics.Gauge:
		if first {
			v.Value, v.Min, v.Max = o.Value, o.Min, o.Max
			return
		}
		if oLater {
			v.Value = o.Value
		}
		v.Min = min(v.Min, o.Min)
		v.Max = max(v.Max, o.Max)
	case metrics.Rate:
		v.Passes += o.Passes
		v.Total += o.Total
	case metrics.Trend:
		v.Trend.Merge(o.Trend)
	}
}

// Metrics returns the distinct metrics of the snapshot, sorted by name.
func (s *Snapshot) Metrics() []*metrics.Metric {
	var out []*metrics.Metric
	for i := range s.Series {
		if m := s.Series[i].Metric; len(out) == 0 || out[len(out)-1] != m {
			out = append(out, m)
		}
	}
	return out
}

// Metric merges every series of the metric called name. ok is false when it has none.
func (s *Snapshot) Metric(name string) (Series, bool) {
	return s.Submetric(name, nil)
}

// Submetric merges the series of the metric called name whose tags contain every pair
// of tags (k6's sub-metric rule, TagSet.Contains). ok is false when none match.
func (s *Snapshot) Submetric(name string, tags []metrics.Tag) (Series, bool) {
	lo, _ := slices.BinarySearchFunc(s.Series, name, func(se Series, n string) int { return strings.Compare(se.Metric.Name, n) })
	var out Series
	found := false
	for i := lo; i < len(s.Series) && s.Series[i].Metric.Name == name; i++ {
		se := &s.Series[i]
		if !se.Tags.Contains(tags) {
			continue
		}
		if !found {
			out = Series{Metric: se.Metric, First: se.First, Last: se.Last, Values: Values{Type: se.Type}}
			if se.Type == metrics.Trend {
				out.Trend = hist.New()
			}
		}
		out.merge(se.Values, !found, !se.Last.Before(out.Last))
		if se.First.Before(out.First) {
			out.First = se.First
		}
		if se.Last.After(out.Last) {
			out.Last = se.Last
		}
		found = true
	}
	return out, found
}

// Since returns the window between earlier and s, two snapshots of the same Store:
// counters, rates and trend histograms are the differences, gauges keep s's values.
// Series created after earlier are taken whole. A nil earlier means the start of the run.
// It returns an error if earlier is not an earlier state of s.
func (s *Snapshot) Since(earlier *Snapshot) (*Snapshot, error) {
	if earlier == nil {
		return s, nil
	}
	prev := make(map[seriesKey]*Series, len(earlier.Series))
	for i := range earlier.Series {
		e := &earlier.Series[i]
		prev[seriesKey{e.Metric, e.Tags}] = e
	}
	out := &Snapshot{Time: s.Time, Series: make([]Series, len(s.Series))}
	for i, se := range s.Series {
		out.Series[i] = se
		e, ok := prev[seriesKey{se.Metric, se.Tags}]
		if !ok {
			continue
		}
		v, err := se.Since(e.Values) // Values.Since
		if err != nil {
			return nil, fmt.Errorf("subtract %s%s: %w", se.Metric.Name, se.Tags, err)
		}
		out.Series[i].Values = v
	}
	return out, nil
}

// Since returns the values between earlier and v, two states of one sink (or of one
// merge of sinks, taken the same way): counters, rates and trend histograms are the
// differences, a gauge keeps v's values. It returns an error wrapping hist.ErrNotPrior
// if earlier is not an earlier state of v. The result does not share v's histogram
// unless the two are the same.
func (v Values) Since(earlier Values) (Values, error) {
	w := v
	switch v.Type {
	case metrics.Counter:
		w.Count -= earlier.Count
	case metrics.Rate:
		if earlier.Total > v.Total || earlier.Passes > v.Passes {
			return Values{}, fmt.Errorf("subtract rate: %w", hist.ErrNotPrior)
		}
		w.Passes -= earlier.Passes
		w.Total -= earlier.Total
	case metrics.Trend:
		switch earlier.Trend {
		case nil:
		case v.Trend:
			w.Trend = hist.New()
		default:
			h := v.Trend.Clone()
			if err := h.Sub(earlier.Trend); err != nil {
				return Values{}, fmt.Errorf("subtract trend: %w", err)
			}
			w.Trend = h
		}
	}
	return w, nil
}
