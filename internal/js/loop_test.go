package js

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLoopPost: a posted callback runs while the loop waits for a reservation,
// before the reservation's own callback, and does not keep the loop running; one
// posted after the loop ended is dropped by the reset.
func TestLoopPost(t *testing.T) {
	t.Parallel()
	l := newLoop()
	done := l.RegisterCallback()
	var order []string
	go func() {
		l.Post(func() error { order = append(order, "posted"); return nil })
		time.Sleep(50 * time.Millisecond)
		done(func() error { order = append(order, "reserved"); return nil })
	}()
	require.NoError(t, l.run(context.Background()))
	require.Equal(t, []string{"posted", "reserved"}, order)

	// Nothing reserved: the loop does not wait for posts.
	start := time.Now()
	require.NoError(t, l.run(context.Background()))
	require.Less(t, time.Since(start), 50*time.Millisecond)

	ran := false
	l.Post(func() error { ran = true; return nil })
	l.reset()
	require.NoError(t, l.run(context.Background()))
	require.False(t, ran, "the reset drops what was posted")
}
