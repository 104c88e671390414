package slo

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

func vec(pods ...string) model.Vector {
	out := model.Vector{}
	for _, p := range pods {
		out = append(out, &model.Sample{Metric: model.Metric{"pod": model.LabelValue(p)}, Value: 0.5})
	}
	return out
}

// TestTrackerFor: an alert fires once its series was returned at every evaluation
// for `for`, as Prometheus decides; a gap resets it; keep_firing_for holds it.
func TestTrackerFor(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, tc := range []struct {
		name      string
		rule      Rule
		steps     []model.Vector // one per 5 s
		wantFired bool
		wantAt    int
		wantState string
		firings   int
	}{
		{name: "for 0 fires at once", rule: Rule{}, steps: []model.Vector{nil, vec("a")}, wantFired: true, wantAt: 10, wantState: StateFiring, firings: 1},
		{name: "for 10s needs three evaluations", rule: Rule{For: 10 * time.Second},
			steps: []model.Vector{vec("a"), vec("a"), vec("a")}, wantFired: true, wantAt: 15, wantState: StateFiring, firings: 1},
		{name: "a gap resets the pending alert", rule: Rule{For: 10 * time.Second},
			steps: []model.Vector{vec("a"), vec("a"), nil, vec("a"), vec("a")}, wantState: StatePending},
		{name: "resolved after firing", rule: Rule{}, steps: []model.Vector{vec("a"), nil}, wantFired: true, wantAt: 5, wantState: StateResolved, firings: 1},
		{name: "keep_firing_for holds it", rule: Rule{KeepFiringFor: 10 * time.Second}, steps: []model.Vector{vec("a"), nil}, wantFired: true, wantAt: 5, wantState: StateFiring, firings: 1},
		{name: "each label set fires", rule: Rule{}, steps: []model.Vector{vec("a"), vec("a", "b")}, wantFired: true, wantAt: 5, wantState: StateFiring, firings: 2},
		{name: "never returned", rule: Rule{For: 5 * time.Second}, steps: []model.Vector{nil, nil}, wantState: StateInactive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.rule.Name, tc.rule.Severity = "A", SeverityError
			tr := newTracker(tc.rule)
			for i, v := range tc.steps {
				tr.step(context.Background(), at(5*(i+1)), "x", v)
			}
			o := tr.out
			require.Equal(t, tc.wantFired, o.Fired)
			require.Equal(t, tc.wantState, o.State)
			require.Equal(t, tc.firings, o.Firings)
			require.Equal(t, len(tc.steps), o.Evaluations)
			if tc.wantFired {
				require.Equal(t, at(tc.wantAt), *o.FiredAt)
				require.Equal(t, map[string]string{"pod": "a"}, o.Labels)
				require.InDelta(t, 0.5, *o.Value, 0)
				require.True(t, o.Fatal())
			}
		})
	}
}

func TestOutcomeText(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	tr := newTracker(Rule{Name: "Throttled", Severity: SeverityError,
		Annotations: map[string]string{"summary": "{{ $labels.pod }} throttled in {{ $value | humanizePercentage }} of periods"}})
	tr.step(context.Background(), start.Add(12*time.Second), "x", model.Vector{{Metric: model.Metric{"pod": "api-1"}, Value: 0.625}})
	require.Equal(t, `fired 12s in: 0.625 {pod="api-1"}: api-1 throttled in 62.5% of periods`, tr.out.Text(start))
	idle := newTracker(Rule{Name: "Idle", Severity: SeverityWarning})
	idle.step(context.Background(), start, "x", nil)
	require.Equal(t, "did not fire (1 evaluations)", idle.out.Text(start))
	require.Equal(t, `Throttled (error) fired 12s in: 0.625 {pod="api-1"}: api-1 throttled in 62.5% of periods`,
		Describe(Failed([]Outcome{idle.out, tr.out}), start))
}

func TestEvaluationTimes(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	got := evaluationTimes(t0, t0.Add(12*time.Second), 5*time.Second)
	require.Equal(t, []time.Time{t0.Add(5 * time.Second), t0.Add(10 * time.Second), t0.Add(12 * time.Second)}, got)
	require.Equal(t, []time.Time{t0.Add(10 * time.Second)}, evaluationTimes(t0, t0.Add(10*time.Second), 10*time.Second))
}

// TestTrackerFiringSpans: the outcome keeps the spans over which the rule fired (a
// resolved alert ends one, a new firing starts another) and its state at every
// evaluation, 1 firing and 0 not.
func TestTrackerFiringSpans(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tr := newTracker(Rule{Name: "A", Severity: SeverityError, For: 5 * time.Second})
	for i, v := range []model.Vector{vec("a"), vec("a"), vec("a"), nil, vec("b"), vec("b")} {
		tr.step(context.Background(), at(5*(i+1)), "x", v)
	}
	o := tr.out
	require.Equal(t, []Interval{{From: at(10), To: at(15)}, {From: at(30), To: at(30)}}, o.Firing)
	var vs []float64
	for _, p := range o.Points {
		vs = append(vs, p.V)
	}
	require.Equal(t, []float64{0, 1, 1, 0, 0, 1}, vs)
	require.True(t, o.FiredBetween(at(12), at(20)))
	require.False(t, o.FiredBetween(at(16), at(29)))
	require.True(t, o.FiredBetween(at(30), at(40)))
}

// TestRecordedOutcomeSpans: a recorded rule fired from its first firing state on, and
// each run of firing states is one span of Firing; a rule never firing did not fire.
func TestRecordedOutcomeSpans(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	var o Outcome
	for i, v := range []float64{0, 1, 1, 0, 1} {
		o.add(Point{T: t0.Add(time.Duration(i) * 5 * time.Second), V: v})
	}
	require.True(t, o.Fired)
	require.Equal(t, t0.Add(5*time.Second), *o.FiredAt)
	require.Equal(t, []Interval{{From: t0.Add(5 * time.Second), To: t0.Add(10 * time.Second)}, {From: t0.Add(20 * time.Second), To: t0.Add(20 * time.Second)}}, o.Firing)
	require.Equal(t, StateFiring, o.State)
	require.Equal(t, 5, o.Evaluations)
	require.Equal(t, "fired 5s in", o.Text(t0))
	var quiet Outcome
	quiet.add(Point{T: t0, V: 0})
	require.False(t, quiet.Fired)
	require.Empty(t, quiet.Firing)
}
