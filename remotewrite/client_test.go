package remotewrite_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/version"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/series/seriestest"
	"github.com/tidemark/tidemark/remotewrite"
)

func modelDuration(d time.Duration) model.Duration { return model.Duration(d) }

// counterSource is a run whose http_reqs counter the test sets.
type counterSource struct {
	run *seriestest.Run
	mu  sync.Mutex
	n   float64
	// extra series, present while set.
	extra bool
}

func newCounterSource() *counterSource { return &counterSource{run: seriestest.NewRun()} }

func (s *counterSource) set(n float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n = n
}

func (s *counterSource) Snapshot() []series.Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := []series.Input{
		{Metric: s.run.Builtin.HTTPReqs, Tags: s.run.Tags("status", "200"), Value: s.n},
		{Metric: s.run.Builtin.VUs, Tags: s.run.Tags(), Value: 5},
	}
	if s.extra {
		in = append(in, series.Input{Metric: s.run.Builtin.Iterations, Tags: s.run.Tags("scenario", "gone"), Value: 1})
	}
	return in
}

const reqsKey = `k6_http_reqs_total{status="200",testid="t1"}`

func start(t *testing.T, cfg remotewrite.Config, src series.Snapshotter, logger *slog.Logger, reg prometheus.Registerer, opts ...remotewrite.Option) *remotewrite.Client {
	t.Helper()
	if logger == nil {
		logger = promslog.NewNopLogger()
	}
	c, err := remotewrite.NewClient(cfg, src, logger, reg, opts...)
	require.NoError(t, err)
	c.Start()
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

func TestProtocolV1(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	run := seriestest.NewRun()
	src := &seriestest.Source{}
	src.Set(run.Snapshot(1))
	cfg := testConfig(rc.url())
	cfg.StaleMarkers = false
	c := start(t, cfg, src, nil, nil)
	reqs := rc.waitRequests(t, 1, 5*time.Second)
	require.NoError(t, c.Stop())

	h := reqs[0].header
	require.Equal(t, "snappy", h.Get("Content-Encoding"))
	require.Equal(t, "application/x-protobuf", h.Get("Content-Type"))
	require.Equal(t, "0.1.0", h.Get("X-Prometheus-Remote-Write-Version"))
	require.Equal(t, "tidemark/"+version.Version, h.Get("User-Agent"))

	// Exactly the mapper's series, each with one sample.
	m, err := series.NewMapper(cfg.Series)
	require.NoError(t, err)
	want := map[string]float64{}
	for _, s := range m.Map(nil, run.Snapshot(1)) {
		var parts []string
		for _, l := range s.Labels {
			parts = append(parts, fmt.Sprintf("%s=%q", l.Name, l.Value))
		}
		want[s.Name+"{"+strings.Join(parts, ",")+"}"] = s.Value
	}
	got := map[string]float64{}
	for _, p := range reqs[0].points {
		require.Nil(t, p.histogram)
		got[p.series] = p.value
	}
	require.Equal(t, want, got)
	require.Contains(t, got, `k6_http_req_duration_p95{expected_response="true",method="GET",name="http://127.0.0.1/",proto="HTTP/1.1",scenario="default",status="200",testid="t1",url="http://127.0.0.1/"}`)
	require.Contains(t, got, `tidemark_run_info{testid="t1",version="0.1.0"}`)
}

func TestProtocolV2Metadata(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	run := seriestest.NewRun()
	src := &seriestest.Source{}
	src.Set(run.Snapshot(1))
	cfg := testConfig(rc.url())
	cfg.Protocol = remotewrite.Protocol2
	cfg.Series.NativeHistograms = true
	cfg.StaleMarkers = false
	c := start(t, cfg, src, nil, nil)
	rc.waitRequests(t, 2, 5*time.Second)
	require.NoError(t, c.Stop())

	reqs := rc.requests()
	require.Equal(t, "application/x-protobuf;proto=io.prometheus.write.v2.Request", reqs[0].header.Get("Content-Type"))
	require.Equal(t, "2.0.0", reqs[0].header.Get("X-Prometheus-Remote-Write-Version"))
	meta := map[string]point{}
	for _, p := range rc.accepted() {
		meta[p.series[:strings.IndexByte(p.series, '{')]] = p
	}
	for _, tc := range []struct {
		name, unit string
		typ        writev2.Metadata_MetricType
		help       string
	}{
		{"k6_http_reqs_total", "", writev2.Metadata_METRIC_TYPE_COUNTER, "k6 counter http_reqs: cumulative sum since the start of the run."},
		{"k6_data_sent_total", "bytes", writev2.Metadata_METRIC_TYPE_COUNTER, "k6 counter data_sent: cumulative sum since the start of the run."},
		{"k6_vus", "", writev2.Metadata_METRIC_TYPE_GAUGE, "k6 gauge vus: last value."},
		{"k6_checks_rate", "", writev2.Metadata_METRIC_TYPE_GAUGE, "k6 rate checks: cumulative share of non-zero samples since the start of the run."},
		{"k6_http_req_duration_p99", "seconds", writev2.Metadata_METRIC_TYPE_GAUGE, "k6 trend http_req_duration: p(99) in seconds since the start of the run."},
		{"k6_http_req_duration_seconds", "seconds", writev2.Metadata_METRIC_TYPE_HISTOGRAM, "k6 trend http_req_duration: native histogram of every observation since the start of the run."},
		{"k6_payload_size_bytes", "bytes", writev2.Metadata_METRIC_TYPE_HISTOGRAM, "k6 trend payload_size: native histogram of every observation since the start of the run."},
		{"k6_queue_depth", "", writev2.Metadata_METRIC_TYPE_HISTOGRAM, "k6 trend queue_depth: native histogram of every observation since the start of the run."},
	} {
		p, ok := meta[tc.name]
		require.True(t, ok, tc.name)
		require.Equal(t, tc.typ, p.meta.Type, tc.name)
		require.Equal(t, tc.unit, p.unit, tc.name)
		require.Equal(t, tc.help, p.help, tc.name)
	}
	h := meta["k6_http_req_duration_seconds"].histogram
	require.NotNil(t, h)
	require.Equal(t, uint64(100), h.Count)
	require.Equal(t, int32(3), h.Schema)
}

// TestNoGaps: every live series is re-sent at every push, stamped with the push time,
// even when its value did not change (k6 only sends changed series: grafana/k6#3326).
func TestNoGaps(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	src := newCounterSource()
	src.set(7)
	clk := newFakeClock()
	cfg := testConfig(rc.url())
	cfg.PushInterval = modelDuration(5 * time.Second)
	cfg.StaleMarkers = false
	c := start(t, cfg, src, nil, nil, remotewrite.WithClock(clk))
	for i := 1; i <= 4; i++ {
		clk.await(t, 1) // the push ticker
		clk.Advance(5 * time.Second)
		rc.waitRequests(t, i, 5*time.Second)
	}
	require.NoError(t, c.Stop())
	var ts []int64
	for _, r := range rc.requests()[:4] { // the final push follows the fourth 1 ms later
		for _, p := range r.points {
			if p.series == reqsKey {
				require.Equal(t, 7.0, p.value)
				ts = append(ts, p.ts)
			}
		}
	}
	require.Len(t, ts, 4)
	for i := 1; i < len(ts); i++ {
		require.Equal(t, int64(5000), ts[i]-ts[i-1], "one point per push, stamped with the push time")
	}
}

// TestRetry5xx: a 5xx is retried with exponential backoff (min_backoff doubling, with
// jitter in [backoff/2, backoff]) until accepted, and every count agrees.
func TestRetry5xx(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	rc.setRespond(func(n int, _ request) (int, http.Header, string) {
		if n < 3 {
			return http.StatusServiceUnavailable, nil, "overloaded"
		}
		return http.StatusNoContent, nil, ""
	})
	src := newCounterSource()
	src.set(42)
	clk := newFakeClock()
	cfg := testConfig(rc.url())
	cfg.PushInterval = modelDuration(time.Second) // retries happen within one interval
	reg := prometheus.NewRegistry()
	c := start(t, cfg, src, nil, reg, remotewrite.WithClock(clk))
	clk.await(t, 1)
	clk.Advance(time.Second) // the first push, answered 503
	backoff := time.Duration(cfg.Queue.MinBackoff)
	for range 3 {
		clk.await(t, 2) // the ticker and the backoff
		waited := clk.fireNext()
		require.GreaterOrEqual(t, waited, backoff/2)
		require.LessOrEqual(t, waited, backoff)
		backoff *= 2
	}
	// Wait on the client, not the receiver, so Stop does not cut a request short.
	require.Eventually(t, func() bool { return c.Stats().Requests > 0 }, 5*time.Second, time.Millisecond)
	require.NoError(t, c.Stop())
	st := c.Stats()
	require.Equal(t, uint64(3), st.Retries)
	require.Zero(t, st.Dropped)
	require.Equal(t, 42.0, rc.latest()[reqsKey].value)
	require.Len(t, rc.requests(), 6, "4 attempts, the final push, the stale markers")
	require.Equal(t, float64(3*2), gathered(t, reg, "tidemark_remote_write_samples_failed_total"))
	require.Equal(t, float64(3*2), gathered(t, reg, "tidemark_remote_write_samples_retried_total"))
	require.Equal(t, float64(3), gathered(t, reg, "tidemark_remote_write_requests_retried_total"))
}

// gathered returns the value of an unlabelled counter or gauge in reg.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if m.Counter != nil {
				return m.Counter.GetValue()
			}
			return m.Gauge.GetValue()
		}
	}
	t.Fatalf("metric %s not found", name)
	return 0
}

