package slo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/verdict"
)

// InstantQuerier runs instant PromQL queries; internal/query's Querier is one.
type InstantQuerier interface {
	Query(ctx context.Context, expr string, ts time.Time) (model.Value, v1.Warnings, error)
}

// Recorded reads the server-side rules a run was judged by from the series it wrote,
// series.SLORuleFiringMetric between from and to: one outcome per alertname and
// severity, from the live judge (`tidemark run --slo`) when the run has one, else from
// `tidemark correlate --slo`. Over several instances (a distributed run), a rule fired
// at a time when any instance read it firing. A run judged by no rules has none.
func Recorded(ctx context.Context, q InstantQuerier, testID string, from, to time.Time) ([]Outcome, error) {
	rng := max(to.Sub(from), time.Second)
	expr := fmt.Sprintf(`%s{testid=%q}[%s]`, series.SLORuleFiringMetric, testID, model.Duration(rng.Round(time.Millisecond)+time.Millisecond))
	v, _, err := q.Query(ctx, expr, to)
	if err != nil {
		return nil, fmt.Errorf("read the server-side rules of %q: %w", testID, err)
	}
	m, _ := v.(model.Matrix)
	type key struct{ alert, severity string }
	byJudge := map[string]map[key]map[time.Time]float64{}
	for _, s := range m {
		judge := string(s.Metric["judge"])
		k := key{string(s.Metric["alertname"]), string(s.Metric["severity"])}
		if byJudge[judge] == nil {
			byJudge[judge] = map[key]map[time.Time]float64{}
		}
		pts := byJudge[judge][k]
		if pts == nil {
			pts = map[time.Time]float64{}
			byJudge[judge][k] = pts
		}
		for _, p := range s.Values {
			t := p.Timestamp.Time()
			pts[t] = max(pts[t], float64(p.Value))
		}
	}
	rules := byJudge["live"]
	if rules == nil {
		rules = byJudge["correlate"]
	}
	out := make([]Outcome, 0, len(rules))
	for k, pts := range rules {
		o := Outcome{Alert: k.alert, Severity: k.severity, State: StateInactive}
		for _, t := range slices.SortedFunc(maps.Keys(pts), time.Time.Compare) {
			o.add(Point{T: t, V: pts[t]})
		}
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Outcome) int {
		return cmp.Or(strings.Compare(a.Alert, b.Alert), strings.Compare(a.Severity, b.Severity))
	})
	return out, nil
}

// add appends a recorded point: a run of firing points is one span of Firing.
func (o *Outcome) add(p Point) {
	o.Points = append(o.Points, p)
	o.Evaluations++
	if p.V < 1 {
		if o.State == StateFiring {
			o.State = StateResolved
		}
		return
	}
	if !o.Fired {
		o.Fired, o.FiredAt, o.Firings = true, &p.T, 1
	}
	if o.State == StateFiring {
		o.Firing[len(o.Firing)-1].To = p.T
	} else {
		o.Firing = append(o.Firing, Interval{From: p.T, To: p.T})
	}
	o.State = StateFiring
}

// SummaryRules are outcomes as the summary shows them (its SERVER-SIDE RULES section
// and the STAGES rows they fired in), their times counted from start.
func SummaryRules(outs []Outcome, start time.Time) []summary.Rule {
	rules := make([]summary.Rule, 0, len(outs))
	for _, o := range outs {
		r := summary.Rule{Name: o.Alert, Severity: o.Severity, Fired: o.Fired, Text: o.Text(start)}
		for _, iv := range o.Firing {
			r.Firing = append(r.Firing, summary.Interval{From: iv.From, To: iv.To})
		}
		rules = append(rules, r)
	}
	return rules
}

// Verdict is nil, or verdict.ErrThresholds naming the rules of outs that fail a run
// (error and critical rules that fired).
func Verdict(outs []Outcome, start time.Time) error {
	if msg := failedMessage(outs, start); msg != "" {
		return verdict.As(verdict.ErrThresholds, errors.New(msg))
	}
	return nil
}

// failedMessage says which rules of outs fail a run, or is "".
func failedMessage(outs []Outcome, start time.Time) string {
	failed := Failed(outs)
	if len(failed) == 0 {
		return ""
	}
	return "server-side rules fired: " + Describe(failed, start)
}
