package webdash

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// run is a fake run: an aggregate store the test pushes requests into.
type run struct {
	store *aggregate.Store
	b     *metrics.Builtin
	tags  *metrics.TagSet
	t     time.Time
}

func newRun() *run {
	reg := metrics.NewRegistry()
	return &run{store: aggregate.New(), b: metrics.RegisterBuiltin(reg),
		tags: metrics.NewTagPool().Intern([]metrics.Tag{{Key: "scenario", Value: "default"}}), t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
}

// requests pushes n requests of d seconds, failed ones included, and as many checks.
func (r *run) requests(n, failed int, d float64) {
	var s []metrics.Sample
	for i := range n {
		r.t = r.t.Add(time.Millisecond)
		fail := 0.0
		if i < failed {
			fail = 1
		}
		s = append(s,
			metrics.Sample{Metric: r.b.HTTPReqs, Tags: r.tags, Time: r.t, Value: 1},
			metrics.Sample{Metric: r.b.HTTPReqDuration, Tags: r.tags, Time: r.t, Value: d},
			metrics.Sample{Metric: r.b.HTTPReqFailed, Tags: r.tags, Time: r.t, Value: fail},
			metrics.Sample{Metric: r.b.Checks, Tags: r.tags, Time: r.t, Value: 1 - fail},
			metrics.Sample{Metric: r.b.VUs, Tags: r.tags, Time: r.t, Value: 3},
		)
	}
	r.store.Push(s)
}

type statusFunc func() []engine.ScenarioStatus

func (f statusFunc) Status() []engine.ScenarioStatus { return f() }

var oneScenario = statusFunc(func() []engine.ScenarioStatus {
	return []engine.ScenarioStatus{{Name: "default", Executor: scenario.RampingVUs, Elapsed: 3 * time.Second, Duration: 10 * time.Second,
		Target: 5, Unit: executor.UnitVUs, Stats: executor.Stats{VUs: 3, VUsMax: 5, Iterations: 7}}}
})

// sse is one server-sent event.
type sse struct {
	event string
	id    int
	state State
}

// readEvent reads the next event; ok is false at the end of the stream.
func readEvent(t *testing.T, r *bufio.Reader) (sse, bool) {
	t.Helper()
	var ev sse
	var fields []string
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" && len(fields) == 0 {
			return ev, false
		}
		require.NoError(t, err)
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			break
		}
		fields = append(fields, line)
	}
	require.Len(t, fields, 3, "event, id and one data line: %q", fields)
	require.True(t, strings.HasPrefix(fields[0], "event: "), fields[0])
	require.True(t, strings.HasPrefix(fields[1], "id: "), fields[1])
	require.True(t, strings.HasPrefix(fields[2], "data: "), fields[2])
	ev.event = strings.TrimPrefix(fields[0], "event: ")
	id, err := strconv.Atoi(strings.TrimPrefix(fields[1], "id: "))
	require.NoError(t, err)
	ev.id = id
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(fields[2], "data: ")), &ev.state))
	return ev, true
}

