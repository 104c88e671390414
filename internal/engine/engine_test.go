package engine

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/internal/threshold"
)

// sink counts pushed samples by metric name and checks invariants on every sample.
type sink struct {
	t      *testing.T
	mu     sync.Mutex
	sums   map[string]float64
	counts map[string]int
	tags   map[string]*metrics.TagSet
}

func newSink(t *testing.T) *sink {
	return &sink{t: t, sums: map[string]float64{}, counts: map[string]int{}, tags: map[string]*metrics.TagSet{}}
}

func (s *sink) Push(ss []metrics.Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range ss {
		if v, _ := x.Tags.Get("testid"); v != "tid" {
			s.t.Errorf("sample of %s without testid: %s", x.Metric.Name, x.Tags)
		}
		for _, bad := range []string{"vu", "iter"} {
			if _, ok := x.Tags.Get(bad); ok {
				s.t.Errorf("sample of %s tagged %s", x.Metric.Name, bad)
			}
		}
		s.sums[x.Metric.Name] += x.Value
		s.counts[x.Metric.Name]++
		s.tags[x.Metric.Name] = x.Tags
	}
}

func (s *sink) sum(name string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sums[name]
}

func (s *sink) tagsOf(name string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for _, t := range s.tags[name].Tags() {
		out[t.Key] = t.Value
	}
	return out
}

func startTarget(t *testing.T, cfg target.Config) (*target.Server, string) {
	t.Helper()
	return targettest.Start(t, cfg)
}

func flowOf(t *testing.T, url string) scenario.Flow {
	t.Helper()
	u, err := scenario.ParseTemplate(url)
	require.NoError(t, err)
	return scenario.Flow{Steps: []scenario.Step{{Name: "root", URL: u, Checks: []scenario.Check{{Name: "ok", Kind: scenario.CheckStatus, Status: 200}}}}}
}

func newEngine(t *testing.T, p metrics.Pusher, th Thresholds, scs ...*scenario.Scenario) *Engine {
	t.Helper()
	for _, sc := range scs {
		if sc.GracefulStop == 0 {
			sc.GracefulStop = 30 * time.Second
		}
	}
	e, err := New(Config{Test: &scenario.Test{Scenarios: scs, Tags: map[string]string{"env": "test"}}, TestID: "tid", Tags: map[string]string{"instance_id": "1"}, Pusher: p, Thresholds: th})
	require.NoError(t, err)
	return e
}

func TestRunRequestCountsMatchTarget(t *testing.T) {
	t.Parallel()
	ts, url := startTarget(t, target.Config{})
	s := newSink(t)
	e := newEngine(t, s, nil,
		&scenario.Scenario{Name: "closed", Executor: scenario.ConstantVUs, VUs: 4, Duration: 500 * time.Millisecond, Flow: flowOf(t, url+"/a")},
		&scenario.Scenario{Name: "open", Executor: scenario.ConstantArrivalRate, StartTime: 600 * time.Millisecond, Rate: 200, Duration: time.Second, PreAllocatedVUs: 20, MaxVUs: 200, Flow: flowOf(t, url+"/b")},
	)
	res := e.Run(context.Background())
	require.False(t, res.Interrupted || res.Crossed || res.Aborted)
	require.Equal(t, float64(ts.Stats().Requests), s.sum("http_reqs"), "the engine counts what the target served")
	require.Equal(t, s.sum("http_reqs"), s.sum("iterations"), "one request per iteration")
	open := res.Scenarios[1]
	require.Equal(t, int64(200), open.Iterations+open.Dropped, "constant-arrival-rate 200/s for 1 s")
	require.LessOrEqual(t, open.Dropped, int64(4), "a busy race-enabled test box may drop a few")
	require.Equal(t, float64(open.Dropped), s.sum("dropped_iterations"))
	require.Equal(t, s.sum("http_reqs"), s.sum("checks"))
	require.Positive(t, s.sum("data_sent"))
	require.Positive(t, s.sum("data_received"))
	require.Equal(t, map[string]string{"testid": "tid", "env": "test", "instance_id": "1"}, s.tagsOf("vus"), "vus carries run tags only")
	require.Equal(t, map[string]string{"testid": "tid", "env": "test", "instance_id": "1", "test_hash": TestHash(e.cfg.Test)}, s.tagsOf("tidemark_run_info"),
		"run info carries the test's identity too (no test_file: the test has no source)")
	require.GreaterOrEqual(t, res.End.Sub(res.Start), 1600*time.Millisecond, "startTime delays the second scenario")
	require.Len(t, res.Stages, 2)
	require.Equal(t, res.Start.Add(600*time.Millisecond), res.Stages[1].Start)
}

