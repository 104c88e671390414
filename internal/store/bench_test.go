package store

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/benchtest"
)

// Shape of the ingest benchmark: each writer owns benchSeriesPerWriter k6-like series and
// sends one sample of each per request (2,000 samples, Prometheus' default
// max_samples_per_send), as a remote-write queue shard does.
const (
	benchWriters         = 4
	benchSeriesPerWriter = 2000
)

// BenchmarkRemoteWriteIngest measures remote-write ingest over loopback HTTP with
// several concurrent writers. One op is one request of 2,000 samples; the samples/s
// metric is the figure to compare (goal ≥ 500,000 on the 2-core CI machine).
func BenchmarkRemoteWriteIngest(b *testing.B) {
	for _, proto := range []string{"v1", "v2"} {
		b.Run(proto, func(b *testing.B) {
			ts := openTestStore(b, Config{})
			v2 := proto == "v2"
			start := time.Now().Add(-50 * time.Minute)
			// Pre-encode every request so that only the server's work is timed (the client
			// still shares the CPUs for HTTP).
			bodies := make([][][]byte, benchWriters)
			for i := range b.N {
				w := i % benchWriters
				ss := benchRequest(w, start.Add(time.Duration(i/benchWriters)*100*time.Millisecond))
				raw := encodeV1(b, ss)
				if v2 {
					raw = encodeV2(b, ss)
				}
				bodies[w] = append(bodies[w], snappy.Encode(nil, raw))
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchWriters}}
			var wg sync.WaitGroup
			errs := make(chan error, benchWriters)
			b.ResetTimer()
			cpu0 := benchtest.ProcessCPU()
			t0 := time.Now()
			for w := range benchWriters {
				wg.Go(func() {
					for _, body := range bodies[w] {
						code, msg, err := postBody(client, ts.URL+"/api/v1/write", body, v2)
						if err == nil && code != http.StatusNoContent {
							err = fmt.Errorf("status %d: %s", code, msg)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(t0)
			cpu := benchtest.ProcessCPU() - cpu0
			b.StopTimer()
			close(errs)
			for err := range errs {
				require.NoError(b, err)
			}
			samples := float64(b.N * benchSeriesPerWriter)
			b.ReportMetric(samples/elapsed.Seconds(), "samples/s")
			// On a shared machine wall time depends on the neighbours; CPU time does not.
			// samples/cpu-s is what one fully used core ingests (HTTP client included).
			b.ReportMetric(samples/cpu.Seconds(), "samples/cpu-s")
		})
	}
}

// benchRequest returns one request of writer w: one sample at t for each of its series.
func benchRequest(w int, t time.Time) []series {
	ss := make([]series, benchSeriesPerWriter)
	for i := range ss {
		ss[i] = series{
			labels: labels.FromStrings(
				"__name__", "k6_http_req_duration_p95", "testid", "bench", "instance_id", fmt.Sprint(w),
				"scenario", "browse", "method", "GET", "status", "200", "name", fmt.Sprintf("https://svc/item/%d", i),
			),
			samples: []prompb.Sample{{Timestamp: t.UnixMilli(), Value: float64(i)}},
		}
	}
	return ss
}

// BenchmarkQueryRange measures a 1-hour query_range at a 15 s step over 1,000 series
// through the HTTP API and client_golang (goal < 200 ms per query).
func BenchmarkQueryRange(b *testing.B) {
	ts := openTestStore(b, Config{})
	const nSeries, nSamples = 1000, 240 // one hour scraped every 15 s.
	end := time.Now().Truncate(time.Minute)
	start := end.Add(-time.Hour)
	var ss []series
	for i := range nSeries {
		ls := labels.FromStrings("__name__", "container_cpu_cfs_throttled_periods_total", "pod", fmt.Sprintf("order-%d", i), "container", "app", "namespace", fmt.Sprint("ns", i%10))
		ss = append(ss, floatSeries(ls, start.Add(15*time.Second), 15*time.Second, nSamples, float64(i)))
		if len(ss) == 100 {
			mustWrite(b, ts.URL+"/api/v1/write", ss, false)
			ss = nil
		}
	}
	a := promAPI(b, ts.URL, nil)
	r := v1.Range{Start: start, End: end, Step: 15 * time.Second}
	for _, q := range []struct{ name, expr string }{
		{"raw", `container_cpu_cfs_throttled_periods_total`},
		{"rate", `rate(container_cpu_cfs_throttled_periods_total[1m])`},
		{"sum_by", `sum by (namespace) (rate(container_cpu_cfs_throttled_periods_total[1m]))`},
	} {
		b.Run(q.name, func(b *testing.B) {
			cpu0 := benchtest.ProcessCPU()
			n := 0
			for b.Loop() {
				n++
				v, _, _, err := a.QueryRange(context.Background(), q.expr, r)
				require.NoError(b, err)
				if q.name != "sum_by" {
					require.Len(b, v.(model.Matrix), nSeries)
				}
			}
			b.ReportMetric(float64((benchtest.ProcessCPU()-cpu0).Milliseconds())/float64(n), "cpu-ms/op")
		})
	}
	// The server's share alone: the same raw query over plain HTTP, body read but not
	// decoded (client_golang's JSON decoding of 240,000 points costs as much again).
	b.Run("raw_http", func(b *testing.B) {
		u := fmt.Sprintf("%s/api/v1/query_range?query=container_cpu_cfs_throttled_periods_total&start=%d&end=%d&step=15", ts.URL, start.Unix(), end.Unix())
		cpu0 := benchtest.ProcessCPU()
		n := 0
		for b.Loop() {
			n++
			code, body := getBody(b, u)
			require.Equal(b, http.StatusOK, code)
			require.Greater(b, len(body), nSeries*nSamples*10)
		}
		b.ReportMetric(float64((benchtest.ProcessCPU()-cpu0).Milliseconds())/float64(n), "cpu-ms/op")
	})
}

// BenchmarkOpen measures opening and closing an empty store.
func BenchmarkOpen(b *testing.B) {
	for b.Loop() {
		st, err := Open(Config{Dir: b.TempDir()}, promslog.NewNopLogger(), nil)
		require.NoError(b, err)
		require.NoError(b, st.Close())
	}
}
