// Package metrics is the sample and tag model of the load engine and the registry of
// k6's built-in metrics.
//
// A Sample is one observation of a Metric with a TagSet. Tag sets are immutable and
// interned by a TagPool, so that a (metric, tag set) pair identifies a time series by
// two pointer comparisons. Per-sample metadata such as the VU number or the iteration
// is never a tag (reference/k6.md §1.5).
package metrics

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
	"time"
)

// Type is the kind of a metric, which decides how its samples aggregate.
type Type uint8

// The four k6 metric types.
const (
	Counter Type = iota // Cumulative sum.
	Gauge               // Last value, with min and max.
	Rate                // Share of non-zero samples.
	Trend               // Distribution: avg, min, med, max, percentiles.
)

// String returns the k6 name of the type ("counter", "gauge", "rate", "trend").
func (t Type) String() string {
	switch t {
	case Counter:
		return "counter"
	case Gauge:
		return "gauge"
	case Rate:
		return "rate"
	case Trend:
		return "trend"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// ParseType is the inverse of Type.String.
func ParseType(s string) (Type, bool) {
	for _, t := range []Type{Counter, Gauge, Rate, Trend} {
		if t.String() == s {
			return t, true
		}
	}
	return 0, false
}

// ValueType says what a metric's values measure.
type ValueType uint8

// The k6 value types. Time values are stored in seconds (not k6's milliseconds);
// thresholds and the summary convert where k6 shows milliseconds.
const (
	Default ValueType = iota // A plain number.
	Time                     // A duration in seconds.
	Data                     // A number of bytes.
)

// String returns the k6 name of the value type ("default", "time", "data").
func (v ValueType) String() string {
	switch v {
	case Default:
		return "default"
	case Time:
		return "time"
	case Data:
		return "data"
	}
	return fmt.Sprintf("valuetype(%d)", uint8(v))
}

// ParseValueType is the inverse of ValueType.String.
func ParseValueType(s string) (ValueType, bool) {
	for _, v := range []ValueType{Default, Time, Data} {
		if v.String() == s {
			return v, true
		}
	}
	return 0, false
}

// Metric is a named, typed metric. Metrics are created by a Registry and compared by
// pointer.
type Metric struct {
	Name     string
	Type     Type
	Contains ValueType
}

// nameRE is k6's rule for metric names (metrics/registry.go).
var nameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{1,128}$`)

// Registry holds the metrics of one test run. It is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*Metric
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*Metric{}}
}

// New returns the metric called name, creating it if needed. Asking for an existing
// name with another type or value type is an error, as is a name that is not
// `^[a-zA-Z_][a-zA-Z0-9_]{1,128}$`.
func (r *Registry) New(name string, typ Type, contains ValueType) (*Metric, error) {
	if !nameRE.MatchString(name) {
		return nil, fmt.Errorf("invalid metric name %q: expected a letter or underscore followed by 1 to 128 letters, digits or underscores", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.byName[name]; ok {
		if m.Type != typ || m.Contains != contains {
			return nil, fmt.Errorf("metric %q already exists as a %s of %s values", name, m.Type, m.Contains)
		}
		return m, nil
	}
	m := &Metric{Name: name, Type: typ, Contains: contains}
	r.byName[name] = m
	return m, nil
}

// Get returns the metric called name, or nil.
func (r *Registry) Get(name string) *Metric {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byName[name]
}

// All returns every metric, sorted by name.
func (r *Registry) All() []*Metric {
	r.mu.RLock()
	out := make([]*Metric, 0, len(r.byName))
	for _, m := range r.byName {
		out = append(out, m)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Sample is one observation. Time values are in seconds, data values in bytes.
type Sample struct {
	Metric *Metric
	Tags   *TagSet
	Time   time.Time
	Value  float64
	// Metadata is k6's sample metadata (exec.vu.metrics.metadata: a trace_id):
	// written by the outputs that show it, never a tag, so never a series of its
	// own. nil for most samples; it must not be modified.
	Metadata map[string]string
}

// Pusher receives samples. Implementations must be safe for concurrent use by many VUs,
// must not block on I/O, and must not retain the slice after returning.
type Pusher interface {
	Push(samples []Sample)
}

// PusherFunc adapts a function to the Pusher interface.
type PusherFunc func(samples []Sample)

// Push calls f(samples).
func (f PusherFunc) Push(samples []Sample) { f(samples) }
