package loadtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/internal/threshold"
	"github.com/tidemark/tidemark/internal/verdict"
)

func parse(t *testing.T, yaml, url string) *scenario.Test {
	t.Helper()
	test, err := scenario.Parse("test.yaml", []byte(yaml), map[string]string{"URL": url})
	require.NoError(t, err)
	return test
}

// recordingSink records its lifecycle and reads the store when stopped.
type recordingSink struct {
	agg              *aggregate.Store
	started, stopped atomic.Bool
	reqsAtStop       float64
	stopErr          error
}

func (s *recordingSink) Start() { s.started.Store(true) }
func (s *recordingSink) Stop() error {
	s.stopped.Store(true)
	if se, ok := s.agg.Snapshot().Metric("http_reqs"); ok {
		s.reqsAtStop = se.Count
	}
	return s.stopErr
}
func (s *recordingSink) SummaryLines() []string { return []string{"recorded"} }

func TestRunVerdicts(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	const flow = `
scenarios:
  s:
    executor: shared-iterations
    vus: 2
    iterations: 6
    flow:
      - url: ${__ENV.URL}/x
`
	for _, tc := range []struct {
		name       string
		thresholds string
		noTh       bool
		sinkErr    error
		wantKind   error
		wantErr    string
	}{
		{name: "passed", thresholds: `{http_reqs: ['count==6']}`, wantKind: nil},
		{name: "crossed", thresholds: `{http_reqs: ['count<6']}`, wantKind: verdict.ErrThresholds,
			wantErr: "thresholds on metrics 'http_reqs' have been crossed"},
		{name: "no thresholds", thresholds: `{http_reqs: ['count<6']}`, noTh: true, wantKind: nil},
		{name: "a sink that fails to flush", thresholds: `{}`, sinkErr: errors.New("endpoint gone"), wantKind: nil,
			wantErr: "flush the run's outputs: endpoint gone"},
		{name: "crossed wins over a sink error", thresholds: `{http_reqs: ['count<6']}`, sinkErr: errors.New("endpoint gone"),
			wantKind: verdict.ErrThresholds, wantErr: "endpoint gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sink *recordingSink
			var plan Plan
			ended := false
			res, err := Run(context.Background(), Config{
				Test:         parse(t, "thresholds: "+tc.thresholds+"\n"+flow, url),
				Source:       "dir/verdict.yaml",
				Tags:         map[string]string{"testid": "from-tag", "env": "ci"},
				NoThresholds: tc.noTh,
				Actors: []Actor{Outputs(func(agg *aggregate.Store, runTags map[string]string) ([]Sink, error) {
					require.Equal(t, map[string]string{"testid": "from-tag", "env": "ci"}, runTags)
					sink = &recordingSink{agg: agg, stopErr: tc.sinkErr}
					return []Sink{sink}, nil
				}), Hook{Started: func(_ context.Context, p *Plan) error {
					plan = *p
					require.True(t, sink.started.Load(), "sinks start before the first iteration")
					return nil
				}, Ended: func() { ended = true }}},
			})
			require.Equal(t, tc.wantKind, verdict.Of(err), "err: %v", err)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.NotNil(t, res, "the result of a run that happened is always returned")
			require.Equal(t, "from-tag", res.TestID)
			require.Equal(t, "from-tag", plan.TestID)
			require.True(t, ended)
			require.True(t, sink.stopped.Load())
			require.InDelta(t, 6, sink.reqsAtStop, 0, "the sink is stopped after every sample is in")
			require.Equal(t, []string{"recorded"}, res.Summary.Extra)
			if tc.noTh {
				require.Empty(t, res.Summary.Thresholds)
			}
			require.Equal(t, tc.thresholds != "{}" && !tc.noTh, res.Summary.ThresholdSet != nil,
				"the STAGES verdict evaluates the run's own thresholds, and none with --no-thresholds")
		})
	}
}

