package aggregate

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/benchtest"
	"github.com/tidemark/tidemark/internal/metrics"
)

type fixture struct {
	reg  *metrics.Registry
	pool *metrics.TagPool
	b    *metrics.Builtin
	t0   time.Time
}

func newFixture() *fixture {
	reg := metrics.NewRegistry()
	return &fixture{reg: reg, pool: metrics.NewTagPool(), b: metrics.RegisterBuiltin(reg), t0: time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)}
}

func (f *fixture) tags(kv ...string) *metrics.TagSet {
	var ts []metrics.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		ts = append(ts, metrics.Tag{Key: kv[i], Value: kv[i+1]})
	}
	return f.pool.Intern(ts)
}

func (f *fixture) sample(m *metrics.Metric, tags *metrics.TagSet, sec float64, v float64) metrics.Sample {
	return metrics.Sample{Metric: m, Tags: tags, Time: f.t0.Add(time.Duration(sec * float64(time.Second))), Value: v}
}

func TestSinks(t *testing.T) {
	t.Parallel()
	f := newFixture()
	get := f.tags("scenario", "default", "method", "GET")
	s := New(WithClock(func() time.Time { return f.t0.Add(time.Minute) }))
	s.Push([]metrics.Sample{
		f.sample(f.b.HTTPReqs, get, 1, 1),
		f.sample(f.b.HTTPReqs, get, 2, 1),
		f.sample(f.b.DataSent, get, 2, 512),
		f.sample(f.b.VUs, nil, 0.5, 3),
		f.sample(f.b.VUs, nil, 1.5, 10),
		f.sample(f.b.VUs, nil, 2.5, 1),
		f.sample(f.b.HTTPReqFailed, get, 1, 0),
		f.sample(f.b.HTTPReqFailed, get, 2, 1),
		f.sample(f.b.HTTPReqFailed, get, 3, 0),
		f.sample(f.b.HTTPReqDuration, get, 3, 0.2),
		f.sample(f.b.HTTPReqDuration, get, 1, 0.1),
		{Metric: nil, Value: 5},
	})
	snap := s.Snapshot()
	require.Equal(t, f.t0.Add(time.Minute), snap.Time)
	require.Equal(t, 5, s.Len())
	require.Len(t, snap.Series, 5)
	names := []string{}
	for _, m := range snap.Metrics() {
		names = append(names, m.Name)
	}
	require.Equal(t, []string{"data_sent", "http_req_duration", "http_req_failed", "http_reqs", "vus"}, names)

	reqs, ok := snap.Metric("http_reqs")
	require.True(t, ok)
	require.Equal(t, 2.0, reqs.Count)
	require.Equal(t, f.t0.Add(time.Second), reqs.First)
	require.Equal(t, f.t0.Add(2*time.Second), reqs.Last)

	vus, _ := snap.Metric("vus")
	require.Equal(t, Values{Type: metrics.Gauge, Value: 1, Min: 1, Max: 10}, vus.Values)

	failed, _ := snap.Metric("http_req_failed")
	require.Equal(t, uint64(1), failed.Passes)
	require.Equal(t, uint64(3), failed.Total)
	require.Equal(t, uint64(2), failed.Fails())
	require.InDelta(t, 1.0/3, failed.Rate(), 1e-15)

	dur, _ := snap.Metric("http_req_duration")
	require.Equal(t, uint64(2), dur.Trend.Count())
	require.Equal(t, f.t0.Add(time.Second), dur.First, "first is the earliest sample time, not the first pushed")
	require.Equal(t, f.t0.Add(3*time.Second), dur.Last)
	med, err := dur.Stat("med")
	require.NoError(t, err)
	require.InDelta(t, 0.15, med, 1e-12)

	_, ok = snap.Metric("iterations")
	require.False(t, ok)
}