func TestRunDroppedIterations(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 100 * time.Millisecond}})
	s := newSink(t)
	e := newEngine(t, s, nil, &scenario.Scenario{Name: "d", Executor: scenario.ConstantArrivalRate, Rate: 100, Duration: time.Second, PreAllocatedVUs: 1, MaxVUs: 3, Flow: flowOf(t, url)})
	res := e.Run(context.Background())
	st := res.Scenarios[0]
	require.Equal(t, int64(100), st.Iterations+st.Dropped)
	require.Greater(t, st.Dropped, int64(50))
	require.InDelta(t, float64(st.Dropped), s.sum("dropped_iterations"), 0)
	require.Equal(t, int64(3), st.VUsMax)
	tags := s.tagsOf("dropped_iterations")
	require.Equal(t, map[string]string{"testid": "tid", "env": "test", "instance_id": "1", "scenario": "d"}, tags, "dropped_iterations: run tags and scenario only")
}

func TestRunThresholdsAndAbort(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	for _, tc := range []struct {
		name     string
		th       ThresholdsFunc
		crossed  bool
		aborted  bool
		maxTaken time.Duration
	}{
		{name: "passing", th: func(time.Duration, bool) (bool, bool) { return false, false }},
		{name: "crossed at the end", th: func(_ time.Duration, final bool) (bool, bool) { return final, false }, crossed: true},
		{name: "abortOnFail stops early", th: func(time.Duration, bool) (bool, bool) { return true, true }, crossed: true, aborted: true, maxTaken: 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSink(t)
			dur := 1500 * time.Millisecond
			if tc.aborted {
				dur = time.Minute
			}
			var calls, finals int
			var mu sync.Mutex
			th := ThresholdsFunc(func(el time.Duration, final bool) (bool, bool) {
				mu.Lock()
				calls++
				if final {
					finals++
				}
				mu.Unlock()
				return tc.th(el, final)
			})
			e := newEngine(t, s, th, &scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 1, Duration: dur, GracefulStop: time.Second, Flow: flowOf(t, url)})
			res := e.Run(context.Background())
			require.Equal(t, tc.crossed, res.Crossed)
			require.Equal(t, tc.aborted, res.Aborted)
			require.Equal(t, 1, finals, "one final evaluation")
			if tc.maxTaken > 0 {
				require.Less(t, res.End.Sub(res.Start), tc.maxTaken)
				require.GreaterOrEqual(t, calls, 2)
			}
		})
	}
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 200 * time.Millisecond}})
	s := newSink(t)
	e := newEngine(t, s, nil, &scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 3, Duration: time.Hour, GracefulStop: 5 * time.Second, Flow: flowOf(t, url)})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res := e.Run(ctx)
	require.True(t, res.Interrupted)
	require.Less(t, res.End.Sub(res.Start), 2*time.Second)
	require.Zero(t, res.Scenarios[0].Interrupted, "gracefulStop let the running iterations finish")
	require.Equal(t, float64(res.Scenarios[0].Iterations), s.sum("iterations"))
}

// TestRunAbort: Abort (a critical server-side rule) stops the run as abortOnFail does:
// Aborted, not Interrupted, the running iterations cut without their gracefulStop.
func TestRunAbort(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 20 * time.Second}})
	s := newSink(t)
	e := newEngine(t, s, nil, &scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 2, Duration: time.Hour, GracefulStop: time.Minute, Flow: flowOf(t, url)})
	time.AfterFunc(300*time.Millisecond, func() {
		e.Abort()
		e.Abort() // safe more than once
	})
	res := e.Run(context.Background())
	require.True(t, res.Aborted)
	require.False(t, res.Interrupted)
	require.Less(t, res.End.Sub(res.Start), 15*time.Second, "the 20 s requests were cut, not waited for through the 1m gracefulStop")
}

