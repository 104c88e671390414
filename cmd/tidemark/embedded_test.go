package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/store"
)

// TestOpenEmbeddedLocked: a directory held by another process's store gives an error
// that says what to do, not only that it is locked.
func TestOpenEmbeddedLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := store.DefaultConfig
	cfg.Dir = dir
	st, err := store.Open(cfg, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })

	_, err = openEmbedded(context.Background(), dir, promslog.NewNopLogger())
	require.ErrorIs(t, err, store.ErrLocked)
	require.ErrorContains(t, err, "start `tidemark serve --storage.tsdb.path "+dir+"` to share it")
}