func TestSnapshotIsImmutable(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	tags := f.tags("scenario", "a")
	s.Push([]metrics.Sample{f.sample(f.b.HTTPReqDuration, tags, 1, 1), f.sample(f.b.HTTPReqs, tags, 1, 1)})
	first := s.Snapshot()
	again := s.Snapshot()
	require.Same(t, first.Series[0].Trend, again.Series[0].Trend, "idle trend series share their copy")
	s.Push([]metrics.Sample{f.sample(f.b.HTTPReqDuration, tags, 2, 5), f.sample(f.b.HTTPReqs, tags, 2, 1)})
	later := s.Snapshot()
	require.Equal(t, uint64(1), first.Series[0].Trend.Count())
	require.Equal(t, 1.0, first.Series[1].Count)
	require.Equal(t, uint64(2), later.Series[0].Trend.Count())
	require.Equal(t, 5.0, later.Series[0].Trend.Max())
}

func TestSubmetric(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	okA := f.tags("scenario", "a", "expected_response", "true", "status", "200")
	okB := f.tags("scenario", "b", "expected_response", "true", "status", "201")
	bad := f.tags("scenario", "a", "expected_response", "false", "status", "500")
	s.Push([]metrics.Sample{
		f.sample(f.b.HTTPReqDuration, okA, 1, 0.1),
		f.sample(f.b.HTTPReqDuration, okA, 2, 0.3),
		f.sample(f.b.HTTPReqDuration, okB, 3, 0.2),
		f.sample(f.b.HTTPReqDuration, bad, 4, 9),
		f.sample(f.b.VUs, f.tags("instance", "1"), 5, 7),
		f.sample(f.b.VUs, f.tags("instance", "2"), 4, 3),
		f.sample(f.b.VUs, f.tags("instance", "2"), 1, 30),
	})
	snap := s.Snapshot()
	for _, tc := range []struct {
		name  string
		tags  []metrics.Tag
		count uint64
		max   float64
	}{
		{"all", nil, 4, 9},
		{"expected", []metrics.Tag{{Key: "expected_response", Value: "true"}}, 3, 0.3},
		{"scenario_a", []metrics.Tag{{Key: "scenario", Value: "a"}}, 3, 9},
		{"two_pairs", []metrics.Tag{{Key: "scenario", Value: "a"}, {Key: "expected_response", Value: "true"}}, 2, 0.3},
	} {
		got, ok := snap.Submetric("http_req_duration", tc.tags)
		require.True(t, ok, tc.name)
		require.Equal(t, tc.count, got.Trend.Count(), tc.name)
		require.Equal(t, tc.max, got.Trend.Max(), tc.name)
	}
	_, ok := snap.Submetric("http_req_duration", []metrics.Tag{{Key: "scenario", Value: "c"}})
	require.False(t, ok)

	vus, _ := snap.Metric("vus")
	require.Equal(t, 7.0, vus.Value, "the gauge of the series with the latest sample wins")
	require.Equal(t, 3.0, vus.Min)
	require.Equal(t, 30.0, vus.Max)
	// Merging never modifies the snapshot's own histograms.
	var n uint64
	for _, se := range snap.Series[:3] {
		n += se.Trend.Count()
	}
	require.Equal(t, uint64(4), n)
}

