package loadtest

import (
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/threshold"
)

// results writes every threshold's latest outcome as two gauges
// (series.ThresholdResultMetric and series.ThresholdResultPassMetric) into the run's samples,
// so remote write sends them with the run's series at every push and a dashboard can
// show when a threshold failed.
type results struct {
	value, pass *metrics.Metric
	pool        *metrics.TagPool
	tags        map[*threshold.Threshold]*metrics.TagSet
}

// newResults registers the two gauges in reg.
func newResults(reg *metrics.Registry) (*results, error) {
	value, err := reg.New(series.ThresholdResultMetric, metrics.Gauge, metrics.Default)
	if err != nil {
		return nil, err
	}
	pass, err := reg.New(series.ThresholdResultPassMetric, metrics.Gauge, metrics.Default)
	if err != nil {
		return nil, err
	}
	return &results{value: value, pass: pass, pool: metrics.NewTagPool(), tags: map[*threshold.Threshold]*metrics.TagSet{}}, nil
}

// samples returns the gauges of res at now: a pass sample for every threshold judged
// (skipped ones have none yet) and a value sample for those with a value. runTags are
// the run's tags (testid included).
func (rs *results) samples(res *threshold.Result, runTags *metrics.TagSet, now time.Time) []metrics.Sample {
	out := make([]metrics.Sample, 0, 2*len(res.Outcomes))
	for _, o := range res.Outcomes {
		if o.Skipped {
			continue
		}
		th := o.Threshold
		tags := rs.tags[th]
		if tags == nil {
			window := ""
			if th.Window > 0 {
				window = threshold.FormatWindow(th.Window)
			}
			tags = rs.pool.With(runTags,
				metrics.Tag{Key: "metric", Value: th.Key.Name},
				metrics.Tag{Key: "threshold", Value: strings.TrimSpace(th.Expr.Source)},
				metrics.Tag{Key: series.ThresholdWindowLabel, Value: window})
			rs.tags[th] = tags
		}
		pass := 0.0
		if o.Passed {
			pass = 1
		}
		out = append(out, metrics.Sample{Metric: rs.pass, Tags: tags, Time: now, Value: pass})
		if o.HasValue {
			out = append(out, metrics.Sample{Metric: rs.value, Tags: tags, Time: now, Value: o.Value})
		}
	}
	return out
}
