// Package aggregate keeps one sink per time series (metric and tag set) of a load test:
// counters sum, gauges keep the last value with min and max, rates count passes out of a
// total, and trends fill a constant-memory histogram (internal/hist). The Store takes
// samples from thousands of VU goroutines and hands out immutable, consistent Snapshots
// to the remote-write, exporter, threshold and summary code.
package aggregate

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/metrics"
)

// Store aggregates samples per series. It is safe for concurrent use; memory grows with
// the number of series, never with the number of samples.
//
// Finding a series takes no lock of its own: a copy-on-write map finds the metric
// (there are tens), and a sync.Map (a concurrent hash trie) keyed by the interned
// *TagSet finds the series. Both keys are pointers, which hash fastest. Updating a
// series takes its own mutex, so pushes contend only on the same series.
type Store struct {
	now func() time.Time

	// mu makes snapshots consistent: Push holds it shared for a whole batch, Snapshot
	// exclusively, so a snapshot never sees part of a Push.
	mu sync.RWMutex

	metricsMu sync.Mutex // Serialises adding metrics to byMetric.
	byMetric  atomic.Pointer[map[*metrics.Metric]*sync.Map]
	count     atomic.Int64 // Number of series.

	// max caps count (0: no cap); folded counts the samples put into overflow
	// series since (WithMaxSeries), whose tag sets come from overflowPool.
	max          int64
	folded       atomic.Int64
	overflowPool *metrics.TagPool

	// ordered lists every series in snapshot order; Snapshot rebuilds it, under mu,
	// when series were added since.
	ordered []*series

	hooksMu sync.Mutex
	hooks   []func() // BeforeSnapshot's
}

// BeforeSnapshot registers f to run at the start of every Snapshot, on the goroutine
// taking it, before the snapshot is taken and without any lock of the Store held: a
// source of gauges that are sampled when read (the engine's VUs and scenario targets)
// pushes its current values there, so a snapshot never carries a value sampled long
// before it, however late a sampling loop runs on a busy machine.
func (s *Store) BeforeSnapshot(f func()) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.hooks = append(s.hooks, f)
}

// series is one sink with its bookkeeping.
type series struct {
	mu     sync.Mutex
	metric *metrics.Metric
	tags   *metrics.TagSet
	first  time.Time
	last   time.Time

	// Counter: value is the sum. Gauge: value is the last value, min and max.
	value, min, max float64
	// Rate.
	passes, total uint64
	// Trend. Once a snapshot has handed out hist, shared is set and hist is frozen:
	// the next sample copies it first (copy on write). Snapshots therefore never copy
	// histograms while they hold the Store exclusively, and an idle series is never
	// copied at all.
	hist   *hist.Histogram
	shared bool
}

// Option configures a Store.
type Option func(*options)

type options struct {
	now       func() time.Time
	maxSeries int
}

// OverflowTag is the tag of an overflow series (WithMaxSeries), set to "true".
const OverflowTag = "tidemark_overflow"

// overflowKeys are the tags an overflow series keeps: k6's system tags of few values.
// The others (url, name, check, the script's own) are what made the series many.
var overflowKeys = map[string]bool{
	"scenario": true, "group": true, "method": true, "status": true, "expected_response": true,
	"proto": true, "error_code": true, "tls_version": true, "testid": true, "instance_id": true,
}

// WithMaxSeries caps the number of series at n; 0 or less sets no cap. Past the cap, a
// sample of a new tag set is folded into an overflow series of its metric, which keeps
// only the sample's tags of few values (scenario, method, status…) and the tag
// OverflowTag: every sample still counts in its metric's totals, but not under its own
// tags (a submetric of a dropped tag misses it). Folded tells how many were folded.
// This is how a tag of unique values (a URL with an id) is kept from growing memory
// without bound, as OpenTelemetry's cardinality limit does.
func WithMaxSeries(n int) Option {
	return func(o *options) { o.maxSeries = n }
}

// WithClock sets the clock that timestamps snapshots; the default is time.Now.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// New returns an empty Store.
func New(opts ...Option) *Store {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	s := &Store{now: o.now, max: int64(max(o.maxSeries, 0)), overflowPool: metrics.NewTagPool()}
	s.byMetric.Store(&map[*metrics.Metric]*sync.Map{})
	return s
}

var _ metrics.Pusher = (*Store)(nil)

// Push adds samples to their series, creating series on first use. Samples with a nil
// Metric are ignored. It does not retain the slice.
func (s *Store) Push(samples []metrics.Sample) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i := range samples {
		smp := &samples[i]
		if smp.Metric == nil {
			continue
		}
		ser := s.lookup(smp.Metric, smp.Tags)
		ser.mu.Lock()
		ser.add(smp)
		ser.mu.Unlock()
	}
}

