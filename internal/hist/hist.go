// Package hist is the constant-memory, high-resolution histogram behind Tidemark's trend
// metrics.
//
// Buckets are base-2 exponential in the scheme of Prometheus native histograms at schema
// 7: bucket k holds the values in (2^((k-1)/128), 2^(k/128)], so each bucket is about
// 0.54% wide. Count, sum, min and max are kept exactly, and zero and negative values have
// their own buckets. Buckets are stored per octave in pages allocated on first use, so
// memory depends on the range of the values, never on their number.
//
// Quantile follows k6's definition (sorted values, i = p*(n-1), linear interpolation
// between the order statistics floor(i) and ceil(i)); each order statistic is estimated by
// a representative value of its bucket, clamped to [min, max], so the result is within
// 0.28% of the exact k6 value (see Quantile). Merging and subtracting histograms is exact
// bucket arithmetic, and so is reducing the resolution to schema 3, which is what k6 and
// Prometheus client_golang send with NativeHistogramBucketFactor 1.1.
//
// Up to ExactLimit observations a Histogram also keeps every value, sorted, and its
// quantiles are k6's exact percentiles: a short test's p(95) and med are the numbers k6
// prints, and a threshold such as med==200 on a few hundred samples is judged as k6 judges
// it. Past ExactLimit the values are dropped and the buckets alone answer.
//
// A Histogram is not safe for concurrent use; internal/aggregate guards each one.
package hist

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

const (
	// Schema is the Prometheus native-histogram schema of a Histogram's buckets.
	Schema = 7
	// perOctave is the number of buckets between two powers of two.
	perOctave = 1 << Schema
	// infKey is the bucket of +Inf: one above the bucket of math.MaxFloat64, as in
	// Prometheus.
	infKey = 1024*perOctave + 1
	// DefaultZeroThreshold is the width of the zero bucket in the Prometheus form
	// (client_golang's DefNativeHistogramZeroThreshold, 2^-128): values whose
	// magnitude is at most this count as zero there.
	DefaultZeroThreshold = 2.938735877055719e-39
)

// ExactLimit is the most observations a Histogram keeps as values (4 KiB): up to it,
// Quantile is exact.
const ExactLimit = 512

// gamma is the ratio between a bucket's upper and lower bound, 2^(1/128).
const gamma = 1.0054299011128028

// ErrNotPrior is returned by Sub when the histogram to subtract has a bucket with more
// observations than the receiver, so it cannot be an earlier state of it.
var ErrNotPrior = errors.New("histogram is not an earlier state of the receiver")

// Histogram is a schema-7 exponential histogram with exact count, sum, min and max. The
// zero value is empty and ready to use.
type Histogram struct {
	count uint64
	zero  uint64
	sum   float64
	min   float64
	max   float64
	pos   store // Buckets of positive values by key.
	neg   store // Buckets of negative values by the key of their magnitude.
	// exact holds every observation, sorted, while there are at most ExactLimit of
	// them and overflow is false; once overflow is set it is nil until Reset.
	exact    []float64
	overflow bool
}

// exactValues returns the sorted observations when h still holds all of them.
func (h *Histogram) exactValues() ([]float64, bool) {
	if h.overflow || uint64(len(h.exact)) != h.count {
		return nil, false
	}
	return h.exact, true
}

// keep adds v to the exact values, or gives them up past ExactLimit.
func (h *Histogram) keep(v float64) {
	if h.overflow {
		return
	}
	if len(h.exact) >= ExactLimit {
		h.exact, h.overflow = nil, true
		return
	}
	i := sort.SearchFloat64s(h.exact, v)
	h.exact = append(h.exact, 0)
	copy(h.exact[i+1:], h.exact[i:])
	h.exact[i] = v
}

// New returns an empty histogram.
func New() *Histogram { return &Histogram{} }

// Observe adds v. NaN is ignored; +Inf and -Inf are counted in a bucket of their own and
// make the sum infinite, as in Prometheus.
func (h *Histogram) Observe(v float64) {
	if v != v { // NaN
		return
	}
	switch {
	case h.count == 0:
		h.min, h.max = v, v
	case v < h.min:
		h.min = v
	case v > h.max:
		h.max = v
	}
	h.count++
	h.sum += v
	h.keep(v)
	switch {
	case v > 0:
		h.pos.add(key(v), 1)
	case v < 0:
		h.neg.add(key(-v), 1)
	default:
		h.zero++
	}
}

// Count returns the number of observations.
func (h *Histogram) Count() uint64 { return h.count }

// Sum returns the sum of the observations.
func (h *Histogram) Sum() float64 { return h.sum }

// Min returns the smallest observation, 0 when empty.
func (h *Histogram) Min() float64 { return h.min }

// Max returns the largest observation, 0 when empty.
func (h *Histogram) Max() float64 { return h.max }

