package correlator

import (
	"context"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/value"

	"github.com/tidemark/tidemark/internal/query"
)

// fakeProm is an in-memory Prometheus: each known expression maps to raw samples, and
// queries evaluate them the way Prometheus does (the last sample at or before each
// evaluation time, within the 5-minute lookback delta, and none once that sample is a
// stale marker; range selectors and count_over_time skip stale markers).
type fakeProm struct {
	mu    sync.Mutex
	exprs map[string]fakeSeries
	// prefixes answer expressions that start with a key (queries rendered with a
	// run-dependent range).
	prefixes map[string]fakeSeries
	errs     map[string]error
	asked    []string
	failAll  error
}

type fakeSeries struct {
	streams []*model.SampleStream
	// timestamps makes the value the sample's own timestamp (timestamp()).
	timestamps bool
	// countOver makes the value the number of samples in the step before (count_over_time).
	countOver bool
	// lookback overrides the lookback delta: an expression's result ends when its
	// condition does, not five minutes later.
	lookback time.Duration
}

var _ query.Querier = (*fakeProm)(nil)

const lookbackDelta = 5 * time.Minute

var rangeSuffix = regexp.MustCompile(`^(.*)\[([0-9a-z]+)\]$`)

func (f *fakeProm) record(expr string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, expr)
	if f.failAll != nil {
		return f.failAll
	}
	return f.errs[expr]
}

func (f *fakeProm) Query(_ context.Context, expr string, ts time.Time) (model.Value, v1.Warnings, error) {
	if err := f.record(expr); err != nil {
		return nil, nil, err
	}
	if m := rangeSuffix.FindStringSubmatch(expr); m != nil {
		if fs, ok := f.exprs[m[1]]; ok {
			d, err := model.ParseDuration(m[2])
			if err != nil {
				return nil, nil, err
			}
			from := ts.Add(-time.Duration(d))
			var out model.Matrix
			for _, s := range fs.streams {
				ns := &model.SampleStream{Metric: s.Metric}
				for _, p := range s.Values {
					if t := p.Timestamp.Time(); t.After(from) && !t.After(ts) && !isStale(p.Value) {
						ns.Values = append(ns.Values, p)
					}
				}
				if len(ns.Values) > 0 {
					out = append(out, ns)
				}
			}
			return out, nil, nil
		}
	}
	fs := f.exprs[expr]
	var out model.Vector
	for _, s := range fs.streams {
		if p, ok := fs.at(s, ts); ok {
			out = append(out, &model.Sample{Metric: s.Metric, Timestamp: model.TimeFromUnixNano(ts.UnixNano()), Value: p})
		}
	}
	return out, nil, nil
}

func (fs fakeSeries) at(s *model.SampleStream, t time.Time) (model.SampleValue, bool) {
	i := sort.Search(len(s.Values), func(i int) bool { return s.Values[i].Timestamp.Time().After(t) })
	if i == 0 {
		return 0, false
	}
	p := s.Values[i-1]
	if isStale(p.Value) {
		return 0, false
	}
	lb := lookbackDelta
	if fs.lookback > 0 {
		lb = fs.lookback
	}
	if t.Sub(p.Timestamp.Time()) > lb {
		return 0, false
	}
	if fs.timestamps {
		return model.SampleValue(float64(p.Timestamp.UnixNano()) / 1e9), true
	}
	return p.Value, true
}

func (f *fakeProm) QueryRange(_ context.Context, expr string, r v1.Range) (model.Value, v1.Warnings, error) {
	if err := f.record(expr); err != nil {
		return nil, nil, err
	}
	fs, ok := f.exprs[expr]
	lastOver := false
	if !ok {
		// A query rendered with .Step: last_over_time over the step.
		fs, lastOver = f.exprs[strings.ReplaceAll(expr, "["+model.Duration(query.StepWindow(r.Step)).String()+"]", "["+model.Duration(fakeStep).String()+"]")]
	}
	if !ok && !lastOver {
		for p, ps := range f.prefixes {
			if strings.HasPrefix(expr, p) {
				fs = ps
			}
		}
	}
	var out model.Matrix
	for _, s := range fs.streams {
		ns := &model.SampleStream{Metric: s.Metric}
		for t := r.Start; !t.After(r.End); t = t.Add(r.Step) {
			if lastOver {
				for _, p := range slices.Backward(s.Values) {
					if pt := p.Timestamp.Time(); pt.After(t) || isStale(p.Value) {
						continue
					} else if pt.After(t.Add(-query.StepWindow(r.Step))) {
						ns.Values = append(ns.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(t.UnixNano()), Value: p.Value})
					}
					break
				}
				continue
			}
			if fs.countOver {
				var n int
				for _, p := range s.Values {
					if pt := p.Timestamp.Time(); pt.After(t.Add(-r.Step)) && !pt.After(t) && !isStale(p.Value) {
						n++
					}
				}
				if n > 0 {
					ns.Values = append(ns.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(t.UnixNano()), Value: model.SampleValue(n)})
				}
				continue
			}
			if v, ok := fs.at(s, t); ok {
				ns.Values = append(ns.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(t.UnixNano()), Value: v})
			}
		}
		if len(ns.Values) > 0 {
			out = append(out, ns)
		}
	}
	return out, nil, nil
}

// fakeStep is the .Step that catalog queries are rendered with for the fake, which
// answers them at any step with last_over_time over the step.
const fakeStep = 97 * time.Minute

// stepVars returns v for rendering queries that use .Step.
func stepVars(v query.Vars) query.Vars {
	v.Step = fakeStep
	return v
}

func isStale(v model.SampleValue) bool { return value.IsStaleNaN(float64(v)) }

// withStale appends a stale marker 1 ms after each stream's last sample, as remote write
// does when a run stops.
func withStale(ss ...*model.SampleStream) []*model.SampleStream {
	for _, s := range ss {
		last := s.Values[len(s.Values)-1].Timestamp
		s.Values = append(s.Values, model.SamplePair{Timestamp: last + 1, Value: model.SampleValue(math.Float64frombits(value.StaleNaN))})
	}
	return ss
}

func (f *fakeProm) askedFor(substr string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.asked {
		if strings.Contains(e, substr) {
			return true
		}
	}
	return false
}

func (f *fakeProm) askedExactly(expr string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.asked, expr)
}

// stream samples f every step over [from, to].
func stream(labels model.Metric, from, to time.Time, step time.Duration, f func(d time.Duration) float64) *model.SampleStream {
	s := &model.SampleStream{Metric: labels}
	for t := from; !t.After(to); t = t.Add(step) {
		s.Values = append(s.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(t.UnixNano()), Value: model.SampleValue(f(t.Sub(from)))})
	}
	return s
}

// counter is a k6 counter as remote write pushes it: counting from `from`, sampled every
// step after it (the first push comes one interval after the start) until to.
func counter(labels model.Metric, from, to time.Time, step time.Duration, rate func(d time.Duration) float64) *model.SampleStream {
	s := &model.SampleStream{Metric: labels}
	var acc float64
	for t := from.Add(step); !t.After(to); t = t.Add(step) {
		acc += rate(t.Sub(from)-step) * step.Seconds()
		s.Values = append(s.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(t.UnixNano()), Value: model.SampleValue(acc)})
	}
	return s
}

func steps(offsets []time.Duration, vals []float64) func(time.Duration) float64 {
	return func(d time.Duration) float64 {
		v := vals[0]
		for i, o := range offsets {
			if d >= o {
				v = vals[i]
			}
		}
		return v
	}
}
