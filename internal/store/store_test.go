package store

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

func TestRemoteWriteAndQuery(t *testing.T) {
	t.Parallel()
	for _, v2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("v2=%v", v2), func(t *testing.T) {
			t.Parallel()
			ts := openTestStore(t, Config{})
			start := time.Now().Add(-10 * time.Minute).Truncate(time.Minute)
			mustWrite(t, ts.URL+"/api/v1/write", []series{
				floatSeries(labels.FromStrings("__name__", "k6_http_reqs_total", "testid", "t1", "status", "200"), start, 15*time.Second, 40, 1),
				floatSeries(labels.FromStrings("__name__", "k6_http_reqs_total", "testid", "t1", "status", "500"), start, 15*time.Second, 40, 100),
			}, v2)
			a := promAPI(t, ts.URL, nil)
			at := start.Add(39 * 15 * time.Second)

			require.InDelta(t, 40+139, vectorValue(t, instant(t, a, `sum(k6_http_reqs_total{testid="t1"})`, at)), 1e-9)

			m, _, _, err := a.QueryRange(context.Background(), `k6_http_reqs_total{status="200"}`, v1.Range{Start: start, End: at, Step: 15 * time.Second})
			require.NoError(t, err)
			mat := m.(model.Matrix)
			require.Len(t, mat, 1)
			require.Len(t, mat[0].Values, 40)
			require.InDelta(t, 40, float64(mat[0].Values[39].Value), 1e-9)

			names, _, _, err := a.LabelNames(context.Background(), nil, time.Time{}, time.Time{})
			require.NoError(t, err)
			require.Equal(t, []string{"__name__", "status", "testid"}, labelNamesStrings(names))

			vals, _, _, err := a.LabelValues(context.Background(), "status", nil, time.Time{}, time.Time{})
			require.NoError(t, err)
			require.Equal(t, model.LabelValues{"200", "500"}, vals)

			sers, _, _, err := a.Series(context.Background(), []string{`{testid="t1"}`}, start, at)
			require.NoError(t, err)
			require.Len(t, sers, 2)
		})
	}
}

func labelNamesStrings(ns model.LabelNames) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}

func TestNativeHistogramQuantile(t *testing.T) {
	t.Parallel()
	for _, v2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("v2=%v", v2), func(t *testing.T) {
			t.Parallel()
			ts := openTestStore(t, Config{})
			start := time.Now().Add(-10 * time.Minute).Truncate(time.Minute)
			mustWrite(t, ts.URL+"/api/v1/write", []series{
				histSeries(labels.FromStrings("__name__", "k6_http_req_duration_seconds", "testid", "t1"), start, 15*time.Second, 20),
			}, v2)
			a := promAPI(t, ts.URL, nil)
			at := start.Add(19 * 15 * time.Second)
			// Every sample has the same shape; the rate over the window keeps it. Of 81k
			// observations, the 50th percentile (40.5k) falls in (2,4] (cumulative 31k..71k).
			q := vectorValue(t, instant(t, a, `histogram_quantile(0.5, sum(rate(k6_http_req_duration_seconds[2m])))`, at))
			require.Greater(t, q, 2.0)
			require.LessOrEqual(t, q, 4.0)
			// The raw value is a histogram in the API's JSON.
			code, body := getBody(t, ts.URL+"/api/v1/query?query=k6_http_req_duration_seconds&time="+fmt.Sprint(at.Unix()))
			require.Equal(t, http.StatusOK, code)
			require.Contains(t, body, `"histogram":[`)
			require.Contains(t, body, `"count":"1620"`) // 81 observations × k=20 at the last sample.
			count := vectorValue(t, instant(t, a, `histogram_count(k6_http_req_duration_seconds)`, at))
			require.InDelta(t, 81*20, count, 1e-9)
		})
	}
}

