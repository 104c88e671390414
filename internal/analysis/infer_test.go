package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// k6Shape describes a run made by k6 alone (no tidemark_* series), pushed every res.
type k6Shape struct {
	length time.Duration
	res    time.Duration
	// rate is the iteration rate (1 request each) at s seconds from the start.
	rate func(s float64) float64
	// vus is k6_vus at s seconds (k6 samples it every second).
	vus func(s float64) float64
	// fail is the share of requests that fail at s seconds; nil for none.
	fail func(s float64) float64
	// dropped is the rate of dropped iterations at s seconds; nil for none.
	dropped func(s float64) float64
	// poisson draws each push's count from a Poisson law (arrivals of an open model),
	// else the count follows the schedule and jitters by the iterations that complete
	// around the push (k6's arrival-rate executors start iterations on a schedule).
	poisson bool
	seed    uint64
}

// knots returns a piecewise-linear function through (seconds, value) points, constant
// outside them.
func knots(pts ...float64) func(float64) float64 {
	return func(s float64) float64 {
		if s <= pts[0] {
			return pts[1]
		}
		for i := 2; i+1 < len(pts); i += 2 {
			x0, y0, x1, y1 := pts[i-2], pts[i-1], pts[i], pts[i+1]
			if s <= x1 {
				if x1 == x0 {
					return y1
				}
				return y0 + (y1-y0)*(s-x0)/(x1-x0)
			}
		}
		return pts[len(pts)-1]
	}
}

func poisson(r *rand.Rand, lambda float64) float64 {
	if lambda <= 0 {
		return 0
	}
	if lambda > 50 {
		return math.Max(0, math.Round(lambda+math.Sqrt(lambda)*r.NormFloat64()))
	}
	l, p := math.Exp(-lambda), 1.0
	for k := 0; ; k++ {
		if p *= r.Float64(); p <= l {
			return float64(k)
		}
	}
}

// k6Timeline builds the run's k6 series as remote write pushes them: every res from
// the start, and a final push 50 ms after the load ends, which is the run's end.
func k6Timeline(sh k6Shape) *timeline.Timeline {
	r := rand.New(rand.NewPCG(sh.seed, 1))
	from := t0.Add(5 * time.Minute)
	run := timeline.Window{From: from, To: from.Add(sh.length + 50*time.Millisecond)}
	// Cumulative counts of the true rates, integrated every 10 ms.
	const dt = 0.01
	horizon := sh.length.Seconds() + 1
	tables := map[*func(float64) float64][]float64{}
	cum := func(f *func(float64) float64, upto float64) float64 {
		tab, ok := tables[f]
		if !ok {
			tab = make([]float64, int(horizon/dt)+2)
			for i := 1; i < len(tab); i++ {
				tab[i] = tab[i-1] + (*f)((float64(i)-0.5)*dt)*dt
			}
			tables[f] = tab
		}
		return tab[min(int(math.Round(upto/dt)), len(tab)-1)]
	}
	var at []time.Time
	for t := from.Add(sh.res); !t.After(from.Add(sh.length)); t = t.Add(sh.res) {
		at = append(at, t)
	}
	at = append(at, run.To)
	sc := m("scenario", "default")
	reqs, fails, drops, vus := timeline.Series{Labels: sc}, timeline.Series{Labels: sc}, timeline.Series{Labels: sc}, timeline.Series{Labels: m()}
	failShare := sh.fail
	if failShare == nil {
		failShare = func(float64) float64 { return 0 }
	}
	failRate := func(x float64) float64 { return sh.rate(x) * failShare(x) }
	var n, nf, prevCum float64
	for i, t := range at {
		s := t.Sub(from).Seconds()
		c := cum(&sh.rate, s)
		if sh.poisson {
			n += poisson(r, c-prevCum)
		} else {
			// The iterations started until a latency ago have completed.
			lat := 0.05 + 0.45*r.Float64()
			n = max(n, math.Floor(cum(&sh.rate, max(0, s-lat))))
		}
		prevCum = c
		nf = max(nf, math.Round(cum(&failRate, s)))
		reqs.Points = append(reqs.Points, timeline.Point{T: t, V: n})
		fails.Points = append(fails.Points, timeline.Point{T: t, V: nf})
		if sh.dropped != nil {
			drops.Points = append(drops.Points, timeline.Point{T: t, V: math.Floor(cum(&sh.dropped, s))})
		}
		v := sh.vus(math.Floor(s))
		if i == len(at)-1 {
			v = 0 // the final push: after the run
		}
		vus.Points = append(vus.Points, timeline.Point{T: t, V: v})
	}
	tl := &timeline.Timeline{
		Run:        run,
		Baseline:   timeline.Window{From: t0, To: from},
		After:      timeline.Window{From: run.To, To: run.To.Add(5 * time.Minute)},
		Step:       sh.res,
		Resolution: map[string]time.Duration{SourceK6: sh.res},
		Sets: map[string]timeline.Set{
			QHTTPReqs:     {reqs},
			QIterations:   {reqs},
			QHTTPFailures: {fails},
			QVUs:          {vus},
		},
	}
	if sh.dropped != nil {
		tl.Sets[QDropped] = timeline.Set{drops}
	}
	return tl
}

