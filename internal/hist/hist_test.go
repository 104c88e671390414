package hist

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/stretchr/testify/require"
)

// relBound is the proven worst-case relative error of Quantile, (γ-1)/(γ+1), plus a few
// ulps of float rounding. The issue asks for 0.5%; we assert the tighter bound.
const relBound = (gamma-1)/(gamma+1) + 1e-12

// exactPercentile is k6's TrendSink.P on the raw values: sort; i = p*(n-1); linear
// interpolation between values[floor(i)] and values[ceil(i)].
func exactPercentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n == 1 {
		return sorted[0]
	}
	i := p * float64(n-1)
	lo, hi := math.Floor(i), math.Ceil(i)
	a, b := sorted[int(lo)], sorted[int(hi)]
	return a + (b-a)*(i-lo)
}

var testPercentiles = []float64{0, 0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.333, 0.5, 0.666, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999, 1}

// checkQuantiles asserts that every percentile of h is within the bound of the exact k6
// value of values, and returns the largest relative error seen.
func checkQuantiles(t *testing.T, values []float64, ps []float64) float64 {
	t.Helper()
	h := New()
	for _, v := range values {
		h.Observe(v)
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	worst := 0.0
	for _, p := range ps {
		want := exactPercentile(sorted, p)
		got := h.Quantile(p)
		i := p * float64(len(sorted)-1)
		a, b := sorted[int(math.Floor(i))], sorted[int(math.Ceil(i))]
		if (a < 0) != (b < 0) && a != 0 && b != 0 {
			// Opposite signs: absolute error bounded by the larger magnitude.
			require.LessOrEqual(t, math.Abs(got-want), relBound*math.Max(math.Abs(a), math.Abs(b)), "p=%v n=%d", p, len(values))
			continue
		}
		if want == 0 {
			require.Zero(t, got, "p=%v n=%d", p, len(values))
			continue
		}
		rel := math.Abs(got-want) / math.Abs(want)
		require.LessOrEqual(t, rel, relBound, "p=%v n=%d want=%v got=%v", p, len(values), want, got)
		require.LessOrEqual(t, rel, 0.005, "p=%v: the issue's 0.5%% bound", p)
		worst = math.Max(worst, rel)
	}
	require.Equal(t, uint64(len(values)), h.Count())
	require.Equal(t, sorted[0], h.Min())
	require.Equal(t, sorted[len(sorted)-1], h.Max())
	return worst
}

func TestQuantileRandomDistributions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		gen  func(r *rand.Rand) float64
	}{
		{"uniform_0_1", func(r *rand.Rand) float64 { return r.Float64() }},
		{"uniform_ms", func(r *rand.Rand) float64 { return 0.001 + r.Float64()*0.5 }},
		{"lognormal_latency", func(r *rand.Rand) float64 { return math.Exp(math.Log(0.05) + 0.8*r.NormFloat64()) }},
		{"lognormal_wide", func(r *rand.Rand) float64 { return math.Exp(3 * r.NormFloat64()) }},
		{"exponential", func(r *rand.Rand) float64 { return r.ExpFloat64() * 0.2 }},
		{"bytes", func(r *rand.Rand) float64 { return float64(r.IntN(1 << 20)) }},
		{"normal_signed", func(r *rand.Rand) float64 { return r.NormFloat64() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			for _, n := range []int{1, 2, 3, 10, 101, 1000, 100_000} {
				values := make([]float64, n)
				for i := range values {
					values[i] = tc.gen(r)
				}
				ps := slices.Clone(testPercentiles)
				for range 50 {
					ps = append(ps, r.Float64())
				}
				worst := checkQuantiles(t, values, ps)
				t.Logf("n=%d worst relative error %.4f%%", n, worst*100)
			}
		})
	}
}

