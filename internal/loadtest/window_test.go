package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/internal/threshold"
	"github.com/tidemark/tidemark/internal/verdict"
)

// spikeTest is a run against a real target whose latency shifts mid-run: 50 requests
// per second answered in 5 ms for fastFor, and from slowAt on, for one second, 15
// more per second answered in 700 ms. The 15 slow requests are 3% of a 10 s run, so
// the whole-run p95 passes `p(95)<500`; a 3 s window after slowAt holds about 150 fast
// and 15 slow ones (9%), so its p95 is 700 ms.
func spikeTest(t *testing.T, url string, fastFor, slowAt time.Duration, abort bool) string {
	t.Helper()
	return fmt.Sprintf(`
thresholds:
  http_req_duration:
    - 'p(95)<500'
    - {threshold: 'p(95)<500', window: 3s, abortOnFail: %t}
  http_reqs:
    - {threshold: 'count>=0', window: 2s}
scenarios:
  fast:
    executor: constant-arrival-rate
    rate: 50
    timeUnit: 1s
    duration: %s
    preAllocatedVUs: 20
    flow:
      - url: %s/fast?delay=5ms
  slow:
    executor: constant-arrival-rate
    rate: 15
    timeUnit: 1s
    startTime: %s
    duration: 1s
    preAllocatedVUs: 30
    flow:
      - url: %s/slow?delay=700ms
`, abort, fastFor, url, slowAt, url)
}

func windowed(t *testing.T, res *Result) summary.Threshold {
	t.Helper()
	for _, th := range res.Summary.Thresholds["http_req_duration"] {
		if th.Window > 0 {
			return th
		}
	}
	t.Fatal("no windowed threshold in the summary")
	return summary.Threshold{}
}

// TestRunWindowedThresholdFails: the whole-run p95 passes, the 3 s windowed p95 fails:
// the run exits with the thresholds' verdict (99) and the summary names the window.
func TestRunWindowedThresholdFails(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	test := parse(t, spikeTest(t, url, 10*time.Second, 4*time.Second, false), url)
	res, err := Run(context.Background(), Config{Test: test, TestID: "window"})
	require.Equal(t, verdict.ErrThresholds, verdict.Of(err), "err: %v", err)
	require.EqualError(t, err, "thresholds on metrics 'http_req_duration' have been crossed")
	require.False(t, res.Run.Aborted)

	ths := res.Summary.Thresholds["http_req_duration"]
	require.Len(t, ths, 2)
	require.True(t, ths[0].OK, "the whole-run p95 passes: %v ms", ths[0].Value)
	w := windowed(t, res)
	require.False(t, w.OK)
	require.GreaterOrEqual(t, w.Value, 500.0, "the worst window's p95")
	rec := w.Record
	require.True(t, rec.Failed)
	// Windows start at the kept second nearest their start: off by half the time
	// between two evaluations, 1 s apart unless the machine is slow.
	require.InDelta(t, 3, (rec.Worst.End - rec.Worst.Start).Seconds(), 0.75, "a 3 s window")
	require.Greater(t, rec.Worst.End, 4*time.Second, "the worst window ends after the slow requests began")
	require.Less(t, rec.Worst.Start, 5*time.Second+700*time.Millisecond, "and holds some of them")
	require.Greater(t, rec.Evaluated, 3, "windows are judged every second")

	var b bytes.Buffer
	require.NoError(t, summary.WriteText(&b, res.Summary))
	require.Contains(t, b.String(), "✗ 'p(95)<500' over 3s worst p(95)=")
	require.Contains(t, b.String(), fmt.Sprintf(" in %s–%s", threshold.FormatWindow(rec.Worst.Start.Round(time.Second)),
		threshold.FormatWindow(rec.Worst.End.Round(time.Second))), b.String())

	// The outcomes are series: the last value of pass is the verdict, value the worst.
	snap := res.Summary.Snapshot
	sel := []metrics.Tag{{Key: "metric", Value: "http_req_duration"}, {Key: "threshold", Value: "p(95)<500"}}
	pass, ok := snap.Submetric(series.ThresholdResultPassMetric, append(sel, metrics.Tag{Key: series.ThresholdWindowLabel, Value: "3s"}))
	require.True(t, ok)
	require.Zero(t, pass.Value)
	require.Zero(t, pass.Min, "the window failed during the run")
	value, ok := snap.Submetric(series.ThresholdResultMetric, append(sel, metrics.Tag{Key: series.ThresholdWindowLabel, Value: "3s"}))
	require.True(t, ok)
	require.InDelta(t, w.Value, value.Value, 1e-9)
	var plainPass float64
	for _, se := range snap.Series {
		if se.Metric.Name == series.ThresholdResultPassMetric && se.Tags.Contains(sel) {
			if _, has := se.Tags.Get(series.ThresholdWindowLabel); !has {
				plainPass = se.Value
			}
		}
	}
	require.Equal(t, 1.0, plainPass, "the whole-run p95 passes at the end")
}

