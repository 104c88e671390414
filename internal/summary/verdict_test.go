package summary

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// step is one stage of a synthetic single-scenario run ("steps"): its samples are
// pushed inside its window, every request one iteration of constant latency.
type step struct {
	secs     int
	from, to float64
	arrival  bool    // an arrival-rate stage (targets per second), else VUs
	reqs     int     // requests, one iteration each
	iters    int     // iterations without a request
	latency  float64 // seconds, of every request
	failed   int     // failed requests among reqs
	dropped  float64 // dropped iterations
	scenario string  // "" is "steps"
}

// stepsInput runs the steps and returns the summary input, with the thresholds (key →
// expressions, nil for none) as the run's ThresholdSet.
func stepsInput(t *testing.T, ths map[string][]string, steps []step) Input {
	t.Helper()
	r := newRun()
	var defs []threshold.Def
	for k, exprs := range ths {
		for _, e := range exprs {
			defs = append(defs, threshold.Def{Key: k, Expr: e})
		}
	}
	var set *threshold.Set
	if len(defs) > 0 {
		var err error
		set, err = threshold.NewSet(defs, threshold.RegistryTypes(r.reg))
		require.NoError(t, err)
	}
	in := Input{Start: r.start, ThresholdSet: set}
	var prev *aggregate.Snapshot
	at := r.start
	for i, s := range steps {
		name := s.scenario
		if name == "" {
			name = "steps"
		}
		ok, bad := r.tags("scenario", name, "status", "200"), r.tags("scenario", name, "status", "500")
		sc := r.tags("scenario", name)
		end := at.Add(time.Duration(s.secs) * time.Second)
		spread := func(j, n int) time.Time { return at.Add(time.Duration(j) * (end.Sub(at) / time.Duration(n+1))) }
		for j := range s.reqs {
			tags, fail := ok, 0.0
			if j < s.failed {
				tags, fail = bad, 1
			}
			ts := spread(j+1, s.reqs)
			r.store.Push([]metrics.Sample{
				{Metric: r.b.HTTPReqs, Tags: tags, Time: ts, Value: 1},
				{Metric: r.b.HTTPReqFailed, Tags: tags, Time: ts, Value: fail},
				{Metric: r.b.HTTPReqDuration, Tags: tags, Time: ts, Value: s.latency},
				{Metric: r.b.Iterations, Tags: sc, Time: ts, Value: 1},
			})
		}
		for j := range s.iters {
			r.store.Push([]metrics.Sample{{Metric: r.b.Iterations, Tags: sc, Time: spread(j+1, s.iters), Value: 1}})
		}
		if s.dropped > 0 {
			r.store.Push([]metrics.Sample{{Metric: r.b.DroppedIterations, Tags: sc, Time: at, Value: s.dropped}})
		}
		if s.reqs+s.iters > 0 {
			r.store.Push([]metrics.Sample{{Metric: r.b.VUs, Tags: r.tags(), Time: at, Value: s.to}})
		}
		r.now = end
		snap := r.store.Snapshot()
		st := Stage{Scenario: name, Index: i, Start: at, End: end, StartTarget: s.from, Target: s.to, From: prev, To: snap}
		if s.arrival {
			st.TimeUnit = time.Second
		}
		in.Stages = append(in.Stages, st)
		prev, at = snap, end
	}
	in.Snapshot, in.Duration = prev, at.Sub(r.start)
	return in
}

// story3 are story 3's thresholds (reference/seed-stories.md): a p95 SLO and errors.
var story3 = map[string][]string{"http_req_duration": {"p(95)<500"}, "http_req_failed": {"rate<0.01"}}

type wantOutcome struct {
	key, expr string
	value     float64 // k6's units; checked only when has
	has       bool
	passed    bool
}