func TestSince(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	a := f.tags("scenario", "a")
	s.Push([]metrics.Sample{
		f.sample(f.b.HTTPReqs, a, 1, 1),
		f.sample(f.b.HTTPReqFailed, a, 1, 1),
		f.sample(f.b.HTTPReqDuration, a, 1, 10),
		f.sample(f.b.VUs, nil, 1, 5),
	})
	idle := f.tags("scenario", "idle")
	s.Push([]metrics.Sample{f.sample(f.b.HTTPReqDuration, idle, 1, 1)})
	t1 := s.Snapshot()
	for i := range 10 {
		s.Push([]metrics.Sample{
			f.sample(f.b.HTTPReqs, a, 2, 1),
			f.sample(f.b.HTTPReqFailed, a, 2, float64(i%2)),
			f.sample(f.b.HTTPReqDuration, a, 2, 0.1*float64(i+1)),
		})
	}
	s.Push([]metrics.Sample{f.sample(f.b.VUs, nil, 2, 8), f.sample(f.b.DroppedIterations, a, 2, 3)})
	t2 := s.Snapshot()

	w, err := t2.Since(t1)
	require.NoError(t, err)
	reqs, _ := w.Metric("http_reqs")
	require.Equal(t, 10.0, reqs.Count)
	failed, _ := w.Metric("http_req_failed")
	require.Equal(t, uint64(5), failed.Passes)
	require.Equal(t, uint64(10), failed.Total)
	dur, _ := w.Submetric("http_req_duration", []metrics.Tag{{Key: "scenario", Value: "a"}})
	require.Equal(t, uint64(10), dur.Trend.Count())
	require.InEpsilon(t, 1.0, dur.Trend.Max(), 0.006, "the window's max is within a bucket")
	require.InEpsilon(t, 0.1, dur.Trend.Min(), 0.006)
	p50, _ := dur.Stat("p(50)")
	require.InEpsilon(t, 0.55, p50, 0.006)
	idleDur, _ := w.Submetric("http_req_duration", []metrics.Tag{{Key: "scenario", Value: "idle"}})
	require.Zero(t, idleDur.Trend.Count())
	vus, _ := w.Metric("vus")
	require.Equal(t, 8.0, vus.Value, "gauges keep the later value")
	dropped, _ := w.Metric("dropped_iterations")
	require.Equal(t, 3.0, dropped.Count, "series new in the window are taken whole")
	// The cumulative snapshots are untouched.
	full, _ := t2.Metric("http_reqs")
	require.Equal(t, 11.0, full.Count)

	same, err := t2.Since(nil)
	require.NoError(t, err)
	require.Same(t, t2, same)
	_, err = t1.Since(t2)
	require.Error(t, err, "a later snapshot is not an earlier state")
}

func TestStatAndThreshold(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	var batch []metrics.Sample
	for i := 1; i <= 100; i++ {
		batch = append(batch, f.sample(f.b.HTTPReqDuration, nil, 1, float64(i)/1000))
	}
	batch = append(batch,
		f.sample(f.b.HTTPReqs, nil, 1, 30),
		f.sample(f.b.VUs, nil, 1, 4),
		f.sample(f.b.Checks, nil, 1, 1),
		f.sample(f.b.Checks, nil, 1, 0),
	)
	s.Push(batch)
	snap := s.Snapshot()
	get := func(name string) Values {
		v, ok := snap.Metric(name)
		require.True(t, ok)
		return v.Values
	}
	for _, tc := range []struct {
		metric, method string
		want           float64
		eps            float64
		wantErr        error
	}{
		{"http_req_duration", "avg", 0.0505, 1e-12, nil},
		{"http_req_duration", "min", 0.001, 0, nil},
		{"http_req_duration", "max", 0.1, 0, nil},
		{"http_req_duration", "med", 0.0505, 0.003, nil},
		{"http_req_duration", "p(90)", 0.0901, 0.003, nil},
		{"http_req_duration", "p(99.9)", 0.099901, 0.003, nil},
		{"http_req_duration", "p(100)", 0.1, 0, nil},
		{"http_req_duration", "p(0)", 0.001, 0, nil},
		{"http_req_duration", "count", 100, 0, nil},
		{"http_req_duration", "sum", 5.05, 1e-12, nil},
		{"http_req_duration", "p(101)", 0, 0, ErrUnknownStat},
		{"http_req_duration", "p99", 0, 0, ErrUnknownStat},
		{"http_req_duration", "value", 0, 0, ErrUnknownStat},
		{"http_reqs", "count", 30, 0, nil},
		{"http_reqs", "rate", 3, 1e-12, nil},
		{"http_reqs", "avg", 0, 0, ErrUnknownStat},
		{"vus", "value", 4, 0, nil},
		{"vus", "rate", 0, 0, ErrUnknownStat},
		{"checks", "rate", 0.5, 0, nil},
		{"checks", "count", 0, 0, ErrUnknownStat},
	} {
		got, err := get(tc.metric).Threshold(tc.method, 10*time.Second)
		if tc.wantErr != nil {
			require.ErrorIs(t, err, tc.wantErr, "%s %s", tc.metric, tc.method)
			continue
		}
		require.NoError(t, err, "%s %s", tc.metric, tc.method)
		if tc.eps == 0 {
			require.Equal(t, tc.want, got, "%s %s", tc.metric, tc.method)
		} else {
			require.InEpsilon(t, tc.want, got, tc.eps, "%s %s", tc.metric, tc.method)
		}
	}
	// Empty sinks: a rate has no value, a trend gives zeros, a counter count 0.
	_, err := Values{Type: metrics.Rate}.Threshold("rate", time.Second)
	require.ErrorIs(t, err, ErrNoValue)
	v, err := Values{Type: metrics.Trend}.Threshold("p(95)", time.Second)
	require.NoError(t, err)
	require.Zero(t, v)
	v, err = Values{Type: metrics.Counter}.Threshold("rate", 0)
	require.NoError(t, err)
	require.Zero(t, v)
	_, err = Values{Type: metrics.Counter}.Stat("avg")
	require.ErrorIs(t, err, ErrUnknownStat)
	require.True(t, Values{Type: metrics.Rate}.Empty())
	require.True(t, Values{Type: metrics.Trend}.Empty())
	require.False(t, Values{Type: metrics.Counter}.Empty())
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"p(95)", 0.95, true},
		{"p(99.9)", 0.999, true},
		{"p(0)", 0, true},
		{"p(100)", 1, true},
		{"p( 50 )", 0.5, true},
		{"p(100.1)", 0, false},
		{"p(-1)", 0, false},
		{"p(NaN)", 0, false},
		{"p(95", 0, false},
		{"p95", 0, false},
		{"med", 0, false},
	} {
		got, ok := Percentile(tc.in)
		require.Equal(t, tc.ok, ok, tc.in)
		require.InDelta(t, tc.want, got, 1e-15, tc.in)
	}
}

