package remotewrite

import (
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/tidemark/tidemark/internal/series"
)

const namespace = "tidemark"

// Stats are the client's delivery counts, for the end-of-test summary. They are read
// off the client's metrics (tidemark_remote_write_*).
type Stats struct {
	// Samples counts samples (native histograms included) accepted by the receiver.
	Samples uint64
	// Histograms counts the native histogram samples among Samples.
	Histograms uint64
	// Requests counts requests accepted by the receiver.
	Requests uint64
	// Retries counts requests sent again after a recoverable error (network, 5xx, 429).
	Retries uint64
	// Failed counts samples in requests that failed, retried or not.
	Failed uint64
	// Dropped counts samples given up on: rejected by the receiver (4xx other than
	// 429), or still unsent when the final flush timed out.
	Dropped uint64
	// Superseded counts samples not sent because a newer snapshot replaced them;
	// the newer values include theirs, so nothing is lost.
	Superseded uint64
	// LastSuccess is when the receiver last accepted a request.
	LastSuccess time.Time
	// RefusedSeries counts the series the receiver refused alone (found by splitting a
	// rejected request): their samples are among Dropped, and they are not sent again.
	RefusedSeries uint64
	// Long tells what the label value cap (label_value_max_length) did.
	Long series.LongLabels
}

// Lost tells whether samples were not delivered: dropped, or series refused or left
// out by the label value cap.
func (s Stats) Lost() bool { return s.Dropped > 0 || s.RefusedSeries > 0 || s.Long.Dropped > 0 }

// String returns the end-of-test summary line, e.g.
// "remote write: 48,210 samples in 61 requests, 2 retries, 0 dropped".
func (s Stats) String() string {
	out := fmt.Sprintf("remote write: %s samples in %s requests, %s %s, %s dropped",
		thousands(s.Samples), thousands(s.Requests), thousands(s.Retries), plural(s.Retries, "retry", "retries"), thousands(s.Dropped))
	if s.RefusedSeries > 0 {
		out += fmt.Sprintf("; %s %s refused by the receiver and not sent again (see the log)", thousands(s.RefusedSeries), plural(s.RefusedSeries, "series", "series"))
	}
	if n := s.Long.Truncated; n > 0 {
		out += fmt.Sprintf("; %d %s with a label value over label_value_max_length sent truncated (first: %s)", n, plural(uint64(n), "series", "series"), s.Long.Example)
	}
	if n := s.Long.Dropped; n > 0 {
		out += fmt.Sprintf("; %d %s with a label value over label_value_max_length not sent (first: %s)", n, plural(uint64(n), "series", "series"), s.Long.Example)
	}
	return out
}

func plural(n uint64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// selfMetrics are the client's own metrics. They are the one record of delivery: Stats
// reads them.
type selfMetrics struct {
	samples       prometheus.Counter
	histograms    prometheus.Counter
	requests      prometheus.Counter
	retries       prometheus.Counter
	retried       prometheus.Counter
	failed        prometheus.Counter
	dropped       prometheus.Counter
	superseded    prometheus.Counter
	refusedSeries prometheus.Counter
	lastSuccess   prometheus.Gauge
	duration      prometheus.Histogram
}

func newSelfMetrics(reg prometheus.Registerer) (*selfMetrics, error) {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "remote_write", Name: name, Help: help})
	}
	m := &selfMetrics{
		samples:       counter("samples_total", "Samples (native histograms included) accepted by the remote-write receiver."),
		histograms:    counter("histograms_total", "Native histogram samples accepted by the remote-write receiver."),
		requests:      counter("requests_total", "Requests accepted by the remote-write receiver."),
		retries:       counter("requests_retried_total", "Requests sent again after a recoverable error (network, 5xx, 429)."),
		retried:       counter("samples_retried_total", "Samples sent again after a recoverable error (network, 5xx, 429)."),
		failed:        counter("samples_failed_total", "Samples in requests that failed, retried or not."),
		dropped:       counter("samples_dropped_total", "Samples given up on: rejected by the receiver or unsent when the final flush timed out."),
		superseded:    counter("samples_superseded_total", "Samples not sent because a newer snapshot of the same cumulative series replaced them."),
		refusedSeries: counter("series_refused_total", "Series the receiver rejected alone (found by splitting a rejected request); they are not sent again."),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Subsystem: "remote_write",
			Name: "last_success_timestamp_seconds", Help: "Unix time of the last request accepted by the remote-write receiver."}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "remote_write",
			Name: "request_duration_seconds", Help: "Duration of remote-write requests.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 7)}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.samples, m.histograms, m.requests, m.retries, m.retried, m.failed, m.dropped, m.superseded, m.refusedSeries, m.lastSuccess, m.duration} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("register remote write metrics: %w", err)
			}
		}
	}
	return m, nil
}

// stats reads the delivery counts off the metrics. Each value is read atomically, the
// set is not: a concurrent send can land between two reads.
func (m *selfMetrics) stats() Stats {
	s := Stats{
		Samples:    counted(m.samples),
		Histograms: counted(m.histograms),
		Requests:   counted(m.requests),
		Retries:    counted(m.retries),
		Failed:     counted(m.failed),
		Dropped:    counted(m.dropped),
		Superseded: counted(m.superseded),
	}
	if sec := value(m.lastSuccess); sec > 0 {
		s.LastSuccess = time.Unix(0, int64(sec*1e9))
	}
	return s
}

// counted returns the value of a counter of whole samples or requests.
func counted(c prometheus.Counter) uint64 { return uint64(value(c)) }

// value returns the value of a counter or gauge.
func value(c prometheus.Metric) float64 {
	var d dto.Metric
	// Write fails only for exemplars or labels a plain counter or gauge does not have.
	if err := c.Write(&d); err != nil {
		return 0
	}
	if d.Counter != nil {
		return d.Counter.GetValue()
	}
	return d.Gauge.GetValue()
}