// TestRetry429RetryAfter: Retry-After outlasts the backoff and the pushes due
// meanwhile: the newer snapshots supersede the older one but wait too.
func TestRetry429RetryAfter(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	clk := newFakeClock()
	var mu sync.Mutex
	var at []time.Time // on the client's clock
	rc.setRespond(func(n int, _ request) (int, http.Header, string) {
		mu.Lock()
		at = append(at, clk.Now())
		mu.Unlock()
		if n == 0 {
			return http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}}, "slow down"
		}
		return http.StatusNoContent, nil, ""
	})
	src := newCounterSource()
	src.set(1)
	cfg := testConfig(rc.url())
	cfg.PushInterval = modelDuration(50 * time.Millisecond)
	c := start(t, cfg, src, nil, nil, remotewrite.WithClock(clk))
	clk.await(t, 1)
	clk.Advance(50 * time.Millisecond) // the first push, answered 429
	requests := func() int { mu.Lock(); defer mu.Unlock(); return len(at) }
	for requests() < 2 {
		// Between requests the client waits on the ticker and on its backoff.
		require.Eventually(t, func() bool { return clk.pending() >= 2 || requests() >= 2 }, 10*time.Second, time.Millisecond)
		if requests() < 2 {
			clk.fireNext()
		}
	}
	mu.Lock()
	require.GreaterOrEqual(t, at[1].Sub(at[0]), time.Second, "Retry-After honoured, even across newer snapshots")
	mu.Unlock()
	// Wait on the client, not the receiver, so Stop does not cut the retry short.
	require.Eventually(t, func() bool { return c.Stats().Requests > 0 }, 5*time.Second, time.Millisecond)
	require.NoError(t, c.Stop())
	st := c.Stats()
	require.Equal(t, uint64(1), st.Retries)
	require.Positive(t, st.Superseded, "the pushes due during Retry-After were superseded")
	require.Zero(t, st.Dropped)
}

