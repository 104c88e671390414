package correlator

import (
	"context"
	"errors"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
	"github.com/tidemark/tidemark/internal/webvital"
)

// webVitals reads each Web Vital's quantiles (analysis.WebVitalQuantiles) over the run
// and over each stage from its native histogram into the timeline
// (analysis.WebVitalSet), with the catalog's per-stage trend queries and no scenario
// matcher: the browser VUs run in a scenario of their own, and a stage's vitals are the
// page loads made while the stage's load ran. A vital without a histogram gets no set;
// analysis.AnalyzeWebVitals then reads its cumulative gauges.
func (c *Correlator) webVitals(ctx context.Context, tl *timeline.Timeline, vars query.Vars, load analysis.Load) (*analysis.WebVitals, error) {
	if _, ok := c.cat.Queries[stageTrendQuantile]; !ok {
		return analysis.AnalyzeWebVitals(tl, load), nil // a catalog from before per-stage trends
	}
	res := tl.Res(analysis.SourceK6)
	// instant reads one quantile over the window ending at, or false.
	instant := func(v webvital.Vital, q float64, w timeline.Window) (float64, bool, error) {
		qv := vars
		qv.Range, qv.Quantile, qv.Metric = w.Duration()+res, q, histogramOf(v)
		qv.Match = map[string]string{}
		name := stageTrendQuantile
		if _, ok := c.cat.Queries[name+fromStart]; ok && !w.From.After(tl.Run.From) {
			name += fromStart
		}
		r, err := c.runner.Instant(ctx, name, qv, w.To)
		if errors.Is(err, query.ErrUnavailable) {
			return 0, false, err
		}
		// Any other failure (an older Prometheus without native histograms) is no
		// histogram: the cumulative gauges then answer.
		ok := err == nil && len(r.Set) > 0 && !r.Set[0].Empty()
		if !ok {
			return 0, false, nil
		}
		return r.Set[0].Points[0].V, true, nil
	}
	browser := analysis.BrowserScenarios(tl)
	for _, v := range webvital.Vitals() {
		for _, q := range analysis.WebVitalQuantiles() {
			x, ok, err := instant(v, q, tl.Run)
			if err != nil {
				return nil, err
			}
			if !ok {
				break // no histogram of this vital
			}
			point(tl, analysis.WebVitalSet(v.Metric, q, -1), tl.Run.To, x)
			for _, st := range load.Stages {
				if st.Duration() <= 0 || browser[st.Scenario] {
					continue
				}
				x, ok, err := instant(v, q, st.Window)
				if err != nil {
					return nil, err
				}
				if ok {
					point(tl, analysis.WebVitalSet(v.Metric, q, st.Index), st.To, x)
				}
			}
		}
	}
	return analysis.AnalyzeWebVitals(tl, load), nil
}

// histogramOf is the native histogram k6 writes for a vital: _seconds for the time
// trends, bare for CLS (reference/k6.md §1.4).
func histogramOf(v webvital.Vital) string {
	if v.Timed {
		return "k6_" + v.Metric + "_seconds"
	}
	return "k6_" + v.Metric
}

// point stores one value as a one-point set.
func point(tl *timeline.Timeline, name string, at time.Time, v float64) {
	tl.Sets[name] = timeline.Set{{Labels: map[string]string{}, Points: []timeline.Point{{T: at, V: v}}}}
}
