package hist

import (
	"fmt"

	"github.com/prometheus/prometheus/model/histogram"
)

// maxGap is the number of empty buckets ToPrometheus encodes inside a span rather than
// starting a new one: a new span costs two varints, an empty bucket one byte. It is the
// rule of client_golang.
const maxGap = 2

// ToPrometheus returns h as a cumulative Prometheus integer native histogram at the given
// exponential schema (at most Schema; 3 is what k6 sends, NativeHistogramBucketFactor
// 1.1). Reducing the schema merges 2^(7-schema) adjacent buckets into one, exactly as
// histogram.Histogram.ReduceResolution does. Observations whose magnitude is at most
// DefaultZeroThreshold are counted in the zero bucket, as client_golang does by
// default. CounterResetHint is left unknown for the caller to set.
func (h *Histogram) ToPrometheus(schema int32) (*histogram.Histogram, error) {
	if schema > Schema || schema < -4 {
		return nil, fmt.Errorf("convert histogram to schema %d: want -4 to %d", schema, Schema)
	}
	out := &histogram.Histogram{
		Schema:        schema,
		ZeroThreshold: DefaultZeroThreshold,
		ZeroCount:     h.zero,
		Count:         h.count,
		Sum:           h.sum,
	}
	var tiny uint64
	out.PositiveSpans, out.PositiveBuckets, tiny = encode(&h.pos, Schema-schema)
	out.ZeroCount += tiny
	out.NegativeSpans, out.NegativeBuckets, tiny = encode(&h.neg, Schema-schema)
	out.ZeroCount += tiny
	return out, nil
}

// zeroKey is the highest schema-7 key whose upper bound, 2^(k/128), is at most
// DefaultZeroThreshold = 2^-128.
const zeroKey = -128 * perOctave

// encode returns the spans and delta-encoded buckets of s reduced by scaleDown schema
// steps, and the count of the buckets that fall into the zero bucket.
func encode(s *store, scaleDown int32) (spans []histogram.Span, deltas []int64, zero uint64) {
	var (
		lastKey   int32
		lastCount int64
		have      bool
		cur       int64 // count of the bucket being accumulated
		curKey    int32
	)
	flush := func() {
		switch {
		case !have:
			spans = append(spans, histogram.Span{Offset: curKey, Length: 1})
			deltas = append(deltas, cur)
		case curKey-lastKey-1 <= maxGap:
			for range curKey - lastKey - 1 {
				deltas = append(deltas, -lastCount)
				lastCount = 0
			}
			spans[len(spans)-1].Length += uint32(curKey - lastKey)
			deltas = append(deltas, cur-lastCount)
		default:
			spans = append(spans, histogram.Span{Offset: curKey - lastKey - 1, Length: 1})
			deltas = append(deltas, cur-lastCount)
		}
		have, lastKey, lastCount = true, curKey, cur
	}
	started := false
	s.each(func(k int32, c uint64) {
		if k <= zeroKey {
			zero += c
			return
		}
		tk := k
		if scaleDown > 0 {
			tk = ((k - 1) >> scaleDown) + 1
		}
		if started && tk == curKey {
			cur += int64(c)
			return
		}
		if started {
			flush()
		}
		started, curKey, cur = true, tk, int64(c)
	})
	if started {
		flush()
	}
	return spans, deltas, zero
}