// TestNetworkDownThenUp: the receiver is unreachable, then comes back on the same
// address; nothing is lost and the backlog coalesces into the newest snapshot.
func TestNetworkDownThenUp(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // down: connection refused

	rc := &receiver{t: t}
	u, err := url.Parse("http://" + addr + "/api/v1/write")
	require.NoError(t, err)
	src := newCounterSource()
	clk := newFakeClock()
	cfg := testConfig(&config.URL{URL: u})
	cfg.PushInterval = modelDuration(20 * time.Millisecond)
	// A backoff of 80 ms and more waits past the next push, whatever the jitter.
	cfg.Queue.MaxBackoff = modelDuration(100 * time.Millisecond)
	logger, logs := newLogger(slog.LevelInfo)
	c := start(t, cfg, src, logger, nil, remotewrite.WithClock(clk))
	clk.await(t, 1)
	clk.Advance(20 * time.Millisecond) // the first push, refused
	for i := 0; i < 20 || c.Stats().Superseded == 0; i++ {
		require.Less(t, i, 1000)
		src.set(float64(i))
		clk.await(t, 2) // the ticker and the backoff
		clk.fireNext()
	}
	require.Positive(t, c.Stats().Failed)

	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(rc.handle), ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	src.set(1000)
	clk.drive(t, func() bool { return rc.latest()[reqsKey].value == 1000 })
	require.NoError(t, c.Stop())

	st := c.Stats()
	require.Positive(t, st.Retries)
	require.Positive(t, st.Superseded, "the backlog coalesced")
	require.Zero(t, st.Dropped)
	require.Len(t, logs.lines("Remote write failed, retrying"), 1, "one warning per outage, not one per attempt")
	require.Len(t, logs.lines("Remote write recovered"), 1)
	// The receiver never saw an old value after a newer one.
	var last float64 = -1
	for _, p := range rc.accepted() {
		if p.series == reqsKey && !isStale(p.value) {
			require.GreaterOrEqual(t, p.value, last)
			last = p.value
		}
	}
}

