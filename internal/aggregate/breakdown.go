package aggregate

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/metrics"
)

// Row is one combination of tag values of a Breakdown, with the merged series of each
// metric whose tags have exactly those values for the breakdown's keys.
type Row struct {
	// Tags are the combination's values in the order of the breakdown's keys; a key
	// none of the row's series has is left out (a series without a `name` tag falls in
	// the row without it, not in every row).
	Tags []metrics.Tag
	// Series holds each metric of the row by name; a metric without a series of the
	// combination is missing. Their Tags are nil.
	Series map[string]Series
	// Samples is the row's weight: the most samples any of its metrics got (a
	// counter's sum, a rate's total, a trend's count).
	Samples float64
}

// Breakdown groups the series of the metrics called names by the values of their tags
// keys, k6 sub-metrics that match exactly: a series tagged {name:/a,method:GET,status:200}
// falls in the row name=/a, method=GET when keys are name and method. It returns at most
// limit rows (the busiest, by Samples; limit ≤ 0 keeps them all), ordered by their
// tags, and how many combinations it saw.
//
// It reads the snapshot twice and builds histograms for the rows it keeps only, so
// memory grows with limit and with the number of series (which the Store caps), never
// with samples. Each trend row is one merged constant-memory histogram.
func (s *Snapshot) Breakdown(names, keys []string, limit int) (rows []Row, seen int) {
	if s == nil || len(keys) == 0 {
		return nil, 0
	}
	type acc struct {
		tags    []metrics.Tag
		samples []float64 // per name
		row     *Row      // set for the rows kept
	}
	combos := map[string]*acc{}
	var b strings.Builder
	project := func(tags *metrics.TagSet) (string, []metrics.Tag) {
		b.Reset()
		var out []metrics.Tag
		for _, k := range keys {
			v, ok := tags.Get(k)
			if !ok {
				b.WriteByte(0) // absent differs from every value (values are not empty)
				continue
			}
			b.WriteByte(1)
			b.WriteString(v)
			b.WriteByte(0)
			out = append(out, metrics.Tag{Key: k, Value: v})
		}
		return b.String(), out
	}
	for ni, name := range names {
		for i := range s.seriesOf(name) {
			se := &s.Series[i]
			key, tags := project(se.Tags)
			a := combos[key]
			if a == nil {
				a = &acc{tags: tags, samples: make([]float64, len(names))}
				combos[key] = a
			}
			a.samples[ni] += samplesOf(se.Values)
		}
	}
	all := make([]*acc, 0, len(combos))
	for _, a := range combos {
		all = append(all, a)
	}
	weight := func(a *acc) float64 { return slices.Max(a.samples) }
	slices.SortFunc(all, func(a, b *acc) int {
		return cmp.Or(cmp.Compare(weight(b), weight(a)), metrics.CompareTags(a.tags, b.tags))
	})
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	for _, a := range all {
		a.row = &Row{Tags: a.tags, Series: map[string]Series{}, Samples: weight(a)}
	}
	for _, name := range names {
		for i := range s.seriesOf(name) {
			se := &s.Series[i]
			key, _ := project(se.Tags)
			row := combos[key].row
			if row == nil {
				continue
			}
			out, ok := row.Series[name]
			if !ok {
				out = Series{Metric: se.Metric, First: se.First, Last: se.Last, Values: Values{Type: se.Type}}
				if se.Type == metrics.Trend {
					out.Trend = hist.New()
				}
			}
			out.merge(se.Values, !ok, !se.Last.Before(out.Last))
			if se.First.Before(out.First) {
				out.First = se.First
			}
			if se.Last.After(out.Last) {
				out.Last = se.Last
			}
			row.Series[name] = out
		}
	}
	rows = make([]Row, len(all))
	for i, a := range all {
		rows[i] = *a.row
	}
	slices.SortFunc(rows, func(a, b Row) int { return metrics.CompareTags(a.Tags, b.Tags) })
	return rows, len(combos)
}

// seriesOf returns the indexes of the series of the metric called name.
func (s *Snapshot) seriesOf(name string) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		lo, _ := slices.BinarySearchFunc(s.Series, name, func(se Series, n string) int { return strings.Compare(se.Metric.Name, n) })
		for i := lo; i < len(s.Series) && s.Series[i].Metric.Name == name; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

// samplesOf is how many samples reached a sink: a counter's sum (http_reqs adds 1 per
// request), a rate's total, a trend's count; a gauge counts as none.
func samplesOf(v Values) float64 {
	switch v.Type {
	case metrics.Counter:
		return v.Count
	case metrics.Rate:
		return float64(v.Total)
	case metrics.Trend:
		if v.Trend != nil {
			return float64(v.Trend.Count())
		}
	}
	return 0
}