func TestBadWrites(t *testing.T) {
	t.Parallel()
	ts := openTestStore(t, Config{MaxLabelsPerSeries: 20, MaxLabelValueLength: 100})
	wurl := ts.URL + "/api/v1/write"
	now := time.Now().Truncate(time.Second)
	good := labels.FromStrings("__name__", "good", "job", "x")
	mustWrite(t, wurl, []series{floatSeries(good, now, time.Second, 5, 1)}, false)

	manyLabels := []string{"__name__", "absurd"}
	for i := range 30 {
		manyLabels = append(manyLabels, fmt.Sprintf("l%02d", i), "v")
	}
	type rawCase struct {
		name, ctype, enc string
		body             []byte
		wantCode         int
		wantMsg          string
	}
	for _, tc := range []rawCase{
		{"corrupt snappy", contentTypeV1, "snappy", []byte("\xff\xff\xff\xffnot snappy at all"), http.StatusBadRequest, "remote write: decompress body (snappy block format): corrupt input"},
		{"bad protobuf v1", contentTypeV1, "snappy", snappyOf([]byte("\x0a\xff\xff\xff\xff\x0fgarbage")), http.StatusBadRequest, "remote write: decode prometheus.WriteRequest (protobuf): unexpected EOF"},
		{"bad protobuf v2", contentTypeV2, "snappy", snappyOf([]byte("\x12\x05ab")), http.StatusBadRequest, "remote write: decode io.prometheus.write.v2.Request (protobuf)"},
		{"unknown content type", "application/json", "snappy", snappyOf(encodeV1(t, nil)), http.StatusUnsupportedMediaType, "expected application/x-protobuf"},
		{"unknown proto", "application/x-protobuf;proto=foo.Bar", "snappy", snappyOf(encodeV1(t, nil)), http.StatusUnsupportedMediaType, "foo.Bar"},
		{"gzip", contentTypeV1, "gzip", []byte("x"), http.StatusUnsupportedMediaType, "gzip encoding"},
		{"decoded size claims 4 GiB", contentTypeV1, "snappy", []byte("\xff\xff\xff\xff\x0f"), http.StatusBadRequest, "exceeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, wurl, strings.NewReader(string(tc.body)))
			require.NoError(t, err)
			req.Header.Set("Content-Type", tc.ctype)
			req.Header.Set("Content-Encoding", tc.enc)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			b := readAll(t, resp)
			require.Equal(t, tc.wantCode, resp.StatusCode, b)
			require.Contains(t, b, tc.wantMsg)
			// Regression: a tiny body claiming a huge decoded size must not make the
			// server allocate it (the error diagnosis once decoded it).
			runtime.ReadMemStats(&after)
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<30), "bytes allocated for one bad request (parallel tests allocate too, hence the loose bound)")
		})
	}

	for _, tc := range []struct {
		name     string
		ss       []series
		v2       bool
		wantCode int
		wantMsg  string
	}{
		{"out of order v1", []series{{labels: good, samples: []prompb.Sample{{Timestamp: now.Add(-time.Hour).UnixMilli(), Value: 1}}}}, false, http.StatusBadRequest, "out of bounds"},
		{"out of order v2", []series{{labels: good, samples: []prompb.Sample{{Timestamp: now.Add(time.Second).UnixMilli(), Value: 1}, {Timestamp: now.UnixMilli(), Value: 1}}}}, true, http.StatusBadRequest, "out of order"},
		{"duplicate timestamp, other value", []series{{labels: good, samples: []prompb.Sample{{Timestamp: now.Add(4 * time.Second).UnixMilli(), Value: 99}}}}, false, http.StatusBadRequest, "duplicate sample for timestamp"},
		{"duplicate timestamp, same value", []series{{labels: good, samples: []prompb.Sample{{Timestamp: now.Add(4 * time.Second).UnixMilli(), Value: 5}}}}, false, http.StatusNoContent, ""},
		{"absurd label count v1", []series{floatSeries(labels.FromStrings(manyLabels...), now, time.Second, 1, 1)}, false, http.StatusBadRequest, "has 31 labels, more than the limit of 20"},
		{"absurd label count v2", []series{floatSeries(labels.FromStrings(manyLabels...), now, time.Second, 1, 1)}, true, http.StatusBadRequest, "has 31 labels, more than the limit of 20"},
		{"huge label value", []series{floatSeries(labels.FromStrings("__name__", "big", "url", strings.Repeat("x", 101)), now, time.Second, 1, 1)}, false, http.StatusBadRequest, `value of label "url" is 101 bytes`},
		{"no metric name v2", []series{floatSeries(labels.FromStrings("job", "x"), now, time.Second, 1, 1)}, true, http.StatusBadRequest, "invalid metric name or labels"},
		{"far future", []series{floatSeries(labels.FromStrings("__name__", "future"), now.Add(time.Hour), time.Second, 1, 1)}, false, http.StatusBadRequest, "out of bounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := encodeV1(t, tc.ss)
			if tc.v2 {
				raw = encodeV2(t, tc.ss)
			}
			code, body, err := post(http.DefaultClient, wurl, raw, tc.v2)
			require.NoError(t, err)
			require.Equal(t, tc.wantCode, code, body)
			require.Contains(t, body, tc.wantMsg)
		})
	}

	// Nothing else was lost and the store still answers.
	a := promAPI(t, ts.URL, nil)
	v := instant(t, a, `count_over_time(good[1m])`, now.Add(5*time.Second))
	require.InDelta(t, 5, vectorValue(t, v), 1e-9)
	v = instant(t, a, `count({__name__=~"absurd|big|future"})`, now.Add(5*time.Second))
	require.Empty(t, v.(model.Vector))
}

