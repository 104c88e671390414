package jslib

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/hist"
)

// TestTrendOf: a rebuilt trend has the data's min, max and avg, and its quantiles
// within the histogram's resolution, with and without sub-metric values merged in.
func TestTrendOf(t *testing.T) {
	t.Parallel()
	sub := hist.New()
	for _, v := range []float64{3, 50, 100, 150, 200, 250} {
		sub.Observe(v)
	}
	for _, tc := range []struct {
		name  string
		vals  map[string]float64
		other *hist.Histogram
	}{
		{"default stats", map[string]float64{"avg": 200, "min": 0, "med": 200, "max": 400, "p(90)": 360, "p(95)": 380}, nil},
		{"skewed", map[string]float64{"avg": 63.75, "min": 0, "med": 4.5, "max": 250, "p(90)": 195, "p(95)": 222.5}, nil},
		{"with a sub-metric", map[string]float64{"avg": 63.75, "min": 0, "med": 4.5, "max": 250, "p(90)": 195, "p(95)": 222.5}, sub},
		{"all equal", map[string]float64{"avg": 7, "min": 7, "med": 7, "max": 7, "p(99.9)": 7}, nil},
		{"negative", map[string]float64{"avg": -1, "min": -5, "med": -1, "max": 3}, nil},
		{"no percentiles", map[string]float64{"avg": 12, "min": 10, "max": 20}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := trendOf(tc.vals, 1, tc.other)
			merged := hist.New()
			merged.Merge(h)
			merged.Merge(tc.other)
			require.InDelta(t, tc.vals["min"], merged.Min(), 0)
			require.InDelta(t, tc.vals["max"], merged.Max(), 0)
			require.InDelta(t, tc.vals["avg"], merged.Mean(), 1e-9*max(1, tc.vals["avg"]))
			for stat, q := range map[string]float64{"med": 0.5, "p(90)": 0.9, "p(95)": 0.95, "p(99.9)": 0.999} {
				if want, ok := tc.vals[stat]; ok {
					require.InDelta(t, want, merged.Quantile(q), 0.003*max(1, want), stat)
				}
			}
		})
	}
	require.Zero(t, trendOf(map[string]float64{}, 1, nil).Count())
	require.InDelta(t, 5.0, trendOf(map[string]float64{"avg": 5}, 1, nil).Mean(), 0)
}
