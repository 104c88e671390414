package remotewrite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/remotewrite"
)

// TestWriteOnce: Write sends the given series once at the given time, retrying a 5xx
// after the backoff, and reports a rejection as an error.
func TestWriteOnce(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	rc.setRespond(func(n int, _ request) (int, http.Header, string) {
		if n < 1 {
			return http.StatusServiceUnavailable, nil, "starting"
		}
		return http.StatusNoContent, nil, ""
	})
	clk := newFakeClock()
	c, err := remotewrite.NewClient(testConfig(rc.url()), &counterSource{run: nil}, promslog.NewNopLogger(), nil, remotewrite.WithClock(clk))
	require.NoError(t, err)
	ts := time.Date(2026, 11, 30, 10, 2, 30, 0, time.UTC).UnixMilli()
	batch := []series.Series{
		{Name: "tidemark_event", Labels: []series.Label{{Name: "kind", Value: "scale_up"}, {Name: "object", Value: "shoong/order"}, {Name: "testid", Value: "t1"}}, Value: 1},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Write(ctx, ts, batch) }()
	clk.await(t, 1) // the backoff after the 503
	clk.fireNext()
	require.NoError(t, <-errc)
	reqs := rc.requests()
	require.Len(t, reqs, 2)
	last := reqs[1]
	require.Len(t, last.points, 1)
	require.Equal(t, `tidemark_event{kind="scale_up",object="shoong/order",testid="t1"}`, last.points[0].series)
	require.Equal(t, ts, last.points[0].ts)
	require.Equal(t, 1.0, last.points[0].value)
	require.Equal(t, uint64(1), c.Stats().Retries)

	rc.setRespond(func(int, request) (int, http.Header, string) { return http.StatusBadRequest, nil, "out of bounds" })
	require.ErrorContains(t, c.Write(ctx, ts, batch), "rejected 1 samples")

	// A later Write reports only its own rejections.
	rc.setRespond(func(int, request) (int, http.Header, string) { return http.StatusNoContent, nil, "" })
	require.NoError(t, c.Write(ctx, ts+1000, batch))
	require.Equal(t, uint64(1), c.Stats().Dropped)
}
