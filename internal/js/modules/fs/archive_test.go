package fs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// TestArchiveKeepsFiles: the files k6/experimental/fs and k6/experimental/csv load
// are the script's sources, as open()'s are: an archive made from them runs without
// the original directory.
func TestArchiveKeepsFiles(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{
		"data/users.csv": "name\nada\n",
		"hello.txt":      "hello",
		"script.js": `
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';
const hello = open('hello.txt');
const users = csv.parse('data/users.csv', { asObjects: true });
export default async function () {
  const f = await hello;
  const buf = new Uint8Array(16);
  const n = await f.read(buf);
  check(null, { 'fs file from the archive': () => String.fromCharCode(...buf.subarray(0, n)) === 'hello' });
  const rows = await users;
  check(rows, { 'csv rows from the archive': (r) => r.length === 1 && r[0].name === 'ada' });
}
`})
	r, err := js.New(js.Config{Script: filepath.Join(dir, "script.js"), Logger: promslog.NewNopLogger()})
	require.NoError(t, err)
	sources, err := r.Sources()
	require.NoError(t, err)
	var names []string
	for _, s := range sources {
		names = append(names, filepath.Base(s.URL))
	}
	require.ElementsMatch(t, []string{"script.js", "hello.txt", "users.csv"}, names)
	mainURL, err := r.MainURL()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, js.WriteArchive(&buf, js.ArchiveMetadata{Type: "js", Filename: mainURL, Options: []byte(`{}`)}, sources))
	require.NoError(t, os.RemoveAll(dir))
	arc := filepath.Join(t.TempDir(), "test.tar")
	require.NoError(t, os.WriteFile(arc, buf.Bytes(), 0o644))

	out := modulestest.RunTest(t, arc, nil)
	require.NoError(t, out.Err)
	require.Regexp(t, `checks_succeeded\.+: 100\.00% 2 out of 2`, out.Summary)
}