// wantStage is a real stage, in offsets from the run's start.
type wantStage struct {
	kind       timeline.StageKind
	from, to   time.Duration
	start, end float64
}

// levelTolerance is how close an inferred level must be to the real one: half the
// minimum step (5% of the level), at least half a unit.
func levelTolerance(v float64) float64 { return max(minStepRatio/2*v, 0.5) }

// requireStages checks inferred stages against the real ones: the same kinds, each
// boundary within slack (one push interval unless said), each level within
// levelTolerance.
func requireStages(t *testing.T, load Load, run timeline.Window, want []wantStage, slack time.Duration) {
	t.Helper()
	got := describe(load, run)
	require.Len(t, load.Stages, len(want), "stages: %q", got)
	for i, w := range want {
		st := load.Stages[i]
		require.Equal(t, w.kind, st.Kind, "stage %d: %q", i, got)
		require.True(t, st.Inferred, "stage %d", i)
		require.InDelta(t, 0, st.From.Sub(run.From.Add(w.from)).Seconds(), slack.Seconds(), "stage %d start: %q", i, got)
		wantTo := run.From.Add(w.to)
		if i == len(want)-1 {
			wantTo = run.To
		}
		require.InDelta(t, 0, st.To.Sub(wantTo).Seconds(), slack.Seconds(), "stage %d end: %q", i, got)
		require.InDelta(t, w.start, st.StartTarget, levelTolerance(w.start), "stage %d start target: %q", i, got)
		require.InDelta(t, w.end, st.EndTarget, levelTolerance(w.end), "stage %d end target: %q", i, got)
	}
}

// describe writes stages compactly for failure messages.
func describe(load Load, run timeline.Window) []string {
	var got []string
	for _, st := range load.Stages {
		got = append(got, fmt.Sprintf("%s %s→%s [%s, %s]", st.Kind, FormatTarget(st.StartTarget), FormatTarget(st.EndTarget),
			st.From.Sub(run.From).Round(100*time.Millisecond), st.To.Sub(run.From).Round(100*time.Millisecond)))
	}
	return got
}

// story1 is story 1's ramping-arrival-rate load: 0→10/s (2m), hold 5m, →30 (2m), hold
// 5m, →50 (2m), hold 5m, →0 (2m).
func story1() (func(float64) float64, []wantStage) {
	mn := func(x float64) float64 { return 60 * x }
	rate := knots(0, 0, mn(2), 10, mn(7), 10, mn(9), 30, mn(14), 30, mn(16), 50, mn(21), 50, mn(23), 0)
	d := func(x float64) time.Duration { return time.Duration(x * float64(time.Minute)) }
	return rate, []wantStage{
		{timeline.RampUp, 0, d(2), 0, 10},
		{timeline.Hold, d(2), d(7), 10, 10},
		{timeline.RampUp, d(7), d(9), 10, 30},
		{timeline.Hold, d(9), d(14), 30, 30},
		{timeline.RampUp, d(14), d(16), 30, 50},
		{timeline.Hold, d(16), d(21), 50, 50},
		{timeline.RampDown, d(21), d(23), 50, 0},
	}
}

