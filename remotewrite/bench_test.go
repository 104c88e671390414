package remotewrite

import (
	"fmt"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/benchtest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/series/seriestest"
)

// push10k is a snapshot that maps to 10,000 series: 1,000 request tag sets, each
// with http_reqs, http_req_failed, data_received and http_req_duration at the 7
// default trend stats.
func push10k(b *testing.B) []series.Input {
	b.Helper()
	run := seriestest.NewRun()
	bt := run.Builtin
	lat := seriestest.NewDist(0.010, 0.020, 0.030, 0.050, 0.120)
	in := make([]series.Input, 0, 4000)
	for i := range 1000 {
		tags := run.Tags("scenario", "default", "method", "GET", "status", "200", "expected_response", "true",
			"proto", "HTTP/1.1", "name", fmt.Sprintf("http://svc.example/items/%d", i), "url", fmt.Sprintf("http://svc.example/items/%d", i))
		in = append(in,
			series.Input{Metric: bt.HTTPReqs, Tags: tags, Value: float64(i)},
			series.Input{Metric: bt.HTTPReqFailed, Tags: tags, Passes: 1, Total: uint64(i + 1)},
			series.Input{Metric: bt.DataReceived, Tags: tags, Value: float64(1024 * i)},
			series.Input{Metric: bt.HTTPReqDuration, Tags: tags, Trend: lat},
		)
	}
	return in
}

func benchmarkEncode(b *testing.B, protocol string) {
	in := push10k(b)
	cfg := series.DefaultConfig
	cfg.TestID = "bench"
	cfg.InstanceID = "pod-0"
	m, err := series.NewMapper(cfg)
	if err != nil {
		b.Fatal(err)
	}
	enc := newEncoder(protocol)
	var out []series.Series
	out = m.Map(out[:0], in) // the first push also builds the label cache
	if len(out) != 10000 {
		b.Fatalf("got %d series, want 10000", len(out))
	}
	const batch = 2000 // DefaultQueueConfig.MaxSamplesPerSend
	b.ReportAllocs()
	b.ResetTimer()
	var bytes int
	cpu0 := benchtest.ProcessCPU()
	n := 0
	for i := 0; b.Loop(); i++ {
		n++
		out = m.Map(out[:0], in)
		bytes = 0
		for start := 0; start < len(out); start += batch {
			body, err := enc.encode(out[start:min(start+batch, len(out))], int64(i), false)
			if err != nil {
				b.Fatal(err)
			}
			bytes += len(body)
		}
	}
	b.ReportMetric(float64(bytes), "compressed_bytes/push")
	// CPU time, not wall time: the goal is CPU, and this box is shared.
	b.ReportMetric(float64(benchtest.ProcessCPU()-cpu0)/float64(time.Millisecond)/float64(n), "cpu_ms/push")
}

// BenchmarkEncode10k measures building (snapshot → series) and encoding (protobuf +
// snappy) one 10,000-series push with remote write 1.0. Goal: < 20 ms CPU.
func BenchmarkEncode10k(b *testing.B) { benchmarkEncode(b, Protocol1) }

// BenchmarkEncode10kV2 is the same with remote write 2.0 (symbols and metadata).
func BenchmarkEncode10kV2(b *testing.B) { benchmarkEncode(b, Protocol2) }

// BenchmarkPushFromStore1k measures one whole push of a run with about 1,000 series
// (20 request names × every HTTP metric at the default trend stats): snapshot of a real
// aggregate store, trend histograms included, mapping and encoding. Its CPU per push,
// divided by the push interval, is what remote write takes from the engine.
func BenchmarkPushFromStore1k(b *testing.B) {
	run := seriestest.NewRun()
	bt := run.Builtin
	store := aggregate.New()
	trends := []*metrics.Metric{bt.HTTPReqDuration, bt.HTTPReqBlocked, bt.HTTPReqConnecting, bt.HTTPReqTLSHandshaking,
		bt.HTTPReqSending, bt.HTTPReqWaiting, bt.HTTPReqReceiving}
	now := time.Now()
	for i := range 20 {
		tags := run.Tags("testid", "bench", "scenario", "closed", "method", "GET", "status", "200", "expected_response", "true",
			"proto", "HTTP/1.1", "name", fmt.Sprintf("item-%d", i), "url", fmt.Sprintf("item-%d", i))
		var ss []metrics.Sample
		for j := range 5000 {
			v := float64(j%997+1) / 1e4
			ss = append(ss, metrics.Sample{Metric: bt.HTTPReqs, Tags: tags, Time: now, Value: 1},
				metrics.Sample{Metric: bt.HTTPReqFailed, Tags: tags, Time: now, Value: 0})
			for _, m := range trends {
				ss = append(ss, metrics.Sample{Metric: m, Tags: tags, Time: now, Value: v})
			}
		}
		store.Push(ss)
	}
	m, err := series.NewMapper(series.Config{TrendStats: series.DefaultTrendStats, TestID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	src := series.FromAggregate(store)
	enc := newEncoder(Protocol1)
	var out []series.Series
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := benchtest.ProcessCPU()
	n := 0
	for i := 0; b.Loop(); i++ {
		n++
		out = m.Map(out[:0], src.Snapshot())
		for start := 0; start < len(out); start += 2000 {
			if _, err := enc.encode(out[start:min(start+2000, len(out))], int64(i), false); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(out)), "series")
	b.ReportMetric(float64(benchtest.ProcessCPU()-cpu0)/float64(time.Millisecond)/float64(n), "cpu_ms/push")
}
