package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"
)

// writer sends one sample of each of its series every interval, retrying a request until
// it is answered 2xx, as a remote-write sender does. A sample counts as acknowledged when
// its request got a 2xx.
type writer struct {
	url      string
	interval time.Duration
	client   *http.Client
	req      prompb.WriteRequest
	lastTS   int64

	acked    int64 // samples answered 2xx
	requests int64 // requests answered 2xx
	retries  int64 // attempts that failed and were retried
	lastErr  string
	gaveUp   int64 // samples never acknowledged (the run was interrupted)
}

func newWriter(c config, w int, client *http.Client) *writer {
	wr := &writer{url: c.url + "/api/v1/write", interval: c.interval, client: client}
	for i := range c.series {
		wr.req.Timeseries = append(wr.req.Timeseries, prompb.TimeSeries{
			Labels: []prompb.Label{
				{Name: "__name__", Value: "soak_samples"}, {Name: "run", Value: c.run},
				{Name: "series", Value: strconv.Itoa(i)}, {Name: "writer", Value: strconv.Itoa(w)},
			},
			Samples: []prompb.Sample{{}},
		})
	}
	return wr
}

// run writes until runCtx ends; a request under way then is still retried until it is
// acknowledged or ctx (the whole program's) ends.
func (w *writer) run(runCtx, ctx context.Context) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for runCtx.Err() == nil {
		body := w.encode()
		w.send(ctx, body, len(w.req.Timeseries))
		select {
		case <-runCtx.Done():
		case <-t.C:
		}
	}
}

// encode returns the next request: one sample per series at a timestamp later than the
// previous request's.
func (w *writer) encode() []byte {
	ts := max(time.Now().UnixMilli(), w.lastTS+1)
	w.lastTS = ts
	for i := range w.req.Timeseries {
		w.req.Timeseries[i].Samples[0] = prompb.Sample{Timestamp: ts, Value: float64(ts % 100_000)}
	}
	raw, err := w.req.Marshal()
	if err != nil {
		panic(err) // A generated request always marshals.
	}
	return snappy.Encode(nil, raw)
}

func (w *writer) send(ctx context.Context, body []byte, n int) {
	for backoff := 50 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
		err := post(ctx, w.client, w.url, body)
		if err == nil {
			w.acked += int64(n)
			w.requests++
			return
		}
		if ctx.Err() != nil {
			w.gaveUp += int64(n)
			return
		}
		w.retries++
		w.lastErr = err.Error()
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
	}
}

func post(ctx context.Context, c *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
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
