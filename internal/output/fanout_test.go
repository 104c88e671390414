package output

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
)

// fixture is a registry with k6's built-ins and a custom metric of every type, and a
// request's worth of samples.
type fixture struct {
	b                *metrics.Builtin
	counter, gauge   *metrics.Metric
	rate, trend      *metrics.Metric
	pool             *metrics.TagPool
	reqTags, runTags *metrics.TagSet
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	reg := metrics.NewRegistry()
	f := &fixture{b: metrics.RegisterBuiltin(reg), pool: metrics.NewTagPool()}
	var err error
	for _, m := range []struct {
		p    **metrics.Metric
		name string
		typ  metrics.Type
		vt   metrics.ValueType
	}{
		{&f.counter, "my_counter", metrics.Counter, metrics.Default},
		{&f.gauge, "my_gauge", metrics.Gauge, metrics.Default},
		{&f.rate, "my_rate", metrics.Rate, metrics.Default},
		{&f.trend, "my_trend", metrics.Trend, metrics.Time},
	} {
		*m.p, err = reg.New(m.name, m.typ, m.vt)
		require.NoError(t, err)
	}
	f.reqTags = f.pool.Intern([]metrics.Tag{{Key: "scenario", Value: "default"}, {Key: "method", Value: "GET"},
		{Key: "status", Value: "200"}, {Key: "url", Value: "http://127.0.0.1/"}, {Key: "name", Value: "http://127.0.0.1/"},
		{Key: "proto", Value: "HTTP/1.1"}, {Key: "expected_response", Value: "true"}, {Key: "testid", Value: "t1"}})
	f.runTags = f.pool.Intern([]metrics.Tag{{Key: "testid", Value: "t1"}})
	return f
}

// request returns the samples of one request, as the engine pushes them.
func (f *fixture) request(now time.Time) []metrics.Sample {
	d := func(ms float64) float64 { return ms / 1000 }
	return []metrics.Sample{
		{Metric: f.b.HTTPReqs, Tags: f.reqTags, Time: now, Value: 1},
		{Metric: f.b.HTTPReqDuration, Tags: f.reqTags, Time: now, Value: d(1.5)},
		{Metric: f.b.HTTPReqBlocked, Tags: f.reqTags, Time: now, Value: d(0.01)},
		{Metric: f.b.HTTPReqConnecting, Tags: f.reqTags, Time: now, Value: 0},
		{Metric: f.b.HTTPReqTLSHandshaking, Tags: f.reqTags, Time: now, Value: 0},
		{Metric: f.b.HTTPReqSending, Tags: f.reqTags, Time: now, Value: d(0.02)},
		{Metric: f.b.HTTPReqWaiting, Tags: f.reqTags, Time: now, Value: d(1.4)},
		{Metric: f.b.HTTPReqReceiving, Tags: f.reqTags, Time: now, Value: d(0.08)},
		{Metric: f.b.HTTPReqFailed, Tags: f.reqTags, Time: now, Value: 0},
		{Metric: f.b.DataSent, Tags: f.reqTags, Time: now, Value: 71},
		{Metric: f.b.DataReceived, Tags: f.reqTags, Time: now, Value: 119},
	}
}