// staircase is story 2's ramping-vus load: 30 VUs, then every minute 30 more (each
// step a 10 s ramp), up to 300 in the tenth minute.
func staircase(first, by float64, steps int) (func(float64) float64, []wantStage) {
	pts := []float64{0, first}
	want := []wantStage{{timeline.Hold, 0, time.Minute, first, first}}
	for k := 1; k < steps; k++ {
		at := float64(60 * k)
		lo, hi := first+by*float64(k-1), first+by*float64(k)
		pts = append(pts, at, lo, at+10, hi)
		m := time.Duration(k) * time.Minute
		want = append(want, wantStage{timeline.RampUp, m, m + 10*time.Second, lo, hi}, wantStage{timeline.Hold, m + 10*time.Second, m + time.Minute, hi, hi})
	}
	line := knots(pts...)
	return func(s float64) float64 { return math.Floor(line(s)) }, want
}

// closedLoop is a closed model's iteration rate: VUs over the iteration time
// (sleep 1 s plus latency), a latency behind, capped by the service's capacity.
func closedLoop(vus func(float64) float64, iteration, capacity float64) func(float64) float64 {
	return func(s float64) float64 { return min(vus(max(0, s-iteration))/iteration, capacity) }
}

func TestInferStages(t *testing.T) {
	t.Parallel()
	res := 5 * time.Second
	rate1, want1 := story1()
	pool := func(float64) float64 { return 20 }
	// The pool grows 20→60 in the 50/s hold, as k6 allocates VUs when iterations drop.
	growing := knots(0, 20, 60*17, 20, 60*17+20, 60)
	stairs, want2 := staircase(30, 30, 10)
	ramp := knots(0, 30, 600, 300)
	small, want3 := staircase(5, 5, 10)
	for _, tc := range []struct {
		name  string
		shape k6Shape
		unit  string
		want  []wantStage
		slack time.Duration
	}{
		{
			name:  "story 1: ramping-arrival-rate on k6's schedule, a pool of 20 VUs",
			shape: k6Shape{length: 23 * time.Minute, rate: rate1, vus: pool, seed: 1},
			unit:  StageUnitIterations, want: want1, slack: res,
		},
		{
			name: "story 1: the pool grows with dropped iterations at 50/s",
			shape: k6Shape{length: 23 * time.Minute, rate: rate1, vus: growing, seed: 2,
				dropped: func(s float64) float64 { return map[bool]float64{true: 0.5}[s > 60*17 && s < 60*17+20] }},
			unit: StageUnitIterations, want: want1, slack: res,
		},
		{
			// Poisson counts put the corners of ramps of 0.4–0.8/s per push under a
			// noise of 1.4–3.2/s per push: a corner's standard error is then about a push
			// (σ / slope-per-push · √(3/n), n the ramp's pushes), so within three.
			name:  "story 1: Poisson arrivals",
			shape: k6Shape{length: 23 * time.Minute, rate: rate1, vus: pool, poisson: true, seed: 3},
			unit:  StageUnitIterations, want: want1, slack: 3 * res,
		},
		{
			name:  "story 2: ramping-vus stairs 30→300, throughput plateaus at 10/s",
			shape: k6Shape{length: 10 * time.Minute, vus: stairs, rate: closedLoop(stairs, 3, 10), poisson: true, seed: 4},
			unit:  StageUnitVUs, want: want2, slack: res,
		},
		{
			name:  "story 2: ramping-vus 30→300 in one-minute ramps (one straight ramp)",
			shape: k6Shape{length: 10 * time.Minute, vus: func(s float64) float64 { return math.Floor(ramp(s)) }, rate: closedLoop(func(s float64) float64 { return math.Floor(ramp(s)) }, 3, 10), poisson: true, seed: 5},
			unit:  StageUnitVUs, want: []wantStage{{timeline.RampUp, 0, 10 * time.Minute, 30, 300}}, slack: res,
		},
		{
			name:  "ramping-vus stairs 5→50: the rate lags the VUs, then saturates at 20/s",
			shape: k6Shape{length: 10 * time.Minute, vus: small, rate: closedLoop(small, 1.2, 20), poisson: true, seed: 6},
			unit:  StageUnitVUs, want: want3, slack: res,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tl := k6Timeline(func() k6Shape { s := tc.shape; s.res = res; return s }())
			load, _, notes := AnalyzeLoad(tl, DefaultConfig)
			require.Equal(t, StagesInferred, load.StagesSource)
			requireStages(t, load, tl.Run, tc.want, tc.slack)
			for _, st := range load.Stages {
				require.Equal(t, tc.unit, st.Unit)
				require.Nil(t, st.AchievedRatio, "an inferred target is the level achieved")
			}
			var steps []time.Time
			for _, w := range tc.want {
				if w.kind == timeline.RampUp {
					steps = append(steps, tl.Run.From.Add(w.from))
				}
			}
			require.Len(t, load.LoadSteps, len(steps))
			for i := range steps {
				require.WithinDuration(t, steps[i], load.LoadSteps[i], tc.slack)
			}
			require.Contains(t, notes, inferredNote(t, notes))
		})
	}
}

