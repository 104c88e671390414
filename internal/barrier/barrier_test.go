package barrier

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/query"
)

// fakeClock moves only when the barrier sleeps: After advances it by d at once.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestStartInstant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		ready  []string
		margin time.Duration
		want   string
	}{
		{"latest plus margin, rounded up", []string{"2026-01-02T10:00:00.100Z", "2026-01-02T10:00:05.250Z", "2026-01-02T10:00:10.001Z"}, 3 * time.Second, "2026-01-02T10:00:14Z"},
		{"order does not matter", []string{"2026-01-02T10:00:10.001Z", "2026-01-02T10:00:00.100Z", "2026-01-02T10:00:05.250Z"}, 3 * time.Second, "2026-01-02T10:00:14Z"},
		{"a whole second stays", []string{"2026-01-02T10:00:07Z"}, 3 * time.Second, "2026-01-02T10:00:10Z"},
		{"one millisecond past rounds up", []string{"2026-01-02T10:00:07.001Z"}, 2 * time.Second, "2026-01-02T10:00:10Z"},
		{"other time zones give the same UTC instant", []string{"2026-01-02T11:00:07.5+01:00", "2026-01-02T10:00:01Z"}, time.Second, "2026-01-02T10:00:09Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ready []time.Time
			for _, r := range tc.ready {
				ready = append(ready, ts(r))
			}
			require.Equal(t, ts(tc.want), StartInstant(ready, tc.margin))
		})
	}
}

// board is a shared noticeboard of ready announcements, as the backend would be.
type board struct {
	mu    sync.Mutex
	ready map[string]time.Time
	reads int
	// full, when set, is closed once three instances have announced.
	full chan struct{}
}

func (b *board) announcer(id string) AnnounceFunc {
	return func(_ context.Context, at time.Time) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.ready == nil {
			b.ready = map[string]time.Time{}
		}
		b.ready[id] = at.Truncate(time.Millisecond)
		if b.full != nil && len(b.ready) == 3 {
			select {
			case <-b.full:
			default:
				close(b.full)
			}
		}
		return nil
	}
}

func (b *board) Ready(context.Context, string) (map[string]time.Time, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	return maps.Clone(b.ready), nil
}

// TestInstancesAgreeOnTheStart: three instances that become ready at different times
// and read the same board compute the same start, after the last one's ready time.
func TestInstancesAgreeOnTheStart(t *testing.T) {
	t.Parallel()
	b := &board{full: make(chan struct{})}
	t0 := ts("2026-01-02T10:00:00.300Z")
	starts := make([]time.Time, 3)
	var wg sync.WaitGroup
	var errs [3]error
	for i := range 3 {
		// Instance i is ready 5 s after instance i-1. Each runs on its own fake clock,
		// which moves only once all three have announced.
		clk := &fakeClock{now: t0.Add(time.Duration(i) * 5 * time.Second)}
		bar, err := New(Config{Instances: 3, InstanceID: strconv.Itoa(i), TestID: "run-1", PollInterval: 500 * time.Millisecond},
			b.announcer(strconv.Itoa(i)), b, promslog.NewNopLogger(), WithClock(&gatedClock{fakeClock: clk, full: b.full}))
		require.NoError(t, err)
		wg.Go(func() { starts[i], errs[i] = bar.Wait(context.Background()) })
	}
	wg.Wait()
	for i := range 3 {
		require.NoError(t, errs[i])
	}
	want := ts("2026-01-02T10:00:14Z") // 10:00:10.300 + 3 s margin, rounded up
	require.Equal(t, []time.Time{want, want, want}, starts)
}

// gatedClock holds an instance in its first sleep until all three have announced (each
// announces before it first sleeps), so no virtual clock runs into its timeout while
// another instance's goroutine has not been scheduled yet.
type gatedClock struct {
	*fakeClock
	full <-chan struct{}
}

func (c *gatedClock) After(d time.Duration) <-chan time.Time {
	<-c.full
	return c.fakeClock.After(d)
}

func TestTimeoutSaysHowManyWereReady(t *testing.T) {
	t.Parallel()
	b := &board{}
	require.NoError(t, b.announcer("0")(context.Background(), ts("2026-01-02T10:00:00Z")))
	clk := &fakeClock{now: ts("2026-01-02T10:00:01Z")}
	bar, err := New(Config{Instances: 3, InstanceID: "1", TestID: "run-1", Timeout: 30 * time.Second},
		b.announcer("1"), b, promslog.NewNopLogger(), WithClock(clk))
	require.NoError(t, err)
	_, err = bar.Wait(context.Background())
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	require.Equal(t, 2, te.Ready)
	require.Contains(t, err.Error(), "2 of 3 instances ready after 30s")
	require.Contains(t, err.Error(), "instance_id 0, 1")
	require.Equal(t, exitcode.GenericTimeout, exitcode.Of(err))
	require.Equal(t, ts("2026-01-02T10:00:31Z"), clk.Now(), "gives up at the timeout, not before or long after")
	require.Equal(t, 31, b.reads, "one read per poll interval, the first at once")
}