// TestConcurrentPushIsConsistent pushes batches that add 1 to a counter and one value
// to a trend while snapshots are taken: every snapshot must see equal counts, which it
// would not if a snapshot could observe half a Push.
func TestConcurrentPushIsConsistent(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	var tagSets []*metrics.TagSet
	for i := range 8 {
		tagSets = append(tagSets, f.tags("name", string(rune('a'+i))))
	}
	const workers, perWorker = 16, 2000
	var wg sync.WaitGroup
	var done atomic.Bool
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				ts := tagSets[(w+i)%len(tagSets)]
				s.Push([]metrics.Sample{
					f.sample(f.b.HTTPReqs, ts, 1, 1),
					f.sample(f.b.HTTPReqDuration, ts, 1, 0.01),
					f.sample(f.b.HTTPReqFailed, ts, 1, 1),
				})
			}
		})
	}
	var snaps atomic.Int64
	var sg sync.WaitGroup
	sg.Go(func() {
		for !done.Load() {
			snap := s.Snapshot()
			snaps.Add(1)
			reqs, ok := snap.Metric("http_reqs")
			if !ok {
				continue
			}
			dur, _ := snap.Metric("http_req_duration")
			failed, _ := snap.Metric("http_req_failed")
			if uint64(reqs.Count) != dur.Trend.Count() || dur.Trend.Count() != failed.Total {
				t.Errorf("inconsistent snapshot: reqs=%v duration=%d failed=%d", reqs.Count, dur.Trend.Count(), failed.Total)
				return
			}
		}
	})
	wg.Wait()
	done.Store(true)
	sg.Wait()
	final, _ := s.Snapshot().Metric("http_reqs")
	require.Equal(t, float64(workers*perWorker), final.Count)
	require.Positive(t, snaps.Load())
	require.Equal(t, 3*len(tagSets), s.Len())
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestConstantMemoryPerSeries pushes 1M and then 4M more samples into the same series
// of every type; the heap must not grow with the sample count.
func TestConstantMemoryPerSeries(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("pushes 5M samples; measures the heap, which the race detector inflates")
	}
	f := newFixture()
	s := New()
	tags := f.tags("scenario", "default", "name", "home")
	r := rand.New(rand.NewPCG(1, 2))
	batch := make([]metrics.Sample, 100)
	push := func(n int) {
		for i := 0; i < n; i += len(batch) {
			for j := range batch {
				var m *metrics.Metric
				switch j % 4 {
				case 0:
					m = f.b.HTTPReqDuration
				case 1:
					m = f.b.HTTPReqs
				case 2:
					m = f.b.HTTPReqFailed
				default:
					m = f.b.VUs
				}
				// Latencies between 100µs and 10s: every octave is touched early.
				batch[j] = metrics.Sample{Metric: m, Tags: tags, Time: f.t0, Value: math.Exp(math.Log(1e-4) + r.Float64()*math.Log(1e5))}
			}
			s.Push(batch)
		}
	}
	push(1_000_000)
	before := heapInUse()
	push(4_000_000)
	after := heapInUse()
	dur, _ := s.Snapshot().Metric("http_req_duration")
	require.Equal(t, uint64(5_000_000/4), dur.Trend.Count())
	growth := int64(after) - int64(before)
	t.Logf("heap after 1M samples %d B, after 5M %d B, growth %d B", before, after, growth)
	require.Less(t, growth, int64(64<<10), "heap grew with the number of samples")
}