// golden are the lines of every metric type, with run tags only (vus), custom tags
// going to extra_tags, a value that needs the exponent and Tidemark's run metadata
// left out.
func TestWritersEveryMetricType(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	runInfo := &metrics.Metric{Name: "tidemark_run_info", Type: metrics.Gauge}
	at := time.Date(2026, 12, 1, 15, 4, 5, 123456000, time.UTC)
	custom := f.pool.Intern([]metrics.Tag{{Key: "scenario", Value: "s"}, {Key: "group", Value: "::g"}, {Key: "z", Value: "1"}, {Key: "a", Value: "b,c"}})
	samples := []metrics.Sample{
		{Metric: f.b.VUs, Tags: f.runTags, Time: at, Value: 5},
		{Metric: runInfo, Tags: f.runTags, Time: at, Value: 1},
		{Metric: f.counter, Tags: custom, Time: at, Value: 1234567},
		{Metric: f.gauge, Tags: custom, Time: at, Value: -0.5},
		{Metric: f.rate, Tags: custom, Time: at, Value: 1},
		{Metric: f.trend, Tags: custom, Time: at, Value: 0.01225},
		{Metric: f.b.HTTPReqDuration, Tags: f.reqTags, Time: at, Value: 0.000442076},
		{Metric: f.b.DroppedIterations, Tags: f.pool.Intern([]metrics.Tag{{Key: "scenario", Value: "s"}}), Time: at, Value: 2},
	}
	loc := time.FixedZone("", -5*3600)

	var js strings.Builder
	jw := NewJSONWriter(&js, Options{Location: loc})
	require.NoError(t, jw.WriteSamples(samples))
	require.NoError(t, jw.Close())
	// Byte for byte, not JSONEq: field order and number notation are k6's format.
	wantJSON := `{"type":"Metric","data":{"name":"vus","type":"gauge","contains":"default","thresholds":[],"submetrics":null},"metric":"vus"}
{"metric":"vus","type":"Point","data":{"time":"2026-12-01T10:04:05.123456-05:00","value":5,"tags":{"testid":"t1"}}}
{"type":"Metric","data":{"name":"my_counter","type":"counter","contains":"default","thresholds":[],"submetrics":null},"metric":"my_counter"}
{"metric":"my_counter","type":"Point","data":{"time":"2026-12-01T10:04:05.123456-05:00","value":1.234567e+06,"tags":{"a":"b,c","group":"::g","scenario":"s","z":"1"}}}
{"type":"Metric","data":{"name":"my_gauge","type":"gauge","contains":"default","thresholds":[],"submetrics":null},"metric":"my_gauge"}
{"metric":"my_gauge","type":"Point","data":{"time":"2026-12-01T10:04:05.123456-05:00","value":-0.5,"tags":{"a":"b,c","group":"::g","scenario":"s","z":"1"}}}
{"type":"Metric","data":{"name":"my_rate","type":"rate","contains":"default","thresholds":[],"submetrics":null},"metric":"my_rate"}
{"metric":"my_rate","type":"Point","data":{"time":"2026-12-01T10:04:05.123456-05:00","value":1,"tags":{"a":"b,c","group":"::g","scenario":"s","z":"1"}}}
{"type":"Metric","data":{"name":"my_trend","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"my_trend"}
{"metric":"my_trend","type":"Point","data":{"time":"2026-12-01T10:04:05.123456-05:00","value":12.25,"tags":{"a":"b,c","group":"::g","scenario":"s","z":"1"}}}
{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[],"submetrics":[{"name":"http_req_duration{expected_response:true}","suffix":"expected_response:true","tags":{"expected_response":"true"}}]},"metric":"http_req_duration"}
{"metric":"http_req_duration","type":"Point","data":{"time":"2026-12-01T10:04:05.123456-05:00","value":0.442076,"tags":{"expected_response":"true","group":"","method":"GET","name":"http://127.0.0.1/","proto":"HTTP/1.1","scenario":"default","status":"200","testid":"t1","url":"http://127.0.0.1/"}}}
{"type":"Metric","data":{"name":"dropped_iterations","type":"counter","contains":"default","thresholds":[],"submetrics":null},"metric":"dropped_iterations"}
{"metric":"dropped_iterations","type":"Point","data":{"time":"2026-12-01T10:04:05.123456-05:00","value":2,"tags":{"scenario":"s"}}}
`
	require.Equal(t, strings.Split(wantJSON, "\n"), strings.Split(js.String(), "\n"))

	for _, tc := range []struct {
		format TimeFormat
		want   string
	}{
		{Unix, "1796137445"},
		{UnixMilli, "1796137445123"},
		{UnixMicro, "1796137445123456"},
		{UnixNano, "1796137445123456000"},
		{RFC3339, "2026-12-01T10:04:05-05:00"},
		{RFC3339Nano, "2026-12-01T10:04:05.123456-05:00"},
	} {
		var cs strings.Builder
		cw := NewCSVWriter(&cs, tc.format, Options{Location: loc})
		require.NoError(t, cw.WriteSamples(samples))
		require.NoError(t, cw.Close())
		want := CSVHeader + `
vus,TS,5.000000,,,,,,,,,,,,,,,testid=t1,
my_counter,TS,1234567.000000,,,,,::g,,,,s,,,,,,"a=b,c&z=1",
my_gauge,TS,-0.500000,,,,,::g,,,,s,,,,,,"a=b,c&z=1",
my_rate,TS,1.000000,,,,,::g,,,,s,,,,,,"a=b,c&z=1",
my_trend,TS,12.250000,,,,,::g,,,,s,,,,,,"a=b,c&z=1",
http_req_duration,TS,0.442076,,,,true,,GET,http://127.0.0.1/,HTTP/1.1,default,,200,,,http://127.0.0.1/,testid=t1,
dropped_iterations,TS,2.000000,,,,,,,,,s,,,,,,,
`
		require.Equal(t, strings.ReplaceAll(want, "TS", tc.want), cs.String(), tc.format)
	}
}

