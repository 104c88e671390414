// Package seriestest provides fakes of the aggregate state that series, remotewrite
// and exporter consume: exact distributions over raw values and a mutable snapshot
// source.
package seriestest

import (
	"math"
	"slices"
	"sync"

	"github.com/prometheus/prometheus/model/histogram"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
)

// Dist is a series.Distribution over raw values, with k6's exact percentiles and a
// schema 3 native histogram.
type Dist struct {
	values []float64
}

var _ series.Distribution = (*Dist)(nil)

// NewDist returns a distribution of values.
func NewDist(values ...float64) *Dist {
	v := slices.Clone(values)
	slices.Sort(v)
	return &Dist{values: v}
}

// Count returns the number of values.
func (d *Dist) Count() uint64 { return uint64(len(d.values)) }

// Sum returns the sum of the values.
func (d *Dist) Sum() float64 {
	var s float64
	for _, v := range d.values {
		s += v
	}
	return s
}

// Min returns the smallest value, 0 when empty.
func (d *Dist) Min() float64 {
	if len(d.values) == 0 {
		return 0
	}
	return d.values[0]
}

// Max returns the largest value, 0 when empty.
func (d *Dist) Max() float64 {
	if len(d.values) == 0 {
		return 0
	}
	return d.values[len(d.values)-1]
}

// Quantile returns k6's percentile: linear interpolation at q·(n−1).
func (d *Dist) Quantile(q float64) float64 {
	n := len(d.values)
	switch n {
	case 0:
		return 0
	case 1:
		return d.values[0]
	}
	r := q * float64(n-1)
	lo, hi := int(math.Floor(r)), int(math.Ceil(r))
	return d.values[lo] + (d.values[hi]-d.values[lo])*(r-float64(lo))
}

// Native returns the values as a schema 3 native histogram. Values ≤ 0 go to the zero
// bucket.
func (d *Dist) Native() *histogram.Histogram {
	h := &histogram.Histogram{Schema: 3, ZeroThreshold: 1e-128, Count: uint64(len(d.values)), Sum: d.Sum()}
	counts := map[int32]int64{}
	for _, v := range d.values {
		if v <= h.ZeroThreshold {
			h.ZeroCount++
			continue
		}
		frac, exp := math.Frexp(v)
		// Bucket i holds (2^((i-1)/8), 2^(i/8)].
		idx := int32(math.Ceil(math.Log2(frac)*8)) + int32(exp)*8
		counts[idx]++
	}
	idx := make([]int32, 0, len(counts))
	for i := range counts {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var prev int64
	for n, i := range idx {
		switch {
		case n == 0:
			h.PositiveSpans = append(h.PositiveSpans, histogram.Span{Offset: i, Length: 1})
		case i == idx[n-1]+1:
			h.PositiveSpans[len(h.PositiveSpans)-1].Length++
		default:
			h.PositiveSpans = append(h.PositiveSpans, histogram.Span{Offset: i - idx[n-1] - 1, Length: 1})
		}
		h.PositiveBuckets = append(h.PositiveBuckets, counts[i]-prev)
		prev = counts[i]
	}
	return h
}

// Source is a series.Snapshotter whose snapshot tests set. It is safe for concurrent
// use.
type Source struct {
	mu     sync.Mutex
	inputs []series.Input
	calls  int
}

var _ series.Snapshotter = (*Source)(nil)

// Set replaces the snapshot.
func (s *Source) Set(in []series.Input) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = slices.Clone(in)
}

// Snapshot returns a copy of the current snapshot.
func (s *Source) Snapshot() []series.Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return slices.Clone(s.inputs)
}

// Calls returns how many snapshots were taken.
func (s *Source) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Run is a synthetic run: k6's built-in metrics plus a custom trend of each value
// type and Tidemark's run metadata, in a registry and a tag pool.
type Run struct {
	Registry *metrics.Registry
	Pool     *metrics.TagPool
	Builtin  *metrics.Builtin
	// Custom metrics.
	WaitTime   *metrics.Metric // trend of time
	Payload    *metrics.Metric // trend of data
	Queue      *metrics.Metric // trend of plain numbers
	RunInfo    *metrics.Metric // gauge tidemark_run_info
	Target     *metrics.Metric // gauge tidemark_scenario_target
	ErrorCount *metrics.Metric // custom counter
}

