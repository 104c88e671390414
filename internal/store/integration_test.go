//go:build integration

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
)

// TestSameAnswersAsPrometheus writes one remote-write 1.0 payload (k6-style float series
// and a native histogram) to the embedded store and to a real Prometheus 2.42 (Debian),
// then asks both the same questions through client_golang and plain HTTP: the values and
// the JSON must be the same.
func TestSameAnswersAsPrometheus(t *testing.T) {
	t.Parallel()
	prom := promtest.StartPrometheus(t)
	ours := openTestStore(t, Config{})

	start := time.Now().Add(-20 * time.Minute).Truncate(time.Minute)
	const n = 60 // 15 minutes at 15 s.
	step := 15 * time.Second
	end := start.Add((n - 1) * step)
	var ss []series
	for _, status := range []string{"200", "404", "500"} {
		for _, scenario := range []string{"browse", "checkout"} {
			ls := labels.FromStrings("__name__", "k6_http_reqs_total", "testid", "cmp", "status", status, "scenario", scenario, "method", "GET")
			ss = append(ss, floatSeries(ls, start, step, n, float64(len(status)*len(scenario))))
		}
	}
	ss = append(ss,
		floatSeries(labels.FromStrings("__name__", "k6_vus", "testid", "cmp"), start, step, n, 1),
		floatSeries(labels.FromStrings("__name__", "k6_http_req_duration_p95", "testid", "cmp", "scenario", "browse"), start, step, n, 0.25),
		histSeries(labels.FromStrings("__name__", "k6_http_req_duration_seconds", "testid", "cmp", "scenario", "browse"), start, step, n),
		histSeries(labels.FromStrings("__name__", "k6_http_req_duration_seconds", "testid", "cmp", "scenario", "checkout"), start, step, n),
	)
	raw := encodeV1(t, ss)
	for _, u := range []string{ours.URL, prom.URL} {
		code, body, err := post(http.DefaultClient, u+"/api/v1/write", raw, false)
		require.NoError(t, err)
		require.Equal(t, http.StatusNoContent, code, "%s: %s", u, body)
	}

	ctx := context.Background()
	apis := map[string]v1.API{"tidemark": promAPI(t, ours.URL, nil), "prometheus": promAPI(t, prom.URL, nil)}
	promtest.WaitForQuery(t, prom.URL, `count(count_over_time(k6_http_reqs_total[1h]))`, 10*time.Second, promtest.NonEmpty)

	t.Run("client_golang", func(t *testing.T) {
		at := end
		instantQueries := []string{
			`k6_http_reqs_total`,
			`sum by (status) (rate(k6_http_reqs_total{testid="cmp"}[1m]))`,
			`sum(increase(k6_http_reqs_total[5m])) by (scenario)`,
			`k6_vus`,
			`max_over_time(k6_http_req_duration_p95[10m])`,
			`histogram_quantile(0.95, sum by (scenario) (rate(k6_http_req_duration_seconds[2m])))`,
			`histogram_quantile(0.5, sum(rate(k6_http_req_duration_seconds[5m])))`,
			`histogram_count(rate(k6_http_req_duration_seconds[1m]))`,
			`histogram_sum(k6_http_req_duration_seconds)`,
			`histogram_fraction(0, 2, sum(rate(k6_http_req_duration_seconds[2m])))`,
			`k6_http_req_duration_seconds`,
			`scalar(k6_vus)`,
			`count(count by (status) (k6_http_reqs_total))`,
		}
		for _, q := range instantQueries {
			got := map[string]model.Value{}
			for name, a := range apis {
				v, _, _, err := a.Query(ctx, q, at)
				require.NoError(t, err, "%s: %s", name, q)
				got[name] = v
			}
			requireSameValue(t, got["prometheus"], got["tidemark"], tolerance(q), q)
			require.True(t, promtest.NonEmpty(got["tidemark"]), q)
		}
		for _, q := range []string{
			`sum by (status) (rate(k6_http_reqs_total[1m]))`,
			`histogram_quantile(0.9, sum by (scenario) (rate(k6_http_req_duration_seconds[1m])))`,
			`k6_vus`,
		} {
			got := map[string]model.Value{}
			for name, a := range apis {
				v, _, _, err := a.QueryRange(ctx, q, v1.Range{Start: start, End: end, Step: step})
				require.NoError(t, err, "%s: %s", name, q)
				require.Equal(t, model.ValMatrix, v.Type())
				got[name] = v
			}
			requireSameValue(t, got["prometheus"], got["tidemark"], tolerance(q), q)
		}
		gotSeries := map[string]string{}
		gotNames := map[string]model.LabelNames{}
		gotValues := map[string]model.LabelValues{}
		for name, a := range apis {
			s, _, _, err := a.Series(ctx, []string{`{testid="cmp"}`}, start, end)
			require.NoError(t, err)
			// The order of /api/v1/series is unspecified: Prometheus 3 returns head series
			// in insertion order, 2.42 sorted them.
			sort.Slice(s, func(i, j int) bool { return s[i].Before(s[j]) })
			gotSeries[name] = fmt.Sprint(s)
			ln, _, _, err := a.LabelNames(ctx, []string{`{testid="cmp"}`}, start, end)
			require.NoError(t, err)
			gotNames[name] = ln
			lv, _, _, err := a.LabelValues(ctx, "status", nil, start, end)
			require.NoError(t, err)
			gotValues[name] = lv
		}
		require.Equal(t, gotSeries["prometheus"], gotSeries["tidemark"])
		require.Equal(t, gotNames["prometheus"], gotNames["tidemark"])
		require.Equal(t, gotValues["prometheus"], gotValues["tidemark"])
		require.Equal(t, model.LabelValues{"200", "404", "500"}, gotValues["tidemark"])
	})

	t.Run("plain HTTP JSON", func(t *testing.T) {
		rangeForm := url.Values{"start": {fmt.Sprint(start.Unix())}, "end": {fmt.Sprint(end.Unix())}}
		for _, tc := range []struct {
			path string
			form url.Values
		}{
			{"/api/v1/query", url.Values{"query": {`sum by (status) (k6_http_reqs_total)`}, "time": {fmt.Sprint(end.Unix())}}},
			{"/api/v1/query", url.Values{"query": {`k6_http_req_duration_seconds{scenario="browse"}`}, "time": {fmt.Sprint(end.Unix())}}},
			{"/api/v1/query", url.Values{"query": {`histogram_quantile(0.99, rate(k6_http_req_duration_seconds[2m]))`}, "time": {fmt.Sprint(end.Unix())}}},
			{"/api/v1/query", url.Values{"query": {`1+1`}, "time": {fmt.Sprint(end.Unix())}}},
			{"/api/v1/query", url.Values{"query": {`sum(`}}},
			{"/api/v1/query_range", url.Values{"query": {`k6_vus`}, "start": {fmt.Sprint(start.Unix())}, "end": {fmt.Sprint(end.Unix())}, "step": {"60"}}},
			{"/api/v1/query_range", url.Values{"query": {`rate(k6_http_req_duration_seconds{scenario="checkout"}[1m])`}, "start": {fmt.Sprint(end.Add(-2 * time.Minute).Unix())}, "end": {fmt.Sprint(end.Unix())}, "step": {"60"}}},
			{"/api/v1/series", url.Values{"match[]": {`k6_http_reqs_total{status="500"}`}, "start": rangeForm["start"], "end": rangeForm["end"]}},
			{"/api/v1/labels", rangeForm},
			{"/api/v1/label/scenario/values", rangeForm},
			{"/api/v1/label/__name__/values", rangeForm},
		} {
			u := "?" + tc.form.Encode()
			var docs []any
			var codes []int
			for _, base := range []string{prom.URL, ours.URL} {
				code, body := getBody(t, base+tc.path+u)
				var doc any
				require.NoError(t, json.Unmarshal([]byte(body), &doc), body)
				docs = append(docs, doc)
				codes = append(codes, code)
			}
			require.Equal(t, codes[0], codes[1], tc.path+u)
			requireSameJSON(t, docs[0], docs[1], tolerance(tc.form.Get("query")), tc.path+u)
		}
	})
}