// inferredNote returns the note that says the stages were inferred.
func inferredNote(t *testing.T, notes []Note) Note {
	t.Helper()
	for _, n := range notes {
		if n.Level == NoteInfo && n.Section == "load" && containsAll(n.Text, "inferred", "push resolution", "max(10% of the lower level, 2") {
			return n
		}
	}
	require.Fail(t, "no note on inferred stages", "%v", notes)
	return Note{}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestInferStagesNoise: a flat run is one hold, at any level and with any seed; a step
// under the minimum is not split, one of the minimum is.
func TestInferStagesNoise(t *testing.T) {
	t.Parallel()
	res := 5 * time.Second
	for _, level := range []float64{1, 2, 5, 10, 20, 50, 200, 1000} {
		t.Run(fmt.Sprintf("flat at %g/s", level), func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(20) {
				for _, p := range []bool{true, false} {
					tl := k6Timeline(k6Shape{length: 10 * time.Minute, res: res, rate: func(float64) float64 { return level },
						vus: func(float64) float64 { return 10 }, poisson: p, seed: seed})
					load, _, _ := AnalyzeLoad(tl, DefaultConfig)
					require.Len(t, load.Stages, 1, "seed %d poisson %v: %q", seed, p, describe(load, tl.Run))
					st := load.Stages[0]
					require.Equal(t, timeline.Hold, st.Kind)
					require.Equal(t, timeline.Window{From: tl.Run.From, To: tl.Run.To}, st.Window)
					require.InDelta(t, level, st.EndTarget, levelTolerance(level))
					require.Empty(t, load.LoadSteps)
				}
			}
		})
	}
	for _, tc := range []struct {
		name     string
		from, to float64
		split    bool
	}{
		{"20→21.5/s (7.5%, under 2/s) is not split", 20, 21.5, false},
		{"5→6.5/s (under 2/s) is not split", 5, 6.5, false},
		{"100→105/s (5%) is not split", 100, 105, false},
		{"20→24/s (20%) is split", 20, 24, true},
		{"100→115/s (15%) is split", 100, 115, true},
		{"50→35/s (a step down) is split", 50, 35, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(10) {
				for _, p := range []bool{false, true} {
					rate := knots(0, tc.from, 300, tc.from, 305, tc.to)
					tl := k6Timeline(k6Shape{length: 10 * time.Minute, res: res, rate: rate, vus: func(float64) float64 { return 10 }, poisson: p, seed: seed})
					load, _, _ := AnalyzeLoad(tl, DefaultConfig)
					if !tc.split {
						require.Len(t, load.Stages, 1, "seed %d poisson %v: %q", seed, p, describe(load, tl.Run))
						continue
					}
					kind := timeline.RampUp
					if tc.to < tc.from {
						kind = timeline.RampDown
					}
					// A step of a push under noise of a third to a half of it a push
					// (k6's completion jitter) is placed within two pushes. Under Poisson
					// noise as large as the step (1–2σ a push) it is found, but where is
					// known only to within several pushes: a run of noisy pushes next to
					// it moves the change point as much.
					slack := 2 * res
					if p {
						slack = 10 * res
					}
					requireStages(t, load, tl.Run, []wantStage{
						{timeline.Hold, 0, 300 * time.Second, tc.from, tc.from},
						{kind, 300 * time.Second, 305 * time.Second, tc.from, tc.to},
						{timeline.Hold, 305 * time.Second, 600 * time.Second, tc.to, tc.to},
					}, slack)
				}
			}
		})
	}
}

