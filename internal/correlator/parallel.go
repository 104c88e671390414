package correlator

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// parallel runs f(ctx, i) for i in [0, n) with at most limit at a time. The first error
// cancels the others' context and is returned, and no call starts after it; parallel
// waits for every call. A cancelled parent is an error even when every call tolerated
// it (the calls turn failed queries into notes).
func parallel(ctx context.Context, n, limit int, f func(ctx context.Context, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(limit, 1))
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return f(gctx, i) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return context.Cause(ctx)
}