// sameBucket is the tolerance of histogram_quantile over native histograms: Prometheus 3
// interpolates exponentially within an exponential bucket where 2.42 interpolated
// linearly, so the two agree on the bucket (schema 0: (2^(k-1), 2^k]) but not on the point
// inside it.
const sameBucket = -1

// tolerance is the relative difference allowed between Prometheus 2.42 and the store for
// a query. Prometheus 3 also sums differently (Kahan summation in rate and aggregations),
// which changes the last bits of some results: everything but histogram_quantile must agree
// to 1e-9.
func tolerance(query string) float64 {
	if strings.Contains(query, "histogram_quantile") {
		return sameBucket
	}
	return 1e-9
}

// requireSameValue compares two query results series by series (order-insensitive: an
// instant vector's order is unspecified and differs between Prometheus versions).
func requireSameValue(t *testing.T, want, got model.Value, tol float64, msg string) {
	t.Helper()
	require.Equal(t, want.Type(), got.Type(), msg)
	switch w := want.(type) {
	case model.Vector:
		g := got.(model.Vector)
		require.Len(t, g, len(w), msg)
		sortVector(w)
		sortVector(g)
		for i := range w {
			require.Equal(t, w[i].Metric, g[i].Metric, msg)
			require.Equal(t, w[i].Timestamp, g[i].Timestamp, msg)
			requireClose(t, float64(w[i].Value), float64(g[i].Value), tol, msg)
			requireCloseHistogram(t, w[i].Histogram, g[i].Histogram, tol, msg)
		}
	case model.Matrix:
		g := got.(model.Matrix)
		require.Len(t, g, len(w), msg)
		sort.Sort(w)
		sort.Sort(g)
		for i := range w {
			require.Equal(t, w[i].Metric, g[i].Metric, msg)
			require.Len(t, g[i].Values, len(w[i].Values), msg)
			for j := range w[i].Values {
				require.Equal(t, w[i].Values[j].Timestamp, g[i].Values[j].Timestamp, msg)
				requireClose(t, float64(w[i].Values[j].Value), float64(g[i].Values[j].Value), tol, msg)
			}
			require.Len(t, g[i].Histograms, len(w[i].Histograms), msg)
			for j := range w[i].Histograms {
				require.Equal(t, w[i].Histograms[j].Timestamp, g[i].Histograms[j].Timestamp, msg)
				requireCloseHistogram(t, w[i].Histograms[j].Histogram, g[i].Histograms[j].Histogram, tol, msg)
			}
		}
	default:
		require.Equal(t, want.String(), got.String(), msg)
	}
}