// TestInferStagesDriver covers the rule that picks VUs or the rate.
func TestInferStagesDriver(t *testing.T) {
	t.Parallel()
	res := 5 * time.Second
	stairs, _ := staircase(10, 10, 5)
	arrival := knots(0, 10, 120, 10, 180, 40)
	for _, tc := range []struct {
		name  string
		shape k6Shape
		unit  string
	}{
		{"constant VUs, flat rate: the rate", k6Shape{rate: func(float64) float64 { return 40 }, vus: func(float64) float64 { return 50 }}, StageUnitIterations},
		{"VU stairs, the rate follows: VUs", k6Shape{rate: closedLoop(stairs, 1.1, 1000), vus: stairs}, StageUnitVUs},
		{"VU stairs, the rate steps while the VUs hold: the rate", k6Shape{rate: arrival, vus: knots(0, 10, 240, 10, 250, 30)}, StageUnitIterations},
		{"VU stairs with dropped iterations: the rate", k6Shape{rate: closedLoop(stairs, 1.1, 1000), vus: stairs, dropped: func(float64) float64 { return 0.1 }}, StageUnitIterations},
		{"active VUs that jitter with the latency: the rate", k6Shape{rate: arrival, vus: func(s float64) float64 {
			return math.Round(arrival(s)*0.3 + 3*math.Sin(s*1.7))
		}}, StageUnitIterations},
		{"no VU series: the rate", k6Shape{rate: arrival}, StageUnitIterations},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sh := tc.shape
			sh.length, sh.res, sh.poisson, sh.seed = 5*time.Minute, res, true, 7
			if sh.vus == nil {
				sh.vus = func(float64) float64 { return 0 }
			}
			tl := k6Timeline(sh)
			if tc.shape.vus == nil {
				delete(tl.Sets, QVUs)
			}
			load, _, _ := AnalyzeLoad(tl, DefaultConfig)
			require.NotEmpty(t, load.Stages)
			for _, st := range load.Stages {
				require.Equal(t, tc.unit, st.Unit, "%+v", load.Stages)
			}
		})
	}
	t.Run("requests when the run has no iteration counter", func(t *testing.T) {
		t.Parallel()
		tl := k6Timeline(k6Shape{length: 5 * time.Minute, res: res, rate: arrival, vus: func(float64) float64 { return 20 }})
		delete(tl.Sets, QIterations)
		load, _, _ := AnalyzeLoad(tl, DefaultConfig)
		require.Len(t, load.Stages, 3)
		require.Equal(t, StageUnitRequests, load.Stages[0].Unit)
		require.Equal(t, "hold at 10 requests/s (inferred)", StageTarget(load.Stages[0].Stage))
	})
}

