package slo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/template"

	"github.com/tidemark/tidemark/internal/query"
)

// The states of a rule at the end of what was judged, as Prometheus names an alert's
// (plus resolved: it fired, then its expression stopped returning the series).
const (
	StateInactive = "inactive"
	StatePending  = "pending"
	StateFiring   = "firing"
	StateResolved = "resolved"
)

// Outcome is how one rule went over what was judged.
type Outcome struct {
	Group    string `json:"group"`
	Alert    string `json:"alert"`
	Severity string `json:"severity"`
	// File and Line are where the rule is.
	File string `json:"file"`
	Line int    `json:"line"`
	// Expr is the expression as last evaluated, its variables expanded.
	Expr string `json:"expr"`
	// State is the rule's state at the last evaluation (State*).
	State string `json:"state"`
	// Fired is set when an alert of the rule fired (its expression returned the
	// series for its whole `for`) at any evaluation.
	Fired bool `json:"fired"`
	// FiredAt is when it first fired; Value and Labels are that series' value and
	// labels then, Summary its summary (else description) annotation.
	FiredAt *time.Time        `json:"fired_at,omitempty"`
	Value   *float64          `json:"value,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Summary string            `json:"summary,omitempty"`
	// Firings counts the alerts (label sets) that fired.
	Firings int `json:"firings"`
	// Evaluations counts the evaluations, Errors those whose query failed (LastError
	// says why).
	Evaluations int    `json:"evaluations"`
	Errors      int    `json:"errors,omitempty"`
	LastError   string `json:"last_error,omitempty"`
	// Firing are the spans over which an alert of the rule fired: from the first
	// evaluation that found it firing to the last one, in order.
	Firing []Interval `json:"firing,omitempty"`
	// Points are the rule's state at each evaluation that could be made, 1 firing
	// and 0 not (the series tidemark_slo_rule_firing of a past run's judgement).
	Points []Point `json:"-"`
}

// Interval is a span of time.
type Interval struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Point is a rule's state at one evaluation: V is 1 while an alert fires, else 0.
type Point struct {
	T time.Time
	V float64
}

// FiredBetween reports whether an alert of the rule fired at some evaluation in
// [from, to].
func (o Outcome) FiredBetween(from, to time.Time) bool {
	return slices.ContainsFunc(o.Firing, func(iv Interval) bool { return !iv.From.After(to) && !iv.To.Before(from) })
}

// Fatal reports whether the outcome fails the run: an error or critical rule fired.
func (o Outcome) Fatal() bool { return o.Fired && o.Severity != SeverityWarning }

// Text is one line about the outcome, e.g. "fired 12s in: 0.62 {pod="api-1"}".
func (o Outcome) Text(start time.Time) string {
	if !o.Fired {
		s := fmt.Sprintf("did not fire (%d evaluations", o.Evaluations)
		if o.State == StatePending {
			s += ", pending at the end"
		}
		if o.Errors > 0 {
			s += fmt.Sprintf(", %d failed: %s", o.Errors, o.LastError)
		}
		return s + ")"
	}
	var b strings.Builder
	b.WriteString("fired")
	if o.FiredAt != nil && !start.IsZero() {
		fmt.Fprintf(&b, " %s in", o.FiredAt.Sub(start).Round(time.Second))
	}
	if o.Value != nil {
		fmt.Fprintf(&b, ": %s", model.SampleValue(*o.Value))
	}
	if len(o.Labels) > 0 {
		b.WriteString(" " + toLabelSet(o.Labels).String())
	}
	if o.Firings > 1 {
		fmt.Fprintf(&b, " (and %d more)", o.Firings-1)
	}
	if o.Summary != "" {
		b.WriteString(": " + o.Summary)
	}
	return b.String()
}

func toLabelSet(m map[string]string) model.LabelSet {
	out := model.LabelSet{}
	for k, v := range m {
		out[model.LabelName(k)] = model.LabelValue(v)
	}
	return out
}

// alert is one label set of a rule's result, as Prometheus tracks it.
type alert struct {
	activeAt, lastSeen time.Time
	fired              bool
}

// tracker evaluates one rule over time with Prometheus' semantics: a series returned
// at consecutive evaluations for `for` fires; one no longer returned resolves (after
// keep_firing_for).
type tracker struct {
	rule   Rule
	vars   Vars // of the evaluation being stepped, for the annotations
	active map[model.Fingerprint]*alert
	out    Outcome
	// firingLast is set when an alert fired at the last evaluation.
	firingLast bool
}

func newTracker(r Rule) *tracker {
	return &tracker{rule: r, active: map[model.Fingerprint]*alert{},
		out: Outcome{Group: r.Group, Alert: r.Name, Severity: r.Severity, File: r.File, Line: r.Line, State: StateInactive}}
}

// fail records an evaluation whose query failed: the alerts keep their state, as in
// Prometheus.
func (t *tracker) fail(expr string, err error) {
	t.out.Expr = expr
	t.out.Evaluations++
	t.out.Errors++
	t.out.LastError = err.Error()
}

// step records the result of an evaluation at `at`; it reports whether an alert fired.
func (t *tracker) step(ctx context.Context, at time.Time, expr string, vec model.Vector) bool {
	t.out.Expr = expr
	t.out.Evaluations++
	fired := false
	seen := map[model.Fingerprint]bool{}
	for _, s := range vec {
		fp := s.Metric.Fingerprint()
		seen[fp] = true
		a := t.active[fp]
		if a == nil {
			a = &alert{activeAt: at}
			t.active[fp] = a
		}
		a.lastSeen = at
		if a.fired || at.Sub(a.activeAt) < t.rule.For {
			continue
		}
		a.fired, fired = true, true
		t.out.Firings++
		if t.out.Fired {
			continue
		}
		t.out.Fired = true
		when := at
		t.out.FiredAt = &when
		if v := float64(s.Value); !math.IsNaN(v) && !math.IsInf(v, 0) {
			t.out.Value = &v
		}
		labels := map[string]string{}
		for k, v := range s.Metric {
			if k != model.MetricNameLabel {
				labels[string(k)] = string(v)
			}
		}
		t.out.Labels = labels
		t.out.Summary = t.annotation(ctx, labels, float64(s.Value), at)
	}
	for fp, a := range t.active {
		if !seen[fp] && (!a.fired || at.Sub(a.lastSeen) >= t.rule.KeepFiringFor) {
			delete(t.active, fp)
		}
	}
	t.out.State = t.state()
	t.record(at)
	return fired
}

// record adds the state at `at` to the outcome's points and firing spans.
func (t *tracker) record(at time.Time) {
	firing := t.out.State == StateFiring
	v := 0.0
	if firing {
		v = 1
		if n := len(t.out.Firing); n > 0 && t.firingLast {
			t.out.Firing[n-1].To = at
		} else {
			t.out.Firing = append(t.out.Firing, Interval{From: at, To: at})
		}
	}
	t.firingLast = firing
	t.out.Points = append(t.out.Points, Point{T: at, V: v})
}

func (t *tracker) state() string {
	st := StateInactive
	for _, a := range t.active {
		if a.fired {
			return StateFiring
		}
		st = StatePending
	}
	if st == StateInactive && t.out.Fired {
		return StateResolved
	}
	return st
}

// annotation renders the rule's summary (else description) annotation for one alert
// with Prometheus' alert template data ($labels, $value); a template that fails is
// shown as written.
func (t *tracker) annotation(ctx context.Context, labels map[string]string, value float64, at time.Time) string {
	text := t.rule.Annotations["summary"]
	if text == "" {
		text = t.rule.Annotations["description"]
	}
	if text == "" {
		return ""
	}
	defs := "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}"
	noQuery := func(context.Context, string, time.Time) (promql.Vector, error) {
		return nil, errors.New("query is not available in tidemark's annotations")
	}
	exp := template.NewTemplateExpander(ctx, defs+expand(text, t.vars), "__alert_"+t.rule.Name,
		template.AlertTemplateData(labels, nil, "", promql.Sample{F: value}), model.TimeFromUnixNano(at.UnixNano()), noQuery, nil, nil)
	out, err := exp.Expand()
	if err != nil {
		return text
	}
	return strings.TrimSpace(out)
}

// evaluate runs the rule's expression at `at` (an instant query) and steps the tracker.
func (t *tracker) evaluate(ctx context.Context, q query.Querier, at time.Time, v Vars) (bool, error) {
	expr := t.rule.Render(v)
	t.vars = v
	val, _, err := q.Query(ctx, expr, at)
	if err != nil {
		t.fail(expr, err)
		return false, fmt.Errorf("evaluate rule %s: %w", t.rule.Name, err)
	}
	vec, err := asVector(val)
	if err != nil {
		t.fail(expr, err)
		return false, fmt.Errorf("evaluate rule %s: %w", t.rule.Name, err)
	}
	return t.step(ctx, at, expr, vec), nil
}

// asVector is an instant result as a vector: a scalar is one series without labels.
func asVector(v model.Value) (model.Vector, error) {
	switch v := v.(type) {
	case model.Vector:
		return v, nil
	case *model.Scalar:
		return model.Vector{{Metric: model.Metric{}, Value: v.Value, Timestamp: v.Timestamp}}, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("expected an instant vector, got a %s", v.Type())
}

// outcomes are the trackers' outcomes in the rules' order.
func outcomes(ts []*tracker) []Outcome {
	out := make([]Outcome, 0, len(ts))
	for _, t := range ts {
		o := t.out
		o.Labels = maps.Clone(o.Labels)
		o.Firing = slices.Clone(o.Firing)
		o.Points = slices.Clone(o.Points)
		out = append(out, o)
	}
	return out
}

// Failed returns the outcomes that fail the run (error or critical rules that fired).
func Failed(os []Outcome) []Outcome {
	return slices.DeleteFunc(slices.Clone(os), func(o Outcome) bool { return !o.Fatal() })
}

// Describe is a one-line account of failed outcomes for an error message.
func Describe(os []Outcome, start time.Time) string {
	parts := make([]string, 0, len(os))
	for _, o := range os {
		parts = append(parts, fmt.Sprintf("%s (%s) %s", o.Alert, o.Severity, o.Text(start)))
	}
	return strings.Join(parts, "; ")
}
