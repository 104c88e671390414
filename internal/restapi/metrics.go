package restapi

import (
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
)

// Metric is one entry of /v1/metrics, in k6's units: time values in milliseconds.
type Metric struct {
	// Name is the id: a metric name, or a submetric as "name{key:value}".
	Name string
	// Type is "counter", "gauge", "rate" or "trend"; Contains "default", "time" or "data".
	Type, Contains string
	// Tainted is nil when the metric has no threshold, else whether one failed.
	Tainted *bool
	// Sample holds k6's fields for the type: count and rate (per second) for a counter,
	// value for a gauge, rate for a rate, avg, max, med, min, p(90) and p(95) for a trend.
	Sample map[string]float64
}

// MetricsSource is the optional capability behind /v1/metrics. Without it the list
// is empty.
type MetricsSource interface {
	// Metrics returns the run's metrics now. The handler does not retain the slice.
	Metrics() []Metric
}

// expectedSubmetric is the submetric k6 lists beside http_req_duration.
const expectedSubmetric = "http_req_duration{expected_response:true}"

// MetricsFromSnapshot converts an aggregate snapshot taken elapsed after the start of
// the run into /v1/metrics entries, sorted by name. Counters' rates are per second of
// elapsed (0 before the start). Like k6, it adds http_req_duration{expected_response:true}
// when http_req_duration has samples. Tidemark's run metadata (tidemark_*) are left
// out, as the summary leaves them out: k6 has no such metrics. tainted, when not nil, says per metric name
// whether its thresholds failed; metrics it does not name report null.
func MetricsFromSnapshot(snap *aggregate.Snapshot, elapsed time.Duration, tainted map[string]bool) []Metric {
	if snap == nil {
		return nil
	}
	var out []Metric
	for _, m := range snap.Metrics() {
		if strings.HasPrefix(m.Name, "tidemark_") {
			continue
		}
		se, ok := snap.Metric(m.Name)
		if !ok {
			continue
		}
		out = append(out, metric(m.Name, m, se.Values, elapsed, tainted))
		if m.Name == "http_req_duration" {
			sub, ok := snap.Submetric(m.Name, []metrics.Tag{{Key: "expected_response", Value: "true"}})
			if ok {
				out = append(out, metric(expectedSubmetric, m, sub.Values, elapsed, tainted))
			}
		}
	}
	slices.SortFunc(out, func(a, b Metric) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func metric(name string, m *metrics.Metric, v aggregate.Values, elapsed time.Duration, tainted map[string]bool) Metric {
	out := Metric{Name: name, Type: m.Type.String(), Contains: m.Contains.String(), Sample: map[string]float64{}}
	if t, ok := tainted[name]; ok {
		out.Tainted = &t
	}
	scale := 1.0
	if m.Contains == metrics.Time {
		scale = 1000 // Samples hold seconds; k6 reports milliseconds.
	}
	switch m.Type {
	case metrics.Counter:
		out.Sample["count"] = v.Count * scale
		out.Sample["rate"] = 0
		if s := elapsed.Seconds(); s > 0 {
			out.Sample["rate"] = v.Count * scale / s
		}
	case metrics.Gauge:
		out.Sample["value"] = v.Value * scale
	case metrics.Rate:
		out.Sample["rate"] = v.Rate()
	case metrics.Trend:
		for _, stat := range []string{"avg", "max", "med", "min", "p(90)", "p(95)"} {
			x, err := v.Stat(stat)
			if err != nil {
				continue // Every stat above is known for a trend.
			}
			out.Sample[stat] = x * scale
		}
	}
	return out
}