// TestInferredStagesAreJudged: capacity, verdicts, the load end and the texts work from
// inferred stages as from configured ones.
func TestInferredStagesAreJudged(t *testing.T) {
	t.Parallel()
	rate, _ := story1()
	tl := k6Timeline(k6Shape{length: 23 * time.Minute, res: 5 * time.Second, rate: rate, vus: func(float64) float64 { return 20 }, seed: 8,
		fail: func(s float64) float64 { return map[bool]float64{true: 0.05}[s > 16*60 && s < 21*60] }})
	load, events, _ := AnalyzeLoad(tl, DefaultConfig)
	require.Len(t, load.Stages, 7)
	require.Equal(t, []bool{true, true, true, true, true, false, true}, func() []bool {
		var held []bool
		for _, st := range load.Stages {
			held = append(held, st.Held)
		}
		return held
	}())
	require.Regexp(t, `^last stage that held: stage 4 \(default, hold at 30 iterations/s \(inferred\)\); first that broke: stage 6 \(default, hold at 50 iterations/s \(inferred\)\): error rate 4\.9\d?% > 1% \(default\)$`, load.Capacity.Text)
	require.WithinDuration(t, tl.Run.From.Add(21*time.Minute), load.LoadEnd, 5*time.Second)
	require.Contains(t, load.VerdictRule, "inferred")
	require.Equal(t, []string{"default"}, load.Scenarios)
	var starts int
	for _, e := range events {
		if e.Kind == EventStageStart {
			starts++
			require.Contains(t, e.Text, "(inferred)")
		}
	}
	require.Equal(t, 7, starts)
	// The whole run's requests are in the stages.
	var reqs float64
	for _, st := range load.Stages {
		reqs += st.Requests
	}
	require.InDelta(t, load.Requests, reqs, 0)
}

