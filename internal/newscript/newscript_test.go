package newscript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWrite: k6's `new`: the default file and template, the built-in templates, a
// template file with its variables, and no overwrite without Force.
func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "test.js")
	got, err := Write(Config{File: path})
	require.NoError(t, err)
	require.Equal(t, path, got)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), "export default function")
	require.NotContains(t, string(b), "cloud:")

	_, err = Write(Config{File: path, Template: "protocol"})
	require.ErrorIs(t, err, ErrExists)
	_, err = Write(Config{File: path, Template: "protocol", ProjectID: "12345", Force: true})
	require.NoError(t, err)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), "export function setup()")
	require.Contains(t, string(b), "projectID: 12345")

	tmpl := filepath.Join(dir, "my.tmpl")
	require.NoError(t, os.WriteFile(tmpl, []byte("// {{.ScriptName}} in {{.ProjectID}}\n"), 0o600))
	out := filepath.Join(dir, "custom.js")
	_, err = Write(Config{File: out, Template: tmpl, ProjectID: "7"})
	require.NoError(t, err)
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "// "+out+" in 7\n", string(b))

	_, err = Write(Config{File: filepath.Join(dir, "x.js"), Template: "nope"})
	require.ErrorContains(t, err, `--template "nope": not one of minimal, protocol, browser`)
	for _, name := range Templates() {
		_, err := Write(Config{File: filepath.Join(dir, name+".js"), Template: name})
		require.NoError(t, err, name)
	}
}
