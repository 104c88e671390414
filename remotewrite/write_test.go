package remotewrite_test

import (
	"context"
	"fmt"
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

// TestWritePoints: series with several points are written one timestamp after the
// other, in time order, with their labels sorted and empty labels left out.
func TestWritePoints(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	event := series.Points{
		Labels: map[string]string{"testid": "t1", "object": "shoong/order", "kind": "scale_up", "__name__": "tidemark_event"},
		Points: []series.Point{{T: at(30), V: 1}},
	}
	fact := series.Points{
		Labels: map[string]string{"__name__": "tidemark_fact_requests_total", "testid": "t1", "stage": ""},
		Points: []series.Point{{T: at(60), V: 120}, {T: at(10), V: 20}},
	}
	const (
		eventKey = `tidemark_event{kind="scale_up",object="shoong/order",testid="t1"}`
		factKey  = `tidemark_fact_requests_total{testid="t1"}`
	)
	stage := func(i int) series.Points {
		return series.Points{
			Labels: map[string]string{"__name__": "tidemark_fact_stage_held", "stage": fmt.Sprint(i)},
			Points: []series.Point{{T: at(90), V: 1}},
		}
	}
	for _, tc := range []struct {
		name       string
		in         []series.Points
		maxSamples int
		reject     int64 // a timestamp (s after t0) the receiver rejects
		want       [][]string
		wantN      int
		wantErr    string
	}{
		{
			name:  "time order",
			in:    []series.Points{event, fact},
			want:  [][]string{{"10 " + factKey + " 20"}, {"30 " + eventKey + " 1"}, {"60 " + factKey + " 120"}},
			wantN: 3,
		},
		{
			name:       "one timestamp over several requests",
			in:         []series.Points{stage(0), stage(1), stage(2)},
			maxSamples: 2,
			want: [][]string{
				{`90 tidemark_fact_stage_held{stage="0"} 1`, `90 tidemark_fact_stage_held{stage="1"} 1`},
				{`90 tidemark_fact_stage_held{stage="2"} 1`},
			},
			wantN: 3,
		},
		{
			name:    "rejection",
			in:      []series.Points{event, fact},
			reject:  30,
			want:    [][]string{{"10 " + factKey + " 20"}, nil, {"60 " + factKey + " 120"}},
			wantN:   2,
			wantErr: "remote write receiver rejected 1 samples (see the log)",
		},
		{
			name:    "no metric name",
			in:      []series.Points{event, {Labels: map[string]string{"testid": "t1"}, Points: []series.Point{{T: at(1), V: 1}}}},
			wantErr: `write points: series {testid="t1"} has no metric name (__name__ label)`,
		},
		{name: "nothing", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t)
			rc.setRespond(func(_ int, r request) (int, http.Header, string) {
				for _, p := range r.points {
					if p.ts == at(int(tc.reject)).UnixMilli() && tc.reject != 0 {
						return http.StatusBadRequest, nil, "out of order sample"
					}
				}
				return http.StatusNoContent, nil, ""
			})
			cfg := testConfig(rc.url())
			if tc.maxSamples > 0 {
				cfg.Queue.MaxSamplesPerSend = tc.maxSamples
			}
			c, err := remotewrite.NewClient(cfg, &counterSource{}, promslog.NewNopLogger(), nil, remotewrite.WithClock(newFakeClock()))
			require.NoError(t, err)
			n, err := c.WritePoints(context.Background(), tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.wantN, n)
			var got [][]string
			for _, r := range rc.requests() {
				var lines []string
				for _, p := range r.points {
					lines = append(lines, fmt.Sprintf("%d %s %g", (p.ts-t0.UnixMilli())/1000, p.series, p.value))
				}
				got = append(got, lines)
			}
			require.Equal(t, tc.want, got)
			require.Equal(t, uint64(n), c.Stats().Samples)
		})
	}
}

// TestWritePointsGivesUp: when ctx ends during a backoff, WritePoints returns ctx's
// error, naming the timestamp it was at, and counts every unsent sample as dropped.
func TestWritePointsGivesUp(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	rc.setRespond(func(int, request) (int, http.Header, string) { return http.StatusServiceUnavailable, nil, "starting" })
	clk := newFakeClock()
	c, err := remotewrite.NewClient(testConfig(rc.url()), &counterSource{}, promslog.NewNopLogger(), nil, remotewrite.WithClock(clk))
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	in := []series.Points{{
		Labels: map[string]string{"__name__": "tidemark_fact_error_ratio", "testid": "t1"},
		Points: []series.Point{{T: t0, V: 0.1}, {T: t0.Add(time.Minute), V: 0.2}},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() { n, err := c.WritePoints(ctx, in); done <- result{n, err} }()
	clk.await(t, 1) // the backoff after the first 503
	cancel()
	r := <-done
	require.ErrorIs(t, r.err, context.Canceled)
	require.ErrorContains(t, r.err, "write points at 2026-11-30T10:00:00Z")
	require.Zero(t, r.n)
	require.Len(t, rc.requests(), 1)
	st := c.Stats()
	require.Equal(t, uint64(2), st.Dropped)
	require.Equal(t, uint64(1), st.Failed)
}

// TestNewWriter: a writer sends what it is given, once, and no stale markers.
func TestNewWriter(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	c, err := remotewrite.NewWriter(rc.url().String(), promslog.NewNopLogger(), remotewrite.WithClock(newFakeClock()))
	require.NoError(t, err)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	n, err := c.WritePoints(context.Background(), []series.Points{{Labels: map[string]string{"__name__": "tidemark_event", "kind": "scale_up"},
		Points: []series.Point{{T: at, V: 1}, {T: at.Add(time.Second), V: 1}}}})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.NoError(t, c.Stop())
	require.Len(t, rc.accepted(), 2, "no stale markers after the points")

	_, err = remotewrite.NewWriter("http://user:secret@[::1", promslog.NewNopLogger())
	require.ErrorContains(t, err, "remote-write url")
	require.NotContains(t, err.Error(), "secret")
}
