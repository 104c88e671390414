package query

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

// countingQuerier answers empty vectors until its nth call.
type countingQuerier struct {
	calls atomic.Int32
	n     int32
}

func (q *countingQuerier) Query(context.Context, string, time.Time) (model.Value, v1.Warnings, error) {
	if q.calls.Add(1) < q.n {
		return model.Vector{}, nil, nil
	}
	return model.Vector{&model.Sample{Metric: model.Metric{"__name__": "up"}, Value: 1}}, nil, nil
}

func (q *countingQuerier) QueryRange(context.Context, string, v1.Range) (model.Value, v1.Warnings, error) {
	return nil, nil, nil
}

func TestWaitForSeries(t *testing.T) {
	t.Parallel()
	q := &countingQuerier{n: 2}
	require.NoError(t, WaitForSeries(t.Context(), q, "up", time.Minute))
	require.Equal(t, int32(2), q.calls.Load(), "polled until data came")

	never := &countingQuerier{n: 1 << 30}
	require.EqualError(t, WaitForSeries(t.Context(), never, "up", 0), "no up after 0s")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.ErrorIs(t, WaitForSeries(ctx, never, "up", time.Minute), context.Canceled)
}
