package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
)

// TestPrecision: spans and moments carry ± their source's resolution; other values
// say how far apart their samples were, since "p95 5 s (±5 s)" reads as an error bar
// on the latency.
func TestPrecision(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 19, 6, 21, 0, time.UTC)
	for _, tc := range []struct {
		name string
		f    *analysis.Fact
		want string
	}{
		{"span", &analysis.Fact{Value: 25, Unit: analysis.UnitSeconds, ResolutionSeconds: 10}, "±10 s"},
		{"moment", &analysis.Fact{Unit: analysis.UnitTime, At: at, ResolutionSeconds: 5}, "±5 s"},
		{"latency at a moment", &analysis.Fact{Value: 5.08, Unit: analysis.UnitSeconds, At: at, ResolutionSeconds: 5}, "sampled every 5 s"},
		{"ratio", &analysis.Fact{Value: 0.107, Unit: analysis.UnitRatio, ResolutionSeconds: 5}, "sampled every 5 s"},
		{"exact", &analysis.Fact{Value: 3, Unit: analysis.UnitCount}, ""},
		{"none", nil, ""},
	} {
		require.Equal(t, tc.want, precision(tc.f), tc.name)
	}
}
