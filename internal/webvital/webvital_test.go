package webvital

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRate(t *testing.T) {
	for _, tc := range []struct {
		short string
		value float64
		base  bool
		want  string
	}{
		{"lcp", 0, false, Good},
		{"lcp", 2500, false, Good},
		{"lcp", 2500.1, false, NeedsImprovement},
		{"lcp", 4000, false, NeedsImprovement},
		{"lcp", 4000.1, false, Poor},
		{"lcp", 4.2, true, Poor},
		{"lcp", 1.2, true, Good},
		{"fcp", 1800, false, Good},
		{"fcp", 1801, false, NeedsImprovement},
		{"fcp", 3001, false, Poor},
		{"cls", 0.1, false, Good},
		{"cls", 0.140625, true, NeedsImprovement},
		{"cls", 0.26, false, Poor},
		{"inp", 200, false, Good},
		{"inp", 250, false, NeedsImprovement},
		{"inp", 0.501, true, Poor},
		{"ttfb", 800, false, Good},
		{"ttfb", 1800, false, NeedsImprovement},
		{"ttfb", 1801, false, Poor},
		{"fid", 100, false, Good},
		{"fid", 300, false, NeedsImprovement},
		{"fid", 301, false, Poor},
	} {
		v, ok := ByShort(tc.short)
		require.True(t, ok, tc.short)
		got := v.Rate(tc.value)
		if tc.base {
			got = v.RateBase(tc.value)
		}
		require.Equal(t, tc.want, got, "%s %v", tc.short, tc.value)
		m, ok := ByMetric(v.Metric)
		require.True(t, ok)
		require.Equal(t, v, m)
	}
	_, ok := ByShort("tti")
	require.False(t, ok)
	_, ok = ByMetric("browser_http_req_duration")
	require.False(t, ok)
}