func snappyOf(b []byte) []byte { return snappy.Encode(nil, b) }

func readAll(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	ts := openTestStore(t, Config{})
	const (
		writers  = 16
		requests = 25
		perReq   = 20 // series per request, one sample each
	)
	start := time.Now().Add(-30 * time.Minute).Truncate(time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, writers*requests)
	for w := range writers {
		wg.Go(func() {
			for r := range requests {
				var ss []series
				for i := range perReq {
					ls := labels.FromStrings("__name__", "conc", "writer", fmt.Sprint(w), "series", fmt.Sprint(i))
					ss = append(ss, floatSeries(ls, start.Add(time.Duration(r)*time.Second), time.Second, 1, float64(r)))
				}
				raw := encodeV1(t, ss)
				if w%2 == 1 {
					raw = encodeV2(t, ss)
				}
				code, body, err := post(http.DefaultClient, ts.URL+"/api/v1/write", raw, w%2 == 1)
				if err == nil && code != http.StatusNoContent {
					err = fmt.Errorf("status %d: %s", code, body)
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	a := promAPI(t, ts.URL, nil)
	at := start.Add(requests * time.Second)
	require.InDelta(t, writers*perReq, vectorValue(t, instant(t, a, `count(count_over_time(conc[5m]))`, at)), 0)
	require.InDelta(t, writers*perReq*requests, vectorValue(t, instant(t, a, `sum(count_over_time(conc[5m]))`, at)), 0)
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	_, err := Open(Config{Dir: filepath.Join(file, "data")}, promslog.NewNopLogger(), nil)
	require.ErrorContains(t, err, "create data directory")
	require.ErrorContains(t, err, "not a directory")
	require.NotEqual(t, exitcode.InvalidConfig, exitcode.Of(err), "a system error")

	if os.Geteuid() != 0 { // root writes anywhere.
		ro := t.TempDir()
		require.NoError(t, os.Chmod(ro, 0o500))
		_, err = Open(Config{Dir: ro}, promslog.NewNopLogger(), nil)
		require.ErrorContains(t, err, "is not writable")
	}

	_, err = Open(Config{Dir: t.TempDir(), ScrapeTargets: []string{"a:1"}, ScrapeConfigFile: "/nonexistent.yml"}, promslog.NewNopLogger(), nil)
	require.ErrorContains(t, err, `load scrape config "/nonexistent.yml"`)
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err), "a configuration error: %v", err)

	bad := filepath.Join(t.TempDir(), "prometheus.yml")
	require.NoError(t, os.WriteFile(bad, []byte("scrape_configs:\n- job_name: x\n  scrape_intervall: 1s\n"), 0o600))
	_, err = Open(Config{Dir: t.TempDir(), ScrapeConfigFile: bad}, promslog.NewNopLogger(), nil)
	require.ErrorContains(t, err, "scrape_intervall")
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err), "a configuration error: %v", err)

	_, err = Open(Config{Dir: t.TempDir(), ScrapeTargets: []string{"a:1/x"}}, promslog.NewNopLogger(), nil)
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err), "a configuration error: %v", err)

	_, err = Open(Config{Dir: t.TempDir(), ExternalURL: "http://[::1"}, promslog.NewNopLogger(), nil)
	require.ErrorContains(t, err, "parse external url")
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err), "a configuration error: %v", err)
}

