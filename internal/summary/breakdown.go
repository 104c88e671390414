package summary

import (
	"fmt"
	"strings"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
)

// BreakdownMetrics are the metrics the summary breakdown (scenario.Test's
// SummaryBreakdown) splits into a row per combination of tag values.
func BreakdownMetrics() []string {
	return []string{"http_req_duration", "http_req_failed", "http_reqs"}
}

// breakdownInfo is what the breakdown did: its keys and cap, the rows it added and the
// combinations it saw.
type breakdownInfo struct {
	Tags         []string `json:"tags"`
	Limit        int      `json:"limit"`
	Rows         int      `json:"rows"`
	Combinations int      `json:"combinations"`
}

// capped reports whether rows were left out.
func (b *breakdownInfo) capped() bool { return b != nil && b.Combinations > b.Rows }

// note is the line that says rows were left out, or "".
func (b *breakdownInfo) note() string {
	if !b.capped() {
		return ""
	}
	return fmt.Sprintf("breakdown capped at %d rows (the busiest); %d tag combinations seen (raise --summary-breakdown-limit, or set a name tag on requests whose URLs hold ids)",
		b.Limit, b.Combinations)
}

// RowKey is the metric key of one breakdown row, as k6 names a sub-metric:
// `http_req_duration{name:/api/x,method:GET}`, the tags in the breakdown's order. A
// row without any of the keys is `name{}`.
func RowKey(name string, tags []metrics.Tag) string {
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = t.Key + ":" + t.Value
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

// addBreakdown adds the breakdown's rows as sub-metric entries, when the test asks for
// one. Rows are exact groups of series (aggregate.Snapshot.Breakdown), not k6's
// superset match: a series counts in one row only. A key that a threshold already
// names keeps the threshold's entry.
func (r *report) addBreakdown() error {
	t := r.in.Test
	if t == nil || len(t.SummaryBreakdown) == 0 || r.in.noBreakdown {
		return nil
	}
	rows, seen := r.in.Snapshot.Breakdown(BreakdownMetrics(), t.SummaryBreakdown, t.BreakdownLimit())
	r.breakdown = &breakdownInfo{Tags: t.SummaryBreakdown, Limit: t.BreakdownLimit(), Rows: len(rows), Combinations: seen}
	for _, row := range rows {
		for _, name := range BreakdownMetrics() {
			se, ok := row.Series[name]
			given := se.Type == metrics.Trend && r.in.Trends != nil
			if !ok || (se.Empty() && !given) {
				continue
			}
			key := RowKey(name, row.Tags)
			if _, dup := r.byKey[key]; dup {
				continue
			}
			e := &entry{key: key, metric: se.Metric, vals: se.Values, has: true}
			if given {
				// The snapshot's trends are empty: their values come from Input.Trends
				// (`tidemark summarize`), which may not have this row.
				e.values = r.givenTrend(se.Metric, r.in.Trends[key])
			} else {
				v, err := r.k6Values(se.Metric, se.Values)
				if err != nil {
					return fmt.Errorf("summarize %s: %w", key, err)
				}
				e.values = v
			}
			r.entries = append(r.entries, e)
			r.byKey[key] = e
		}
	}
	return nil
}

// BreakdownKeys returns the metric keys (RowKey) of the trend rows of snap's breakdown
// by keys: what `tidemark summarize` computes trend stats for, from the series of every
// instance whose labels contain the row's tags. Rows whose series lack one of keys are
// left out (their summary shows n/a): as a sub-metric, `{method:GET}` would match every
// GET, not only those without a name.
func BreakdownKeys(snap *aggregate.Snapshot, keys []string, limit int) []string {
	rows, _ := snap.Breakdown(BreakdownMetrics(), keys, limit)
	var out []string
	for _, row := range rows {
		if len(row.Tags) < len(keys) {
			continue
		}
		for _, name := range BreakdownMetrics() {
			if se, ok := row.Series[name]; ok && se.Type == metrics.Trend {
				out = append(out, RowKey(name, row.Tags))
			}
		}
	}
	return out
}
