package query

import (
	"math"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

func TestToSet(t *testing.T) {
	t.Parallel()
	ts := model.TimeFromUnix(1700000000)
	at := ts.Time().UTC()
	for _, tc := range []struct {
		name string
		in   model.Value
		want timeline.Set
	}{
		{name: "nil", in: nil},
		{
			name: "matrix drops NaN and Inf",
			in: model.Matrix{
				{Metric: model.Metric{"pod": "a"}, Values: []model.SamplePair{{Timestamp: ts, Value: 1}, {Timestamp: ts + 15000, Value: model.SampleValue(math.NaN())}, {Timestamp: ts + 30000, Value: model.SampleValue(math.Inf(1))}}},
				{Metric: model.Metric{"pod": "b"}, Values: []model.SamplePair{{Timestamp: ts, Value: model.SampleValue(math.NaN())}}},
			},
			want: timeline.Set{{Labels: map[string]string{"pod": "a"}, Points: []timeline.Point{{T: at, V: 1}}}},
		},
		{
			name: "vector sorted by labels",
			in:   model.Vector{{Metric: model.Metric{"pod": "b"}, Timestamp: ts, Value: 2}, {Metric: model.Metric{"pod": "a"}, Timestamp: ts, Value: 1}},
			want: timeline.Set{
				{Labels: map[string]string{"pod": "a"}, Points: []timeline.Point{{T: at, V: 1}}},
				{Labels: map[string]string{"pod": "b"}, Points: []timeline.Point{{T: at, V: 2}}},
			},
		},
		{name: "scalar", in: &model.Scalar{Timestamp: ts, Value: 3}, want: timeline.Set{{Labels: map[string]string{}, Points: []timeline.Point{{T: at, V: 3}}}}},
		{name: "NaN scalar", in: &model.Scalar{Timestamp: ts, Value: model.SampleValue(math.NaN())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ToSet(tc.in)
			require.NoError(t, err)
			if len(tc.want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
	_, err := ToSet(&model.String{Value: "x"})
	require.ErrorContains(t, err, "unsupported result type")
}
