package correlator

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// pushedRun is a constant-VU run as `tidemark run` writes it with remote write: pushes
// every interval after the start, stamped with the push time (with a few ms of jitter),
// each carrying the counters so far; a final push when the run stops (its target is the
// one after the run: 0); then, unless noStale, a stale marker 1 ms later.
type pushedRun struct {
	start    time.Time
	duration time.Duration // until the final push
	interval time.Duration
	rate     float64 // requests per second
	vus      float64
	noStale  bool
	// second, when set, is the duration of a second instance (instance_id vm2) that
	// started with the first and ended earlier, off the first one's step grid.
	second time.Duration
}

// times returns the push timestamps: every interval (+ jitter) before the end, then the
// final push (strictly after the previous one).
func (p pushedRun) times() []time.Time { return p.pushes(p.duration) }

func (p pushedRun) pushes(duration time.Duration) []time.Time {
	var ts []time.Time
	for k := 1; ; k++ {
		t := p.start.Add(time.Duration(k)*p.interval + time.Duration(k%3)*time.Millisecond)
		if !t.Before(p.start.Add(duration)) {
			break
		}
		ts = append(ts, t)
	}
	end := p.start.Add(duration)
	if n := len(ts); n > 0 && !end.After(ts[n-1]) {
		end = ts[n-1].Add(time.Millisecond)
	}
	return append(ts, end)
}

// requests is the sum of the instances' final counter values: what the run's summary
// reports.
func (p pushedRun) requests() float64 {
	return math.Floor(p.rate*p.duration.Seconds()) + math.Floor(p.rate*p.second.Seconds())
}

func (p pushedRun) series(ts []time.Time, labels model.Metric, f func(i int, at time.Time) float64) *model.SampleStream {
	s := &model.SampleStream{Metric: labels}
	for i, at := range ts {
		s.Values = append(s.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(at.UnixNano()), Value: model.SampleValue(f(i, at))})
	}
	if !p.noStale {
		withStale(s)
	}
	return s
}

func (p pushedRun) fake(t *testing.T, cat *query.Catalog, v query.Vars, coarse time.Duration) *fakeProm {
	t.Helper()
	ts := p.times()
	series := func(labels model.Metric, f func(i int, at time.Time) float64) *model.SampleStream {
		return p.series(ts, labels, f)
	}
	final := func(i int) bool { return i == len(ts)-1 }
	reqs := func(_ int, at time.Time) float64 { return math.Floor(p.rate * at.Sub(p.start).Seconds()) }
	target := func(i int, at time.Time) float64 {
		if final(i) || !at.Before(p.start.Add(p.duration)) {
			return 0
		}
		return p.vus
	}
	render := func(name string, v query.Vars) string {
		e, err := cat.Render(name, v)
		require.NoError(t, err)
		return e
	}
	seen := v
	seen.Range = coarse
	probeK6, err := cat.RenderProbe("k6", v)
	require.NoError(t, err)
	one := func(int, time.Time) float64 { return 1 }
	runInfo := []*model.SampleStream{series(model.Metric{"testid": model.LabelValue(v.TestID), "instance_id": "vm"}, one)}
	reqSeries := []*model.SampleStream{series(model.Metric{"instance_id": "vm", "scenario": "default"}, reqs)}
	if p.second > 0 {
		ts2 := p.pushes(p.second)
		runInfo = append(runInfo, p.series(ts2, model.Metric{"testid": model.LabelValue(v.TestID), "instance_id": "vm2"}, one))
		reqSeries = append(reqSeries, p.series(ts2, model.Metric{"instance_id": "vm2", "scenario": "default"}, reqs))
	}
	return &fakeProm{errs: map[string]error{}, exprs: map[string]fakeSeries{
		render("run_seen", seen):             {streams: runInfo, countOver: true},
		probeK6:                              {streams: runInfo},
		render("scenario_target", v):         {streams: []*model.SampleStream{series(model.Metric{"scenario": "default", "unit": "vus"}, target)}},
		render("http_reqs", stepVars(v)):     {streams: reqSeries},
		render("iterations", stepVars(v)):    {streams: reqSeries},
		render("http_failures", stepVars(v)): {streams: nil},
		render("vus", v):                     {streams: []*model.SampleStream{series(model.Metric{}, target)}},
		render("latency_p95", v): {streams: []*model.SampleStream{series(model.Metric{}, func(i int, _ time.Time) float64 {
			if final(i) {
				return 0.0516 // the whole run's p95, known only at the end
			}
			return 0.038
		})}},
		render("http_req_rate", v): {streams: []*model.SampleStream{series(model.Metric{}, func(int, time.Time) float64 { return p.rate })}},
	}}
}

