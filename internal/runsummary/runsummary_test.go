package runsummary

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/summary"
)

// fakeProm answers the queries Collect makes for a run of two instances that wrote no
// native histograms.
type fakeProm struct {
	end     time.Time
	samples model.Vector
	exprs   []string
}

func (f *fakeProm) Query(_ context.Context, expr string, _ time.Time) (model.Value, v1.Warnings, error) {
	f.exprs = append(f.exprs, expr)
	switch {
	case strings.HasPrefix(expr, runInfoMetric):
		m := model.Matrix{}
		for i, id := range []string{"0", "1"} {
			m = append(m, &model.SampleStream{Metric: model.Metric{"__name__": runInfoMetric, "instance_id": model.LabelValue(id), "testid": "t"},
				Values: []model.SamplePair{{Timestamp: model.TimeFromUnixNano(f.end.Add(-time.Duration(i+1) * time.Second).UnixNano()), Value: 1}}})
		}
		return m, nil, nil
	case strings.HasPrefix(expr, "({testid="):
		return f.samples, nil, nil
	}
	return model.Vector{}, nil, nil
}

func sampleOf(name, instance string, v float64, labels ...string) *model.Sample {
	m := model.Metric{"__name__": model.LabelValue(name), "instance_id": model.LabelValue(instance), "testid": "t"}
	for i := 0; i+1 < len(labels); i += 2 {
		m[model.LabelName(labels[i])] = model.LabelValue(labels[i+1])
	}
	return &model.Sample{Metric: m, Value: model.SampleValue(v)}
}

// TestCollectWithoutNativeHistograms sums two instances' counters, weights
// http_req_failed by their http_reqs, leaves checks (a ratio without counts) out with
// the reason, and computes avg, min, max and count of a trend from its gauges but no
// percentile, saying why.
func TestCollectWithoutNativeHistograms(t *testing.T) {
	t.Parallel()
	end := time.Unix(1_700_000_100, 0)
	f := &fakeProm{end: end, samples: model.Vector{
		sampleOf("k6_http_reqs_total", "0", 300, "status", "200"),
		sampleOf("k6_http_reqs_total", "1", 100, "status", "200"),
		sampleOf("k6_http_req_failed_rate", "0", 0.1, "status", "200"),
		sampleOf("k6_http_req_failed_rate", "1", 0.5, "status", "200"),
		sampleOf("k6_checks_rate", "0", 1, "check", "ok"),
		sampleOf("k6_checks_rate", "1", 0.9, "check", "ok"),
		sampleOf("k6_http_req_duration_min", "0", 0.010),
		sampleOf("k6_http_req_duration_min", "1", 0.012),
		sampleOf("k6_http_req_duration_max", "0", 0.200),
		sampleOf("k6_http_req_duration_max", "1", 0.300),
		sampleOf("k6_http_req_duration_avg", "0", 0.020),
		sampleOf("k6_http_req_duration_avg", "1", 0.040),
		sampleOf("k6_http_req_duration_count", "0", 300),
		sampleOf("k6_http_req_duration_count", "1", 100),
		sampleOf("k6_http_req_duration_p95", "0", 0.050),
		sampleOf("k6_http_req_duration_p95", "1", 0.090),
		sampleOf("k6_vus", "0", 2),
		sampleOf("k6_vus", "1", 3),
	}}
	res, err := Collect(context.Background(), f, Config{TestID: "t", From: end.Add(-time.Minute), To: end,
		TrendStats: []string{"avg", "min", "med", "max", "p(95)"}})
	require.NoError(t, err)
	require.Len(t, res.Instances, 2)
	require.Equal(t, end.Add(-time.Second), res.Instances[0].Last)

	reqs, ok := res.Snapshot.Metric("http_reqs")
	require.True(t, ok)
	require.InDelta(t, 400, reqs.Count, 0)
	failed, ok := res.Snapshot.Metric("http_req_failed")
	require.True(t, ok)
	require.Equal(t, uint64(400), failed.Total)
	require.Equal(t, uint64(80), failed.Passes, "30 of 300 and 50 of 100")
	vus, ok := res.Snapshot.Metric("vus")
	require.True(t, ok)
	require.InDelta(t, 5, vus.Value, 0)
	_, ok = res.Snapshot.Metric("checks")
	require.False(t, ok, "checks' ratios cannot be summed")
	require.Equal(t, []string{"checks"}, res.Unsummed)

	d := res.Trends["http_req_duration"]
	require.InDelta(t, 0.010, d["min"], 1e-12)
	require.InDelta(t, 0.300, d["max"], 1e-12)
	require.InDelta(t, 400, d["count"], 0)
	require.InDelta(t, (0.020*300+0.040*100)/400, d["avg"], 1e-12, "avg weighted by count, not averaged")
	require.NotContains(t, d, "p(95)", "per-instance p95 gauges are never averaged")
	require.NotContains(t, d, "med")
	require.False(t, res.Native)

	notes := strings.Join(res.Notes, "\n")
	require.Contains(t, notes, "checks: not combined across instances — the run wrote only k6_checks_rate")
	require.Contains(t, notes, "tidemark_checks_passes_total")
	require.Contains(t, notes, "http_req_duration: med and p(N) not computed — the run wrote no native histograms")
	require.Contains(t, notes, "--remote-write.native-histograms")
	for _, e := range f.exprs {
		require.NotContains(t, e, "histogram_quantile", "no native histograms, no quantile queries")
	}
}