// TestRunWindowedThresholdAborts: with abortOnFail, the run stops within two seconds
// of the window crossing, measured by the engine's own clock: from the end of the
// first 700 ms response (the earliest the window's p95 can pass 500 ms; it crosses
// once 8 of them are in, 467 ms later) to the run's end.
func TestRunWindowedThresholdAborts(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	test := parse(t, spikeTest(t, url, time.Minute, 4*time.Second, true), url)
	res, err := Run(context.Background(), Config{Test: test, TestID: "window-abort"})
	require.Equal(t, verdict.ErrThresholds, verdict.Of(err), "err: %v", err)
	require.ErrorContains(t, err, "at least one has abortOnFail enabled, stopping test prematurely")
	require.True(t, res.Run.Aborted)

	slow, ok := res.Summary.Snapshot.Submetric("http_req_duration", []metrics.Tag{{Key: "scenario", Value: "slow"}})
	require.True(t, ok)
	firstSlow := slow.First
	rec := windowed(t, res).Record
	detected := res.Run.Start.Add(rec.FirstFailure.End)
	stop := res.Run.End.Sub(firstSlow)
	t.Logf("first slow response at %s, window failed at %s (judged %s later), run ended %s after the first slow response",
		firstSlow.Sub(res.Run.Start), rec.FirstFailure.End, detected.Sub(firstSlow), stop)
	require.False(t, detected.Before(firstSlow), "no window fails before a slow response")
	// The window crosses when 8 slow responses are in (8 of about 155 is over 5%), the
	// 8th due 467 ms after the first at 15 per second.
	const crossing = 7 * time.Second / 15
	require.LessOrEqual(t, stop, crossing+2*time.Second, "the run stops within two seconds of the window crossing")
	require.Less(t, res.Summary.Duration, 10*time.Second, "a minute's test stopped early")
}

// TestWindowsKeepConstantMemory: the kept points of a (sub-)metric span its longest
// window, whatever the run's length, and a window is the newest aggregate less the one
// kept nearest its start.
func TestWindowsKeepConstantMemory(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltin(reg)
	set, err := threshold.NewSet([]threshold.Def{
		{Key: "http_reqs", Expr: "count>0"},
		{Key: "http_reqs", Expr: "rate>10", Window: 10 * time.Second},
		{Key: "http_reqs", Expr: "count>5", Window: 3 * time.Second},
	}, threshold.RegistryTypes(reg))
	require.NoError(t, err)
	w := newWindows(set)
	require.Len(t, w.rings, 1, "one ring per (sub-)metric")
	require.Nil(t, newWindows(nil))

	start := time.Now()
	store := aggregate.New(aggregate.WithClock(func() time.Time { return start }))
	tags := metrics.NewTagPool().Intern([]metrics.Tag{{Key: "scenario", Value: "s"}})
	key, err := threshold.ParseKey("http_reqs")
	require.NoError(t, err)

	// Not judged before the run is as old as the window, except at the end.
	w.record(500*time.Millisecond, store.Snapshot())
	_, _, ok := w.source(500*time.Millisecond, false)(&key, 3*time.Second)
	require.False(t, ok)
	src, span, ok := w.source(500*time.Millisecond, true)(&key, 3*time.Second)
	require.True(t, ok)
	require.Nil(t, src, "no samples yet")
	require.Equal(t, 500*time.Millisecond, span, "a run shorter than the window is one window")

	// i requests in second i; evaluations 1 s apart but for one 250 ms late, which
	// the 10 s window at 605.25 s starts from.
	for i := 1; i <= 600; i++ {
		store.Push([]metrics.Sample{{Metric: b.HTTPReqs, Tags: tags, Time: start, Value: float64(i)}})
		at := time.Duration(i) * time.Second
		if i == 595 {
			at += 250 * time.Millisecond
		}
		w.record(at, store.Snapshot())
		require.LessOrEqual(t, len(w.rings["http_reqs"].points), 12, "second %d", i)
	}
	src, span, ok = w.source(600*time.Second, false)(&key, 3*time.Second)
	require.True(t, ok)
	require.Equal(t, 3*time.Second, span)
	n, _ := src.Value(threshold.Method{Agg: threshold.Count})
	require.InDelta(t, 598+599+600, n, 0, "the requests of the last 3 s")
	src, span, ok = w.source(600*time.Second, false)(&key, 10*time.Second)
	require.True(t, ok)
	require.Equal(t, 10*time.Second, span)
	n, _ = src.Value(threshold.Method{Agg: threshold.Count})
	require.InDelta(t, (591+600)*10/2, n, 0)

	store.Push([]metrics.Sample{{Metric: b.HTTPReqs, Tags: tags, Time: start, Value: 1000}})
	w.record(605*time.Second+250*time.Millisecond, store.Snapshot())
	src, span, ok = w.source(605*time.Second+250*time.Millisecond, false)(&key, 10*time.Second)
	require.True(t, ok)
	require.Equal(t, 10*time.Second, span, "from the late point at 595.25 s, the nearest")
	n, _ = src.Value(threshold.Method{Agg: threshold.Count})
	require.InDelta(t, 596+597+598+599+600+1000, n, 0)
}
