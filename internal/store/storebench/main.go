// Command storebench is the remote-write load generator of scripts/bench-store.sh. It sends
// k6-shaped series to a remote-write endpoint from several concurrent writers for a fixed
// time and prints the achieved ingest rate, so that tidemark serve and Prometheus are
// measured with exactly the same client.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
)

func main() { os.Exit(run()) }

func run() int {
	var (
		url      = flag.String("url", "", "remote-write endpoint, e.g. http://127.0.0.1:9091/api/v1/write")
		writers  = flag.Int("writers", 4, "concurrent writers (remote-write shards)")
		series   = flag.Int("series", 2000, "series per writer; each request carries one sample of each")
		duration = flag.Duration("duration", 10*time.Second, "how long to write")
		proto    = flag.String("proto", "v1", "remote-write protocol: v1 or v2")
		label    = flag.String("label", "", "name printed with the result")
		testid   = flag.String("testid", "bench", "testid label of the generated series; use a new one per run against the same server")
		preRate  = flag.Float64("preencode-rate", 1e6, "encode, before the clock starts, enough requests to sustain this many samples/s for the whole duration (0: encode while sending), so the generator's marshalling and compression do not compete with the server for CPU")
	)
	flag.Parse()
	if *url == "" || (*proto != "v1" && *proto != "v2") {
		fmt.Fprintln(os.Stderr, "storebench: need -url and -proto v1|v2")
		return 2
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *writers}, Timeout: 30 * time.Second}
	var samples, requests, failures atomic.Int64
	var firstErr atomic.Value
	start := time.Now().Add(-30 * time.Minute)
	ts := func(i int) int64 { return start.Add(time.Duration(i) * 100 * time.Millisecond).UnixMilli() }
	gens := make([]*gen, *writers)
	pre := int(*preRate * duration.Seconds() / float64(*writers) / float64(*series))
	for w := range gens {
		gens[w] = newGen(*testid, w, *series, *proto == "v2")
		for i := range pre {
			gens[w].bodies = append(gens[w].bodies, bytes.Clone(gens[w].encode(ts(i))))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	t0 := time.Now()
	var wg sync.WaitGroup
	for _, g := range gens {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				var body []byte
				if i < len(g.bodies) {
					body = g.bodies[i]
				} else {
					body = g.encode(ts(i))
				}
				if err := send(ctx, client, *url, body, g.v2); err != nil {
					if ctx.Err() != nil {
						return
					}
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				requests.Add(1)
				samples.Add(int64(*series))
			}
		})
	}
	wg.Wait()
	secs := time.Since(t0).Seconds()
	fmt.Printf("target=%s proto=%s writers=%d samples_per_request=%d requests=%d samples=%d seconds=%.2f samples_per_second=%.0f failures=%d\n",
		*label, *proto, *writers, *series, requests.Load(), samples.Load(), secs, float64(samples.Load())/secs, failures.Load())
	if e := firstErr.Load(); e != nil {
		fmt.Fprintln(os.Stderr, "storebench: first error:", e)
		return 1
	}
	return 0
}

// gen encodes the requests of one writer, reusing its buffers.
type gen struct {
	v2     bool
	bodies [][]byte // encoded before the clock starts
	req1   prompb.WriteRequest
	req2   writev2.Request
	raw    []byte
	packed []byte
}

func newGen(testid string, w, n int, v2 bool) *gen {
	g := &gen{v2: v2}
	st := writev2.NewSymbolTable()
	for i := range n {
		ls := labels.FromStrings(
			"__name__", "k6_http_req_duration_p95", "testid", testid, "instance_id", fmt.Sprint(w),
			"scenario", "browse", "method", "GET", "status", "200", "name", fmt.Sprintf("https://svc/item/%d", i),
		)
		if v2 {
			g.req2.Timeseries = append(g.req2.Timeseries, writev2.TimeSeries{LabelsRefs: st.SymbolizeLabels(ls, nil), Samples: []writev2.Sample{{}}})
		} else {
			g.req1.Timeseries = append(g.req1.Timeseries, prompb.TimeSeries{Labels: prompb.FromLabels(ls, nil), Samples: []prompb.Sample{{}}})
		}
	}
	g.req2.Symbols = st.Symbols()
	return g
}

func (g *gen) encode(ts int64) []byte {
	var err error
	if g.v2 {
		for i := range g.req2.Timeseries {
			g.req2.Timeseries[i].Samples[0] = writev2.Sample{Timestamp: ts, Value: float64(ts%1000 + int64(i))}
		}
		g.raw, err = appendMarshal(g.raw, g.req2.Size(), g.req2.MarshalToSizedBuffer)
	} else {
		for i := range g.req1.Timeseries {
			g.req1.Timeseries[i].Samples[0] = prompb.Sample{Timestamp: ts, Value: float64(ts%1000 + int64(i))}
		}
		g.raw, err = appendMarshal(g.raw, g.req1.Size(), g.req1.MarshalToSizedBuffer)
	}
	if err != nil {
		panic(err) // generated messages always marshal.
	}
	g.packed = snappy.Encode(g.packed[:cap(g.packed)], g.raw)
	return g.packed
}

func appendMarshal(buf []byte, size int, marshal func([]byte) (int, error)) ([]byte, error) {
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	n, err := marshal(buf)
	return buf[:n], err
}

func send(ctx context.Context, c *http.Client, url string, body []byte, v2 bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Encoding", "snappy")
	if v2 {
		req.Header.Set("Content-Type", "application/x-protobuf;proto=io.prometheus.write.v2.Request")
		req.Header.Set("X-Prometheus-Remote-Write-Version", "2.0.0")
	} else {
		req.Header.Set("Content-Type", "application/x-protobuf")
		req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}
