//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/store"
	"github.com/tidemark/tidemark/internal/target"
)

// TestIntegrationRunIntoServeAndPrometheus feeds ONE `tidemark run` (remote write to two
// endpoints, native histograms on) to the embedded store and to a real Prometheus 2.42,
// then asks both the same questions through client_golang's API client and plain HTTP:
// they must give the same answers.
func TestIntegrationRunIntoServeAndPrometheus(t *testing.T) {
	prom := promtest.StartPrometheus(t)
	st, err := store.Open(store.Config{Dir: filepath.Join(t.TempDir(), "data")}, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: st.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	serveURL := "http://" + ln.Addr().String()

	ts, turl := startTestTarget(t, target.Config{})
	scen := writeScenario(t, `
scenarios:
  steady:
    executor: constant-arrival-rate
    rate: 40
    duration: 8s
    preAllocatedVUs: 5
flow:
  - name: home
    url: `+turl+`/
  - name: item
    url: `+turl+`/item/${__ITER}
`)
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-q", "--testid", "same-1", "--no-thresholds", "--remote-write.native-histograms",
		"--no-remote-write.stale-markers", "--remote-write.push-interval", "1s",
		"--remote-write.url", serveURL + "/api/v1/write", "--remote-write.url", prom.WriteURL(), scen}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	served := float64(ts.Stats().Requests)
	at := time.Now()

	apis := map[string]v1.API{}
	for name, u := range map[string]string{"serve": serveURL, "prometheus": prom.URL} {
		c, err := api.NewClient(api.Config{Address: u})
		require.NoError(t, err)
		apis[name] = v1.NewAPI(c)
	}
	ctx := context.Background()
	instant := func(name, expr string) model.Vector {
		t.Helper()
		v, _, _, err := apis[name].Query(ctx, expr, at)
		require.NoError(t, err, "%s: %s", name, expr)
		vec := v.(model.Vector)
		sort.Slice(vec, func(i, j int) bool { return vec[i].Metric.String() < vec[j].Metric.String() })
		return vec
	}
	// Both hold the whole run: the final counter equals what the target served.
	for _, name := range []string{"serve", "prometheus"} {
		v := instant(name, `sum(k6_http_reqs_total{testid="same-1"})`)
		require.Len(t, v, 1, name)
		require.Equal(t, served, float64(v[0].Value), name)
	}
	for _, expr := range []string{
		`k6_http_reqs_total{testid="same-1"}`,
		`sum by (name, status) (k6_http_reqs_total{testid="same-1"})`,
		`k6_http_req_duration_p95{testid="same-1"}`,
		`k6_checks_rate{testid="same-1"} or k6_http_req_failed_rate{testid="same-1"}`,
		`k6_vus{testid="same-1"}`,
	} {
		a, b := instant("serve", expr), instant("prometheus", expr)
		require.Len(t, a, len(b), expr)
		for i := range a {
			require.Equal(t, b[i].Metric, a[i].Metric, expr)
			require.InEpsilon(t, float64(b[i].Value)+1e-12, float64(a[i].Value)+1e-12, 1e-9, expr)
		}
	}
	// Native histograms: both servers put the p95 in the same schema-3 bucket (Prometheus 3
	// interpolates inside a bucket exponentially, 2.42 linearly; see the store's test).
	q := `histogram_quantile(0.95, sum(k6_http_req_duration_seconds{testid="same-1"}))`
	a, b := instant("serve", q), instant("prometheus", q)
	require.Len(t, a, 1)
	require.Len(t, b, 1)
	ratio := float64(a[0].Value) / float64(b[0].Value)
	require.InDelta(t, 1, ratio, math.Pow(2, 1.0/8)-1, "p95 %v vs %v", a[0].Value, b[0].Value)

	// Range query at the push interval.
	r := v1.Range{Start: at.Add(-30 * time.Second), End: at, Step: time.Second}
	var ranges [2]model.Matrix
	for i, name := range []string{"serve", "prometheus"} {
		v, _, _, err := apis[name].QueryRange(ctx, `sum(k6_iterations_total{testid="same-1"})`, r)
		require.NoError(t, err)
		ranges[i] = v.(model.Matrix)
	}
	// Each endpoint has its own client, which snapshots the run at its own moment of a
	// push, so mid-run points may differ by what one push interval adds (40/s × 1 s);
	// the steps and the final value are the same.
	require.Len(t, ranges[0], 1)
	require.Len(t, ranges[1], 1)
	pa, pb := ranges[0][0].Values, ranges[1][0].Values
	require.Len(t, pa, len(pb))
	for i := range pa {
		require.Equal(t, pb[i].Timestamp, pa[i].Timestamp)
		require.InDelta(t, float64(pb[i].Value), float64(pa[i].Value), 45)
	}
	require.Equal(t, pb[len(pb)-1].Value, pa[len(pa)-1].Value, "final iterations")

	// Series and label values.
	sa, _, _, err := apis["serve"].Series(ctx, []string{`{testid="same-1"}`}, at.Add(-time.Minute), at)
	require.NoError(t, err)
	sb, _, _, err := apis["prometheus"].Series(ctx, []string{`{testid="same-1"}`}, at.Add(-time.Minute), at)
	require.NoError(t, err)
	sortSets := func(s []model.LabelSet) {
		sort.Slice(s, func(i, j int) bool { return s[i].String() < s[j].String() })
	}
	sortSets(sa)
	sortSets(sb)
	require.Equal(t, sb, sa)
	for _, label := range []string{"name", "status", "method", "scenario", "__name__"} {
		va, _, _, err := apis["serve"].LabelValues(ctx, label, []string{`{testid="same-1"}`}, at.Add(-time.Minute), at)
		require.NoError(t, err)
		vb, _, _, err := apis["prometheus"].LabelValues(ctx, label, []string{`{testid="same-1"}`}, at.Add(-time.Minute), at)
		require.NoError(t, err)
		require.Equal(t, vb, va, label)
	}

	// Plain HTTP: the same JSON shape (status, resultType, metric labels) for an instant query.
	get := func(base string) map[string]any {
		t.Helper()
		u := base + "/api/v1/query?" + url.Values{"query": {`sum by (name) (k6_http_reqs_total{testid="same-1"})`},
			"time": {fmt.Sprintf("%d", at.Unix())}}.Encode()
		resp, err := http.Get(u)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, json.Unmarshal(body, &out))
		data := out["data"].(map[string]any)
		res := data["result"].([]any)
		sort.Slice(res, func(i, j int) bool {
			return fmt.Sprint(res[i].(map[string]any)["metric"]) < fmt.Sprint(res[j].(map[string]any)["metric"])
		})
		for _, r := range res {
			delete(r.(map[string]any), "value") // evaluation timestamps are equal; values are checked above
		}
		return out
	}
	require.Equal(t, get(prom.URL), get(serveURL))
}
