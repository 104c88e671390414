package remotewrite

import (
	"context"
	"fmt"
	"time"

	"github.com/tidemark/tidemark/internal/series"
)

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
