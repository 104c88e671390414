package store

import (
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// tsdbMetrics exposes the metrics of the TSDB generation in use (liveDB). Each
// tsdb.Open registers its metrics anew and a closed DB does not unregister them, so every
// generation registers into its own genRegistry, and tsdbMetrics, registered once, collects
// the current one. It is an unchecked collector (it describes nothing): the set of metrics
// may change with a reopen. Counters restart from zero after a reopen, as after a restart.
type tsdbMetrics struct {
	mu  sync.Mutex
	cur *genRegistry
}

// Describe implements prometheus.Collector; it describes nothing (unchecked collector).
func (m *tsdbMetrics) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (m *tsdbMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	r := m.cur
	m.mu.Unlock()
	if r != nil {
		r.collect(ch)
	}
}

func (m *tsdbMetrics) use(r *genRegistry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cur = r
}

// walFailedWrites are the counters of failed WAL and WBL writes (tsdb/wlog).
var walFailedWrites = []string{
	"prometheus_tsdb_wal_writes_failed_total",
	"prometheus_tsdb_out_of_order_wbl_writes_failed_total",
}

// genRegistry is the prometheus.Registerer of one TSDB generation. It checks
// registrations as a prometheus.Registry does and keeps the collectors, and among them
// the WAL's and WBL's counters of failed writes.
type genRegistry struct {
	check *prometheus.Registry

	mu     sync.Mutex
	cs     []prometheus.Collector
	failed []prometheus.Collector
}

func newGenRegistry() *genRegistry { return &genRegistry{check: prometheus.NewRegistry()} }

// Register implements prometheus.Registerer.
func (r *genRegistry) Register(c prometheus.Collector) error {
	if err := r.check.Register(c); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cs = append(r.cs, c)
	if isFailedWritesCounter(c) {
		r.failed = append(r.failed, c)
	}
	return nil
}

// MustRegister implements prometheus.Registerer. As prometheus.Registry's, it panics when
// a registration fails (the TSDB registers its metrics through it and relies on that).
func (r *genRegistry) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

// Unregister implements prometheus.Registerer.
func (r *genRegistry) Unregister(c prometheus.Collector) bool {
	if !r.check.Unregister(c) {
		return false
	}
	// A wrapping registerer (prometheus.WrapRegistererWithPrefix) passes a new wrapper
	// of the collector here: compare descriptions, as prometheus.Registry does.
	key := descKey(c)
	same := func(x prometheus.Collector) bool { return descKey(x) == key }
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cs = slices.DeleteFunc(r.cs, same)
	r.failed = slices.DeleteFunc(r.failed, same)
	return true
}

func (r *genRegistry) collect(ch chan<- prometheus.Metric) {
	r.mu.Lock()
	cs := slices.Clone(r.cs)
	r.mu.Unlock()
	for _, c := range cs {
		c.Collect(ch)
	}
}

// failedWrites returns the number of WAL and WBL writes that failed. The WAL counts a
// failure while it holds its lock, before the next record may be written, so a commit
// that reads the count after it returned sees every failure that came before its records.
// A WAL closed at the end of a reopen unregisters its counters; they are not read then.
func (r *genRegistry) failedWrites() float64 {
	r.mu.Lock()
	cs := r.failed
	r.mu.Unlock()
	var sum float64
	for _, c := range cs {
		sum += counterValue(c)
	}
	return sum
}

// describe returns the String forms of c's descriptions.
func describe(c prometheus.Collector) []string {
	descs := make(chan *prometheus.Desc)
	go func() {
		c.Describe(descs)
		close(descs)
	}()
	var out []string
	for d := range descs {
		out = append(out, d.String())
	}
	return out
}

func descKey(c prometheus.Collector) string {
	d := describe(c)
	slices.Sort(d)
	return strings.Join(d, "\n")
}

// isFailedWritesCounter reports whether c is one of walFailedWrites: one counter.
func isFailedWritesCounter(c prometheus.Collector) bool {
	d := describe(c)
	if len(d) != 1 {
		return false
	}
	// Desc has no accessor for its name; its String form starts with it.
	return slices.ContainsFunc(walFailedWrites, func(name string) bool {
		return strings.HasPrefix(d[0], `Desc{fqName: "`+name+`"`)
	})
}

// counterValue returns the value of c, a collector of one counter.
func counterValue(c prometheus.Collector) float64 {
	// Buffered for the one metric, so Collect does not wait for the reader.
	ch := make(chan prometheus.Metric, 1)
	c.Collect(ch)
	close(ch)
	var sum float64
	for m := range ch {
		var pb dto.Metric
		if m.Write(&pb) == nil {
			sum += pb.GetCounter().GetValue()
		}
	}
	return sum
}
