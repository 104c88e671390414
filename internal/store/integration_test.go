//go:build integration

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
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
	promtest.WaitForQuery(t, prom.URL, `count(k6_http_reqs_total)`, 10*time.Second, promtest.NonEmpty)

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
			got := map[string]string{}
			for name, a := range apis {
				v, _, _, err := a.Query(ctx, q, at)
				require.NoError(t, err, "%s: %s", name, q)
				got[name] = v.String()
			}
			require.Equal(t, got["prometheus"], got["tidemark"], q)
			require.NotEmpty(t, got["tidemark"], q)
		}
		for _, q := range []string{
			`sum by (status) (rate(k6_http_reqs_total[1m]))`,
			`histogram_quantile(0.9, sum by (scenario) (rate(k6_http_req_duration_seconds[1m])))`,
			`k6_vus`,
		} {
			got := map[string]string{}
			for name, a := range apis {
				v, _, _, err := a.QueryRange(ctx, q, v1.Range{Start: start, End: end, Step: step})
				require.NoError(t, err, "%s: %s", name, q)
				require.Equal(t, model.ValMatrix, v.Type())
				got[name] = v.String()
			}
			require.Equal(t, got["prometheus"], got["tidemark"], q)
		}
		gotSeries := map[string]string{}
		gotNames := map[string]model.LabelNames{}
		gotValues := map[string]model.LabelValues{}
		for name, a := range apis {
			s, _, _, err := a.Series(ctx, []string{`{testid="cmp"}`}, start, end)
			require.NoError(t, err)
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
			require.Equal(t, docs[0], docs[1], tc.path+u)
		}
	})
}