// TestCollectRateCounts sums the checks and custom rates of instances that wrote
// Tidemark's counts (tidemark_<metric>_passes_total, _fails_total), per check, instead
// of leaving them out; an instance's ratio alone is not used.
func TestCollectRateCounts(t *testing.T) {
	t.Parallel()
	end := time.Unix(1_700_000_100, 0)
	f := &fakeProm{end: end, samples: model.Vector{
		sampleOf("k6_checks_rate", "0", 1, "check", "ok"),
		sampleOf("tidemark_checks_passes_total", "0", 100, "check", "ok"),
		sampleOf("tidemark_checks_fails_total", "0", 0, "check", "ok"),
		sampleOf("k6_checks_rate", "1", 0.1, "check", "ok"),
		sampleOf("tidemark_checks_passes_total", "1", 90, "check", "ok"),
		sampleOf("tidemark_checks_fails_total", "1", 810, "check", "ok"),
		sampleOf("k6_checks_rate", "0", 0.5, "check", "body"),
		sampleOf("tidemark_checks_passes_total", "0", 50, "check", "body"),
		sampleOf("tidemark_checks_fails_total", "0", 50, "check", "body"),
		sampleOf("k6_errors_rate", "0", 0.25),
		sampleOf("tidemark_errors_passes_total", "0", 1),
		sampleOf("tidemark_errors_fails_total", "0", 3),
		sampleOf("k6_errors_rate", "1", 0),
		sampleOf("tidemark_errors_passes_total", "1", 0),
		sampleOf("tidemark_errors_fails_total", "1", 4),
	}}
	res, err := Collect(context.Background(), f, Config{TestID: "t", From: end.Add(-time.Minute), To: end})
	require.NoError(t, err)
	require.Empty(t, res.Unsummed)
	checks, ok := res.Snapshot.Metric("checks")
	require.True(t, ok)
	require.Equal(t, uint64(240), checks.Passes, "100 + 90 + 50")
	require.Equal(t, uint64(1100), checks.Total)
	ok1, found := res.Snapshot.Submetric("checks", []metrics.Tag{{Key: "check", Value: "ok"}})
	require.True(t, found)
	require.Equal(t, uint64(190), ok1.Passes)
	require.Equal(t, uint64(1000), ok1.Total)
	require.InDelta(t, 0.19, ok1.Rate(), 1e-12, "not the ratios' average 0.55")
	errs, ok := res.Snapshot.Metric("errors")
	require.True(t, ok)
	require.Equal(t, metrics.Rate, errs.Type)
	require.Equal(t, uint64(1), errs.Passes)
	require.Equal(t, uint64(8), errs.Total)
	for _, se := range res.Snapshot.Series {
		require.NotContains(t, se.Metric.Name, "passes", "the counts are read with their rate, not as metrics of their own")
	}
}

func TestStatOfSuffix(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"p95": "p(95)", "p999": "p(99.9)", "p095": "p(0.95)", "p9": "p(9)", "p100": "p(100)",
		"avg": "avg", "med": "med", "count": "count"} {
		got, ok := statOfSuffix(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"total", "p", "pX", "seconds"} {
		_, ok := statOfSuffix(in)
		require.False(t, ok, in)
	}
}

