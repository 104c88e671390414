package remotewrite

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/config"
	"github.com/prometheus/prometheus/model/labels"

	"github.com/tidemark/tidemark/internal/series"
)

// NewWriter returns a client for data that is not a live snapshot (Write,
// WritePoints): the default configuration at rawURL, no live series and no stale
// markers. It is not started.
func NewWriter(rawURL string, logger *slog.Logger, opts ...Option) (*Client, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("remote-write url: %w", err)
	}
	cfg := DefaultConfig
	cfg.URL = &config.URL{URL: u}
	cfg.StaleMarkers = false
	none := series.SnapshotFunc(func() []series.Input { return nil })
	return NewClient(cfg, none, logger, prometheus.NewRegistry(), opts...)
}

// Write sends batch once, every series with its one value at ts (milliseconds since the
// epoch), with the client's retries and backoff. It is for data that is not a live
// snapshot; bound it with ctx. Its error counts the samples the receiver rejected
// during this call. It must not run concurrently with the pushes of Start.
func (c *Client) Write(ctx context.Context, ts int64, batch []series.Series) error {
	_, rejected, err := c.write(ctx, ts, batch)
	if err != nil {
		return err
	}
	return rejectedCount(rejected)
}

// WritePoints sends series that have several timestamped points, such as the events
// and facts `tidemark correlate` writes back. The metric name is the __name__ label;
// labels with an empty value are left out, as PromQL treats them as absent. The points
// are grouped by timestamp and sent one timestamp after another, in time order, so a
// receiver that rejects out-of-order samples accepts every point (as long as no point
// is older than what the receiver already holds for its series).
//
// It returns the number of samples the receiver accepted. Like Write, it retries with
// backoff, is bounded by ctx, its error counts the samples the receiver rejected, and it
// must not run concurrently with the pushes of Start. It does not retain ss.
func (c *Client) WritePoints(ctx context.Context, ss []series.Points) (int, error) {
	byTime := map[int64][]series.Series{}
	for _, s := range ss {
		out, err := seriesOf(s)
		if err != nil {
			return 0, err
		}
		for _, p := range s.Points {
			out.Value = p.V
			ts := p.T.UnixMilli()
			byTime[ts] = append(byTime[ts], out)
		}
	}
	written, rejected := 0, 0
	times := slices.Sorted(maps.Keys(byTime))
	for i, ts := range times {
		n, r, err := c.write(ctx, ts, byTime[ts])
		written, rejected = written+n, rejected+r
		if err != nil {
			for _, later := range times[i+1:] {
				c.m.dropped.Add(float64(len(byTime[later])))
			}
			return written, fmt.Errorf("write points at %s: %w", time.UnixMilli(ts).UTC().Format(time.RFC3339Nano), err)
		}
	}
	return written, rejectedCount(rejected)
}

// seriesOf returns the series of s's labels, sorted by name, without a value.
func seriesOf(s series.Points) (series.Series, error) {
	out := series.Series{Name: s.Labels["__name__"], Type: series.Gauge}
	if out.Name == "" {
		return series.Series{}, fmt.Errorf("write points: series %s has no metric name (__name__ label)", labels.FromMap(s.Labels))
	}
	for k, v := range s.Labels {
		if k != "__name__" && v != "" {
			out.Labels = append(out.Labels, series.Label{Name: k, Value: v})
		}
	}
	slices.SortFunc(out.Labels, func(a, b series.Label) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// write sends ss, every series with its one value at ts, in batches of at most
// max_samples_per_send. It returns the samples accepted and rejected; when it gives up
// (ctx ends), it counts the unsent samples as dropped and returns ctx's error.
func (c *Client) write(ctx context.Context, ts int64, ss []series.Series) (written, rejected int, err error) {
	for len(ss) > 0 {
		n := min(len(ss), c.maxSamples)
		err := c.sendWithBackoff(ctx, batch{series: ss[:n], ts: ts, kind: kindWriteBack}, time.Time{})
		switch {
		case err == nil:
			written += n
		case isRejection(err):
			rejected += n
		default:
			c.m.dropped.Add(float64(len(ss)))
			return written, rejected, err
		}
		ss = ss[n:]
	}
	return written, rejected, nil
}

func rejectedCount(n int) error {
	if n == 0 {
		return nil
	}
	return fmt.Errorf("remote write receiver rejected %d samples (see the log)", n)
}
