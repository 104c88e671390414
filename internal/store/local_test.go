package store

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

// TestOpenLocalLocked: a directory held by another store gives an error that says what
// to do, not only that it is locked.
func TestOpenLocalLocked(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	cfg := DefaultConfig
	cfg.Dir = dir
	st, err := Open(cfg, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })

	_, err = OpenLocal(context.Background(), dir, promslog.NewNopLogger())
	require.ErrorIs(t, err, ErrLocked)
	require.ErrorContains(t, err, "start `tidemark serve --storage.tsdb.path "+dir+"` to share it")
}

// TestLocalListenClose: Listen serves the in-process store on loopback; Close stops the
// server and releases the data directory.
func TestLocalListenClose(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	l, err := OpenLocal(context.Background(), dir, promslog.NewNopLogger())
	require.NoError(t, err)
	require.True(t, l.InProcess())
	require.Equal(t, inProcessBaseURL, l.URL)
	require.NoError(t, l.Listen("", promslog.NewNopLogger()))
	require.NotEqual(t, inProcessBaseURL, l.URL)
	resp, err := http.Get(l.URL + "/-/ready")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)

	require.NoError(t, l.Close())
	_, err = http.Get(l.URL + "/-/ready")
	require.Error(t, err, "no longer served")
	again, err := OpenLocal(context.Background(), dir, promslog.NewNopLogger())
	require.NoError(t, err, "lock released")
	require.NoError(t, again.Close())
}