func TestScenarioTargetSamples(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	s := newSink(t)
	e := newEngine(t, s, nil, &scenario.Scenario{Name: "r", Executor: scenario.RampingArrivalRate, StartRate: 10, PreAllocatedVUs: 5,
		Stages: []scenario.Stage{{Duration: 1200 * time.Millisecond, Target: 10}}, Flow: flowOf(t, url)})
	res := e.Run(context.Background())
	require.Equal(t, map[string]string{"testid": "tid", "env": "test", "instance_id": "1", "scenario": "r", "unit": "iterations_per_second"}, s.tagsOf("tidemark_scenario_target"))
	require.GreaterOrEqual(t, s.counts["tidemark_scenario_target"], 2)
	require.Equal(t, []StageWindow{{Scenario: "r", Index: 0, Start: res.Start, End: res.Start.Add(1200 * time.Millisecond), From: 10, Target: 10, Unit: "iterations_per_second"}}, res.Stages)
	require.Equal(t, int64(12), res.Scenarios[0].Iterations+res.Scenarios[0].Dropped, "10/s for 1.2 s, the last one at the end")
}

func TestNewRejectsBadSteps(t *testing.T) {
	t.Parallel()
	u, err := scenario.ParseTemplate("localhost:8080/x")
	require.NoError(t, err)
	_, err = New(Config{TestID: "x", Pusher: metrics.PusherFunc(func([]metrics.Sample) {}), Test: &scenario.Test{Scenarios: []*scenario.Scenario{
		{Name: "bad", Executor: scenario.ConstantVUs, Duration: time.Second, Flow: scenario.Flow{Steps: []scenario.Step{{Name: "s", URL: u}}}},
	}}})
	require.EqualError(t, err, `scenario "bad" step 1: compile step "s": invalid url "localhost:8080/x": expected http(s)://host/path`)
}

func TestDefaultTestID(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 1, 2, 3, 0, time.FixedZone("x", 3600))
	require.Equal(t, "spike-20261130-000203", DefaultTestID("examples/spike.yaml", now))
	require.Equal(t, "run-20261130-000203", DefaultTestID("", now))
}

func TestOnBoundary(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	var mu sync.Mutex
	var got []time.Duration
	e, err := New(Config{TestID: "tid", Pusher: metrics.PusherFunc(func([]metrics.Sample) {}), Test: &scenario.Test{Scenarios: []*scenario.Scenario{
		{Name: "a", Executor: scenario.RampingVUs, GracefulRampDown: time.Second, GracefulStop: time.Second, Flow: flowOf(t, url),
			Stages: []scenario.Stage{{Duration: 200 * time.Millisecond, Target: 1}, {Duration: 300 * time.Millisecond, Target: 1}}},
		{Name: "b", Executor: scenario.ConstantVUs, StartTime: 100 * time.Millisecond, VUs: 1, Duration: 100 * time.Millisecond, GracefulStop: time.Second, Flow: flowOf(t, url)},
	}}, OnBoundary: func(d time.Duration) {
		mu.Lock()
		got = append(got, d)
		mu.Unlock()
	}})
	require.NoError(t, err)
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond}
	require.Equal(t, want, e.Boundaries())
	e.Run(context.Background())
	mu.Lock()
	defer mu.Unlock()
	// The boundary at the very end races with the run's end; callers use their
	// final snapshot there.
	require.GreaterOrEqual(t, len(got), 2)
	require.Equal(t, want[:len(got)], got)
}

func TestGroupDuration(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	u, err := scenario.ParseTemplate(url + "/")
	require.NoError(t, err)
	s := newSink(t)
	e := newEngine(t, s, nil, &scenario.Scenario{Name: "g", Executor: scenario.PerVUIterations, VUs: 1, Iterations: 3, Flow: scenario.Flow{Steps: []scenario.Step{
		{URL: u, Group: "login"}, {URL: u, Group: "login", Sleep: scenario.Think{Min: 20 * time.Millisecond}}, {URL: u}, {URL: u, Group: "browse"},
	}}})
	e.Run(context.Background())
	require.Equal(t, 6, s.counts["group_duration"], "two group calls per iteration")
	require.GreaterOrEqual(t, s.sum("group_duration"), 3*0.020, "the login group includes its sleep")
	require.Equal(t, "::browse", s.tagsOf("group_duration")["group"])
	require.Equal(t, "g", s.tagsOf("group_duration")["scenario"])
}

