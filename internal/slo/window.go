package slo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/verdict"
)

// Span is a span of a past run to judge: the whole run, or one of its stages.
type Span struct {
	// Name says which, e.g. "run" or "stage 2 (steps)".
	Name string    `json:"name"`
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Outcomes are the rules' outcomes over the span, in the files' order.
	Outcomes []Outcome `json:"outcomes"`
}

// Report is the judgement of a past run by rules: over its window and per stage.
type Report struct {
	// Sources are the rule files (or builtin:NAME).
	Sources []string `json:"sources"`
	// Failed is set when an error or critical rule fired over the run (Err).
	Failed bool   `json:"failed"`
	Run    Span   `json:"run"`
	Stages []Span `json:"stages,omitempty"`
}

// Err is the report's verdict: of kind verdict.ErrThresholds (exit code 99) when an
// error or critical rule fired over the run, an error naming the rules that could not
// be evaluated when such a rule's queries failed, else nil.
func (r *Report) Err() error {
	if r == nil {
		return nil
	}
	if failed := Failed(r.Run.Outcomes); len(failed) > 0 {
		return verdict.As(verdict.ErrThresholds, fmt.Errorf("server-side rules fired: %s", Describe(failed, r.Run.From)))
	}
	var errs []error
	for _, o := range r.Run.Outcomes {
		if o.Errors > 0 && o.Severity != SeverityWarning {
			errs = append(errs, fmt.Errorf("rule %s: %d of %d evaluations failed: %s", o.Alert, o.Errors, o.Evaluations, o.LastError))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("judge the run by its server-side rules: %w", errors.Join(errs...))
	}
	return nil
}

// Judge judges a past run (run window, and each stage) by rs: every rule evaluated
// every interval of its group (default DefaultInterval) from the span's start to its
// end, with Prometheus' `for` semantics, and once at the end. vars give testid and
// namespace; elapsed runs from the start of each span.
func (rs *Rules) Judge(ctx context.Context, q query.Querier, vars Vars, run Span, stages []Span) (*Report, error) {
	rep := &Report{Sources: rs.Sources, Run: run}
	var err error
	if rep.Run.Outcomes, err = rs.JudgeSpan(ctx, q, vars, run.From, run.To); err != nil {
		return nil, err
	}
	for _, st := range stages {
		if st.Outcomes, err = rs.JudgeSpan(ctx, q, vars, st.From, st.To); err != nil {
			return nil, err
		}
		rep.Stages = append(rep.Stages, st)
	}
	rep.Failed = len(Failed(rep.Run.Outcomes)) > 0
	return rep, nil
}

// JudgeSpan evaluates every rule over [from, to] as a Prometheus server would have:
// at every interval of its group after from, and at to. A rule without {{ .elapsed }}
// is read with one range query; one with it, with an instant query per evaluation.
// Failed queries are counted in the outcomes; only the context's end is an error.
func (rs *Rules) JudgeSpan(ctx context.Context, q query.Querier, vars Vars, from, to time.Time) ([]Outcome, error) {
	ts := make([]*tracker, 0, len(rs.Rules))
	for _, r := range rs.Rules {
		t := newTracker(r)
		ts = append(ts, t)
		every := r.Every(0)
		times := evaluationTimes(from, to, every)
		v := vars
		v.Interval = every
		if usesVar(r.Expr, "elapsed") {
			for _, at := range times {
				v.Elapsed = max(at.Sub(from), every)
				if _, err := t.evaluate(ctx, q, at, v); err != nil && ctx.Err() != nil {
					return nil, ctx.Err()
				}
			}
			continue
		}
		if err := t.rangeEvaluate(ctx, q, times, v); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return outcomes(ts), nil
}

// evaluationTimes are from+every, from+2·every, … up to to, and to.
func evaluationTimes(from, to time.Time, every time.Duration) []time.Time {
	var out []time.Time
	for at := from.Add(every); at.Before(to); at = at.Add(every) {
		out = append(out, at)
	}
	if !to.Before(from) {
		out = append(out, to)
	}
	return out
}

// rangeEvaluate reads the rule's results at times (evenly spaced but for the last)
// with one range query, and steps the tracker through them in order.
func (t *tracker) rangeEvaluate(ctx context.Context, q query.Querier, times []time.Time, v Vars) error {
	if len(times) == 0 {
		return nil
	}
	expr := t.rule.Render(v)
	t.vars = v
	step := v.Interval
	regular := times
	if len(times) > 1 && times[len(times)-1].Sub(times[len(times)-2]) != step {
		regular = times[:len(times)-1]
	}
	val, _, err := q.QueryRange(ctx, expr, v1.Range{Start: regular[0], End: regular[len(regular)-1], Step: step})
	if err != nil {
		for range times {
			t.fail(expr, err)
		}
		return err
	}
	m, ok := val.(model.Matrix)
	if !ok && val != nil {
		err := fmt.Errorf("expected a range vector, got a %s", val.Type())
		t.fail(expr, err)
		return err
	}
	// The server's steps are the regular times, to the millisecond it rounds them to.
	byStep := make([]model.Vector, len(regular))
	for _, s := range m {
		for _, p := range s.Values {
			i := int(math.Round(float64(p.Timestamp.Time().Sub(regular[0])) / float64(step)))
			if i >= 0 && i < len(byStep) {
				byStep[i] = append(byStep[i], &model.Sample{Metric: s.Metric, Value: p.Value, Timestamp: p.Timestamp})
			}
		}
	}
	for i, at := range regular {
		t.step(ctx, at, expr, byStep[i])
	}
	if len(regular) < len(times) {
		last := times[len(times)-1]
		if _, err := t.evaluate(ctx, q, last, v); err != nil {
			return err
		}
	}
	return nil
}

// StagesFailed lists, per stage, the rules that fired in it and fail a run.
func (r *Report) StagesFailed() map[string][]Outcome {
	out := map[string][]Outcome{}
	for _, st := range r.Stages {
		if f := Failed(st.Outcomes); len(f) > 0 {
			out[st.Name] = f
		}
	}
	return out
}

// Sorted returns outcomes with those that fired first, most severe first.
func Sorted(os []Outcome) []Outcome {
	out := slices.Clone(os)
	rank := func(o Outcome) int {
		if !o.Fired {
			return 0
		}
		return 1 + slices.Index(Severities(), o.Severity)
	}
	slices.SortStableFunc(out, func(a, b Outcome) int { return rank(b) - rank(a) })
	return out
}