// BenchmarkPushParallel pushes the samples of one HTTP request (a counter, a rate and
// seven trends, as the request package emits them) from many goroutines into 20 tag
// sets. ns/sample is the wall-clock time per sample; cpu-ns/sample is the CPU time of
// all threads per sample, which a busy shared machine distorts less.
func BenchmarkPushParallel(b *testing.B) {
	f := newFixture()
	var tagSets []*metrics.TagSet
	for i := range 20 {
		tagSets = append(tagSets, f.tags("scenario", "default", "name", string(rune('a'+i)), "method", "GET", "status", "200"))
	}
	trends := []*metrics.Metric{f.b.HTTPReqDuration, f.b.HTTPReqBlocked, f.b.HTTPReqConnecting, f.b.HTTPReqTLSHandshaking, f.b.HTTPReqSending, f.b.HTTPReqWaiting, f.b.HTTPReqReceiving}
	for _, batchSize := range []int{1, 9} {
		b.Run(map[int]string{1: "batch1", 9: "request9"}[batchSize], func(b *testing.B) {
			s := New()
			var seq atomic.Uint64
			b.SetParallelism(64) // many VU goroutines per P
			b.ReportAllocs()
			cpu0 := benchtest.ProcessCPU()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				r := rand.New(rand.NewPCG(seq.Add(1), 1))
				batch := make([]metrics.Sample, 9)
				for pb.Next() {
					ts := tagSets[r.IntN(len(tagSets))]
					v := 0.001 + r.Float64()*0.1
					batch[0] = metrics.Sample{Metric: f.b.HTTPReqs, Tags: ts, Time: f.t0, Value: 1}
					batch[1] = metrics.Sample{Metric: f.b.HTTPReqFailed, Tags: ts, Time: f.t0, Value: 0}
					for i, m := range trends {
						batch[2+i] = metrics.Sample{Metric: m, Tags: ts, Time: f.t0, Value: v}
					}
					if batchSize == 1 {
						for i := range batch {
							s.Push(batch[i : i+1])
						}
					} else {
						s.Push(batch)
					}
				}
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*9), "ns/sample")
			b.ReportMetric(float64((benchtest.ProcessCPU()-cpu0).Nanoseconds())/float64(b.N*9), "cpu-ns/sample")
		})
	}
}

// BenchmarkSnapshot takes snapshots of 1,000 series (half of them trends) while every
// trend changes between snapshots, the worst case for the histogram copies.
func BenchmarkSnapshot(b *testing.B) {
	f := newFixture()
	s := New()
	r := rand.New(rand.NewPCG(1, 2))
	var batch []metrics.Sample
	for i := range 500 {
		ts := f.tags("name", strconv.Itoa(i))
		batch = append(batch,
			metrics.Sample{Metric: f.b.HTTPReqDuration, Tags: ts, Time: f.t0, Value: 0.001 + r.Float64()},
			metrics.Sample{Metric: f.b.HTTPReqs, Tags: ts, Time: f.t0, Value: 1})
	}
	for range 20 {
		s.Push(batch)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Push(batch[:2]) // One trend changes.
		for i := range batch {
			if batch[i].Metric == f.b.HTTPReqDuration {
				batch[i].Value = 0.001 + r.Float64()
			}
		}
		b.StopTimer()
		s.Push(batch) // Every trend changes.
		b.StartTimer()
		s.Snapshot()
	}
}

