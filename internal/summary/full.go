package summary

import (
	"cmp"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
)

// fullSections are what k6's full summary mode adds after TOTAL RESULTS: a `█ GROUP:`
// section per group of the root group, then a `█ SCENARIO:` section per scenario, each
// with the checks and the metrics of its own samples (categorized as in TOTAL
// RESULTS, compact's hidden metrics included) and its sub-groups nested under it as
// `↳ GROUP:`. Groups and scenarios come in the order the run first saw them.
func (r *report) fullSections(p palette) ([]section, error) {
	var out []section
	root := aggregate.GroupTree(r.in.Snapshot, false)
	for _, g := range root.Groups {
		lines, err := r.groupLines(p, g, "", 2)
		if err != nil {
			return nil, err
		}
		if len(lines) > 0 {
			out = append(out, section{"GROUP: " + g.Name, lines})
		}
	}
	for _, name := range r.scenarios() {
		lines, err := r.scenarioLines(p, name)
		if err != nil {
			return nil, err
		}
		if len(lines) > 0 {
			out = append(out, section{"SCENARIO: " + name, lines})
		}
	}
	return out, nil
}

// scenarioLines are the lines of one scenario's section: its samples outside any
// group, then each of its groups nested.
func (r *report) scenarioLines(p palette, name string) ([]string, error) {
	inScenario := func(t *metrics.TagSet) bool {
		v, ok := t.Get("scenario")
		return ok && v == name
	}
	lines, err := r.scopeLines(p, 2, func(t *metrics.TagSet) bool {
		g, _ := t.Get("group")
		return inScenario(t) && g == ""
	})
	if err != nil {
		return nil, err
	}
	sub, err := r.scope(inScenario)
	if err != nil {
		return nil, err
	}
	for _, g := range aggregate.GroupTree(sub.in.Snapshot, false).Groups {
		gl, err := r.groupLines(p, g, name, 3)
		if err != nil {
			return nil, err
		}
		if len(gl) > 0 {
			lines = append(lines, indent(2)+"↳ GROUP: "+g.Name+" \n")
			lines = append(lines, gl...)
		}
	}
	return lines, nil
}

// groupLines are the lines of group g at level: its own samples (of scenario sc when
// set), then its sub-groups nested one level deeper.
func (r *report) groupLines(p palette, g *aggregate.Group, sc string, level int) ([]string, error) {
	lines, err := r.scopeLines(p, level, func(t *metrics.TagSet) bool {
		if v, _ := t.Get("group"); v != g.Path {
			return false
		}
		v, _ := t.Get("scenario")
		return sc == "" || v == sc
	})
	if err != nil {
		return nil, err
	}
	for _, sub := range g.Groups {
		sl, err := r.groupLines(p, sub, sc, level+1)
		if err != nil {
			return nil, err
		}
		if len(sl) > 0 {
			lines = append(lines, indent(level)+"↳ GROUP: "+sub.Name+" \n")
			lines = append(lines, sl...)
		}
	}
	return lines, nil
}

// scopeLines renders the checks and metrics of the samples whose tags keep accepts.
func (r *report) scopeLines(p palette, level int, keep func(*metrics.TagSet) bool) ([]string, error) {
	s, err := r.scope(keep)
	if err != nil {
		return nil, err
	}
	return append(s.checkLines(p, level), s.metricLines(p, level)...), nil
}

// scope is the report of the series whose tags keep accepts, without thresholds or
// stages: the numbers of one group or scenario.
func (r *report) scope(keep func(*metrics.TagSet) bool) (*report, error) {
	var series []aggregate.Series
	for _, se := range r.in.Snapshot.Series {
		if se.Tags != nil && keep(se.Tags) {
			series = append(series, se)
		}
	}
	in := r.in
	in.Snapshot = &aggregate.Snapshot{Time: r.in.Snapshot.Time, Series: series}
	in.Thresholds, in.ThresholdSet, in.Stages, in.StageResults, in.Trends = nil, nil, nil, nil, nil
	in.noBreakdown = true
	return newReport(in)
}

// scenarios are the scenario tags of the run's samples, in the order first seen.
func (r *report) scenarios() []string {
	first := map[string]time.Time{}
	for _, se := range r.in.Snapshot.Series {
		if se.Tags == nil {
			continue
		}
		if v, ok := se.Tags.Get("scenario"); ok && v != "" {
			if t, seen := first[v]; !seen || se.First.Before(t) {
				first[v] = se.First
			}
		}
	}
	names := make([]string, 0, len(first))
	for n := range first {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(first[a].Compare(first[b]), cmp.Compare(a, b)) })
	return names
}
