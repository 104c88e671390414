package js

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// tarFile is one entry of a hand-made tar.
type tarFile struct {
	name, link, body string
}

func writeTar(t *testing.T, entries []tarFile) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		if e.link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, e.link, 0
		}
		require.NoError(t, tw.WriteHeader(h))
		_, err := tw.Write([]byte(e.body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	p := filepath.Join(t.TempDir(), "a.tar")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// TestArchiveRoundTrip: a script with a remote module (from --modules.dir), a local
// module and an open()ed file is packed by WriteArchive from Sources in k6's layout,
// and New runs the archive: the remote module from https/…, the recorded options in
// place of the script's, the recorded env under the run's.
func TestArchiveRoundTrip(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.js": `import { a } from './lib/a.js';
import { b } from 'https://example.com/b.js';
const f = open('./f.txt');
export const options = { vus: 2, iterations: 4 };
export default function () { return a + b + f + __ENV.X; }`,
		"lib/a.js":                "export const a = 'a';",
		"f.txt":                   "f",
		"vendor/example.com/b.js": "export const b = 'b';",
	})
	r, err := New(Config{Script: filepath.Join(dir, "main.js"), ModulesDir: filepath.Join(dir, "vendor")})
	require.NoError(t, err)
	sources, err := r.Sources()
	require.NoError(t, err)
	mainURL, err := r.MainURL()
	require.NoError(t, err)
	var urls []string
	for _, s := range sources {
		urls = append(urls, s.URL)
	}
	fileURL := func(p string) string { u, err := FileURL(filepath.Join(dir, p)); require.NoError(t, err); return u }
	require.Equal(t, fileURL("main.js"), mainURL)
	require.Equal(t, []string{fileURL("main.js"), fileURL("lib/a.js"), "https://example.com/b.js", fileURL("f.txt")}, urls)

	var buf bytes.Buffer
	meta := ArchiveMetadata{Type: "js", Filename: mainURL, Options: []byte(`{"vus":3,"iterations":9,"dns":{"ttl":null},"paused":null}`),
		Env: map[string]string{"X": "archived", "Y": "y"}}
	require.NoError(t, WriteArchive(&buf, meta, sources))
	arc := filepath.Join(t.TempDir(), "x.bin") // an archive is known by its content
	require.NoError(t, os.WriteFile(arc, buf.Bytes(), 0o644))
	require.True(t, IsArchive(arc))
	require.True(t, IsScript(arc))

	ar, err := New(Config{Script: arc, Env: map[string]string{"X": "run"}})
	require.NoError(t, err)
	sc := ar.Test().Scenarios[0]
	require.Equal(t, 3, sc.VUs, "the recorded options, not the script's")
	require.Equal(t, 9, sc.Iterations)
	require.Equal(t, map[string]string{"X": "archived", "Y": "y"}, ar.ArchiveEnv())
	again, err := ar.Sources()
	require.NoError(t, err)
	require.Equal(t, sources, again, "an archive's files keep their names when packed again")
}

// TestArchiveRejects: tars that are no k6 archive, and entries that try to leave the
// directory, which stay inside it.
func TestArchiveRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []tarFile
		wantErr string
	}{
		{"no metadata", []tarFile{{name: "data", body: "x"}}, "no metadata.json"},
		{"not js", []tarFile{{name: "metadata.json", body: `{"type":"raw","filename":"file:///a.js"}`}}, `type "raw"`},
		{"link first", []tarFile{{name: "file/a.js", link: "data"}}, "links to data"},
		{"bad filename", []tarFile{{name: "metadata.json", body: `{"type":"js","filename":"ftp://x/a.js"}`}}, "expected a file:// or https:// URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Config{Script: writeTar(t, tc.entries)})
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
	x, err := extractArchive(writeTar(t, []tarFile{
		{name: "metadata.json", body: `{"type":"js","filename":"file:///a.js","options":{"vus":null}}`},
		{name: "../../escape.js", body: "x"},
		{name: "data", body: "export default function () {}"},
	}))
	require.NoError(t, err)
	defer func() { require.NoError(t, os.RemoveAll(x.dir)) }()
	_, err = os.Stat(filepath.Join(x.dir, "escape.js"))
	require.NoError(t, err, "../ stays inside the directory")
	b, err := os.ReadFile(x.main)
	require.NoError(t, err)
	require.Equal(t, "export default function () {}", string(b), "the main script from data when its path is missing")
	require.JSONEq(t, `{}`, string(x.options))
}

// TestArchiveBomb is issue 24's decompression bomb: a small archive whose entry claims
// 6 GiB (a sparse file) reached 4 GB of memory as it was read. It is refused from its
// header, before a byte of it is read, naming the entry and the limit.
func TestArchiveBomb(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "metadata.json", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg}))
	_, err := tw.Write([]byte("{}"))
	require.NoError(t, err)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "file/huge.csv", Mode: 0o644, Size: 6 << 30, Typeflag: tar.TypeReg}))
	// The entry's bytes never follow: only its header is needed to refuse it.
	p := filepath.Join(t.TempDir(), "bomb.tar")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	require.Less(t, buf.Len(), 10<<10)
	_, err = New(Config{Script: p})
	require.ErrorContains(t, err, "entry file/huge.csv is 6442450944 bytes, more than the 268435456 bytes an archive entry may hold")
}

// TestModulesDirEscape is issue 24's https://../x, which read ../x beside --modules.dir:
// a host of "." or ".." is refused, and the file outside is never read.
func TestModulesDirEscape(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"secret.js":      "export const s = 'outside';",
		"vendor/x/ok.js": "export const s = 'inside';",
		"main.js":        "import { s } from 'https://../secret.js';\nexport default function () {}\n",
	})
	_, err := New(Config{Script: filepath.Join(dir, "main.js"), ModulesDir: filepath.Join(dir, "vendor")})
	require.ErrorContains(t, err, `remote module "https://../secret.js": ".." is not a host name`)
}