func TestEvaluateStage(t *testing.T) {
	t.Parallel()
	ths := map[string][]string{
		"http_req_duration": {"p(95)<500"},
		"http_req_failed":   {"rate<0.01"},
		"http_reqs":         {"rate>=5"},
		"vus":               {"value<50"},
	}
	// A stage without samples of a metric evaluates it as k6's final evaluation does an
	// empty sink: a trend's stats are 0 (p(95)=0 passes p(95)<500), a rate has no value
	// (passes), a counter counts 0 (its rate 0 fails rate>=5), a gauge keeps its last value.
	empty := []wantOutcome{
		{"http_req_duration", "p(95)<500", 0, true, true},
		{"http_req_failed", "rate<0.01", 0, false, true},
		{"http_reqs", "rate>=5", 0, true, false},
	}
	for _, tc := range []struct {
		name  string
		steps []step // the last one is judged
		want  []wantOutcome
		vus   *wantOutcome // nil: vus has no sample yet (its threshold passes on 0)
	}{
		{
			name:  "a hold within every threshold",
			steps: []step{{secs: 20, from: 10, to: 10, arrival: true, reqs: 200, latency: 0.2}},
			want: []wantOutcome{
				{"http_req_duration", "p(95)<500", 200, true, true},
				{"http_req_failed", "rate<0.01", 0, true, true},
				{"http_reqs", "rate>=5", 10, true, true},
			},
			vus: &wantOutcome{"vus", "value<50", 10, true, true},
		},
		{
			// The counter's rate is the stage's own: 400 requests in 20s, not 600 in
			// the run's 40s; p(95) is that of the stage's histogram only.
			name: "a ramp after a hold: its own p(95) and request rate",
			steps: []step{
				{secs: 20, from: 10, to: 10, arrival: true, reqs: 200, latency: 0.2},
				{secs: 20, from: 10, to: 30, arrival: true, reqs: 400, latency: 0.812},
			},
			want: []wantOutcome{
				{"http_req_duration", "p(95)<500", 812, true, false},
				{"http_req_failed", "rate<0.01", 0, true, true},
				{"http_reqs", "rate>=5", 20, true, true},
			},
			vus: &wantOutcome{"vus", "value<50", 30, true, true},
		},
		{
			name: "failures in the stage only",
			steps: []step{
				{secs: 20, from: 10, to: 10, arrival: true, reqs: 200, latency: 0.2},
				{secs: 20, from: 10, to: 10, arrival: true, reqs: 200, latency: 0.2, failed: 4},
			},
			want: []wantOutcome{
				{"http_req_duration", "p(95)<500", 200, true, true},
				{"http_req_failed", "rate<0.01", 0.02, true, false},
				{"http_reqs", "rate>=5", 10, true, true},
			},
			vus: &wantOutcome{"vus", "value<50", 10, true, true},
		},
		{
			name: "a stage without requests after one with them",
			steps: []step{
				{secs: 20, from: 10, to: 10, reqs: 200, latency: 0.2},
				{secs: 20, from: 10, to: 10, iters: 20},
			},
			want: empty,
			vus:  &wantOutcome{"vus", "value<50", 10, true, true},
		},
		{
			name: "an empty stage after one with samples",
			steps: []step{
				{secs: 20, from: 10, to: 10, reqs: 200, latency: 0.2},
				{secs: 10, from: 10, to: 10},
			},
			want: empty,
			vus:  &wantOutcome{"vus", "value<50", 10, true, true},
		},
		{
			name:  "an empty first stage: no series exist yet",
			steps: []step{{secs: 10, from: 0, to: 10}},
			want:  empty,
		},
		{
			name:  "a stage with requests of another scenario only",
			steps: []step{{secs: 20, from: 10, to: 10, scenario: "other", reqs: 200, latency: 0.9}, {secs: 20, from: 10, to: 10, iters: 10}},
			want:  empty,
			vus:   &wantOutcome{"vus", "value<50", 10, true, true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := stepsInput(t, ths, tc.steps)
			st := in.Stages[len(in.Stages)-1]
			win, err := st.To.Since(st.From)
			require.NoError(t, err)
			want := tc.want
			if tc.vus != nil {
				want = append(append([]wantOutcome(nil), want...), *tc.vus)
			} else {
				want = append(append([]wantOutcome(nil), want...), wantOutcome{"vus", "value<50", 0, true, true})
			}
			got := EvaluateStage(in.ThresholdSet, st, win)
			require.Len(t, got, len(want))
			for i, w := range want {
				o := got[i]
				require.Equal(t, w.key, o.Threshold.Key.Name)
				require.Equal(t, w.expr, o.Threshold.Expr.Source)
				require.Equal(t, w.has, o.HasValue, "%s %s has a value", w.key, w.expr)
				if w.has {
					// Trend quantiles come from the histogram, within its 0.1% resolution.
					require.InDelta(t, w.value, o.Value, 1e-9+0.001*w.value, "%s %s", w.key, w.expr)
				}
				require.Equal(t, w.passed, o.Passed, "%s %s passed", w.key, w.expr)
				require.False(t, o.Skipped, "a stage is judged as at the final evaluation")
			}
		})
	}
}