func TestQuantileAdversarial(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	boundaries := func() []float64 {
		var v []float64
		for k := int32(-2000); k < 2000; k += 7 {
			v = append(v, upperBound(k))
			v = append(v, math.Nextafter(upperBound(k), 0), math.Nextafter(upperBound(k), math.Inf(1)))
		}
		return v
	}
	repeat := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		values []float64
	}{
		{"single", []float64{0.123}},
		{"two", []float64{0.2, 0.1}},
		{"three", []float64{3, 1, 2}},
		{"two_far_apart", []float64{1e-6, 1e6}},
		{"constant", repeat(0.25, 10_000)},
		{"constant_on_boundary", repeat(1, 999)},
		{"constant_just_above_boundary", repeat(math.Nextafter(1, 2), 999)},
		{"all_zero", repeat(0, 100)},
		{"zeros_and_values", append(repeat(0, 500), repeat(0.01, 500)...)},
		{"mostly_zeros", append(repeat(0, 990), 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)},
		{"two_clusters", func() []float64 {
			var v []float64
			for range 5000 {
				v = append(v, 0.001*(1+0.01*r.Float64()), 100*(1+0.01*r.Float64()))
			}
			return v
		}()},
		{"on_bucket_boundaries", boundaries()},
		{"huge_outliers", append(repeat(0.01, 100_000), 1e9, 1e12, math.MaxFloat64/2)},
		{"tiny_values", []float64{1e-300, 5e-324, 1e-200, 1e-10, 1}},
		{"negatives", []float64{-5, -3, -1, -0.5, -0.001}},
		{"mixed_sign", []float64{-10, -1, 0, 1, 10, 100}},
		{"powers_of_two", func() []float64 {
			var v []float64
			for e := -30; e <= 30; e++ {
				v = append(v, math.Ldexp(1, e))
			}
			return v
		}()},
		{"integers", func() []float64 {
			var v []float64
			for i := range 1000 {
				v = append(v, float64(i))
			}
			return v
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := slices.Clone(testPercentiles)
			for range 200 {
				ps = append(ps, r.Float64())
			}
			checkQuantiles(t, tc.values, ps)
		})
	}
}

func TestQuantileEdges(t *testing.T) {
	t.Parallel()
	h := New()
	require.Zero(t, h.Quantile(0.5), "empty")
	require.Zero(t, h.Mean())
	h.Observe(math.NaN())
	require.Zero(t, h.Count(), "NaN is ignored")
	h.Observe(2)
	h.Observe(4)
	require.Equal(t, 2.0, h.Quantile(-1), "clamped to 0")
	require.Equal(t, 4.0, h.Quantile(2), "clamped to 1")
	require.Equal(t, 3.0, h.Quantile(0.5), "interpolates exact min and max")
	require.Equal(t, 3.0, h.Mean())
	h.Observe(math.Inf(1))
	require.Equal(t, math.Inf(1), h.Max())
	require.Equal(t, math.Inf(1), h.Quantile(1))
	require.InEpsilon(t, 4.0, h.Quantile(0.5), relBound, "inner order statistic is a bucket estimate")
}

func TestOctaveIndexMatchesBinarySearch(t *testing.T) {
	t.Parallel()
	search := func(frac float64) int { return sort.SearchFloat64s(bounds[:perOctave], frac) }
	for j := range perOctave {
		for _, f := range []float64{bounds[j], math.Nextafter(bounds[j], 0), math.Nextafter(bounds[j], 1)} {
			if f < 0.5 || f >= 1 {
				continue
			}
			require.Equal(t, search(f), octaveIndex(f), "frac %v", f)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 1_000_000 {
		f := 0.5 + r.Float64()/2
		require.Equal(t, search(f), octaveIndex(f), "frac %v", f)
	}
	require.Equal(t, perOctave, octaveIndex(math.Nextafter(1, 0)))
}

func TestBucketBoundsMatchPrometheus(t *testing.T) {
	t.Parallel()
	// A schema-7 Prometheus histogram with one bucket per key; its iterator computes
	// the bounds with Prometheus' own table.
	ph := &histogram.Histogram{Schema: 7, PositiveSpans: []histogram.Span{{Offset: -1000, Length: 2001}}}
	ph.PositiveBuckets = make([]int64, 2001)
	ph.PositiveBuckets[0] = 1
	ph.Count = 1
	it := ph.PositiveBucketIterator()
	k := int32(-1000)
	for it.Next() {
		b := it.At()
		require.Equal(t, b.Upper, upperBound(k), "key %d", k)
		require.Equal(t, b.Lower, upperBound(k-1), "key %d", k)
		// Values on and just inside the bounds land in the same bucket as in Prometheus.
		require.Equal(t, k, key(b.Upper))
		require.Equal(t, k+1, key(math.Nextafter(b.Upper, math.Inf(1))))
		k++
	}
	require.Equal(t, int32(1001), k)
	require.InDelta(t, gamma, math.Exp2(1.0/128), 1e-15)
}

// observeClientGolang returns client_golang's native histogram of values as bucket
// key → count maps, for a bucket factor that selects the wanted schema.
func observeClientGolang(t *testing.T, factor float64, values []float64) (schema int32, pos, neg map[int32]int64, zero uint64) {
	t.Helper()
	ch := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "x", Help: "x", NativeHistogramBucketFactor: factor})
	for _, v := range values {
		ch.Observe(v)
	}
	var m dto.Metric
	require.NoError(t, ch.Write(&m))
	dh := m.GetHistogram()
	return dh.GetSchema(), expandDTO(dh.GetPositiveSpan(), dh.GetPositiveDelta()), expandDTO(dh.GetNegativeSpan(), dh.GetNegativeDelta()), dh.GetZeroCount()
}