// TestGzipRoundTrip writes both formats to .gz files through Open and reads them back.
func TestGzipRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := t.TempDir()
	specs, err := ParseSpecs([]string{"json=" + filepath.Join(dir, "r.json.gz"), "csv=" + filepath.Join(dir, "r.csv.gz"), "experimental-prometheus-rw"}, nil)
	require.NoError(t, err)
	store := aggregate.New()
	fan, err := New(store, specs, Config{})
	require.NoError(t, err)
	fan.Start()
	for range 10 {
		fan.Push(f.request(time.Now()))
	}
	require.NoError(t, fan.Stop())
	require.NoError(t, fan.Stop(), "Stop is idempotent")
	require.Equal(t, []string{
		"output json=" + filepath.Join(dir, "r.json.gz") + ": 110 samples written",
		"output csv=" + filepath.Join(dir, "r.csv.gz") + ": 110 samples written",
	}, fan.SummaryLines())

	for name, want := range map[string]int{"r.json.gz": 11 + 110, "r.csv.gz": 1 + 110} {
		file, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		zr, err := gzip.NewReader(file)
		require.NoError(t, err)
		n := 0
		sc := bufio.NewScanner(zr)
		for sc.Scan() {
			n++
		}
		require.NoError(t, sc.Err())
		require.NoError(t, zr.Close())
		require.NoError(t, file.Close())
		require.Equal(t, want, n, name)
	}
	// The store got every sample too.
	var reqs float64
	for _, s := range store.Snapshot().Series {
		if s.Metric == f.b.HTTPReqs {
			reqs += s.Count
		}
	}
	require.InDelta(t, 10, reqs, 0)
}

// blockingWriter blocks every write until release is closed.
type blockingWriter struct {
	release chan struct{}
	mu      sync.Mutex
	n       int
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	return len(p), nil
}

// TestFanoutNeverBlocks has a writer whose file never returns: Push must return at
// once, drop what does not fit the queue and count it; once the file returns, Stop
// writes everything that was queued.
func TestFanoutNeverBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bw := &blockingWriter{release: make(chan struct{})}
	var lines countingWriter
	fan := NewFanout(aggregate.New(),
		Output{Name: "json=blocked.json", Writer: &stuckWriter{JSONWriter: NewJSONWriter(bw, Options{}), bw: bw}, QueueSize: 4},
		Output{Name: "json=fine.json", Writer: NewJSONWriter(&lines, Options{}), QueueSize: 1000})
	fan.Start()
	const pushes = 200
	start := time.Now()
	for range pushes {
		fan.Push(f.request(start))
	}
	require.Less(t, time.Since(start), 2*time.Second, "Push blocked")
	st := fan.Stats()
	require.Positive(t, st[0].Dropped)
	require.Zero(t, st[1].Dropped)

	close(bw.release)
	require.NoError(t, fan.Stop())
	st = fan.Stats()
	require.Equal(t, uint64(pushes*11), st[0].Written+st[0].Dropped)
	require.Equal(t, uint64(pushes*11), st[1].Written)
	require.Equal(t, 11+pushes*11, lines.lines())
	require.Contains(t, fan.SummaryLines()[0], "samples dropped: the disk could not keep up")
	require.Equal(t, "output json=fine.json: 2200 samples written", fan.SummaryLines()[1])
}

