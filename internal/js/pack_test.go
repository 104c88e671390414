package js

import (
	"bytes"
	gojson "encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPack: the archive records the resolved options with PackOptions' over them, the
// __ENV asked for (an archive packed again keeps its own under the new), and runs as
// the script did.
func TestPack(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"main.js": `export const options = { vus: 2, iterations: 4, tags: { a: 'script' } };
export default function () {}`,
	})
	r, err := New(Config{Script: filepath.Join(dir, "main.js")})
	require.NoError(t, err)
	redirects := 3
	var buf bytes.Buffer
	require.NoError(t, r.Pack(&buf, PackOptions{Env: map[string]string{"X": "1"}, Tags: map[string]string{"b": "flag"},
		NoSetup: true, UserAgent: "ua", MaxRedirects: &redirects}))
	arc := filepath.Join(t.TempDir(), "a.tar")
	require.NoError(t, os.WriteFile(arc, buf.Bytes(), 0o644))

	ar, err := New(Config{Script: arc})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"X": "1"}, ar.ArchiveEnv())
	var opts map[string]any
	require.NoError(t, gojson.Unmarshal(ar.Options(), &opts))
	require.Equal(t, map[string]any{"b": "flag"}, opts["tags"], "--tag replaces the script's tags")
	noSetup, _ := opts["noSetup"].(bool)
	require.True(t, noSetup)
	require.Equal(t, "ua", opts["userAgent"])
	require.InDelta(t, 3, opts["maxRedirects"], 0)
	require.NotContains(t, opts, "noTeardown")
	require.Equal(t, 2, ar.Test().Scenarios[0].VUs)

	buf.Reset()
	require.NoError(t, ar.Pack(&buf, PackOptions{Env: map[string]string{"Y": "2"}}))
	require.NoError(t, os.WriteFile(arc, buf.Bytes(), 0o644))
	again, err := New(Config{Script: arc})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"X": "1", "Y": "2"}, again.ArchiveEnv())

	buf.Reset()
	require.NoError(t, again.Pack(&buf, PackOptions{Env: map[string]string{"Y": "2"}, ExcludeEnv: true}))
	require.NoError(t, os.WriteFile(arc, buf.Bytes(), 0o644))
	none, err := New(Config{Script: arc})
	require.NoError(t, err)
	require.Empty(t, none.ArchiveEnv())
}