func expandDTO(spans []*dto.BucketSpan, deltas []int64) map[int32]int64 {
	out := map[int32]int64{}
	var idx int32
	var c int64
	i := 0
	for si, s := range spans {
		if si == 0 {
			idx = s.GetOffset()
		} else {
			idx += s.GetOffset()
		}
		for range s.GetLength() {
			c += deltas[i]
			i++
			if c != 0 {
				out[idx] = c
			}
			idx++
		}
	}
	return out
}

func expand(spans []histogram.Span, deltas []int64) map[int32]int64 {
	out := map[int32]int64{}
	var idx int32
	var c int64
	i := 0
	for si, s := range spans {
		if si == 0 {
			idx = s.Offset
		} else {
			idx += s.Offset
		}
		for range s.Length {
			c += deltas[i]
			i++
			if c != 0 {
				out[idx] = c
			}
			idx++
		}
	}
	return out
}

func TestToPrometheusMatchesClientGolang(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	var values []float64
	for range 20_000 {
		values = append(values, math.Exp(math.Log(0.05)+1.5*r.NormFloat64()))
	}
	for k := int32(-300); k < 300; k += 3 {
		values = append(values, upperBound(k), -upperBound(k))
	}
	values = append(values, 0, 0, 1e-45, -1e-45, 1e6, -7)
	for _, tc := range []struct {
		factor float64
		schema int32
	}{
		{1.1, 3}, // k6's NativeHistogramBucketFactor.
		{1.006, 7},
		{2, 0},
		{1.5, 1},
	} {
		h := New()
		for _, v := range values {
			h.Observe(v)
		}
		ph, err := h.ToPrometheus(tc.schema)
		require.NoError(t, err)
		require.NoError(t, ph.Validate())
		schema, pos, neg, zero := observeClientGolang(t, tc.factor, values)
		require.Equal(t, tc.schema, schema)
		require.Equal(t, pos, expand(ph.PositiveSpans, ph.PositiveBuckets), "schema %d positive", schema)
		require.Equal(t, neg, expand(ph.NegativeSpans, ph.NegativeBuckets), "schema %d negative", schema)
		require.Equal(t, zero, ph.ZeroCount)
		require.Equal(t, uint64(len(values)), ph.Count)
	}
	_, err := New().ToPrometheus(8)
	require.Error(t, err)
}

func TestDownscaleMatchesReduceResolution(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 9))
	h := New()
	for range 50_000 {
		h.Observe(r.ExpFloat64() * math.Exp2(float64(r.IntN(40)-20)))
		h.Observe(-r.Float64())
	}
	h.Observe(0)
	full, err := h.ToPrometheus(Schema)
	require.NoError(t, err)
	for schema := int32(Schema); schema >= -4; schema-- {
		want := full.Copy()
		if schema < Schema {
			require.NoError(t, want.ReduceResolution(schema))
		}
		got, err := h.ToPrometheus(schema)
		require.NoError(t, err)
		require.NoError(t, got.Validate())
		require.Equal(t, expand(want.PositiveSpans, want.PositiveBuckets), expand(got.PositiveSpans, got.PositiveBuckets), "schema %d", schema)
		require.Equal(t, expand(want.NegativeSpans, want.NegativeBuckets), expand(got.NegativeSpans, got.NegativeBuckets), "schema %d", schema)
		require.Equal(t, want.ZeroCount, got.ZeroCount)
		require.Equal(t, want.Count, got.Count)
	}
}

func TestMergeIsExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(10, 11))
	a, b, all := New(), New(), New()
	for i := range 30_000 {
		v := r.NormFloat64() * 3
		if i%3 == 0 {
			v = 0
		}
		all.Observe(v)
		if i%2 == 0 {
			a.Observe(v)
		} else {
			b.Observe(v)
		}
	}
	a.Merge(b)
	a.Merge(nil)
	a.Merge(New())
	requireSameBuckets(t, all, a)
	require.Equal(t, all.Min(), a.Min())
	require.Equal(t, all.Max(), a.Max())
	require.InDelta(t, all.Sum(), a.Sum(), 1e-9)
	for _, p := range testPercentiles {
		require.Equal(t, all.Quantile(p), a.Quantile(p), "p=%v", p)
	}
	empty := New()
	empty.Merge(b)
	requireSameBuckets(t, b, empty)
	require.Equal(t, b.Min(), empty.Min())
}

func requireSameBuckets(t *testing.T, want, got *Histogram) {
	t.Helper()
	w, err := want.ToPrometheus(Schema)
	require.NoError(t, err)
	g, err := got.ToPrometheus(Schema)
	require.NoError(t, err)
	require.Equal(t, expand(w.PositiveSpans, w.PositiveBuckets), expand(g.PositiveSpans, g.PositiveBuckets))
	require.Equal(t, expand(w.NegativeSpans, w.NegativeBuckets), expand(g.NegativeSpans, g.NegativeBuckets))
	require.Equal(t, w.ZeroCount, g.ZeroCount)
	require.Equal(t, w.Count, g.Count)
}

func TestSubIsExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(12, 13))
	for _, tc := range []struct {
		name          string
		first, second func() float64
		exactMin      bool
		exactMax      bool
	}{
		{"window_holds_new_extremes", func() float64 { return 1 + r.Float64() }, func() float64 { return 0.5 + 3*r.Float64() }, true, true},
		{"window_inside", func() float64 { return 0.1 + 10*r.Float64() }, func() float64 { return 2 + r.Float64() }, false, false},
		{"signed", func() float64 { return r.NormFloat64() }, func() float64 { return r.NormFloat64() * 0.1 }, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cum, window := New(), New()
			for range 10_000 {
				cum.Observe(tc.first())
			}
			earlier := cum.Clone()
			for range 10_000 {
				v := tc.second()
				cum.Observe(v)
				window.Observe(v)
			}
			got := cum.Clone()
			require.NoError(t, got.Sub(earlier))
			requireSameBuckets(t, window, got)
			require.InDelta(t, window.Sum(), got.Sum(), 1e-6)
			if tc.exactMin {
				require.Equal(t, window.Min(), got.Min())
			} else {
				require.InEpsilon(t, window.Min(), got.Min(), gamma-1)
			}
			if tc.exactMax {
				require.Equal(t, window.Max(), got.Max())
			} else {
				require.InEpsilon(t, window.Max(), got.Max(), gamma-1)
			}
			for _, p := range []float64{0.5, 0.9, 0.95, 0.99} {
				require.InEpsilon(t, window.Quantile(p), got.Quantile(p), 2*(gamma-1), "p=%v", p)
			}
			// The reverse is not a prior state.
			back := earlier.Clone()
			require.ErrorIs(t, back.Sub(cum), ErrNotPrior)
			requireSameBuckets(t, earlier, back)
		})
	}
	h := New()
	h.Observe(1)
	same := h.Clone()
	require.NoError(t, h.Sub(same))
	require.Zero(t, h.Count())
	require.Zero(t, h.Max())
	require.NoError(t, h.Sub(nil))
}

func TestObserveDoesNotAllocateAfterWarmup(t *testing.T) {
	h := New()
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = 0.001 + r.Float64()
	}
	for _, v := range vals {
		h.Observe(v)
	}
	i := 0
	allocs := testing.AllocsPerRun(10_000, func() {
		h.Observe(vals[i%len(vals)])
		i++
	})
	require.Zero(t, allocs)
}

func TestCloneAndReset(t *testing.T) {
	t.Parallel()
	h := New()
	for i := range 100 {
		h.Observe(float64(i))
	}
	c := h.Clone()
	h.Reset()
	require.Zero(t, h.Count())
	require.Zero(t, h.Quantile(0.5))
	require.Equal(t, uint64(100), c.Count())
	require.InEpsilon(t, 49.5, c.Quantile(0.5), relBound)
	h.Observe(3)
	require.Equal(t, 3.0, h.Quantile(0.5))
	require.Contains(t, c.String(), "count=100")
}