// TestExecutionSegmentsPartitionTheRun runs two instances, each with its half of the
// test, and checks that together they do exactly what one instance would.
func TestExecutionSegmentsPartitionTheRun(t *testing.T) {
	t.Parallel()
	ts, url := startTarget(t, target.Config{})
	var wg sync.WaitGroup
	results := make([]Result, 2)
	for i, seg := range []string{"0:1/2", "1/2:1"} {
		segment, err := pacer.ParseSegment(seg, "0,1/2,1")
		require.NoError(t, err)
		wg.Go(func() {
			e, err := New(Config{TestID: "tid", Segment: segment, Pusher: metrics.PusherFunc(func([]metrics.Sample) {}),
				Test: &scenario.Test{Scenarios: []*scenario.Scenario{
					{Name: "open", Executor: scenario.ConstantArrivalRate, Rate: 101, Duration: time.Second, PreAllocatedVUs: 10, MaxVUs: 50, GracefulStop: time.Second, Flow: flowOf(t, url)},
					{Name: "shared", Executor: scenario.SharedIterations, VUs: 3, Iterations: 51, GracefulStop: time.Second, Flow: flowOf(t, url)},
				}}})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = e.Run(context.Background())
		})
	}
	wg.Wait()
	var open, shared, dropped int64
	for _, r := range results {
		open += r.Scenarios[0].Iterations
		dropped += r.Scenarios[0].Dropped
		shared += r.Scenarios[1].Iterations
	}
	require.Equal(t, int64(101), open+dropped, "the halves of 101 arrivals")
	require.Equal(t, int64(51), shared, "the shares of 51 shared iterations")
	// As in k6, shared iterations go in proportion to the VUs: the first half
	// has VUs 0 and 2 of 3, and so 2/3 of the iterations.
	require.Equal(t, int64(34), results[0].Scenarios[1].Iterations, "the first half has two of the three VUs")
	require.Equal(t, ts.Stats().Requests, open+shared)
}

// A scenario's VUs drop their keep-alive connections when the scenario ends.
func TestRunClosesConnectionsOfFinishedScenarios(t *testing.T) {
	t.Parallel()
	var open atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	s := newSink(t)
	e := newEngine(t, s, nil, &scenario.Scenario{Name: "c", Executor: scenario.ConstantVUs, VUs: 3, Duration: 200 * time.Millisecond, Flow: flowOf(t, srv.URL+"/")})
	res := e.Run(context.Background())
	require.False(t, res.Interrupted || res.Crossed || res.Aborted)
	require.Positive(t, s.sum("http_reqs"))
	require.Eventually(t, func() bool { return open.Load() == 0 }, 5*time.Second, 10*time.Millisecond,
		"connections still open after the run: %d", open.Load())
}

// TestRunDroppedIterationsFromZero checks that an arrival-rate scenario that drops
// nothing still has a dropped_iterations series of 0, with the scenario's tags, in the
// aggregate and in what remote write sends (k6_dropped_iterations_total 0), so that
// the dashboards' panel shows 0 rather than no data.
func TestRunDroppedIterationsFromZero(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	agg := aggregate.New()
	e := newEngine(t, agg, nil, &scenario.Scenario{Name: "z", Executor: scenario.ConstantArrivalRate, Rate: 20, Duration: 200 * time.Millisecond, PreAllocatedVUs: 5, GracefulStop: time.Second, Flow: flowOf(t, url)})
	res := e.Run(context.Background())
	require.Zero(t, res.Scenarios[0].Dropped)
	require.Positive(t, res.Scenarios[0].Iterations)

	var found int
	for _, s := range agg.Snapshot().Series {
		if s.Metric.Name != "dropped_iterations" {
			continue
		}
		found++
		require.Zero(t, s.Count)
		sc, _ := s.Tags.Get("scenario")
		require.Equal(t, "z", sc)
	}
	require.Equal(t, 1, found, "one dropped_iterations series")

	m, err := series.NewMapper(series.DefaultConfig)
	require.NoError(t, err)
	var sent []series.Series
	for _, s := range m.Map(nil, series.Inputs(nil, agg.Snapshot())) {
		if s.Name == "k6_dropped_iterations_total" {
			sent = append(sent, s)
		}
	}
	require.Len(t, sent, 1)
	require.Zero(t, sent[0].Value)
	require.Contains(t, sent[0].Labels, series.Label{Name: "scenario", Value: "z"})
}