func card(t *testing.T, s State, id string) Card {
	t.Helper()
	for _, c := range s.Cards {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no card %s in %+v", id, s.Cards)
	return Card{}
}

func connect(t *testing.T, url string) *bufio.Reader {
	t.Helper()
	resp, err := http.Get(url + "/events") //nolint:noctx // the test server ends the stream
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return bufio.NewReader(resp.Body)
}

// newDashboard returns a started dashboard whose periods the test runs itself, with
// tick (the ticker's work, synchronously).
func newDashboard(t testing.TB, cfg Config) (d *Dashboard, r *run, tick func()) {
	t.Helper()
	d, err := New(cfg, promslog.NewNopLogger())
	require.NoError(t, err)
	r = newRun()
	d.Attach(r.store, "t1", []*scenario.Scenario{{Name: "default", Stages: []scenario.Stage{{Duration: 2 * time.Second, Target: 5}, {Duration: 8 * time.Second, Target: 5}}}})
	d.Started(oneScenario)
	return d, r, d.tick
}

func TestEventStream(t *testing.T) {
	t.Parallel()
	d, r, tick := newDashboard(t, DefaultConfig)
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)

	r.requests(10, 1, 0.05)
	tick()
	// A page connecting mid-run gets the current state at once.
	first := connect(t, srv.URL)
	ev, ok := readEvent(t, first)
	require.True(t, ok)
	require.Equal(t, EventSnapshot, ev.event)
	require.Equal(t, "t1", ev.state.TestID)
	require.Equal(t, PhaseRunning, ev.state.Phase)
	require.InDelta(t, 10, card(t, ev.state, "http_reqs").Raw, 0)
	require.InDelta(t, 0.1, card(t, ev.state, "http_req_failed").Raw, 1e-9)
	require.InDelta(t, 9, card(t, ev.state, "checks").Raw, 0, "check passes")
	require.InDelta(t, 3, card(t, ev.state, "vus").Raw, 0)
	require.InDelta(t, 50, card(t, ev.state, "http_req_duration").Raw, 2, "p95 in ms")
	require.Equal(t, []string{"default (ramping-vus): stage 2 of 2, to 5 VUs over 8s · 3s of 10s · target 5 VUs · 3 VUs · 7 iterations"}, ev.state.Stages)
	require.Contains(t, ev.state.Figure, "<svg")
	require.Contains(t, ev.state.Figure, "Request duration (http_req_duration)")

	// One event per period, each with the state of its tick.
	for i := 1; i <= 3; i++ {
		r.requests(5, 0, 0.05)
		tick()
		next, ok := readEvent(t, first)
		require.True(t, ok)
		require.Equal(t, EventSnapshot, next.event)
		require.Equal(t, ev.id+i, next.id, "one event per tick")
		require.InDelta(t, float64(10+5*i), card(t, next.state, "http_reqs").Raw, 0)
	}

	// A second page connecting now sees the same current state.
	second := connect(t, srv.URL)
	late, ok := readEvent(t, second)
	require.True(t, ok)
	require.InDelta(t, 25, card(t, late.state, "http_reqs").Raw, 0)

	// The end: the final state as a stop event, then the stream ends.
	r.requests(1, 0, 0.05)
	require.NoError(t, d.Stop())
	for _, rd := range []*bufio.Reader{first, second} {
		stop, ok := readEvent(t, rd)
		require.True(t, ok)
		require.Equal(t, EventStop, stop.event)
		require.Equal(t, PhaseFinished, stop.state.Phase)
		require.InDelta(t, 26, card(t, stop.state, "http_reqs").Raw, 0)
		_, ok = readEvent(t, rd)
		require.False(t, ok, "the stream ends after stop")
	}
	// A page opened after the end (--linger) gets the final state and the end.
	after := connect(t, srv.URL)
	stop, ok := readEvent(t, after)
	require.True(t, ok)
	require.Equal(t, EventStop, stop.event)
	_, ok = readEvent(t, after)
	require.False(t, ok)
}

func TestPageServesCurrentState(t *testing.T) {
	t.Parallel()
	d, r, tick := newDashboard(t, DefaultConfig)
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	r.requests(42, 0, 0.01)
	tick()
	resp, err := http.Get(srv.URL + "/") //nolint:noctx // test
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	page := string(body)
	require.Contains(t, page, `id="card-http_reqs" data-raw="42"`)
	require.Contains(t, page, "<svg")
	require.Contains(t, page, `new EventSource("events")`)
	resp, err = http.Get(srv.URL + "/nothing") //nolint:noctx // test
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.NoError(t, d.Stop())
}

// external matches a reference to anything outside the file: a src, href or CSS url()
// with a scheme or a protocol-relative address.
var external = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?\s*(https?:)?//|@import`)

func TestExportIsSelfContained(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"report.html", "report.html.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, name)
			d, r, tick := newDashboard(t, Config{Port: NoServer, Period: time.Second, Export: path})
			for range 4 {
				r.requests(20, 2, 0.1)
				tick()
			}
			r.requests(3, 0, 0.1)
			require.NoError(t, d.Stop())

			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			var rd io.Reader = f
			if strings.HasSuffix(name, ".gz") {
				zr, err := gzip.NewReader(f)
				require.NoError(t, err)
				rd = zr
			}
			b, err := io.ReadAll(rd)
			require.NoError(t, err)
			page := string(b)
			require.Contains(t, page, `id="card-http_reqs" data-raw="83"`, "the final count")
			require.Contains(t, page, `data-phase="finished"`)
			require.Equal(t, 1, strings.Count(page, "<svg"), "the charts are inlined")
			require.NotContains(t, page, "<script", "the export needs no script")
			require.Empty(t, external.FindAllString(page, -1), "no external resources")
		})
	}
}