// stuckWriter is a JSON writer whose every batch reaches the blocking file at once.
type stuckWriter struct {
	*JSONWriter
	bw *blockingWriter
}

func (s *stuckWriter) WriteSamples(samples []metrics.Sample) error {
	if err := s.JSONWriter.WriteSamples(samples); err != nil {
		return err
	}
	return s.Flush()
}

// countingWriter counts lines.
type countingWriter struct {
	mu sync.Mutex
	n  int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += strings.Count(string(p), "\n")
	return len(p), nil
}

func (c *countingWriter) lines() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// TestFanoutFlushesOnStop: what is queued when the run ends is written, also when the
// writer never started, and nothing is queued after Stop.
func TestFanoutFlushesOnStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var lines countingWriter
	fan := NewFanout(nil, Output{Name: "json", Writer: NewJSONWriter(&lines, Options{}), FlushInterval: time.Hour})
	for range 50 {
		fan.Push(f.request(time.Now()))
	}
	require.NoError(t, fan.Stop())
	fan.Push(f.request(time.Now()))
	require.Equal(t, 11+50*11, lines.lines())
	require.Equal(t, uint64(50*11), fan.Stats()[0].Written)
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestFanoutWriteError: a writer that fails stops writing, counts what it could not
// write, and Stop names the output.
func TestFanoutWriteError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fan := NewFanout(nil, Output{Name: "csv=full.csv", Writer: &flushEach{NewCSVWriter(failingWriter{}, Unix, Options{})}})
	fan.Start()
	fan.Push(f.request(time.Now()))
	fan.Push(f.request(time.Now()))
	err := fan.Stop()
	require.EqualError(t, err, "output csv=full.csv: write: no space left on device")
	require.Equal(t, uint64(22), fan.Stats()[0].Failed)
	require.Equal(t, []string{"output csv=full.csv: 0 samples written; 22 samples not written after an error"}, fan.SummaryLines())
}

// flushEach flushes after every batch.
type flushEach struct{ SampleWriter }

func (w *flushEach) WriteSamples(s []metrics.Sample) error {
	if err := w.SampleWriter.WriteSamples(s); err != nil {
		return err
	}
	return w.Flush()
}

// TestNewStdoutAndBadPath: `--out json` writes to stdout (which stays open), and a file
// that cannot be created is an error before the run.
func TestNewStdoutAndBadPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	specs, err := ParseSpecs([]string{"json"}, nil)
	require.NoError(t, err)
	var out closeTracker
	fan, err := New(nil, specs, Config{Stdout: &out})
	require.NoError(t, err)
	fan.Start()
	fan.Push(f.request(time.Now()))
	require.NoError(t, fan.Stop())
	require.Equal(t, 22, strings.Count(out.String(), "\n"))
	require.False(t, out.closed)

	specs, err = ParseSpecs([]string{"csv=" + filepath.Join(t.TempDir(), "a.csv"), "json=" + filepath.Join(t.TempDir(), "missing", "r.json")}, nil)
	require.NoError(t, err)
	_, err = New(nil, specs, Config{})
	require.ErrorContains(t, err, "open output json=")
}

// closeTracker is a buffer that records Close.
type closeTracker struct {
	strings.Builder
	closed bool
}

func (c *closeTracker) Close() error { c.closed = true; return nil }

var _ io.Closer = (*closeTracker)(nil)

// TestFanoutPushDuringStop: VUs that still push while the run stops never panic and
// never block; every sample is either written or not queued at all.
func TestFanoutPushDuringStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var lines countingWriter
	fan := NewFanout(nil, Output{Name: "json", Writer: NewJSONWriter(&lines, Options{}), QueueSize: 8})
	fan.Start()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 500 {
				fan.Push(f.request(time.Now()))
			}
		})
	}
	require.NoError(t, fan.Stop())
	wg.Wait()
	st := fan.Stats()[0]
	if st.Written > 0 { // Then the batch's 11 metrics were declared.
		require.Equal(t, int(st.Written)+11, lines.lines())
	}
	require.LessOrEqual(t, st.Written+st.Dropped, uint64(4*500*11))
}