// TestMiddleIsWithinRelativeError: every value of a schema-3 bucket is within
// RelativeError(3) of the bucket's middle.
func TestMiddleIsWithinRelativeError(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 0.0443, RelativeError(3), 0.0001)
	for x := 0.001; x < 10; x *= 1.0137 {
		m := middle(x, 3)
		require.LessOrEqual(t, math.Abs(m-x)/x, RelativeError(3)+1e-12, "x=%g middle=%g", x, m)
		require.InDelta(t, m, middle(m, 3), 1e-15, "the middle is its own bucket's middle")
	}
}

// TestCollectBreakdownAcrossInstances: a run split over two instances gets the
// summary breakdown of the whole run: rows sum both instances' requests per endpoint,
// and the trend rows (sub-metrics collected in a second pass) weight the instances'
// averages by their counts.
func TestCollectBreakdownAcrossInstances(t *testing.T) {
	t.Parallel()
	end := time.Unix(1_700_000_100, 0)
	var samples model.Vector
	for _, ep := range []struct {
		name       string
		reqs, avgs [2]float64
	}{{"/a", [2]float64{30, 10}, [2]float64{0.010, 0.030}}, {"/b", [2]float64{5, 15}, [2]float64{0.100, 0.200}}} {
		for i, inst := range []string{"0", "1"} {
			samples = append(samples,
				sampleOf("k6_http_reqs_total", inst, ep.reqs[i], "name", ep.name, "method", "GET", "status", "200"),
				sampleOf("k6_http_req_failed_rate", inst, 0, "name", ep.name, "method", "GET", "status", "200"),
				sampleOf("k6_http_req_duration_avg", inst, ep.avgs[i], "name", ep.name, "method", "GET", "status", "200"),
				sampleOf("k6_http_req_duration_count", inst, ep.reqs[i], "name", ep.name, "method", "GET", "status", "200"),
				sampleOf("k6_http_req_duration_min", inst, ep.avgs[i], "name", ep.name, "method", "GET", "status", "200"),
				sampleOf("k6_http_req_duration_max", inst, ep.avgs[i], "name", ep.name, "method", "GET", "status", "200"))
		}
	}
	f := &fakeProm{end: end, samples: samples}
	o := &Options{TestID: "t", Given: true, Test: &scenario.Test{SummaryTrendStats: []string{"avg", "count"}, SummaryBreakdown: []string{"name"}}}
	res, err := o.collect(context.Background(), f, end.Add(-time.Minute), end)
	require.NoError(t, err)
	a := res.Trends["http_req_duration{name:/a}"]
	require.InDelta(t, 40, a["count"], 0)
	require.InDelta(t, (0.010*30+0.030*10)/40, a["avg"], 1e-12)
	require.InDelta(t, 20, res.Trends["http_req_duration{name:/b}"]["count"], 0)

	in := summary.Input{Test: o.Test, Snapshot: res.Snapshot, Registry: res.Registry, Duration: 10 * time.Second, Trends: res.Trends}
	var buf strings.Builder
	require.NoError(t, summary.WriteText(&buf, in))
	out := buf.String()
	require.Regexp(t, `\{ name:/a \}\.+: 40 +4/s`, out)
	require.Regexp(t, `\{ name:/b \}\.+: 20 +2/s`, out)
	require.Regexp(t, `\{ name:/a \}\.+: avg=15ms +count=40`, out)
	require.Regexp(t, `\{ name:/b \}\.+: avg=175ms +count=20`, out)

	// Off: one pass, no rows.
	f.exprs = nil
	o.Test.SummaryBreakdown = nil
	res, err = o.collect(context.Background(), f, end.Add(-time.Minute), end)
	require.NoError(t, err)
	require.NotContains(t, res.Trends, "http_req_duration{name:/a}")
	require.Equal(t, 1, countPrefix(f.exprs, runInfoMetric), "one Collect")
}

// QueryRange makes fakeProm a query.Querier; Collect makes instant queries only.
func (f *fakeProm) QueryRange(context.Context, string, v1.Range) (model.Value, v1.Warnings, error) {
	return model.Matrix{}, nil, nil
}

func countPrefix(exprs []string, prefix string) int {
	n := 0
	for _, e := range exprs {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}