func TestEvaluateStageScenarios(t *testing.T) {
	t.Parallel()
	ths := map[string][]string{
		"http_req_duration{scenario:steps}": {"p(95)<500"},
		"http_req_duration{scenario:other}": {"p(95)<1"},
	}
	in := stepsInput(t, ths, []step{{secs: 20, from: 10, to: 10, reqs: 100, latency: 0.2}})
	st := in.Stages[0]
	win, err := st.To.Since(st.From)
	require.NoError(t, err)
	got := EvaluateStage(in.ThresholdSet, st, win)
	require.Len(t, got, 1, "a threshold keyed on another scenario is not this stage's")
	require.Equal(t, "http_req_duration{scenario:steps}", got[0].Threshold.Key.Name)
	require.True(t, got[0].Passed)
	require.Nil(t, EvaluateStage(nil, st, win), "no thresholds, nothing to evaluate")
	require.Nil(t, in.ThresholdSet.Last(), "stage evaluations are not the run's last evaluation")
}

func TestStageVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		ths   map[string][]string
		steps []step
		want  []string // verdict per stage
	}{
		{
			name:  "breaks only on p(95)",
			ths:   story3,
			steps: []step{{secs: 30, from: 30, to: 30, arrival: true, reqs: 900, latency: 0.812}},
			want:  []string{"broke: http_req_duration 'p(95)<500' p(95)=812ms"},
		},
		{
			// No threshold on dropped_iterations: the run passed, so did the stage.
			name:  "drops are noted, not a break",
			ths:   story3,
			steps: []step{{secs: 30, from: 30, to: 30, arrival: true, reqs: 900, latency: 0.1, dropped: 136}},
			want:  []string{"held; 136 dropped"},
		},
		{
			name:  "breaks on failures, p(95) and drops, in that order",
			ths:   story3,
			steps: []step{{secs: 30, from: 50, to: 50, arrival: true, reqs: 1500, latency: 2.59, failed: 30, dropped: 154}},
			want:  []string{"broke: http_req_duration 'p(95)<500' p(95)=2.59s, http_req_failed 'rate<0.01' rate=2.00%; 154 dropped"},
		},
		{
			name:  "a hold below 95% of its target is noted, not a break",
			ths:   story3,
			steps: []step{{secs: 30, from: 50, to: 50, arrival: true, reqs: 1200, latency: 0.1}},
			want:  []string{"held; achieved 40/s < 95% of 50/s"},
		},
		{
			// 9.2/s against a mean target of 30/s: a ramp under 15s is not judged on it.
			name: "a short ramp is reported, not judged on achieved",
			ths:  story3,
			steps: []step{
				{secs: 30, from: 10, to: 10, arrival: true, reqs: 300, latency: 0.1},
				{secs: 5, from: 10, to: 50, arrival: true, reqs: 46, latency: 0.1},
			},
			want: []string{"held", "held"},
		},
		{
			name: "a ramp of 15s or more is judged on its mean target",
			ths:  story3,
			steps: []step{
				{secs: 20, from: 10, to: 50, arrival: true, reqs: 400, latency: 0.1},
				{secs: 20, from: 10, to: 50, arrival: true, reqs: 580, latency: 0.1},
			},
			want: []string{"held; achieved 20/s < 95% of 30/s", "held"},
		},
		{
			name:  "a VU stage is not judged on achieved",
			ths:   story3,
			steps: []step{{secs: 30, from: 40, to: 40, reqs: 30, latency: 0.1}},
			want:  []string{"held"},
		},
		{
			name: "stages without requests or samples pass the thresholds",
			ths:  story3,
			steps: []step{
				{secs: 30, from: 10, to: 10, reqs: 100, latency: 0.1},
				{secs: 30, from: 10, to: 10, iters: 30},
				{secs: 30, from: 10, to: 10},
			},
			want: []string{"held", "held", "held"},
		},
		{
			name: "no thresholds: drops and achieved only",
			steps: []step{
				{secs: 30, from: 30, to: 30, arrival: true, reqs: 900, latency: 0.812},
				{secs: 30, from: 50, to: 50, arrival: true, reqs: 1200, latency: 5, dropped: 136},
			},
			want: []string{"held", "held; 136 dropped, achieved 40/s < 95% of 50/s"},
		},
		{
			name: "no thresholds: the default error rate",
			steps: []step{
				{secs: 30, from: 30, to: 30, arrival: true, reqs: 900, latency: 0.1, failed: 9},
				{secs: 30, from: 30, to: 30, arrival: true, reqs: 900, latency: 0.1, failed: 10},
			},
			want: []string{"held", "held; error rate 1.11% > 1%"},
		},
		{
			// 30 slow requests of 930: the run's p(95) is 100ms and passes.
			name: "a passing threshold crossed in one stage is noted, not a break",
			ths:  story3,
			steps: []step{
				{secs: 30, from: 30, to: 30, arrival: true, reqs: 900, latency: 0.1},
				{secs: 30, from: 1, to: 1, arrival: true, reqs: 30, latency: 0.812},
			},
			want: []string{"held", "held; crossed in this stage: http_req_duration 'p(95)<500' p(95)=811.8ms"}, // the histogram's p(95) of 30 samples
		},
		{
			// The run made 900 requests: count>100 passed, and no stage is judged on it.
			name:  "a count threshold is not evaluated per stage",
			ths:   map[string][]string{"http_reqs": {"count>100"}},
			steps: []step{{secs: 30, from: 10, to: 10, reqs: 90}, {secs: 30, from: 10, to: 10, reqs: 810}},
			want:  []string{"held", "held"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := stepsInput(t, tc.ths, tc.steps)
			r, err := newReport(in)
			require.NoError(t, err)
			rows, err := r.stageRows()
			require.NoError(t, err)
			require.Len(t, rows, len(tc.want))
			for i, w := range tc.want {
				require.Equal(t, w, rows[i].Verdict, "stage %d", i+1)
				held := strings.HasPrefix(w, "held")
				require.Equal(t, held, rows[i].Held)
				require.Equal(t, held, len(rows[i].Broke) == 0)
			}
			tail := "a passing threshold crossed in the stage"
			if tc.ths == nil {
				tail = "an error rate over 1% (the run has no thresholds)"
			}
			require.Contains(t, text(t, in), "\n    verdict: a stage broke when a threshold that failed the run is crossed in its own samples; "+
				"after the ';', what else stood out: drops, an arrival-rate stage under 95% of its mean target (ramps under 15s not judged), "+tail+"\n")
		})
	}
}