// TestCoalescingBacklog: while the receiver fails, snapshots are not queued: at most
// one is in flight, and the first accepted request after recovery carries the newest
// value.
func TestCoalescingBacklog(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	var mu sync.Mutex
	down, sent29 := true, false
	rc.setRespond(func(_ int, r request) (int, http.Header, string) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			for _, p := range r.points {
				sent29 = sent29 || p.series == reqsKey && p.value == 29
			}
			return http.StatusInternalServerError, nil, "disk full"
		}
		return http.StatusNoContent, nil, ""
	})
	src := newCounterSource()
	clk := newFakeClock()
	cfg := testConfig(rc.url())
	cfg.PushInterval = modelDuration(10 * time.Millisecond)
	cfg.Queue.MaxBackoff = modelDuration(100 * time.Millisecond)
	c := start(t, cfg, src, nil, nil, remotewrite.WithClock(clk))
	clk.await(t, 1)
	clk.Advance(10 * time.Millisecond) // the first push, answered 500
	begin := clk.Now()
	for i := range 30 {
		src.set(float64(i))
		clk.await(t, 2) // the ticker and the backoff
		clk.fireNext()
	}
	// Recover only once the client has sent the newest value: from then on it must never
	// go back to a queued older one.
	clk.drive(t, func() bool { mu.Lock(); defer mu.Unlock(); return sent29 })
	failedRequests, elapsed := len(rc.requests()), clk.Now().Sub(begin)
	mu.Lock()
	down = false
	mu.Unlock()
	clk.drive(t, func() bool { return rc.latest()[reqsKey].value == 29 })
	require.NoError(t, c.Stop())
	// Exponential backoff: far fewer attempts than one per push.
	require.Less(t, failedRequests, int(elapsed/(10*time.Millisecond))/2, "%d attempts in %s", failedRequests, elapsed)
	first := rc.accepted()
	require.NotEmpty(t, first)
	for _, p := range first {
		if p.series == reqsKey {
			require.Equal(t, 29.0, p.value, "the first accepted value is the newest, not a queued old one")
			break
		}
	}
	require.Positive(t, c.Stats().Superseded)
	require.Zero(t, c.Stats().Dropped)
}

