package remotewrite_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/common/config"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/prompb"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/remotewrite"
)

// point is one decoded sample of one series.
type point struct {
	series    string // name{labels}
	ts        int64
	value     float64
	histogram *histogram.Histogram
	meta      *writev2.Metadata // RW2 only, with refs resolved into help and unit
	help      string
	unit      string
}

// request is one decoded request.
type request struct {
	header http.Header
	points []point
	n      int // decoded points, also for rejected requests
	at     time.Time
}

func (r request) hasHistograms() bool {
	for _, p := range r.points {
		if p.histogram != nil {
			return true
		}
	}
	return false
}

// receiver is a fake remote-write endpoint that decodes 1.0 and 2.0 requests.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	reqs    []request
	respond func(n int, r request) (status int, header http.Header, body string)
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{t: t}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.handle))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) url() *config.URL {
	u, err := url.Parse(rc.srv.URL + "/api/v1/write")
	require.NoError(rc.t, err)
	return &config.URL{URL: u}
}

func (rc *receiver) setRespond(f func(n int, r request) (int, http.Header, string)) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.respond = f
}

func seriesKey(ls []prompb.Label) string {
	var name string
	var parts []string
	for _, l := range ls {
		if l.Name == "__name__" {
			name = l.Value
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%q", l.Name, l.Value))
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

func decode(h http.Header, body []byte) ([]point, error) {
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		return nil, err
	}
	var out []point
	if strings.Contains(h.Get("Content-Type"), "io.prometheus.write.v2.Request") {
		var req writev2.Request
		if err := req.Unmarshal(raw); err != nil {
			return nil, err
		}
		for _, ts := range req.Timeseries {
			var ls []prompb.Label
			for i := 0; i+1 < len(ts.LabelsRefs); i += 2 {
				ls = append(ls, prompb.Label{Name: req.Symbols[ts.LabelsRefs[i]], Value: req.Symbols[ts.LabelsRefs[i+1]]})
			}
			if !slices.IsSortedFunc(ls, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) }) {
				return nil, fmt.Errorf("labels not sorted: %v", ls)
			}
			md := ts.Metadata
			base := point{series: seriesKey(ls), meta: &md, help: req.Symbols[md.HelpRef], unit: req.Symbols[md.UnitRef]}
			for _, s := range ts.Samples {
				p := base
				p.ts, p.value = s.Timestamp, s.Value
				out = append(out, p)
			}
			for _, hp := range ts.Histograms {
				p := base
				p.ts, p.histogram = hp.Timestamp, hp.ToIntHistogram()
				out = append(out, p)
			}
		}
		return out, nil
	}
	var req prompb.WriteRequest
	if err := req.Unmarshal(raw); err != nil {
		return nil, err
	}
	for _, ts := range req.Timeseries {
		if !slices.IsSortedFunc(ts.Labels, func(a, b prompb.Label) int { return strings.Compare(a.Name, b.Name) }) {
			return nil, fmt.Errorf("labels not sorted: %v", ts.Labels)
		}
		k := seriesKey(ts.Labels)
		for _, s := range ts.Samples {
			out = append(out, point{series: k, ts: s.Timestamp, value: s.Value})
		}
		for _, hp := range ts.Histograms {
			out = append(out, point{series: k, ts: hp.Timestamp, histogram: hp.ToIntHistogram()})
		}
	}
	return out, nil
}

func (rc *receiver) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	points, err := decode(r.Header, body)
	if err != nil {
		rc.t.Errorf("decode request: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := request{header: r.Header.Clone(), points: points, n: len(points), at: time.Now()}
	rc.mu.Lock()
	n := len(rc.reqs)
	respond := rc.respond
	rc.mu.Unlock()
	status, header, msg := http.StatusNoContent, http.Header(nil), ""
	if respond != nil {
		status, header, msg = respond(n, req)
	}
	if strings.Contains(r.Header.Get("Content-Type"), "io.prometheus.write.v2.Request") && status/100 == 2 {
		var samples, hists int
		for _, p := range points {
			if p.histogram != nil {
				hists++
			} else {
				samples++
			}
		}
		w.Header().Set("X-Prometheus-Remote-Write-Samples-Written", fmt.Sprint(samples))
		w.Header().Set("X-Prometheus-Remote-Write-Histograms-Written", fmt.Sprint(hists))
		w.Header().Set("X-Prometheus-Remote-Write-Exemplars-Written", "0")
	}
	maps.Copy(w.Header(), header)
	rc.mu.Lock()
	// Only accepted requests are stored, as a real receiver would.
	if status/100 == 2 {
		rc.reqs = append(rc.reqs, req)
	} else {
		rc.reqs = append(rc.reqs, request{header: req.header, n: req.n, at: req.at})
	}
	rc.mu.Unlock()
	if status/100 != 2 {
		http.Error(w, msg, status)
		return
	}
	w.WriteHeader(status)
}

func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

// accepted returns the points of accepted requests.
func (rc *receiver) accepted() []point {
	var out []point
	for _, r := range rc.requests() {
		out = append(out, r.points...)
	}
	return out
}

// latest returns the last accepted non-stale value of every series.
func (rc *receiver) latest() map[string]point {
	out := map[string]point{}
	for _, p := range rc.accepted() {
		if p.histogram == nil && isStale(p.value) {
			continue
		}
		if old, ok := out[p.series]; !ok || p.ts >= old.ts {
			out[p.series] = p
		}
	}
	return out
}

func isStale(v float64) bool { return math.Float64bits(v) == 0x7ff0000000000002 }

func (rc *receiver) waitRequests(t *testing.T, n int, timeout time.Duration) []request {
	t.Helper()
	require.Eventually(t, func() bool { return len(rc.requests()) >= n }, timeout, 5*time.Millisecond,
		"want %d requests", n)
	return rc.requests()
}

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) lines(substr string) []string {
	var out []string
	for l := range strings.SplitSeq(b.String(), "\n") {
		if l != "" && strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

func newLogger(level slog.Level) (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: level})), b
}

// testConfig is a fast configuration for unit tests.
func testConfig(u *config.URL) remotewrite.Config {
	cfg := remotewrite.DefaultConfig
	cfg.URL = u
	cfg.PushInterval = modelDuration(30 * time.Millisecond)
	cfg.Queue.MinBackoff = modelDuration(5 * time.Millisecond)
	cfg.Queue.MaxBackoff = modelDuration(40 * time.Millisecond)
	cfg.Queue.FinalFlushTimeout = modelDuration(3 * time.Second)
	cfg.Timeout = modelDuration(2 * time.Second)
	cfg.Series.TestID = "t1"
	return cfg
}