func TestStageLine(t *testing.T) {
	t.Parallel()
	stages := []scenario.Stage{{Duration: 10 * time.Second, Target: 10}, {Duration: 20 * time.Second, Target: 0}}
	st := func(el time.Duration, done bool) engine.ScenarioStatus {
		return engine.ScenarioStatus{Name: "spike", Executor: scenario.RampingArrivalRate, Elapsed: el, Duration: 30 * time.Second,
			Target: 2.5, Unit: executor.UnitIterationsPerSecond, Stats: executor.Stats{VUs: 2, Iterations: 40, Done: done}}
	}
	for _, tc := range []struct {
		name   string
		st     engine.ScenarioStatus
		stages []scenario.Stage
		want   string
	}{
		{"first stage", st(5*time.Second, false), stages, "spike (ramping-arrival-rate): stage 1 of 2, to 10 iterations/s over 10s · 5s of 30s · target 2.5 iterations/s · 2 VUs · 40 iterations"},
		{"boundary is the next stage", st(10*time.Second, false), stages, "spike (ramping-arrival-rate): stage 2 of 2, to 0 iterations/s over 20s · 10s of 30s · target 2.5 iterations/s · 2 VUs · 40 iterations"},
		{"after the stages", st(30*time.Second, false), stages, "spike (ramping-arrival-rate): stages done, graceful stop · 30s of 30s · target 2.5 iterations/s · 2 VUs · 40 iterations"},
		{"no stages", st(5*time.Second, false), nil, "spike (ramping-arrival-rate): running · 5s of 30s · target 2.5 iterations/s · 2 VUs · 40 iterations"},
		{"done", st(30*time.Second, true), stages, "spike (ramping-arrival-rate): done · 40 iterations"},
	} {
		require.Equal(t, tc.want, stageLine(tc.st, tc.stages), tc.name)
	}
}

func TestThinKeepsEnds(t *testing.T) {
	t.Parallel()
	pts := make([]point, maxPoints+1)
	for i := range pts {
		pts[i].reqs = float64(i)
	}
	out := thin(pts)
	require.Len(t, out, maxPoints/2+1)
	require.InDelta(t, 0, out[0].reqs, 0)
	require.InDelta(t, float64(maxPoints), out[len(out)-1].reqs, 0)
}

// TestStopMergesTheLastSliver: the final state taken just after a tick replaces that
// tick's point, counts included, rather than adding a sliver of an interval whose rate
// would read as a drop at the end of every chart; one taken later is a point of its own.
func TestStopMergesTheLastSliver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		period time.Duration
		want   int
	}{{time.Hour, 3}, {time.Nanosecond, 4}} {
		d, r, tick := newDashboard(t, Config{Port: NoServer, Period: tc.period})
		r.requests(5, 0, 0.01)
		tick()
		r.requests(5, 0, 0.01)
		tick()
		r.requests(2, 0, 0.01)
		require.NoError(t, d.Stop())
		d.mu.Lock()
		pts := d.pts
		d.mu.Unlock()
		require.Len(t, pts, tc.want, "period %s", tc.period)
		require.InDelta(t, 12, pts[len(pts)-1].reqs, 0, "the final count")
	}
}

// TestWebVitals: a run whose browser VUs report Web Vitals gets a card per vital (the
// whole run's p75, rated as web.dev rates it, in ms for the timed ones) and a chart of
// the timed ones' p75 per period; a run without browser VUs has neither.
func TestWebVitals(t *testing.T) {
	t.Parallel()
	d, r, tick := newDashboard(t, Config{Port: NoServer, Period: time.Second})
	r.requests(10, 0, 0.01)
	tick()
	s, err := d.State()
	require.NoError(t, err)
	for _, c := range s.Cards {
		require.NotContains(t, c.ID, "web_vital")
	}
	require.NotContains(t, s.Figure, "Web Vitals")

	reg := metrics.NewRegistry()
	lcp, err := reg.New("browser_web_vital_lcp", metrics.Trend, metrics.Time)
	require.NoError(t, err)
	cls, err := reg.New("browser_web_vital_cls", metrics.Trend, metrics.Default)
	require.NoError(t, err)
	var samples []metrics.Sample
	// LCP 1 s to 4 s (p75 3.25 s: needs improvement), CLS 0.02 (good).
	for i, v := range []float64{1, 2, 3, 4} {
		at := r.t.Add(time.Duration(i) * time.Millisecond)
		samples = append(samples, metrics.Sample{Metric: lcp, Tags: r.tags, Time: at, Value: v},
			metrics.Sample{Metric: cls, Tags: r.tags, Time: at, Value: 0.02})
	}
	r.store.Push(samples)
	tick()
	s, err = d.State()
	require.NoError(t, err)
	c := card(t, *s, "browser_web_vital_lcp")
	require.Equal(t, "LCP p75", c.Label)
	require.InDelta(t, 3250, c.Raw, 100)
	require.Contains(t, c.Detail, "needs improvement · Largest Contentful Paint")
	c = card(t, *s, "browser_web_vital_cls")
	require.Equal(t, "0.020", c.Value)
	require.Contains(t, c.Detail, "good")
	require.Contains(t, s.Figure, "Web Vitals p75 (browser VUs)")
	require.Contains(t, s.Figure, ">LCP<")
	require.NotContains(t, s.Figure, ">CLS<", "CLS has no unit of time: a card, not a line")
	require.NoError(t, d.Stop())
}