func TestParseStages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    []GivenStage
		wantErr string
	}{
		{in: "2m:10,30s:50,5m:50", want: []GivenStage{{2 * time.Minute, 10}, {30 * time.Second, 50}, {5 * time.Minute, 50}}},
		{in: " 1m30s : 5 , 1.5m:0", want: []GivenStage{{90 * time.Second, 5}, {90 * time.Second, 0}}},
		{in: "0s:20,1d12h:20,500ms:0", want: []GivenStage{{0, 20}, {36 * time.Hour, 20}, {500 * time.Millisecond, 0}}},
		{in: "", wantErr: "invalid stages: no stages; expected duration:target pairs such as 2m:10,30s:50"},
		{in: "2m", wantErr: `invalid stages: stage 1 "2m": no target; expected duration:target such as 30s:10`},
		{in: "2m:", wantErr: `invalid stages: stage 1 "2m:": no target; expected duration:target such as 30s:10`},
		{in: ":10", wantErr: `invalid stages: stage 1 ":10": no duration; expected duration:target such as 30s:10`},
		{in: "2m:10,,5m:50", wantErr: "invalid stages: stage 2 is empty; expected duration:target such as 30s:10"},
		{in: "2m:10,", wantErr: "invalid stages: stage 2 is empty; expected duration:target such as 30s:10"},
		{in: "2m:10,30:50", wantErr: `invalid stages: stage 2 "30:50": duration "30": missing unit; expected a duration such as 30s, 2m or 1m30s`},
		{in: "2x:10", wantErr: `invalid stages: stage 1 "2x:10": duration "2x": invalid duration; expected a duration such as 30s, 2m or 1m30s`},
		{in: "-1m:10", wantErr: `invalid stages: stage 1 "-1m:10": duration "-1m": negative duration; expected a duration such as 30s, 2m or 1m30s`},
		{in: "1m:1.5", wantErr: `invalid stages: stage 1 "1m:1.5": target "1.5": expected a whole number ≥ 0`},
		{in: "1m:-3", wantErr: `invalid stages: stage 1 "1m:-3": target "-3": expected a whole number ≥ 0`},
		{in: "1m:10:20", wantErr: `invalid stages: stage 1 "1m:10:20": target "10:20": expected a whole number ≥ 0`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseStages(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				require.ErrorIs(t, err, ErrStageSyntax)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestGivenStages: given stages replace inference (and the target series), are cut from
// the run's start at target 0, and are judged like configured ones.
func TestGivenStages(t *testing.T) {
	t.Parallel()
	rate, _ := story1()
	tl := k6Timeline(k6Shape{length: 23 * time.Minute, res: 5 * time.Second, rate: rate, vus: func(float64) float64 { return 20 }, seed: 9})
	gs, err := ParseStages("2m:10,5m:10,2m:30,5m:30,2m:50,5m:50,2m:0")
	require.NoError(t, err)
	cfg := DefaultConfig
	cfg.GivenStages, cfg.GivenStagesUnit = gs, StageUnitIterations
	load, _, notes := AnalyzeLoad(tl, cfg)
	require.Equal(t, StagesGiven, load.StagesSource)
	_, want := story1()
	require.Len(t, load.Stages, len(want))
	for i, w := range want {
		st := load.Stages[i]
		require.Equal(t, timeline.Window{From: tl.Run.From.Add(w.from), To: tl.Run.From.Add(w.to)}, st.Window, "stage %d", i)
		require.Equal(t, w.kind, st.Kind)
		require.InDelta(t, w.start, st.StartTarget, 0)
		require.InDelta(t, w.end, st.EndTarget, 0)
		require.False(t, st.Inferred)
		require.Equal(t, StageUnitIterations, st.Unit)
		require.True(t, st.Held, "stage %d: %s", i, st.Why)
		if st.TargetAvg >= 1 {
			require.NotNil(t, st.AchievedRatio, "stage %d: achieved-vs-target is judged", i)
		}
	}
	require.Equal(t, []time.Time{tl.Run.From, tl.Run.From.Add(7 * time.Minute), tl.Run.From.Add(14 * time.Minute)}, load.LoadSteps)
	require.Equal(t, tl.Run.From.Add(21*time.Minute), load.LoadEnd)
	for _, n := range notes {
		require.NotContains(t, n.Text, "inferred")
	}

	t.Run("the default unit is VUs, and a jump is no stage", func(t *testing.T) {
		t.Parallel()
		cfg := DefaultConfig
		cfg.GivenStages = []GivenStage{{0, 20}, {10 * time.Minute, 20}, {15 * time.Minute, 20}}
		load, _, notes := AnalyzeLoad(tl, cfg)
		require.Len(t, load.Stages, 2)
		require.Equal(t, StageUnitVUs, load.Stages[0].Unit)
		require.Equal(t, timeline.Hold, load.Stages[0].Kind)
		require.Equal(t, tl.Run.From, load.Stages[0].From)
		require.Equal(t, tl.Run.To, load.Stages[1].To, "cut at the run's end")
		require.Empty(t, load.LoadSteps)
		require.Contains(t, notes, Note{Level: NoteInfo, Section: "load", Text: "the given stages last 25m0s, longer than the run (23m0s): they are cut at the run's end"})
	})
	t.Run("stages shorter than the run", func(t *testing.T) {
		t.Parallel()
		cfg := DefaultConfig
		cfg.GivenStages = []GivenStage{{2 * time.Minute, 10}}
		_, _, notes := AnalyzeLoad(tl, cfg)
		require.Contains(t, notes, Note{Level: NoteInfo, Section: "load", Text: "the given stages last 2m0s, 21m0s less than the run: what came after them is in no stage"})
	})
}

// FuzzParseStages parses arbitrary stage texts: nothing may panic, an error wraps
// ErrStageSyntax, and parsed stages written back in k6's syntax parse to the same.
func FuzzParseStages(f *testing.F) {
	for _, s := range []string{"2m:10,30s:50,5m:50", " 1m30s : 5 , 1.5m:0", "0s:20,1d12h:20,500ms:0", "", "2m", "2m:10,,5m:50", "30:50", "1m:1.5", "-1m:1", "1m:10:20", "9999999999h:1", "1d:9007199254740993"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		gs, err := ParseStages(s)
		if err != nil {
			require.ErrorIs(t, err, ErrStageSyntax)
			require.Nil(t, gs)
			return
		}
		require.NotEmpty(t, gs)
		parts := make([]string, len(gs))
		for i, g := range gs {
			require.GreaterOrEqual(t, g.Duration, time.Duration(0))
			require.GreaterOrEqual(t, g.Target, 0.0)
			require.Equal(t, math.Trunc(g.Target), g.Target)
			parts[i] = fmt.Sprintf("%s:%d", g.Duration, int64(g.Target))
		}
		again, err := ParseStages(strings.Join(parts, ","))
		require.NoError(t, err)
		require.Equal(t, gs, again)
	})
}
