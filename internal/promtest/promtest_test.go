package promtest

import (
	"testing"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

func TestChecks(t *testing.T) {
	t.Parallel()
	vec := model.Vector{&model.Sample{Metric: model.Metric{"__name__": "up"}, Value: 1}}
	mat := model.Matrix{&model.SampleStream{}, &model.SampleStream{}}
	for _, tc := range []struct {
		name     string
		v        model.Value
		nonEmpty bool
		count1   bool
	}{
		{"nil", nil, false, false},
		{"empty vector", model.Vector{}, false, false},
		{"one sample", vec, true, true},
		{"two streams", mat, true, false},
		{"scalar", &model.Scalar{Value: 2}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.nonEmpty, NonEmpty(tc.v))
			require.Equal(t, tc.count1, SeriesCount(1)(tc.v))
		})
	}
}
