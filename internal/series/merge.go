package series

import (
	"math"
	"slices"

	"github.com/prometheus/prometheus/model/histogram"

	"github.com/tidemark/tidemark/internal/metrics"
)

// acc merges the inputs of one group (inputs whose labels became equal through the
// label rules) within one Map call.
type acc struct {
	first         *entry
	value         float64
	hasValue      bool
	passes, total uint64
	dists         []Distribution
}

func (a *acc) add(in *Input) {
	switch a.first.metric.Type {
	case metrics.Counter:
		a.value += in.Value
	case metrics.Gauge:
		// There is no meaningful sum of gauges split by a dropped label (a VU count
		// split by url, say); the largest is the conservative choice.
		if !a.hasValue || in.Value > a.value {
			a.value = in.Value
		}
		a.hasValue = true
	case metrics.Rate:
		a.passes += in.Passes
		a.total += in.Total
	case metrics.Trend:
		if in.Trend != nil {
			a.dists = append(a.dists, in.Trend)
		}
	}
}

func (a *acc) input() Input {
	in := Input{Metric: a.first.metric, Value: a.value, Passes: a.passes, Total: a.total}
	switch len(a.dists) {
	case 0:
	case 1:
		in.Trend = a.dists[0]
	default:
		// Aggregate histograms merge exactly; anything else through its native
		// histogram.
		if d := mergeHists(a.dists); d != nil {
			in.Trend = d
		} else {
			in.Trend = mergeDistributions(a.dists)
		}
	}
	return in
}

// merged is the union of several distributions. Count, sum, min and max are exact;
// quantiles come from the merged native histogram (within its bucket width), or,
// when an input keeps none, from the count-weighted mean of the inputs' quantiles.
type merged struct {
	count         uint64
	sum, min, max float64
	native        *histogram.Histogram
	parts         []Distribution
}

func mergeDistributions(ds []Distribution) *merged {
	m := &merged{min: math.Inf(1), max: math.Inf(-1), parts: ds}
	natives := make([]*histogram.Histogram, 0, len(ds))
	for _, d := range ds {
		n := d.Count()
		m.count += n
		m.sum += d.Sum()
		if n > 0 {
			m.min = math.Min(m.min, d.Min())
			m.max = math.Max(m.max, d.Max())
		}
		if h := d.Native(); h != nil {
			natives = append(natives, h)
		}
	}
	if m.count == 0 {
		m.min, m.max = 0, 0
	}
	if len(natives) == len(ds) {
		m.native = mergeHistograms(natives)
	}
	return m
}

func (m *merged) Count() uint64                { return m.count }
func (m *merged) Sum() float64                 { return m.sum }
func (m *merged) Min() float64                 { return m.min }
func (m *merged) Max() float64                 { return m.max }
func (m *merged) Native() *histogram.Histogram { return m.native }

func (m *merged) Quantile(q float64) float64 {
	if m.count == 0 {
		return 0
	}
	if m.native == nil {
		var v float64
		for _, d := range m.parts {
			v += d.Quantile(q) * float64(d.Count()) / float64(m.count)
		}
		return v
	}
	r := q * float64(m.count-1)
	lo := histogramRank(m.native, uint64(math.Floor(r)))
	hi := histogramRank(m.native, uint64(math.Ceil(r)))
	v := lo + (hi-lo)*(r-math.Floor(r))
	return math.Max(m.min, math.Min(m.max, v))
}

// histogramRank estimates the k-th smallest observation (0-based) of h, assuming the
// observations of a bucket are spread evenly over it.
func histogramRank(h *histogram.Histogram, k uint64) float64 {
	var buckets []histogram.Bucket[uint64]
	for it := h.NegativeBucketIterator(); it.Next(); {
		buckets = append(buckets, it.At())
	}
	slices.Reverse(buckets)
	if h.ZeroCount > 0 {
		buckets = append(buckets, histogram.Bucket[uint64]{Lower: 0, Upper: h.ZeroThreshold, Count: h.ZeroCount})
	}
	for it := h.PositiveBucketIterator(); it.Next(); {
		buckets = append(buckets, it.At())
	}
	var seen uint64
	for _, b := range buckets {
		if b.Count == 0 {
			continue
		}
		if k < seen+b.Count {
			j := float64(k-seen) + 0.5
			return b.Lower + (b.Upper-b.Lower)*j/float64(b.Count)
		}
		seen += b.Count
	}
	if len(buckets) == 0 {
		return 0
	}
	return buckets[len(buckets)-1].Upper
}

// mergeHistograms adds exponential histograms, at the coarsest schema among them.
func mergeHistograms(hs []*histogram.Histogram) *histogram.Histogram {
	schema := hs[0].Schema
	for _, h := range hs[1:] {
		schema = min(schema, h.Schema)
	}
	out := &histogram.Histogram{Schema: schema}
	pos, neg := map[int32]int64{}, map[int32]int64{}
	for _, h := range hs {
		if h.Schema != schema {
			h = h.Copy()
			if err := h.ReduceResolution(schema); err != nil {
				continue
			}
		}
		out.Count += h.Count
		out.Sum += h.Sum
		out.ZeroCount += h.ZeroCount
		out.ZeroThreshold = max(out.ZeroThreshold, h.ZeroThreshold)
		for it := h.PositiveBucketIterator(); it.Next(); {
			b := it.At()
			pos[b.Index] += int64(b.Count)
		}
		for it := h.NegativeBucketIterator(); it.Next(); {
			b := it.At()
			neg[b.Index] += int64(b.Count)
		}
	}
	out.PositiveSpans, out.PositiveBuckets = spansAndDeltas(pos)
	out.NegativeSpans, out.NegativeBuckets = spansAndDeltas(neg)
	return out
}

// spansAndDeltas encodes absolute bucket counts by index as spans and deltas.
func spansAndDeltas(counts map[int32]int64) ([]histogram.Span, []int64) {
	if len(counts) == 0 {
		return nil, nil
	}
	idx := make([]int32, 0, len(counts))
	for i := range counts {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var spans []histogram.Span
	deltas := make([]int64, 0, len(idx))
	var prevCount int64
	for n, i := range idx {
		switch {
		case n == 0:
			spans = append(spans, histogram.Span{Offset: i, Length: 1})
		case i == idx[n-1]+1:
			spans[len(spans)-1].Length++
		default:
			spans = append(spans, histogram.Span{Offset: i - idx[n-1] - 1, Length: 1})
		}
		deltas = append(deltas, counts[i]-prevCount)
		prevCount = counts[i]
	}
	return spans, deltas
}