// NewRun registers the metrics of a synthetic run.
func NewRun() *Run {
	r := &Run{Registry: metrics.NewRegistry(), Pool: metrics.NewTagPool()}
	r.Builtin = metrics.RegisterBuiltin(r.Registry)
	must := func(name string, t metrics.Type, v metrics.ValueType) *metrics.Metric {
		m, err := r.Registry.New(name, t, v)
		if err != nil {
			panic(err) // constant names above; a test bug
		}
		return m
	}
	r.WaitTime = must("wait_time", metrics.Trend, metrics.Time)
	r.Payload = must("payload_size", metrics.Trend, metrics.Data)
	r.Queue = must("queue_depth", metrics.Trend, metrics.Default)
	r.RunInfo = must("tidemark_run_info", metrics.Gauge, metrics.Default)
	r.Target = must("tidemark_scenario_target", metrics.Gauge, metrics.Default)
	r.ErrorCount = must("errors", metrics.Counter, metrics.Default)
	return r
}

// Tags interns k=v pairs.
func (r *Run) Tags(kv ...string) *metrics.TagSet {
	tags := make([]metrics.Tag, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		tags = append(tags, metrics.Tag{Key: kv[i], Value: kv[i+1]})
	}
	return r.Pool.Intern(tags)
}

// Snapshot returns a snapshot covering every metric type and value type, with the
// given multiplier applied to counts (so successive snapshots grow like a run).
func (r *Run) Snapshot(n int) []series.Input {
	b := r.Builtin
	f := float64(n)
	lat := make([]float64, 0, 100*n)
	for i := range 100 * n {
		lat = append(lat, 0.001*float64(i%100+1)) // 1 ms … 100 ms
	}
	http := r.Tags("scenario", "default", "method", "GET", "status", "200", "name", "http://127.0.0.1/", "url", "http://127.0.0.1/", "proto", "HTTP/1.1", "expected_response", "true", "group", "")
	fail := r.Tags("scenario", "default", "method", "GET", "status", "503", "name", "http://127.0.0.1/", "url", "http://127.0.0.1/", "proto", "HTTP/1.1", "expected_response", "false", "error_code", "1503")
	sc := r.Tags("scenario", "default")
	return []series.Input{
		{Metric: b.VUs, Tags: r.Tags(), Value: 10},
		{Metric: b.VUsMax, Tags: r.Tags(), Value: 20},
		{Metric: b.Iterations, Tags: sc, Value: 90 * f},
		{Metric: b.DroppedIterations, Tags: sc, Value: 2 * f},
		{Metric: b.HTTPReqs, Tags: http, Value: 100 * f},
		{Metric: b.HTTPReqs, Tags: fail, Value: 3 * f},
		{Metric: b.HTTPReqFailed, Tags: http, Passes: 0, Total: uint64(100 * n)},
		{Metric: b.HTTPReqFailed, Tags: fail, Passes: uint64(3 * n), Total: uint64(3 * n)},
		{Metric: b.Checks, Tags: r.Tags("scenario", "default", "check", "status is 200"), Passes: uint64(97 * n), Total: uint64(100 * n)},
		{Metric: b.HTTPReqDuration, Tags: http, Trend: NewDist(lat...)},
		{Metric: b.DataSent, Tags: sc, Value: 4096 * f},
		{Metric: r.WaitTime, Tags: sc, Trend: NewDist(0.25, 0.5, 1.5)},
		{Metric: r.Payload, Tags: sc, Trend: NewDist(100, 200, 4000)},
		{Metric: r.Queue, Tags: sc, Trend: NewDist(1, 2, 3, 4)},
		{Metric: r.ErrorCount, Tags: sc, Value: f},
		{Metric: r.RunInfo, Tags: r.Tags("version", "0.1.0"), Value: 1},
		{Metric: r.Target, Tags: r.Tags("scenario", "default", "unit", "iterations/s"), Value: 50},
	}
}