// TestCorrelateShortRun correlates runs as `tidemark run` writes them (pushes stamped
// with their time, the final one at the end, stale markers 1 ms later), from a run
// shorter than one push interval to hours, right after they ended and with a step
// coarser than the run: the requests are the summary's, the run is over, the load
// series cover the run and the stage held.
func TestCorrelateShortRun(t *testing.T) {
	t.Parallel()
	cat, err := query.Default()
	require.NoError(t, err)
	start := time.Date(2026, 11, 30, 2, 14, 39, 792e6, time.UTC)
	for _, tc := range []struct {
		name     string
		run      pushedRun
		after    time.Duration // now, after the final push
		step     time.Duration
		from     time.Duration // the window's start, from the run's start
		interval float64       // the k6 resolution reported
		stages   int
	}{
		{name: "quick.yaml: 10 s, correlated at once", run: pushedRun{duration: 10096 * time.Millisecond, interval: 5 * time.Second, rate: 42.5, vus: 5}, after: 700 * time.Millisecond, interval: 5, stages: 1},
		{name: "10 s, a minute later", run: pushedRun{duration: 10096 * time.Millisecond, interval: 5 * time.Second, rate: 42.5, vus: 5}, after: time.Minute, interval: 5, stages: 1},
		{name: "10 s without stale markers, a minute later", run: pushedRun{duration: 10096 * time.Millisecond, interval: 5 * time.Second, rate: 42.5, vus: 5, noStale: true}, after: time.Minute, interval: 5, stages: 1},
		{name: "10 s at a 1 m step", run: pushedRun{duration: 10096 * time.Millisecond, interval: 5 * time.Second, rate: 42.5, vus: 5}, after: 2 * time.Second, step: time.Minute, interval: 5, stages: 1},
		// The final push hides the one before it at the run's end on the grid: the target
		// is known only after the run, so the stage cannot be judged; the counts can.
		{name: "7 s: one push, then the final one", run: pushedRun{duration: 7 * time.Second, interval: 5 * time.Second, rate: 40, vus: 5}, after: time.Second, interval: 5},
		{name: "3 s: only the final push", run: pushedRun{duration: 3 * time.Second, interval: 5 * time.Second, rate: 40, vus: 5}, after: time.Second, from: -2 * time.Second, interval: 5},
		{name: "1 s push interval", run: pushedRun{duration: 12345 * time.Millisecond, interval: time.Second, rate: 100, vus: 5}, after: time.Second, interval: 1, stages: 1},
		{name: "two instances, one ending 2.5 s off the other's grid", run: pushedRun{duration: 20096 * time.Millisecond, interval: 5 * time.Second, rate: 42.5, vus: 5, second: 17600 * time.Millisecond}, after: time.Second, interval: 5, stages: 1},
		{name: "2 h", run: pushedRun{duration: 2*time.Hour + 2500*time.Millisecond, interval: 5 * time.Second, rate: 33.3, vus: 20}, after: 30 * time.Second, interval: 5, stages: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run.start = start
			end := tc.run.times()[len(tc.run.times())-1]
			now := end.Add(tc.after)
			v := query.Vars{TestID: "quick-y", RateWindow: time.Duration(cat.Defaults.RateWindow)}
			f := tc.run.fake(t, cat, v, 121*time.Second) // 7 d ÷ 5000, rounded
			res, err := New(f, cat, promslog.NewNopLogger(), WithClock(func() time.Time { return now })).
				Correlate(context.Background(), Config{TestID: "quick-y", Step: tc.step})
			require.NoError(t, err)

			require.Equal(t, end, res.Window.Run.To, "the final push")
			require.WithinDuration(t, start.Add(tc.from), res.Window.Run.From, 5*time.Millisecond, "the first push less one interval")
			require.False(t, res.Window.Live, "the run has ended")
			require.InDelta(t, tc.run.requests(), res.Load.Requests, 0, "the final push's counter value")
			require.InDelta(t, 0, res.Load.Failures, 0)
			var k6 Source
			for _, s := range res.Sources {
				if s.Name == analysis.SourceK6 {
					k6 = s
				}
			}
			require.InDelta(t, tc.interval, k6.ResolutionSeconds, 0.005, "the push interval, without the final push's partial one")
			require.GreaterOrEqual(t, k6.Coverage, 0.9)
			for _, n := range res.Notes {
				require.NotEqual(t, "run", n.Section, "%s", n.Text)
				require.NotEqual(t, analysis.SourceK6, n.Object, "%s", n.Text)
			}
			require.NotNil(t, res.Load.P95)
			require.InDelta(t, 0.0516, res.Load.P95.Value, 0, "the whole run's p95, from the final push")
			require.Len(t, res.Load.Stages, max(tc.stages, 1))
			if tc.stages == 0 {
				return // shorter than a push interval: the target is known only after the run
			}
			st := res.Load.Stages[0]
			require.Equal(t, timeline.Hold, st.Kind)
			require.InDelta(t, tc.run.vus, st.TargetAvg, 0)
			require.Equal(t, res.Window.Run, st.Window)
			require.InDelta(t, tc.run.requests(), st.Requests, 0, "every request falls in the stage")
			require.True(t, st.Held, st.Why)
			require.Nil(t, res.Load.Capacity.FirstBroke, res.Load.Capacity.Text)
			require.NotNil(t, res.Load.Capacity.LastHeld)
		})
	}
}
