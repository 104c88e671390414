package benchtest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	t.Parallel()
	v := []float64{3, 1, 2}
	require.InDelta(t, 2, Median(v), 0)
	require.Equal(t, []float64{3, 1, 2}, v, "not reordered")
	require.InDelta(t, 2.5, Median([]float64{4, 1, 2, 3}), 0)
	require.Zero(t, Median(nil))
}

func TestProcessCPUGrows(t *testing.T) {
	t.Parallel()
	before := ProcessCPU()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	require.Positive(t, x)
	require.Greater(t, ProcessCPU(), before, "busy work shows up as CPU time")
}