// BenchmarkPush is the uncontended cost: one goroutine pushing one request's samples.
func BenchmarkPush(b *testing.B) {
	f := newFixture()
	s := New()
	ts := f.tags("scenario", "default", "name", "home", "method", "GET", "status", "200")
	batch := []metrics.Sample{
		{Metric: f.b.HTTPReqs, Tags: ts, Time: f.t0, Value: 1},
		{Metric: f.b.HTTPReqFailed, Tags: ts, Time: f.t0, Value: 0},
	}
	for _, m := range []*metrics.Metric{f.b.HTTPReqDuration, f.b.HTTPReqBlocked, f.b.HTTPReqConnecting, f.b.HTTPReqTLSHandshaking, f.b.HTTPReqSending, f.b.HTTPReqWaiting, f.b.HTTPReqReceiving} {
		batch = append(batch, metrics.Sample{Metric: m, Tags: ts, Time: f.t0, Value: 0.0123})
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Push(batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/sample")
}

// TestBeforeSnapshot: a hook's pushes are in the snapshot that ran it, every time.
func TestBeforeSnapshot(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	tags := f.tags()
	var n float64
	s.BeforeSnapshot(func() {
		n++
		s.Push([]metrics.Sample{f.sample(f.b.VUs, tags, n, n)})
	})
	for want := 1.0; want <= 3; want++ {
		ser, ok := s.Snapshot().Metric(f.b.VUs.Name)
		require.True(t, ok)
		require.Equal(t, want, ser.Value, "snapshot %g reads the value its hook pushed", want)
	}
}

// TestMaxSeriesFolds is issue 24's unbounded memory from unique URLs (27,500 distinct
// URLs took 2.2 GB): past the cap a new tag set is folded into its metric's overflow
// series, which keeps the tags of few values, so the series and the interned tag sets
// stay bounded while every sample still counts in the totals.
func TestMaxSeriesFolds(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.pool = metrics.NewBoundedTagPool(100)
	s := New(WithMaxSeries(100))
	const urls = 10_000
	for i := range urls {
		tags := f.tags("url", "http://x/item/"+strconv.Itoa(i), "method", "GET", "scenario", "s")
		s.Push([]metrics.Sample{f.sample(f.b.HTTPReqs, tags, 1, 1), f.sample(f.b.HTTPReqDuration, tags, 1, float64(i%50))})
	}
	require.Equal(t, 100+2, s.Len(), "the cap, and one overflow series per metric")
	require.LessOrEqual(t, f.pool.Len(), 100, "the interned tag sets are bounded too")
	require.EqualValues(t, 2*urls-100, s.Folded())

	snap := s.Snapshot()
	reqs, ok := snap.Metric("http_reqs")
	require.True(t, ok)
	require.InDelta(t, urls, reqs.Count, 0, "every sample counts in the metric's total")
	dur, ok := snap.Metric("http_req_duration")
	require.True(t, ok)
	require.EqualValues(t, urls, dur.Trend.Count())
	over, ok := snap.Submetric("http_reqs", []metrics.Tag{{Key: OverflowTag, Value: "true"}, {Key: "method", Value: "GET"}, {Key: "scenario", Value: "s"}})
	require.True(t, ok, "the overflow series keeps the tags of few values")
	require.InDelta(t, urls-50, over.Count, 0, "the first 50 URLs had series of their own (2 metrics each)")
	for _, se := range snap.Series {
		if v, _ := se.Tags.Get(OverflowTag); v == "true" {
			_, hasURL := se.Tags.Get("url")
			require.False(t, hasURL, "the overflow series drops the tag of many values")
		}
	}

	unbounded := New()
	for i := range 300 {
		unbounded.Push([]metrics.Sample{f.sample(f.b.HTTPReqs, f.tags("url", strconv.Itoa(i)), 1, 1)})
	}
	require.Equal(t, 300, unbounded.Len(), "no cap without WithMaxSeries")
	require.Zero(t, unbounded.Folded())
}
