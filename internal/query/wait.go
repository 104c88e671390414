package query

import (
	"context"
	"fmt"
	"time"
)

// WaitForSeries polls q every 500 ms until the instant query expr returns data, ctx is
// done, or limit has passed.
func WaitForSeries(ctx context.Context, q Querier, expr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		v, _, err := q.Query(ctx, expr, time.Now())
		if err == nil && v != nil && v.String() != "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s after %s", expr, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