// Mean returns Sum/Count, 0 when empty.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return h.sum / float64(h.count)
}

// Quantile returns k6's percentile q (0 ≤ q ≤ 1; values outside are clamped): with the
// observations sorted as v[0..n-1] and i = q*(n-1), it is v[⌊i⌋] + (v[⌈i⌉]-v[⌊i⌋])*(i-⌊i⌋).
// It returns 0 when the histogram is empty.
//
// While the histogram holds its values (at most ExactLimit), v[r] is the exact value.
// Past that, v[0] and v[n-1] are the exact min and max, and any other v[r] is estimated by the harmonic
// mean 2LU/(L+U) of its bucket (L, U], clamped to [min, max]; its relative error is at
// most (γ-1)/(γ+1) ≈ 0.271% with γ = 2^(1/128). The interpolation is a convex combination,
// so when v[⌊i⌋] and v[⌈i⌉] have the same sign (or one is zero) the result is also within
// 0.271% of the exact value; when they have opposite signs the absolute error is at most
// 0.271% of the larger magnitude.
func (h *Histogram) Quantile(q float64) float64 {
	if h.count == 0 {
		return 0
	}
	if q != q || q < 0 {
		q = 0
	}
	q = math.Min(q, 1)
	pos := q * float64(h.count-1)
	lo := math.Floor(pos)
	hi := math.Ceil(pos)
	a := h.orderStat(uint64(lo))
	if hi == lo {
		return a
	}
	b := h.orderStat(uint64(hi))
	return a + (b-a)*(pos-lo)
}

// orderStat estimates the r-th smallest observation (0-based).
func (h *Histogram) orderStat(r uint64) float64 {
	if vs, ok := h.exactValues(); ok {
		return vs[r]
	}
	switch r {
	case 0:
		return h.min
	case h.count - 1:
		return h.max
	}
	clamp := func(v float64) float64 { return math.Max(h.min, math.Min(h.max, v)) }
	// Negative values in ascending order are their magnitudes' buckets descending.
	if k, ok := h.neg.find(r, true); ok {
		return clamp(-representative(k))
	}
	r -= h.neg.total()
	if r < h.zero {
		return clamp(0)
	}
	r -= h.zero
	k, _ := h.pos.find(r, false)
	return clamp(representative(k))
}

// Clone returns a deep copy of h.
func (h *Histogram) Clone() *Histogram {
	c := *h
	c.pos = h.pos.clone()
	c.neg = h.neg.clone()
	if h.exact != nil {
		c.exact = append(make([]float64, 0, len(h.exact)), h.exact...)
	}
	return &c
}

// Reset empties h, keeping its pages for reuse.
func (h *Histogram) Reset() {
	h.count, h.zero, h.sum, h.min, h.max = 0, 0, 0, 0, 0
	h.pos.reset()
	h.neg.reset()
	h.exact, h.overflow = h.exact[:0], false
}

// Merge adds every observation of o to h. Buckets, count, min and max are exact; the
// sum is a float addition.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.count == 0 {
		return
	}
	if h.count == 0 {
		h.min, h.max = o.min, o.max
	} else {
		h.min = math.Min(h.min, o.min)
		h.max = math.Max(h.max, o.max)
	}
	a, aok := h.exactValues()
	b, bok := o.exactValues()
	h.count += o.count
	h.zero += o.zero
	h.sum += o.sum
	h.pos.merge(&o.pos)
	h.neg.merge(&o.neg)
	if !aok || !bok || len(a)+len(b) > ExactLimit {
		h.exact, h.overflow = nil, true
		return
	}
	merged := make([]float64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			merged, a = append(merged, a[0]), a[1:]
		} else {
			merged, b = append(merged, b[0]), b[1:]
		}
	}
	h.exact = append(append(merged, a...), b...)
}

// Sub removes from h the observations of an earlier state of it (a snapshot of the
// same cumulative histogram), leaving the observations made in between. Buckets and
// count are exact; the sum is a float subtraction. Min and max are exact when the
// window's extreme is also a new extreme of the whole histogram (h.Min < earlier.Min,
// h.Max > earlier.Max); otherwise they are the outer bound of the window's lowest or
// highest bucket clamped to h's min and max, i.e. within one bucket width (0.54%).
// If earlier has more observations than h in any bucket, Sub returns ErrNotPrior and
// leaves h unchanged.
func (h *Histogram) Sub(earlier *Histogram) error {
	if earlier == nil || earlier.count == 0 {
		return nil
	}
	if earlier.count > h.count || earlier.zero > h.zero || !h.pos.covers(&earlier.pos) || !h.neg.covers(&earlier.neg) {
		return ErrNotPrior
	}
	a, aok := h.exactValues()
	b, bok := earlier.exactValues()
	h.count -= earlier.count
	h.zero -= earlier.zero
	h.pos.sub(&earlier.pos)
	h.neg.sub(&earlier.neg)
	if h.count == 0 {
		h.sum, h.min, h.max = 0, 0, 0
		h.exact, h.overflow = h.exact[:0], false
		return nil
	}
	h.sum -= earlier.sum
	if left, ok := without(a, b); aok && bok && ok && uint64(len(left)) == h.count {
		// The window's values, exactly.
		h.exact = left
		h.min, h.max = left[0], left[len(left)-1]
		return nil
	}
	h.exact, h.overflow = nil, true
	newMin, newMax := h.min < earlier.min, h.max > earlier.max
	if !newMin {
		h.min = math.Max(h.min, h.lowestBound())
	}
	if !newMax {
		h.max = math.Min(h.max, h.highestBound())
	}
	return nil
}