func TestOpenLocked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := Open(Config{Dir: dir}, promslog.NewNopLogger(), nil)
	require.NoError(t, err)
	_, err = Open(Config{Dir: dir}, promslog.NewNopLogger(), nil)
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, first.Close())
	require.NoError(t, first.Close()) // idempotent

	second, err := Open(Config{Dir: dir}, promslog.NewNopLogger(), nil)
	require.NoError(t, err)
	require.NoError(t, second.Close())
}

func TestAnnounceDiscover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := httptest.NewServer(http.NotFoundHandler()) // any HTTP answer counts as alive.
	defer srv.Close()

	dir := t.TempDir()
	_, ok, err := Discover(ctx, dir)
	require.NoError(t, err)
	require.False(t, ok, "no file")

	remove, err := Announce(dir, srv.URL)
	require.NoError(t, err)
	got, ok, err := Discover(ctx, dir)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, srv.URL, got)

	require.NoError(t, remove())
	_, err = os.Stat(filepath.Join(dir, DiscoveryFile))
	require.ErrorIs(t, err, os.ErrNotExist)

	for _, tc := range []struct {
		name    string
		content string
		wantErr string
	}{
		{"dead process", fmt.Sprintf(`{"url":%q,"pid":%d}`, srv.URL, math.MaxInt32-1), ""},
		{"nobody listens", fmt.Sprintf(`{"url":"http://127.0.0.1:1","pid":%d}`, os.Getpid()), ""},
		{"garbage", `{`, "parse"},
		{"no url", `{"pid":1}`, "no url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(d, DiscoveryFile), []byte(tc.content), 0o600))
			_, ok, err := Discover(ctx, d)
			require.False(t, ok)
			if tc.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.wantErr)
			}
		})
	}
}

func TestTransport(t *testing.T) {
	t.Parallel()
	st, err := Open(Config{Dir: t.TempDir()}, promslog.NewNopLogger(), nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	client := &http.Client{Transport: st.Transport()}
	now := time.Now().Truncate(time.Second)
	raw := encodeV2(t, []series{floatSeries(labels.FromStrings("__name__", "inproc", "testid", "x"), now, time.Second, 3, 1)})
	code, body, err := post(client, "http://tidemark.embedded/api/v1/write", raw, true)
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, code, body)

	a := promAPI(t, "http://tidemark.embedded", st.Transport())
	require.InDelta(t, 3, vectorValue(t, instant(t, a, "inproc", now.Add(2*time.Second))), 1e-9)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://tidemark.embedded/-/ready", nil)
	require.NoError(t, err)
	_, err = client.Do(req) // fails: no response, so no body to close
	require.ErrorIs(t, err, context.Canceled)
}

