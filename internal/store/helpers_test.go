package store

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
	"github.com/stretchr/testify/require"
)

// Content types and versions of the two remote-write protocols.
const (
	contentTypeV1 = "application/x-protobuf"
	contentTypeV2 = "application/x-protobuf;proto=io.prometheus.write.v2.Request"
	versionV1     = "0.1.0"
	versionV2     = "2.0.0"
)

// testStore is an open store served by an httptest server.
type testStore struct {
	*Store
	URL string
	reg *prometheus.Registry
}

func openTestStore(t testing.TB, cfg Config) *testStore {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	reg := prometheus.NewRegistry()
	st, err := Open(cfg, promslog.NewNopLogger(), reg)
	require.NoError(t, err)
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, st.Close())
	})
	return &testStore{Store: st, URL: srv.URL, reg: reg}
}

// promAPI returns a client_golang API client for baseURL.
func promAPI(t testing.TB, baseURL string, rt http.RoundTripper) v1.API {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: baseURL, RoundTripper: rt})
	require.NoError(t, err)
	return v1.NewAPI(c)
}

// series is one remote-write series for tests: float samples or native histograms.
type series struct {
	labels  labels.Labels
	samples []prompb.Sample
	hists   []histAt
}

type histAt struct {
	t int64
	h *histogram.Histogram
}

func encodeV1(t testing.TB, ss []series) []byte {
	t.Helper()
	req := &prompb.WriteRequest{}
	for _, s := range ss {
		ts := prompb.TimeSeries{Labels: prompb.FromLabels(s.labels, nil), Samples: s.samples}
		for _, h := range s.hists {
			ts.Histograms = append(ts.Histograms, prompb.FromIntHistogram(h.t, h.h))
		}
		req.Timeseries = append(req.Timeseries, ts)
	}
	b, err := req.Marshal()
	require.NoError(t, err)
	return b
}

func encodeV2(t testing.TB, ss []series) []byte {
	t.Helper()
	st := writev2.NewSymbolTable()
	req := &writev2.Request{}
	for _, s := range ss {
		ts := writev2.TimeSeries{LabelsRefs: st.SymbolizeLabels(s.labels, nil)}
		for _, smp := range s.samples {
			ts.Samples = append(ts.Samples, writev2.Sample{Value: smp.Value, Timestamp: smp.Timestamp})
		}
		for _, h := range s.hists {
			ts.Histograms = append(ts.Histograms, writev2.FromIntHistogram(0, h.t, h.h))
		}
		if len(s.hists) > 0 {
			ts.Metadata.Type = writev2.Metadata_METRIC_TYPE_HISTOGRAM
		}
		req.Timeseries = append(req.Timeseries, ts)
	}
	req.Symbols = st.Symbols()
	b, err := req.Marshal()
	require.NoError(t, err)
	return b
}

// post sends a raw (already protobuf-encoded, not yet compressed) remote-write body to
// url and returns the status code and response body.
func post(client *http.Client, url string, raw []byte, v2 bool) (int, string, error) {
	return postBody(client, url, snappy.Encode(nil, raw), v2)
}

func postBody(client *http.Client, url string, body []byte, v2 bool) (int, string, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Encoding", "snappy")
	if v2 {
		req.Header.Set("Content-Type", contentTypeV2)
		req.Header.Set("X-Prometheus-Remote-Write-Version", versionV2)
	} else {
		req.Header.Set("Content-Type", contentTypeV1)
		req.Header.Set("X-Prometheus-Remote-Write-Version", versionV1)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func mustWrite(t testing.TB, url string, ss []series, v2 bool) {
	t.Helper()
	var raw []byte
	if v2 {
		raw = encodeV2(t, ss)
	} else {
		raw = encodeV1(t, ss)
	}
	code, body, err := post(http.DefaultClient, url, raw, v2)
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, code, body)
}

// floatSeries returns a series with n samples of value v0, v0+1, … every step from start.
func floatSeries(ls labels.Labels, start time.Time, step time.Duration, n int, v0 float64) series {
	s := series{labels: ls}
	for i := range n {
		s.samples = append(s.samples, prompb.Sample{Timestamp: start.Add(time.Duration(i) * step).UnixMilli(), Value: v0 + float64(i)})
	}
	return s
}

// testHistogram is a native histogram (schema 0: buckets (0.5,1], (1,2], (2,4], (4,8])
// whose counts grow with i, as a cumulative histogram does.
func testHistogram(i int) *histogram.Histogram {
	k := int64(i + 1)
	return &histogram.Histogram{
		Schema:          0,
		ZeroThreshold:   1e-128,
		ZeroCount:       uint64(k),
		Count:           uint64(k * (1 + 10 + 20 + 40 + 10)),
		Sum:             float64(k) * 250,
		PositiveSpans:   []histogram.Span{{Offset: 0, Length: 4}},
		PositiveBuckets: []int64{10 * k, 10 * k, 20 * k, -30 * k}, // counts 10k, 20k, 40k, 10k
	}
}

// histSeries returns a native-histogram series with n samples every step from start.
func histSeries(ls labels.Labels, start time.Time, step time.Duration, n int) series {
	s := series{labels: ls}
	for i := range n {
		s.hists = append(s.hists, histAt{t: start.Add(time.Duration(i) * step).UnixMilli(), h: testHistogram(i)})
	}
	return s
}

func getBody(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// instant runs an instant query through client_golang against baseURL.
func instant(t testing.TB, a v1.API, expr string, ts time.Time) model.Value {
	t.Helper()
	v, _, _, err := a.Query(context.Background(), expr, ts)
	require.NoError(t, err, expr)
	return v
}

func vectorValue(t testing.TB, v model.Value) float64 {
	t.Helper()
	vec, ok := v.(model.Vector)
	require.True(t, ok, "want vector, got %T %v", v, v)
	require.Len(t, vec, 1, fmt.Sprint(vec))
	return float64(vec[0].Value)
}
