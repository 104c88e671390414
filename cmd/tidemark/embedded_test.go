package main

import (
	"context"
	"net/http"
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

// TestEmbeddedListenClose: Listen serves the in-process store on loopback; Close stops
// the server and releases the data directory.
func TestEmbeddedListenClose(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	emb, err := openEmbedded(context.Background(), dir, promslog.NewNopLogger())
	require.NoError(t, err)
	require.Equal(t, embeddedBaseURL, emb.URL)
	require.NoError(t, emb.Listen(promslog.NewNopLogger()))
	require.NotEqual(t, embeddedBaseURL, emb.URL)
	resp, err := http.Get(emb.URL + "/-/ready")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)

	require.NoError(t, emb.Close())
	_, err = http.Get(emb.URL + "/-/ready")
	require.Error(t, err, "no longer served")
	again, err := openEmbedded(context.Background(), dir, promslog.NewNopLogger())
	require.NoError(t, err, "lock released")
	require.NoError(t, again.Close())
}
