package correlator

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParallel(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		n       int
		failAt  int // -1: none
		cancel  bool
		wantErr error
	}{
		{name: "none", n: 0, failAt: -1},
		{name: "all run", n: 20, failAt: -1},
		{name: "first error wins and cancels", n: 20, failAt: 3, wantErr: boom},
		// Calls that tolerate a cancelled context (a failed query becomes a note) must
		// not hide that the parent was cancelled.
		{name: "cancelled parent", n: 20, failAt: -1, cancel: true, wantErr: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var running, peak, done atomic.Int32
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := parallel(ctx, tc.n, 3, func(ctx context.Context, i int) error {
				cur := running.Add(1)
				defer running.Add(-1)
				for {
					p := peak.Load()
					if cur <= p || peak.CompareAndSwap(p, cur) {
						break
					}
				}
				done.Add(1)
				if i == tc.failAt {
					return boom
				}
				if tc.cancel {
					cancel()
					return nil
				}
				return ctx.Err()
			})
			require.LessOrEqual(t, peak.Load(), int32(3))
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, int32(tc.n), done.Load())
		})
	}
}