// TestNonRetryable4xx: a rejection gives one clear log line with the receiver's message
// and status, is counted as dropped, is not retried, and the stream continues. (A 400 or
// 422 may concern some series only: TestRejectedSeriesSplit.)
func TestNonRetryable4xx(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		msg    string
		hint   string
	}{
		{http.StatusNotFound, "remote write receiver needs to be enabled", "check the URL path"},
		{http.StatusUnauthorized, "invalid credentials", "check the credentials"},
		{http.StatusForbidden, "forbidden", "check the credentials"},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t)
			rc.setRespond(func(int, request) (int, http.Header, string) { return tc.status, nil, tc.msg })
			src := newCounterSource()
			src.set(3)
			clk := newFakeClock()
			cfg := testConfig(rc.url())
			cfg.PushInterval = modelDuration(20 * time.Millisecond)
			cfg.StaleMarkers = false
			logger, logs := newLogger(slog.LevelInfo)
			c := start(t, cfg, src, logger, nil, remotewrite.WithClock(clk))
			for i := 1; i <= 5; i++ {
				clk.await(t, 1) // only the ticker: no backoff
				clk.Advance(20 * time.Millisecond)
				rc.waitRequests(t, i, 5*time.Second)
			}
			require.NoError(t, c.Stop())
			st := c.Stats()
			require.Zero(t, st.Retries, "no retry storm")
			require.Len(t, rc.requests(), 6, "5 pushes and the final one, each sent once")
			var received uint64
			for _, r := range rc.requests() {
				received += uint64(r.n)
			}
			require.Equal(t, received, st.Failed, "each sample sent once")
			// A request cut short by Stop is superseded by the final push.
			require.Equal(t, st.Failed, st.Dropped+st.Superseded)
			lines := logs.lines("Remote write rejected")
			require.Len(t, lines, 1, "one message")
			require.Contains(t, lines[0], fmt.Sprint("status=", tc.status))
			require.Contains(t, lines[0], tc.msg)
			require.Contains(t, lines[0], tc.hint)
		})
	}
}

// Test413HalvesBatches: a request refused as too large (413) is split and sent in halves
// at once, nothing is dropped, and later pushes use smaller requests from the start.
func Test413HalvesBatches(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	rc.setRespond(func(_ int, r request) (int, http.Header, string) {
		if len(r.points) > 8 {
			return http.StatusRequestEntityTooLarge, nil, "too large"
		}
		return http.StatusNoContent, nil, ""
	})
	run := seriestest.NewRun()
	src := &seriestest.Source{}
	src.Set(run.Snapshot(1))
	cfg := testConfig(rc.url())
	cfg.Queue.MaxSamplesPerSend = 32
	c := start(t, cfg, src, nil, nil)
	require.Eventually(t, func() bool { return len(rc.latest()) > 20 }, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, c.Stop())
	require.Zero(t, c.Stats().Dropped, "the halves of a request too large are sent")
	reqs := rc.requests()
	rejected := 0
	for _, r := range reqs {
		if len(r.points) > 8 {
			rejected++
		}
	}
	require.LessOrEqual(t, rejected, 3, "after the first push's splits, requests fit (32 → 16 → 8)")
}

// TestHistogramSeparation: native histograms travel in their own requests, so a
// receiver that rejects them still gets every float series.
func TestHistogramSeparation(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	rc.setRespond(func(_ int, r request) (int, http.Header, string) {
		if r.hasHistograms() {
			return http.StatusBadRequest, nil, "native histograms are disabled"
		}
		return http.StatusNoContent, nil, ""
	})
	run := seriestest.NewRun()
	src := &seriestest.Source{}
	src.Set(run.Snapshot(1))
	cfg := testConfig(rc.url())
	cfg.Series.NativeHistograms = true
	cfg.StaleMarkers = false
	logger, logs := newLogger(slog.LevelInfo)
	c := start(t, cfg, src, logger, nil)
	rc.waitRequests(t, 4, 5*time.Second)
	require.NoError(t, c.Stop())
	m, err := series.NewMapper(cfg.Series)
	require.NoError(t, err)
	floats := 0
	for _, s := range m.Map(nil, run.Snapshot(1)) {
		if s.Histogram == nil {
			floats++
		}
	}
	require.Len(t, rc.latest(), floats, "every float series arrived")
	lines := logs.lines("Remote write rejected")
	require.Len(t, lines, 1)
	require.Contains(t, lines[0], "kind=histograms")
	require.Contains(t, lines[0], "native-histograms")
}