// without returns the sorted values of a that are not in b (a multiset difference of two
// sorted slices), in a new slice; ok is false when b has a value a lacks.
func without(a, b []float64) (out []float64, ok bool) {
	out = make([]float64, 0, max(len(a)-len(b), 0))
	for _, v := range a {
		if len(b) > 0 && b[0] < v {
			return nil, false // b's smallest is not in a
		}
		if len(b) > 0 && b[0] == v {
			b = b[1:]
			continue
		}
		out = append(out, v)
	}
	return out, len(b) == 0
}

// lowestBound returns the lower bound of the lowest non-empty bucket.
func (h *Histogram) lowestBound() float64 {
	if k, ok := h.neg.last(); ok {
		return -upperBound(k)
	}
	if h.zero > 0 {
		return 0
	}
	k, _ := h.pos.first()
	return upperBound(k - 1)
}

// highestBound returns the upper bound of the highest non-empty bucket.
func (h *Histogram) highestBound() float64 {
	if k, ok := h.pos.last(); ok {
		return upperBound(k)
	}
	if h.zero > 0 {
		return 0
	}
	k, _ := h.neg.first()
	return -upperBound(k - 1)
}

// String returns a short description for debugging.
func (h *Histogram) String() string {
	return fmt.Sprintf("hist{count=%d sum=%g min=%g max=%g zero=%d buckets=%d}", h.count, h.sum, h.min, h.max, h.zero, h.pos.nonEmpty()+h.neg.nonEmpty())
}

// key returns the schema-7 bucket of v > 0: the k with 2^((k-1)/128) < v ≤ 2^(k/128).
func key(v float64) int32 {
	bits := math.Float64bits(v)
	biased := int32(bits>>52) & 0x7ff
	if biased == 0 || biased == 0x7ff { // Subnormal or infinite: the slow path.
		if math.IsInf(v, 1) {
			return infKey
		}
		frac, exp := math.Frexp(v) // v = frac * 2^exp, frac in [0.5, 1)
		return int32(octaveIndex(frac)) + int32(exp-1)*perOctave
	}
	// A normal v is frac * 2^exp with frac in [0.5, 1) sharing v's mantissa and
	// exp = biased - 1022, so Frexp reduces to bit operations.
	frac := math.Float64frombits(bits&(1<<52-1) | 1022<<52)
	return int32(octaveIndex(frac)) + (biased-1023)*perOctave
}

// lutBits is the number of leading mantissa bits that index lut. 2^10 slices of [0.5, 1)
// are each 0.00049 wide, narrower than the narrowest bucket (0.5*(γ-1) ≈ 0.0027), so a
// slice holds at most one bucket boundary and one comparison finishes the lookup.
const lutBits = 10

// lut[t] is the first j with bounds[j] ≥ the lower edge of mantissa slice t. It is
// read-only after package initialisation.
var lut = func() (t [1 << lutBits]uint8) {
	j := 0
	for i := range t {
		edge := 0.5 + 0.5*float64(i)/(1<<lutBits)
		for bounds[j] < edge {
			j++
		}
		t[i] = uint8(j)
	}
	return t
}()

// octaveIndex returns the first j in [0, 128] with bounds[j] ≥ frac, for frac in
// [0.5, 1): the same as sort.SearchFloat64s(bounds[:128], frac), which is what
// Prometheus client_golang uses.
func octaveIndex(frac float64) int {
	j := int(lut[(math.Float64bits(frac)&(1<<52-1))>>(52-lutBits)])
	if bounds[j] < frac {
		j++
	}
	return j
}

// upperBound returns 2^(k/128), the upper bound of bucket k.
func upperBound(k int32) float64 {
	if k >= infKey {
		return math.Inf(1)
	}
	j := k & (perOctave - 1)
	return math.Ldexp(bounds[j], int(k>>Schema)+1)
}

// representative returns the harmonic mean 2LU/(L+U) of bucket k = (L, U], the point
// with the smallest worst-case relative error over the bucket.
func representative(k int32) float64 {
	return upperBound(k) * 2 / (1 + gamma)
}