// TestRunWritesDeclaredThresholds: every declared threshold is one tidemark_threshold
// series, with the key as written, the expression and the metric's type, pushed with
// the run's gauges so that it lives as long as the run.
func TestRunWritesDeclaredThresholds(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	reg := metrics.NewRegistry()
	metrics.RegisterBuiltin(reg)
	set, err := threshold.NewSet([]threshold.Def{
		{Key: "http_req_duration{expected_response:true}", Expr: " p(95)<500 "},
		{Key: "http_req_failed", Expr: "rate<0.01"},
	}, threshold.RegistryTypes(reg))
	require.NoError(t, err)
	store := aggregate.New()
	e, err := New(Config{
		Test: &scenario.Test{Scenarios: []*scenario.Scenario{{Name: "c", Executor: scenario.ConstantVUs, VUs: 1, Duration: 300 * time.Millisecond,
			GracefulStop: time.Second, Flow: flowOf(t, url)}}},
		TestID: "tid", Pusher: store, Registry: reg, Declared: set.Thresholds(),
	})
	require.NoError(t, err)
	e.Run(context.Background())
	var got []map[string]string
	for _, se := range store.Snapshot().Series {
		if se.Metric.Name != ThresholdMetric {
			continue
		}
		require.Equal(t, 1.0, se.Value)
		tags := map[string]string{}
		for _, tg := range se.Tags.Tags() {
			tags[tg.Key] = tg.Value
		}
		got = append(got, tags)
	}
	require.ElementsMatch(t, []map[string]string{
		{"testid": "tid", "metric": "http_req_duration{expected_response:true}", "threshold": "p(95)<500", "type": "trend", "contains": "time"},
		{"testid": "tid", "metric": "http_req_failed", "threshold": "rate<0.01", "type": "rate", "contains": "default"},
	}, got)
}

// TestEmitGaugesOnlyWhileLive: EmitGauges pushes the gauges of its moment while the run is
// live, and nothing before or after it, so a snapshot taken after the run keeps the
// run's final values.
func TestEmitGaugesOnlyWhileLive(t *testing.T) {
	t.Parallel()
	_, url := startTarget(t, target.Config{})
	s := newSink(t)
	e := newEngine(t, s, nil, &scenario.Scenario{Name: "r", Executor: scenario.ConstantArrivalRate, Rate: 10, TimeUnit: time.Second,
		Duration: 600 * time.Millisecond, PreAllocatedVUs: 2, Flow: flowOf(t, url)})
	e.EmitGauges()
	require.Zero(t, s.counts["tidemark_scenario_target"], "before the run")
	done := make(chan Result)
	go func() { done <- e.Run(context.Background()) }()
	var during int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		before := s.counts["tidemark_scenario_target"]
		s.mu.Unlock()
		// Five calls in a row: the engine's own 250 ms loop adds at most one more.
		for range 5 {
			e.EmitGauges()
		}
		s.mu.Lock()
		after := s.counts["tidemark_scenario_target"]
		s.mu.Unlock()
		if after >= before+5 {
			during++
			break
		}
	}
	require.Positive(t, during, "EmitGauges pushed the target while the run was live")
	<-done
	s.mu.Lock()
	n := s.counts["tidemark_scenario_target"]
	s.mu.Unlock()
	e.EmitGauges()
	require.Equal(t, n, s.counts["tidemark_scenario_target"], "after the run")
}

// TestRunInfoIdentity: tidemark_run_info's test_file and test_hash name the test, not
// the run: two runs of one unchanged file share them, a changed load shape does not.
func TestRunInfoIdentity(t *testing.T) {
	t.Parallel()
	test := func(rate float64) *scenario.Test {
		return &scenario.Test{Source: "/srv/tests/spike-50.yaml", Scenarios: []*scenario.Scenario{{Name: "spike",
			Executor: scenario.ConstantArrivalRate, Rate: rate, Duration: time.Minute, PreAllocatedVUs: 1, MaxVUs: 2}}}
	}
	info := func(tst *scenario.Test, testID string) map[string]string {
		e, err := New(Config{Test: tst, TestID: testID, Pusher: newSink(t)})
		require.NoError(t, err)
		out := map[string]string{}
		for _, tag := range e.infoTags.Tags() {
			out[tag.Key] = tag.Value
		}
		return out
	}
	a, b := info(test(50), "monday"), info(test(50), "tuesday")
	require.Equal(t, "spike-50.yaml", a["test_file"])
	require.Regexp(t, `^[0-9a-f]{12}$`, a["test_hash"])
	require.Equal(t, a["test_hash"], b["test_hash"], "same test, other testid")
	require.NotEqual(t, a["test_hash"], info(test(100), "monday")["test_hash"], "another rate is another test")
}