// TestStaleMarkers: at Stop, every series ever sent gets a stale marker after its last
// sample, including a series that left the snapshot. Each series' final value stays for
// one push interval after the final push, so a range query at any step up to the push
// interval shows it (the marker 1 ms later hid it at a 1 s step); tidemark_run_info alone
// ends first, right after the final push, so the run reads as ended at once.
func TestStaleMarkers(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{remotewrite.Protocol1, remotewrite.Protocol2} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t)
			src := newCounterSource()
			src.extra = true
			cfg := testConfig(rc.url())
			cfg.Protocol = protocol
			cfg.Series.NativeHistograms = true
			cfg.Series.TrendStats = []string{"p(95)"}
			run := src.run
			hist := &seriestest.Source{}
			hist.Set([]series.Input{{Metric: run.Builtin.HTTPReqDuration, Tags: run.Tags(), Trend: seriestest.NewDist(0.1, 0.2)},
				{Metric: run.RunInfo, Tags: run.Tags(), Value: 1}})
			both := series.SnapshotFunc(func() []series.Input { return append(src.Snapshot(), hist.Snapshot()...) })
			c := start(t, cfg, both, nil, nil)
			rc.waitRequests(t, 2, 5*time.Second)
			src.mu.Lock()
			src.extra = false
			src.mu.Unlock()
			require.NoError(t, c.Stop())

			last := map[string]point{}
			lastData := map[string]int64{}
			var final int64
			for _, p := range rc.accepted() {
				last[p.series] = p
				if p.histogram != nil || !isStale(p.value) {
					lastData[p.series] = p.ts
					final = max(final, p.ts)
				}
			}
			require.Len(t, last, 6) // reqs, vus, iterations{gone}, p95, histogram, run info
			interval := time.Duration(cfg.PushInterval).Milliseconds()
			const runInfo = `tidemark_run_info{testid="t1"}`
			for k, p := range last {
				require.Nil(t, p.histogram, k)
				require.True(t, isStale(p.value), "%s ends with a stale marker", k)
				require.Greater(t, p.ts, lastData[k], k)
				if k != runInfo {
					require.GreaterOrEqual(t, p.ts, final+interval, "%s keeps its final value for a push interval", k)
					require.Less(t, last[runInfo].ts, p.ts, "%s ends after the run info", k)
				}
			}
		})
	}
}

func TestNoStaleMarkersWhenDisabled(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	src := newCounterSource()
	cfg := testConfig(rc.url())
	cfg.StaleMarkers = false
	c := start(t, cfg, src, nil, nil)
	rc.waitRequests(t, 1, 5*time.Second)
	require.NoError(t, c.Stop())
	for _, p := range rc.accepted() {
		require.False(t, isStale(p.value))
	}
}

