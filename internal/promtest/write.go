package promtest

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/prompb"
)

// Batch collects the samples of a fixture run, series by series, and remote-writes them
// at once as k6's experimental-prometheus-rw output sends: one Remote Write 1.0 request,
// snappy-compressed protobuf, labels sorted by name, no metadata. The zero value is
// ready to use; it is not safe for concurrent use.
type Batch struct {
	series map[string]*prompb.TimeSeries
	order  []string
}

// Add appends a float sample at t to the series of labels (with __name__).
func (b *Batch) Add(labels map[string]string, t time.Time, v float64) {
	ts := b.get(labels)
	ts.Samples = append(ts.Samples, prompb.Sample{Timestamp: t.UnixMilli(), Value: v})
}

// AddHistogram appends a native histogram sample at t to the series of labels.
func (b *Batch) AddHistogram(labels map[string]string, t time.Time, h *histogram.Histogram) {
	ts := b.get(labels)
	ts.Histograms = append(ts.Histograms, prompb.FromIntHistogram(t.UnixMilli(), h))
}

func (b *Batch) get(labels map[string]string) *prompb.TimeSeries {
	names := slices.Sorted(maps.Keys(labels))
	var id strings.Builder
	ls := make([]prompb.Label, 0, len(names))
	for _, n := range names {
		id.WriteString(n + "\xff" + labels[n] + "\xff")
		ls = append(ls, prompb.Label{Name: n, Value: labels[n]})
	}
	if b.series == nil {
		b.series = map[string]*prompb.TimeSeries{}
	}
	ts, ok := b.series[id.String()]
	if !ok {
		ts = &prompb.TimeSeries{Labels: ls}
		b.series[id.String()] = ts
		b.order = append(b.order, id.String())
	}
	return ts
}

// Write sends every series in one request to writeURL (Server.WriteURL) and fails the
// test unless the receiver answers 204 No Content.
func (b *Batch) Write(t testing.TB, writeURL string) {
	t.Helper()
	var req prompb.WriteRequest
	for _, id := range b.order {
		req.Timeseries = append(req.Timeseries, *b.series[id])
	}
	raw, err := req.Marshal()
	if err != nil {
		t.Fatalf("marshal the write request: %v", err)
	}
	hreq, err := http.NewRequest(http.MethodPost, writeURL, bytes.NewReader(snappy.Encode(nil, raw)))
	if err != nil {
		t.Fatalf("new write request: %v", err)
	}
	hreq.Header.Set("Content-Encoding", "snappy")
	hreq.Header.Set("Content-Type", "application/x-protobuf")
	hreq.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatalf("remote write: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("remote write: %s: %s", resp.Status, body)
	}
}