// TestRunReportsBeforeStopping: with Report the summary is shown before the outputs'
// final flush (which may take its whole timeout), and the flush's lines come after.
func TestRunReportsBeforeStopping(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	var sink *recordingSink
	var reported *Result
	stoppedAtReport := true
	res, err := Run(context.Background(), Config{
		Test: parse(t, "thresholds: {http_reqs: ['count<3']}\nscenarios:\n  s:\n    executor: shared-iterations\n    vus: 1\n    iterations: 3\n    flow:\n      - url: ${__ENV.URL}/x\n", url),
		Actors: []Actor{Outputs(func(agg *aggregate.Store, _ map[string]string) ([]Sink, error) {
			sink = &recordingSink{agg: agg}
			return []Sink{sink}, nil
		})},
		Report: func(_ context.Context, res *Result) error {
			reported, stoppedAtReport = res, sink.stopped.Load()
			return errors.New("summary file unwritable")
		},
	})
	require.Equal(t, verdict.ErrThresholds, verdict.Of(err), "the run's verdict stands: %v", err)
	require.ErrorContains(t, err, "summary file unwritable", "Report's error joins the run's")
	require.False(t, stoppedAtReport, "Report runs before the outputs stop")
	require.Same(t, reported, res)
	require.NotEmpty(t, reported.Summary.Thresholds, "Report sees the verdict")
	require.Empty(t, res.Summary.Extra)
	require.Equal(t, []string{"recorded"}, res.Delivery, "the outputs' lines come once they stopped")
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{Latency: target.Latency{Kind: target.Fixed, A: 50 * time.Millisecond}})
	test := parse(t, `
thresholds: {http_req_duration: ['p(95)<0']}
scenarios:
  s:
    executor: constant-vus
    vus: 2
    duration: 1h
    flow:
      - url: ${__ENV.URL}
`, url)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := Run(ctx, Config{Test: test, TestID: "int"})
	require.Equal(t, verdict.ErrInterrupted, verdict.Of(err), "interrupted wins over crossed thresholds")
	require.ErrorIs(t, err, ErrInterrupted)
	var crossed *threshold.CrossedError
	require.ErrorAs(t, err, &crossed, "the thresholds' verdict is still said")
	require.True(t, res.Run.Interrupted)
	require.Less(t, res.Summary.Duration, time.Minute)
}

func TestRunStagesPairSnapshots(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	test := parse(t, `
scenarios:
  s:
    executor: ramping-arrival-rate
    startRate: 20
    timeUnit: 1s
    preAllocatedVUs: 5
    stages:
      - {target: 20, duration: 1s}
      - {target: 40, duration: 1s}
    flow:
      - url: ${__ENV.URL}
`, url)
	res, err := Run(context.Background(), Config{Test: test, TestID: "stages"})
	require.NoError(t, err)
	require.Len(t, res.Summary.Stages, 2)
	var total float64
	for i, st := range res.Summary.Stages {
		require.Equal(t, i, st.Index)
		require.Equal(t, time.Second, st.TimeUnit)
		require.InDelta(t, 20, st.StartTarget, 0, "stage %d starts at 20/s (startRate, then the first target)", i)
		require.InDelta(t, []float64{20, 40}[i], st.Target, 0)
		require.NotNil(t, st.To)
		if i == 0 {
			require.Nil(t, st.From, "the first stage starts at the run's start")
		} else {
			require.NotNil(t, st.From, "a later stage starts from the boundary's snapshot")
		}
		to, _ := st.To.Metric("iterations")
		n := to.Count
		if st.From != nil {
			from, _ := st.From.Metric("iterations")
			n -= from.Count
		}
		require.Positive(t, n, "stage %d has its own iterations", i)
		total += n
	}
	all, _ := res.Summary.Snapshot.Metric("iterations")
	// Iterations still running at the last boundary end in gracefulStop, after it.
	require.InDelta(t, all.Count, total, 5, "the stages split the run's iterations")
	require.LessOrEqual(t, total, all.Count)
}

// countingSource is a VUSource other than the YAML flow: each iteration pushes one
// iterations sample with the scenario's tags.
type countingSource struct{ prepared atomic.Int32 }

func (c *countingSource) Prepare(_ *scenario.Scenario, env *engine.VUEnv) (func(int64) executor.VU, error) {
	c.prepared.Add(1)
	return func(int64) executor.VU { return countingVU{env} }, nil
}

type countingVU struct{ env *engine.VUEnv }

func (v countingVU) Iterate(context.Context) bool {
	v.env.Pusher.Push([]metrics.Sample{{Metric: v.env.Metrics.Iterations, Tags: v.env.Tags, Time: time.Now(), Value: 1}})
	return true
}

// scriptTest is a test as a script runtime decodes it: scenarios without a YAML flow.
func scriptTest(thresholds map[string][]scenario.Threshold) *scenario.Test {
	return &scenario.Test{
		Thresholds: thresholds,
		Scenarios: []*scenario.Scenario{{Name: "a", Executor: scenario.SharedIterations, VUs: 3, Iterations: 7,
			MaxDuration: time.Minute, GracefulStop: time.Second}},
	}
}