// TestFinalFlush: Stop sends the newest values even before the first tick, and gives
// up after the final flush timeout when the receiver is down, counting the loss.
func TestFinalFlush(t *testing.T) {
	t.Parallel()
	t.Run("before first tick", func(t *testing.T) {
		t.Parallel()
		rc := newReceiver(t)
		src := newCounterSource()
		src.set(11)
		cfg := testConfig(rc.url())
		cfg.PushInterval = modelDuration(time.Hour)
		c := start(t, cfg, src, nil, nil)
		require.NoError(t, c.Stop())
		require.NoError(t, c.Stop(), "idempotent")
		reqs := rc.requests()
		require.Len(t, reqs, 2, "final push, then stale markers")
		require.Equal(t, 11.0, rc.latest()[reqsKey].value)
		var final, stale int64
		for _, p := range rc.accepted() {
			if isStale(p.value) {
				stale = max(stale, p.ts)
			} else {
				final = max(final, p.ts)
			}
		}
		require.Equal(t, (5 * time.Minute).Milliseconds(), stale-final,
			"an hour's push interval: the markers come 5 minutes after the final push (the lookback delta; receivers refuse samples far in the future)")
		require.Equal(t, "remote write: 4 samples in 2 requests, 0 retries, 0 dropped", c.Stats().String())
	})
	t.Run("receiver down", func(t *testing.T) {
		t.Parallel()
		rc := newReceiver(t)
		rc.setRespond(func(int, request) (int, http.Header, string) { return http.StatusBadGateway, nil, "no upstream" })
		src := newCounterSource()
		cfg := testConfig(rc.url())
		cfg.PushInterval = modelDuration(time.Hour)
		cfg.Queue.FinalFlushTimeout = modelDuration(100 * time.Millisecond)
		// The clock never moves: the final push makes one attempt, and its backoff
		// outlasts the (wall-clock) final flush timeout, which bounds the whole stop:
		// no stale markers follow a flush that could not reach the receiver.
		c := start(t, cfg, src, nil, nil, remotewrite.WithClock(newFakeClock()))
		begin := time.Now()
		err := c.Stop()
		require.Less(t, time.Since(begin), 2*time.Second)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.ErrorContains(t, err, "final remote write flush")
		require.NotContains(t, err.Error(), "send stale markers")
		st := c.Stats()
		require.Equal(t, uint64(2), st.Dropped) // the final push's 2 samples
		require.Equal(t, uint64(2), st.Failed)
		require.Len(t, rc.requests(), 1)
	})
	t.Run("never started", func(t *testing.T) {
		t.Parallel()
		c, err := remotewrite.NewClient(testConfig(newReceiver(t).url()), newCounterSource(), promslog.NewNopLogger(), nil)
		require.NoError(t, err)
		require.NoError(t, c.Stop())
		c.Start() // after Stop: no-op
		require.NoError(t, c.Stop())
	})
}

func TestSelfMetricsLint(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	reg := prometheus.NewRegistry()
	c := start(t, testConfig(rc.url()), newCounterSource(), nil, reg)
	rc.waitRequests(t, 1, 5*time.Second)
	require.NoError(t, c.Stop())
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
	n, err := testutil.GatherAndCount(reg, "tidemark_remote_write_samples_total", "tidemark_remote_write_last_success_timestamp_seconds")
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, float64(c.Stats().Samples), gathered(t, reg, "tidemark_remote_write_samples_total"))
	// A second client on the same registry is an error, not a panic.
	_, err = remotewrite.NewClient(testConfig(rc.url()), newCounterSource(), promslog.NewNopLogger(), reg)
	require.ErrorContains(t, err, "register remote write metrics")
}

func TestStatsString(t *testing.T) {
	t.Parallel()
	require.Equal(t, "remote write: 48,210 samples in 61 requests, 2 retries, 0 dropped",
		remotewrite.Stats{Samples: 48210, Requests: 61, Retries: 2}.String())
	require.Equal(t, "remote write: 1,000,000 samples in 1 requests, 1 retry, 12 dropped",
		remotewrite.Stats{Samples: 1_000_000, Requests: 1, Retries: 1, Dropped: 12}.String())
	require.Equal(t, "remote write: 0 samples in 0 requests, 0 retries, 0 dropped", remotewrite.Stats{}.String())
}