func (s *Store) lookup(m *metrics.Metric, tags *metrics.TagSet) *series {
	set := (*s.byMetric.Load())[m]
	if set == nil {
		set = s.addMetric(m)
	}
	if v, ok := set.Load(tags); ok {
		return v.(*series)
	}
	if s.max > 0 && s.count.Load() >= s.max && !s.isOverflow(tags) {
		s.folded.Add(1)
		return s.lookup(m, s.overflowTags(tags))
	}
	ser := &series{metric: m, tags: tags}
	if m.Type == metrics.Trend {
		ser.hist = hist.New()
	}
	v, loaded := set.LoadOrStore(tags, ser)
	if !loaded {
		s.count.Add(1)
	}
	return v.(*series)
}

// addMetric returns the series set of m, creating it.
func (s *Store) addMetric(m *metrics.Metric) *sync.Map {
	s.metricsMu.Lock()
	defer s.metricsMu.Unlock()
	old := *s.byMetric.Load()
	if set, ok := old[m]; ok {
		return set
	}
	next := make(map[*metrics.Metric]*sync.Map, len(old)+1)
	maps.Copy(next, old)
	set := &sync.Map{}
	next[m] = set
	s.byMetric.Store(&next)
	return set
}

func (ser *series) add(smp *metrics.Sample) {
	first := ser.first.IsZero()
	if first || smp.Time.Before(ser.first) {
		ser.first = smp.Time
	}
	if smp.Time.After(ser.last) {
		ser.last = smp.Time
	}
	v := smp.Value
	switch ser.metric.Type {
	case metrics.Counter:
		ser.value += v
	case metrics.Gauge:
		ser.value = v
		if first {
			ser.min, ser.max = v, v
		} else {
			ser.min = min(ser.min, v)
			ser.max = max(ser.max, v)
		}
	case metrics.Rate:
		ser.total++
		if v != 0 {
			ser.passes++
		}
	case metrics.Trend:
		if ser.shared {
			ser.hist = ser.hist.Clone()
			ser.shared = false
		}
		ser.hist.Observe(v)
	}
}

// isOverflow tells whether tags are an overflow series'.
func (s *Store) isOverflow(tags *metrics.TagSet) bool {
	v, ok := tags.Get(OverflowTag)
	return ok && v == "true"
}

// overflowTags are the tags of the overflow series that takes samples of tags.
func (s *Store) overflowTags(tags *metrics.TagSet) *metrics.TagSet {
	keep := make([]metrics.Tag, 0, tags.Len()+1)
	for _, t := range tags.Tags() {
		if overflowKeys[t.Key] {
			keep = append(keep, t)
		}
	}
	return s.overflowPool.Intern(append(keep, metrics.Tag{Key: OverflowTag, Value: "true"}))
}

// Folded returns the number of samples put into overflow series (WithMaxSeries).
func (s *Store) Folded() int64 { return s.folded.Load() }

// Len returns the number of series.
func (s *Store) Len() int { return int(s.count.Load()) }

// Snapshot returns the state of every series at one instant: no Push is half applied.
// The snapshot is immutable and safe to share between goroutines: the histograms it
// shares with the Store are frozen, and the Store copies one before its next change.
// It holds up pushes only for a pass over the series, never for copying histograms.
func (s *Store) Snapshot() *Snapshot {
	s.hooksMu.Lock()
	hooks := s.hooks
	s.hooksMu.Unlock()
	for _, f := range hooks {
		f()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.Len(); n != len(s.ordered) {
		s.ordered = make([]*series, 0, n)
		for _, set := range *s.byMetric.Load() {
			set.Range(func(_, v any) bool {
				s.ordered = append(s.ordered, v.(*series))
				return true
			})
		}
		slices.SortFunc(s.ordered, func(a, b *series) int {
			if c := strings.Compare(a.metric.Name, b.metric.Name); c != 0 {
				return c
			}
			return metrics.CompareTags(a.tags.Tags(), b.tags.Tags())
		})
	}
	snap := &Snapshot{Time: s.now(), Series: make([]Series, len(s.ordered))}
	for i, ser := range s.ordered {
		snap.Series[i] = ser.snapshot()
	}
	return snap
}

// snapshot copies the series; the caller holds Store.mu exclusively.
func (ser *series) snapshot() Series {
	out := Series{
		Metric: ser.metric,
		Tags:   ser.tags,
		First:  ser.first,
		Last:   ser.last,
		Values: Values{Type: ser.metric.Type},
	}
	switch ser.metric.Type {
	case metrics.Counter:
		out.Count = ser.value
	case metrics.Gauge:
		out.Value, out.Min, out.Max = ser.value, ser.min, ser.max
	case metrics.Rate:
		out.Passes, out.Total = ser.passes, ser.total
	case metrics.Trend:
		out.Trend = ser.hist
		ser.shared = true
	}
	return out
}