func BenchmarkObserve(b *testing.B) {
	h := New()
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = math.Exp(math.Log(0.05) + r.NormFloat64())
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		h.Observe(vals[i&4095])
	}
}

func BenchmarkQuantile(b *testing.B) {
	h := New()
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		h.Observe(math.Exp(math.Log(0.05) + r.NormFloat64()))
	}
	for b.Loop() {
		h.Quantile(0.95)
	}
}

// FuzzQuantile checks the accuracy bound of Quantile on arbitrary data: values are
// decoded from the fuzz input as float64 bits, limited to normal magnitudes (the bound
// is relative, and subnormal bucket bounds lose precision) and to ±1e300 (so the exact
// interpolation itself cannot overflow).
func FuzzQuantile(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 240, 63}, 0.5)
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}, 0.95)
	f.Fuzz(func(t *testing.T, data []byte, p float64) {
		if p != p || p < 0 || p > 1 {
			return
		}
		var values []float64
		for i := 0; i+8 <= len(data) && len(values) < 10_000; i += 8 {
			v := math.Float64frombits(uint64(data[i]) | uint64(data[i+1])<<8 | uint64(data[i+2])<<16 | uint64(data[i+3])<<24 |
				uint64(data[i+4])<<32 | uint64(data[i+5])<<40 | uint64(data[i+6])<<48 | uint64(data[i+7])<<56)
			if v != v || math.IsInf(v, 0) || math.Abs(v) > 1e300 || (v != 0 && math.Abs(v) < 1e-300) {
				continue
			}
			values = append(values, v)
		}
		if len(values) == 0 {
			return
		}
		checkQuantiles(t, values, []float64{p, 0, 0.5, 1})
	})
}

// exactQuantile is k6's percentile of vs (TrendSink.P): sorted, i = p*(n-1), linear
// interpolation.
func exactQuantile(vs []float64, p float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	i := p * float64(len(s)-1)
	lo, hi := math.Floor(i), math.Ceil(i)
	return s[int(lo)] + (s[int(hi)]-s[int(lo)])*(i-lo)
}

// TestExactUpToTheLimit: up to ExactLimit observations every quantile is k6's exact
// value (to the last bit), through Clone, Merge and Sub; past it the buckets answer
// within the bound.
func TestExactUpToTheLimit(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	draw := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Round(r.ExpFloat64()*200*1000) / 1000 // ms with µs steps
		}
		return out
	}
	of := func(vs []float64) *Histogram {
		h := New()
		for _, v := range vs {
			h.Observe(v)
		}
		return h
	}
	ps := []float64{0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1}
	requireExact := func(t *testing.T, vs []float64, h *Histogram, what string) {
		t.Helper()
		for _, p := range ps {
			require.Equal(t, exactQuantile(vs, p), h.Quantile(p), "%s p=%v", what, p)
		}
		require.Equal(t, slices.Min(vs), h.Min(), what)
		require.Equal(t, slices.Max(vs), h.Max(), what)
	}

	small := draw(ExactLimit)
	h := of(small)
	requireExact(t, small, h, "observed")
	requireExact(t, small, h.Clone(), "clone")
	// k6's corpus shape: med == 200 and p(75) == 300 exactly.
	requireExact(t, []float64{100, 200, 300, 400, 200, 300, 100}, of([]float64{100, 200, 300, 400, 200, 300, 100}), "the corpus's trend")

	a, b := draw(200), draw(300)
	m := of(a)
	m.Merge(of(b))
	requireExact(t, append(slices.Clone(a), b...), m, "merge")

	before := of(a)
	later := before.Clone()
	for _, v := range b {
		later.Observe(v)
	}
	require.NoError(t, later.Sub(before))
	requireExact(t, b, later, "sub: the window's values")

	// Past the limit: the buckets' bound, and merge or sub with a large one is bounded too.
	large := draw(ExactLimit + 1)
	hl := of(large)
	for _, p := range ps[1 : len(ps)-1] {
		require.InEpsilon(t, exactQuantile(large, p), hl.Quantile(p), relBound, "p=%v", p)
	}
	m2 := of(a)
	m2.Merge(of(draw(ExactLimit)))
	_, ok := m2.exactValues()
	require.False(t, ok, "a merge past the limit keeps no values")
	hl.Reset()
	hl.Observe(3)
	hl.Observe(5)
	require.Equal(t, 4.0, hl.Quantile(0.5), "Reset returns to exact values")
}