// TestProtocol2FallsBack: a 1.x receiver answers a 2.0 request either 415 or, like
// Prometheus 2.x and VictoriaMetrics 1.x, 2xx having decoded nothing; 2.0 receivers
// always report what they wrote. The client falls back to 1.0 once and resends, so
// nothing is silently lost.
func TestProtocol2FallsBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
	}{{"2xx without written headers", http.StatusNoContent}, {"415", http.StatusUnsupportedMediaType}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t)
			var mu sync.Mutex
			v2 := 0
			rc.setRespond(func(_ int, r request) (int, http.Header, string) {
				if strings.Contains(r.header.Get("Content-Type"), "v2") {
					mu.Lock()
					v2++
					mu.Unlock()
					// Answer as a 1.x receiver: no written-count headers.
					return tc.status, http.Header{"X-Prometheus-Remote-Write-Samples-Written": nil}, "unsupported"
				}
				return http.StatusNoContent, nil, ""
			})
			src := newCounterSource()
			src.set(9)
			cfg := testConfig(rc.url())
			cfg.Protocol = remotewrite.Protocol2
			// Only Stop's requests: the final push (2.0, then 1.0) and the stale markers.
			cfg.PushInterval = modelDuration(time.Hour)
			logger, logs := newLogger(slog.LevelInfo)
			c := start(t, cfg, src, logger, nil)
			require.NoError(t, c.Stop())
			require.Len(t, rc.requests(), 3)
			require.Equal(t, 9.0, rc.latest()[reqsKey].value)
			mu.Lock()
			require.Equal(t, 1, v2, "one 2.0 request, then 1.0")
			mu.Unlock()
			require.Len(t, logs.lines("falling back to 1.0"), 1)
			require.Empty(t, logs.lines("rejected"))
			st := c.Stats()
			require.Zero(t, st.Dropped)
			require.Equal(t, uint64(len(rc.requests())-1), st.Requests, "the ignored 2.0 request is not counted as sent")
		})
	}
}

// TestRejectedSeriesSplit: a receiver that rejects every request holding one series (a
// label value over its limit, answered 400 for the whole request) gets the request split
// until that series is alone: every other series lands, the refused one is counted and
// never sent again, and later pushes go in one request. A receiver that rejects
// everything (400 to any request) is split once, refuses nothing, and is not split again.
func TestRejectedSeriesSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		rejectAll bool
	}{{name: "one bad series"}, {name: "every series rejected", rejectAll: true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t)
			rc.setRespond(func(_ int, r request) (int, http.Header, string) {
				for _, p := range r.points {
					if tc.rejectAll || strings.Contains(p.series, "scenario=\"gone\"") {
						return http.StatusBadRequest, nil, "label value too long"
					}
				}
				return http.StatusNoContent, nil, ""
			})
			src := newCounterSource()
			src.set(3)
			src.extra = true // a third series, the one the receiver refuses
			clk := newFakeClock()
			cfg := testConfig(rc.url())
			cfg.StaleMarkers = false
			logger, logs := newLogger(slog.LevelInfo)
			c := start(t, cfg, src, logger, nil, remotewrite.WithClock(clk))
			clk.await(t, 1)
			clk.Advance(time.Duration(cfg.PushInterval))
			// The whole request, then its halves [1] and [2], then [2]'s halves.
			rc.waitRequests(t, 5, 5*time.Second)
			clk.await(t, 1)
			clk.Advance(time.Duration(cfg.PushInterval))
			rc.waitRequests(t, 6, 5*time.Second)
			require.NoError(t, c.Stop())
			reqs := rc.requests()
			st := c.Stats()
			if tc.rejectAll {
				require.Len(t, reqs, 5+2, "the first push split once; the second and the final push whole")
				require.Zero(t, st.RefusedSeries, "a receiver that takes nothing refuses no series in particular")
				require.Empty(t, rc.latest())
				return
			}
			require.Len(t, reqs, 5+2, "the first push split; the second and the final push in one request each")
			require.Equal(t, uint64(1), st.RefusedSeries)
			latest := rc.latest()
			require.Contains(t, latest, reqsKey, "the good series land")
			require.Len(t, latest, 2)
			for _, r := range reqs[5:] {
				require.Equal(t, 2, r.n, "later pushes leave the refused series out")
			}
			require.Equal(t, uint64(3), st.Dropped, "the refused series' sample of each of the three pushes")
			require.Len(t, logs.lines("refused a series"), 1)
			require.Contains(t, st.String(), "1 series refused by the receiver")
		})
	}
}
