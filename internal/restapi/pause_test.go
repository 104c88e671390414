package restapi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPause(t *testing.T) {
	t.Parallel()
	t.Run("paused holds Wait until Resume", func(t *testing.T) {
		t.Parallel()
		p := NewPause(true)
		require.True(t, p.Paused())
		waited := make(chan error, 1)
		go func() { waited <- p.Wait(context.Background()) }()
		select {
		case err := <-waited:
			t.Fatalf("Wait returned before Resume: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		require.True(t, p.Resume())
		require.NoError(t, <-waited)
		require.False(t, p.Paused())
		require.False(t, p.Resume(), "a second Resume")
		require.NoError(t, p.Wait(context.Background()))
	})
	t.Run("not paused is open", func(t *testing.T) {
		t.Parallel()
		p := NewPause(false)
		require.False(t, p.Paused())
		require.NoError(t, p.Wait(context.Background()))
		require.False(t, p.Resume())
	})
	t.Run("Wait ends with its context", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.ErrorIs(t, NewPause(true).Wait(ctx), context.Canceled)
	})
}
