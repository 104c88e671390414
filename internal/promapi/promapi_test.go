package promapi

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

// TestOpenConfigErrors: an unparsable URL or a missing HTTP client configuration is a
// *ConfigError, the caller's to fix.
func TestOpenConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{name: "url", cfg: Config{URL: "http://[::1"}},
		{name: "http config", cfg: Config{URL: "http://127.0.0.1:1", HTTPConfigFile: filepath.Join(t.TempDir(), "missing.yml")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(context.Background(), tc.cfg, promslog.NewNopLogger())
			var cerr *ConfigError
			require.ErrorAs(t, err, &cerr)
		})
	}
}

// TestOpen: a remote API is named with its credentials redacted and has no write-back
// URL; the embedded store is served on loopback with one.
func TestOpen(t *testing.T) {
	t.Parallel()
	api, err := Open(context.Background(), Config{URL: "http://user:secret@127.0.0.1:1"}, promslog.NewNopLogger())
	require.NoError(t, err)
	require.Equal(t, "http://user:xxxxx@127.0.0.1:1", api.Where)
	require.Empty(t, api.EmbeddedWriteURL)
	require.NoError(t, api.Close())

	api, err = Open(context.Background(), Config{Dir: t.TempDir()}, promslog.NewNopLogger())
	require.NoError(t, err)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+/api/v1/write$`, api.EmbeddedWriteURL)
	require.NotNil(t, api.Querier)
	require.NoError(t, api.Close())
}