// TestGrafanaEndpoints calls what Grafana's Prometheus data source calls when it is added,
// tested and explored, and checks Prometheus' response envelope.
func TestGrafanaEndpoints(t *testing.T) {
	t.Parallel()
	ts := openTestStore(t, Config{})
	now := time.Now().Truncate(time.Second)
	mustWrite(t, ts.URL+"/api/v1/write", []series{floatSeries(labels.FromStrings("__name__", "k6_vus", "testid", "g"), now.Add(-time.Minute), 15*time.Second, 5, 1)}, false)
	end := fmt.Sprint(now.Unix())
	startS := fmt.Sprint(now.Add(-time.Hour).Unix())
	for _, tc := range []struct {
		method, path string
		form         url.Values
		want         string
	}{
		{"GET", "/api/v1/status/buildinfo", nil, `"version":"3.`},
		{"GET", "/api/v1/query", url.Values{"query": {"1+1"}}, `"resultType":"scalar"`},
		{"POST", "/api/v1/query", url.Values{"query": {"k6_vus"}, "time": {end}}, `"testid":"g"`},
		{"POST", "/api/v1/query_range", url.Values{"query": {"k6_vus"}, "start": {startS}, "end": {end}, "step": {"15"}}, `"resultType":"matrix"`},
		{"GET", "/api/v1/labels", url.Values{"start": {startS}, "end": {end}}, `"testid"`},
		{"POST", "/api/v1/labels", url.Values{"match[]": {"k6_vus"}}, `"testid"`},
		{"GET", "/api/v1/label/__name__/values", nil, `["k6_vus"]`},
		{"GET", "/api/v1/label/testid/values", url.Values{"match[]": {`k6_vus`}}, `["g"]`},
		{"GET", "/api/v1/series", url.Values{"match[]": {`{testid="g"}`}, "start": {startS}, "end": {end}}, `"__name__":"k6_vus"`},
		{"POST", "/api/v1/series", url.Values{"match[]": {`k6_vus`}}, `"__name__":"k6_vus"`},
		{"GET", "/api/v1/metadata", nil, `"data":{}`},
		{"GET", "/api/v1/query_exemplars", url.Values{"query": {"k6_vus"}, "start": {startS}, "end": {end}}, `"data":[]`},
		{"GET", "/api/v1/format_query", url.Values{"query": {"sum by(testid)(k6_vus)"}}, `"data":"sum by (testid) (k6_vus)"`},
		{"GET", "/api/v1/parse_query", url.Values{"query": {"k6_vus"}}, `"type":"vectorSelector"`},
		{"GET", "/api/v1/rules", nil, `"groups":[]`},
		{"GET", "/api/v1/alerts", nil, `"alerts":[]`},
		{"GET", "/api/v1/targets", nil, `"activeTargets":[]`},
		{"GET", "/api/v1/status/runtimeinfo", nil, `"storageRetention":"360h0m0s"`},
		{"GET", "/api/v1/status/config", nil, `scrape_interval`},
		{"GET", "/api/v1/status/flags", nil, `"web.enable-remote-write-receiver":"true"`},
		{"GET", "/api/v1/status/tsdb", nil, `"numSeries":1`},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			var resp *http.Response
			var err error
			if tc.method == "POST" {
				resp, err = http.PostForm(ts.URL+tc.path, tc.form)
			} else {
				u := ts.URL + tc.path
				if tc.form != nil {
					u += "?" + tc.form.Encode()
				}
				resp, err = http.Get(u)
			}
			require.NoError(t, err)
			body := readAll(t, resp)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var env struct {
				Status string          `json:"status"`
				Data   json.RawMessage `json:"data"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &env), body)
			require.Equal(t, "success", env.Status, body)
			require.Contains(t, body, tc.want)
		})
	}

	for path, want := range map[string]string{"/-/ready": "Ready", "/-/healthy": "Healthy", "/": "Grafana"} {
		code, body := getBody(t, ts.URL+path)
		require.Equal(t, http.StatusOK, code, path)
		require.Contains(t, body, want, path)
	}
	code, body := getBody(t, ts.URL+"/api/v1/query?query=sum(")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, `"errorType":"bad_data"`)

	problems, err := testutil.GatherAndLint(ts.reg, "tidemark_store_http_request_duration_seconds")
	require.NoError(t, err)
	require.Empty(t, problems)
	n, err := testutil.GatherAndCount(ts.reg, "tidemark_store_http_request_duration_seconds")
	require.NoError(t, err)
	require.Positive(t, n)
}

func TestScrapeTargets(t *testing.T) {
	t.Parallel()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = fmt.Fprint(w, "# HELP kube_deployment_status_replicas_ready Ready replicas.\n# TYPE kube_deployment_status_replicas_ready gauge\nkube_deployment_status_replicas_ready{deployment=\"order\"} 4\n")
	}))
	defer target.Close()
	host := strings.TrimPrefix(target.URL, "http://")
	ts := openTestStore(t, Config{ScrapeTargets: []string{host}, ScrapeInterval: 200 * time.Millisecond})
	a := promAPI(t, ts.URL, nil)
	deadline := time.Now().Add(15 * time.Second)
	for {
		v, _, _, err := a.Query(context.Background(), `kube_deployment_status_replicas_ready{job="tidemark",deployment="order"}`, time.Now())
		require.NoError(t, err)
		if vec := v.(model.Vector); len(vec) == 1 {
			require.InDelta(t, 4, float64(vec[0].Value), 0)
			require.Equal(t, model.LabelValue(host), vec[0].Metric["instance"])
			break
		}
		require.True(t, time.Now().Before(deadline), "target not scraped in time")
		time.Sleep(50 * time.Millisecond)
	}
	// Metadata comes from scraped targets, as in Prometheus.
	code, body := getBody(t, ts.URL+"/api/v1/metadata")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"kube_deployment_status_replicas_ready":[{"type":"gauge"`)
	code, body = getBody(t, ts.URL+"/api/v1/targets")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"health":"up"`)
}

func TestScrapeConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("global:\n  scrape_interval: 30s\nscrape_configs:\n  - job_name: ksm\n    static_configs:\n      - targets: ['127.0.0.1:1']\n"), 0o600))
	ts := openTestStore(t, Config{ScrapeConfigFile: cfg})
	code, body := getBody(t, ts.URL+"/api/v1/status/config")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "job_name: ksm")

	// Reload picks up a changed file.
	require.NoError(t, os.WriteFile(cfg, []byte("scrape_configs:\n  - job_name: cadvisor\n    static_configs:\n      - targets: ['127.0.0.1:2']\n"), 0o600))
	require.NoError(t, ts.Reload())
	_, body = getBody(t, ts.URL+"/api/v1/status/config")
	require.Contains(t, body, "job_name: cadvisor")
	require.NotContains(t, body, "job_name: ksm")
	// Scrape pools follow once discovery has sent the new target groups.
	require.Eventually(t, func() bool {
		_, body := getBody(t, ts.URL+"/api/v1/scrape_pools")
		return strings.Contains(body, `"scrapePools":["cadvisor"]`)
	}, 15*time.Second, 50*time.Millisecond)

	// A broken file is refused at start and on reload; the running config stays.
	require.NoError(t, os.WriteFile(cfg, []byte("scrape_configs:\n  - job_name: [\n"), 0o600))
	require.ErrorContains(t, ts.Reload(), "load scrape config")
	_, body = getBody(t, ts.URL+"/api/v1/status/config")
	require.Contains(t, body, "job_name: cadvisor")
	_, err := Open(Config{Dir: t.TempDir(), ScrapeConfigFile: cfg}, promslog.NewNopLogger(), nil)
	require.ErrorContains(t, err, "load scrape config")
}

func TestPromModuleToRelease(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"v0.316.0": "3.16.0", "v0.54.1": "x", "v0.300.2": "3.0.2", "(devel)": "x"} {
		require.Equal(t, want, promModuleToRelease(in, "x"), in)
	}
}

// TestClaimedContentLength: a remote-write request that claims a 32 MiB body does not
// make the store reserve 32 MiB before the body arrives, so that slow clients making
// such claims cannot pin memory. Not parallel: it measures the process's allocations.
func TestClaimedContentLength(t *testing.T) {
	st, err := Open(Config{Dir: t.TempDir()}, promslog.NewNopLogger(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	serve := func() int {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/write", strings.NewReader("x"))
		req.ContentLength = maxDecodedSize
		rec := httptest.NewRecorder()
		st.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	serve() // warm up pools and lazily built state.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code := serve()
	runtime.ReadMemStats(&after)
	require.Equal(t, http.StatusBadRequest, code)
	// Reserving the claim would allocate over 32 MiB; reading the one byte that came takes
	// at most the pooled buffer (4 MiB, again if a GC emptied the pool) plus what the
	// store's background goroutines allocate meanwhile, which under -race reached 8.4 MB.
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(maxDecodedSize/2))
}