func requireCloseHistogram(t *testing.T, want, got *model.SampleHistogram, tol float64, msg string) {
	t.Helper()
	if want == nil || got == nil {
		require.Equal(t, want == nil, got == nil, msg)
		return
	}
	requireClose(t, float64(want.Count), float64(got.Count), tol, msg)
	requireClose(t, float64(want.Sum), float64(got.Sum), tol, msg)
	require.Len(t, got.Buckets, len(want.Buckets), msg)
	for i, wb := range want.Buckets {
		gb := got.Buckets[i]
		require.Equal(t, wb.Boundaries, gb.Boundaries, msg)
		require.Equal(t, wb.Lower, gb.Lower, msg)
		require.Equal(t, wb.Upper, gb.Upper, msg)
		requireClose(t, float64(wb.Count), float64(gb.Count), tol, msg)
	}
}

func sortVector(v model.Vector) {
	sort.Slice(v, func(i, j int) bool { return v[i].Metric.Before(v[j].Metric) })
}

func requireClose(t *testing.T, want, got, tol float64, msg string) {
	t.Helper()
	if tol == sameBucket {
		require.Equal(t, math.Ceil(math.Log2(want)), math.Ceil(math.Log2(got)), "%s: %v and %v are in different buckets", msg, want, got)
		return
	}
	if tol == 0 || want == got || (math.IsNaN(want) && math.IsNaN(got)) {
		if !(math.IsNaN(want) && math.IsNaN(got)) {
			require.Equal(t, want, got, msg)
		}
		return
	}
	require.InEpsilon(t, want, got, tol, msg)
}

// requireSameJSON compares two API responses decoded into any: the same keys, types and
// values, result lists compared order-insensitively, numbers-as-strings within tol.
func requireSameJSON(t *testing.T, want, got any, tol float64, msg string) {
	t.Helper()
	require.Equal(t, normalizeJSON(want, tol), normalizeJSON(got, tol), msg)
	if tol != 0 {
		requireCloseJSON(t, want, got, tol, msg)
	}
}

// normalizeJSON sorts "result" lists by their metric and, when tol > 0, blanks numeric
// strings (they are compared by requireCloseJSON).
func normalizeJSON(v any, tol float64) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = normalizeJSON(e, tol)
		}
		if r, ok := out["result"].([]any); ok {
			sort.SliceStable(r, func(i, j int) bool { return metricKey(r[i]) < metricKey(r[j]) })
		}
		// /api/v1/series: a list of label sets in unspecified order.
		if d, ok := out["data"].([]any); ok && len(d) > 0 {
			if _, isMap := d[0].(map[string]any); isMap {
				sort.SliceStable(d, func(i, j int) bool { return jsonKey(d[i]) < jsonKey(d[j]) })
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalizeJSON(e, tol)
		}
		return out
	case string:
		if _, err := strconv.ParseFloat(v, 64); err == nil && tol != 0 {
			return "<number>"
		}
		return v
	default:
		return v
	}
}

func metricKey(v any) string {
	m, _ := v.(map[string]any)
	return jsonKey(m["metric"])
}

func jsonKey(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func requireCloseJSON(t *testing.T, want, got any, tol float64, msg string) {
	t.Helper()
	w, g := flattenNumbers(normalizeSorted(want)), flattenNumbers(normalizeSorted(got))
	require.Len(t, g, len(w), msg)
	for i := range w {
		requireClose(t, w[i], g[i], tol, msg)
	}
}

func normalizeSorted(v any) any { return normalizeJSON(v, 0) }

func flattenNumbers(v any) []float64 {
	var out []float64
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, flattenNumbers(v[k])...)
		}
	case []any:
		for _, e := range v {
			out = append(out, flattenNumbers(e)...)
		}
	case string:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out = append(out, f)
		}
	}
	return out
}