func TestRunPluggedVUs(t *testing.T) {
	t.Parallel()
	src := &countingSource{}
	test := scriptTest(map[string][]scenario.Threshold{"iterations": {{Expr: "count==7"}}})
	res, err := Run(context.Background(), Config{Test: test, TestID: "plug", VUs: src})
	require.NoError(t, err)
	require.Equal(t, int32(1), src.prepared.Load())
	it, ok := res.Summary.Snapshot.Submetric("iterations", []metrics.Tag{{Key: "scenario", Value: "a"}, {Key: "testid", Value: "plug"}})
	require.True(t, ok)
	require.InDelta(t, 7, it.Count, 0)
}

func TestRunConfigErrors(t *testing.T) {
	t.Parallel()
	test := scriptTest(map[string][]scenario.Threshold{"no_such_metric": {{Expr: "count<1"}}})
	_, err := Run(context.Background(), Config{Test: test, Source: "bad.yaml", VUs: &countingSource{}})
	require.Equal(t, verdict.ErrInvalid, verdict.Of(err))
	require.ErrorContains(t, err, "bad.yaml: ")

	_, err = Run(context.Background(), Config{Test: scriptTest(nil), VUs: &countingSource{},
		Actors: []Actor{Outputs(func(*aggregate.Store, map[string]string) ([]Sink, error) { return nil, errors.New("port busy") })}})
	require.Equal(t, verdict.ErrInvalid, verdict.Of(err))
	require.EqualError(t, err, "port busy")

	_, err = Run(context.Background(), Config{})
	require.Error(t, err)
	require.NoError(t, verdict.Of(err), "no test is not a configuration of the user's")
}

func TestDefaultTestID(t *testing.T) {
	t.Parallel()
	now := func() time.Time { return time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC) }
	require.Equal(t, "spike-20261201-093000", testID(Config{Source: "examples/spike.yaml", Now: now}))
	require.Equal(t, "flag", testID(Config{TestID: "flag", Tags: map[string]string{"testid": "tag"}}))
	require.Equal(t, "tag", testID(Config{Tags: map[string]string{"testid": "tag"}}))
}

// TestRunWarnsOfSeries: a tag of many values (ten URLs here, an id in the URL in the
// wild) makes series for each; past the warning's limit the run says so, once, as k6 does (27,500
// distinct URLs used to take 2.2 GB without a word). A limit of 50 stands for k6's 100,000.
func TestRunWarnsOfSeries(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	var flow strings.Builder
	for i := range 10 {
		fmt.Fprintf(&flow, "      - url: ${__ENV.URL}/item/%d\n", i)
	}
	test := parse(t, `
scenarios:
  s:
    executor: shared-iterations
    vus: 2
    iterations: 4
    flow:
`+flow.String(), url)
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	_, err := Run(context.Background(), Config{Test: test, TestID: "series", SeriesWarning: 50, Logger: logger})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 1, strings.Count(logs.String(), "more unique time series than the suggested limit"), logs.String())
	require.Contains(t, logs.String(), "limit=50")
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRunMaxSeries: past --max-series the run's totals stay whole and the summary says
// how many samples lost their own tags.
func TestRunMaxSeries(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	var flow strings.Builder
	for i := range 40 {
		fmt.Fprintf(&flow, "      - url: ${__ENV.URL}/item/%d\n", i)
	}
	test := parse(t, `
scenarios:
  s:
    executor: shared-iterations
    vus: 1
    iterations: 1
    flow:
`+flow.String(), url)
	res, err := Run(context.Background(), Config{Test: test, TestID: "capped", MaxSeries: 30})
	require.NoError(t, err)
	reqs, ok := res.Summary.Snapshot.Metric("http_reqs")
	require.True(t, ok)
	require.InDelta(t, 40, reqs.Count, 0, "every request counts")
	require.Len(t, res.Summary.Extra, 1, "%q", res.Summary.Extra)
	require.Contains(t, res.Summary.Extra[0], "over the limit of 30 (--max-series)")
	require.LessOrEqual(t, len(res.Summary.Snapshot.Series), 30+len(res.Summary.Snapshot.Metrics()), "the cap and one overflow series per metric and tag set of few values")
}
