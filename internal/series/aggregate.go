package series

import (
	"github.com/prometheus/prometheus/model/histogram"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/metrics"
)

// NativeSchema is the schema of the native histograms Tidemark sends: 3, a bucket
// growth factor of 2^(1/8) ≈ 1.09, what k6 and client_golang send with
// NativeHistogramBucketFactor 1.1.
const NativeSchema = 3

// AggregateSource is the aggregate store, as series consumes it.
type AggregateSource interface {
	Snapshot() *aggregate.Snapshot
}

var _ AggregateSource = (*aggregate.Store)(nil)

// FromAggregate returns a Snapshotter over an aggregate store.
func FromAggregate(src AggregateSource) Snapshotter {
	return SnapshotFunc(func() []Input { return Inputs(nil, src.Snapshot()) })
}

// Inputs appends the inputs of an aggregate snapshot to dst.
func Inputs(dst []Input, snap *aggregate.Snapshot) []Input {
	if snap == nil {
		return dst
	}
	for i := range snap.Series {
		s := &snap.Series[i]
		in := Input{Metric: s.Metric, Tags: s.Tags}
		switch s.Type {
		case metrics.Counter:
			in.Value = s.Count
		case metrics.Gauge:
			in.Value = s.Value
		case metrics.Rate:
			in.Passes, in.Total = s.Passes, s.Total
		case metrics.Trend:
			if s.Trend == nil {
				continue
			}
			in.Trend = &histDist{h: s.Trend}
		}
		dst = append(dst, in)
	}
	return dst
}

// histDist is a Distribution over an aggregate trend histogram. It converts to a native
// histogram on first use; it is used by one Map call at a time.
type histDist struct {
	h      *hist.Histogram
	native *histogram.Histogram
	done   bool
}

var _ Distribution = (*histDist)(nil)

func (d *histDist) Count() uint64              { return d.h.Count() }
func (d *histDist) Sum() float64               { return d.h.Sum() }
func (d *histDist) Min() float64               { return d.h.Min() }
func (d *histDist) Max() float64               { return d.h.Max() }
func (d *histDist) Quantile(q float64) float64 { return d.h.Quantile(q) }

func (d *histDist) Native() *histogram.Histogram {
	if !d.done {
		d.done = true
		// ToPrometheus fails only for a schema out of range; NativeSchema is in range.
		d.native, _ = d.h.ToPrometheus(NativeSchema)
	}
	return d.native
}

// mergeHists merges aggregate histograms exactly, or returns nil if a part is not one.
func mergeHists(ds []Distribution) Distribution {
	var out *hist.Histogram
	for _, d := range ds {
		hd, ok := d.(*histDist)
		if !ok {
			return nil
		}
		if out == nil {
			out = hd.h.Clone()
			continue
		}
		out.Merge(hd.h)
	}
	return &histDist{h: out}
}