// TestStagesTableStory3 is story 3 on one pod of 500m (reference/seed-stories.md): VUs
// stepped 10→40 with `sleep 1`, p95 clean to 20 users and over the 500 ms SLO from 30,
// 0% errors throughout. Capacity is the last stage that held: 20 VUs.
func TestStagesTableStory3(t *testing.T) {
	t.Parallel()
	in := stepsInput(t, story3, []step{
		{secs: 30, from: 10, to: 10, reqs: 280, latency: 0.18},
		{secs: 30, from: 20, to: 20, reqs: 540, latency: 0.32},
		{secs: 30, from: 30, to: 30, reqs: 600, latency: 0.64},
		{secs: 30, from: 40, to: 40, reqs: 560, latency: 1.25},
	})
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, in))
	out := b.String()
	stages := out[strings.Index(out, "  █ STAGES"):]
	require.Equal(t, "  █ STAGES \n\n"+
		"    stage     window      target  achieved  req/s       p50       p95       p99  errors  dropped  verdict\n"+
		"    steps #1  0s-30s      10 VUs    10 VUs   9.33     180ms     180ms     180ms   0.00%        0  held\n"+
		"    steps #2  30s-1m0s    20 VUs    20 VUs     18  319.84ms  319.84ms  319.84ms   0.00%        0  held\n"+
		"    steps #3  1m0s-1m30s  30 VUs    30 VUs     20  639.69ms  639.69ms  639.69ms   0.00%        0  broke: http_req_duration 'p(95)<500' p(95)=639.69ms\n"+
		"    steps #4  1m30s-2m0s  40 VUs    40 VUs  18.67     1.25s     1.25s     1.25s   0.00%        0  broke: http_req_duration 'p(95)<500' p(95)=1.25s\n"+
		"    verdict: a stage broke when a threshold that failed the run is crossed in its own samples; after the ';', what else stood out: drops, an arrival-rate stage under 95% of its mean target (ramps under 15s not judged), a passing threshold crossed in the stage\n"+
		"\n\n", stages)
}