func TestStaleAnnouncementsAreIgnored(t *testing.T) {
	t.Parallel()
	b := &board{}
	// Instance 2's announcement is from an earlier run under the same testid.
	require.NoError(t, b.announcer("2")(context.Background(), ts("2026-01-02T09:00:00Z")))
	require.NoError(t, b.announcer("0")(context.Background(), ts("2026-01-02T10:00:00Z")))
	clk := &fakeClock{now: ts("2026-01-02T10:00:01Z")}
	bar, err := New(Config{Instances: 3, InstanceID: "1", TestID: "run-1", Timeout: 10 * time.Second},
		b.announcer("1"), b, promslog.NewNopLogger(), WithClock(clk))
	require.NoError(t, err)
	_, err = bar.Wait(context.Background())
	require.ErrorContains(t, err, "2 of 3 instances ready")
}

func TestReadErrorsAreRetriedAndReported(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{now: ts("2026-01-02T10:00:00Z")}
	fails := SourceFunc(func(context.Context, string) (map[string]time.Time, error) {
		return nil, errors.New("connection refused")
	})
	bar, err := New(Config{Instances: 2, InstanceID: "0", TestID: "run-1", Timeout: 5 * time.Second},
		func(context.Context, time.Time) error { return nil }, fails, promslog.NewNopLogger(), WithClock(clk))
	require.NoError(t, err)
	_, err = bar.Wait(context.Background())
	require.ErrorContains(t, err, "0 of 2 instances ready after 5s")
	require.ErrorContains(t, err, "last read failed: connection refused")
}

func TestStartAt(t *testing.T) {
	t.Parallel()
	at := ts("2026-01-02T10:00:30Z")
	for _, tc := range []struct {
		name    string
		now     string
		wantNow string
	}{
		{"waits until the given instant", "2026-01-02T10:00:00.250Z", "2026-01-02T10:00:30Z"},
		{"a past instant starts at once", "2026-01-02T10:01:00Z", "2026-01-02T10:01:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := &fakeClock{now: ts(tc.now)}
			// No announcer and no source: --start-at needs no backend.
			bar, err := New(Config{Instances: 3, StartAt: at}, nil, nil, promslog.NewNopLogger(), WithClock(clk))
			require.NoError(t, err)
			got, err := bar.Wait(context.Background())
			require.NoError(t, err)
			require.Equal(t, at, got)
			require.Equal(t, ts(tc.wantNow), clk.Now())
		})
	}
}

func TestWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bar, err := New(Config{Instances: 3, StartAt: time.Now().Add(time.Hour)}, nil, nil, promslog.NewNopLogger())
	require.NoError(t, err)
	_, err = bar.Wait(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"ok", Config{Instances: 3, TestID: "x"}, ""},
		{"one instance needs no testid", Config{Instances: 1}, ""},
		{"zero instances", Config{Instances: 0, TestID: "x"}, "instances 0: expected at least 1"},
		{"no testid", Config{Instances: 2}, "no testid: the instances find each other by it (set --testid)"},
		{"margin not above poll", Config{Instances: 2, TestID: "x", PollInterval: 5 * time.Second},
			"margin 3s: expected more than the poll interval 5s, or instances that see the last one late start late"},
		{"negative timeout", Config{Instances: 2, TestID: "x", Timeout: -time.Second}, "timeout -1s: expected a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.cfg.Validate()
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

// TestPrometheusSource reads announcements through the Prometheus query API (an
// httptest fake answering as Prometheus does).
func TestPrometheusSource(t *testing.T) {
	t.Parallel()
	var gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.FormValue("query")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[
			{"metric":{"__name__":"tidemark_instance_ready","testid":"run-1","instance_id":"0"},"value":[1767348010.5,"1767348000.1"]},
			{"metric":{"__name__":"tidemark_instance_ready","testid":"run-1","instance_id":"1"},"value":[1767348010.5,"1767348005.25"]}]}}`))
	}))
	defer srv.Close()
	q, err := query.NewPrometheus(srv.URL, nil)
	require.NoError(t, err)
	got, err := NewPrometheus(q, nil).Ready(context.Background(), "run-1")
	require.NoError(t, err)
	require.Equal(t, `tidemark_instance_ready{testid="run-1"}`, gotQuery)
	require.Equal(t, map[string]time.Time{
		"0": time.Unix(1767348000, 100e6).UTC(),
		"1": time.Unix(1767348005, 250e6).UTC(),
	}, got)
}
