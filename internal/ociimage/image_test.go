package ociimage_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/ociimage"
)

// created is a commit time: 2026-12-01 17:00:00 UTC.
var created = time.Unix(1796144400, 0)

// testConfig writes fake inputs into a temporary directory.
func testConfig(t *testing.T, busybox bool) ociimage.Config {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
		return p
	}
	cfg := ociimage.Config{
		Binary:   write("tidemark", "#!fake tidemark binary"),
		CACerts:  write("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
		Version:  "v1.2.3",
		Revision: "0123456789abcdef0123456789abcdef01234567",
		Source:   "https://github.com/tidemark/tidemark",
		Created:  created,
		Arch:     "amd64",
	}
	if busybox {
		cfg.Busybox = write("busybox", "#!fake busybox")
	}
	return cfg
}

// entry is one layer entry as a test compares it.
type entry struct {
	typ      byte
	mode     int64
	uid, gid int
	link     string
	data     string
	mtime    time.Time
}

func layerEntries(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	got := map[string]entry{}
	var names []string
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		names = append(names, hdr.Name)
		got[hdr.Name] = entry{hdr.Typeflag, hdr.Mode, hdr.Uid, hdr.Gid, hdr.Linkname, string(data), hdr.ModTime}
	}
	require.IsIncreasing(t, names, "entries are sorted by path")
	return got
}

// TestBuildConfig: the image runs as 65532 with tidemark as its entrypoint, finds k6 and
// the shell on PATH and carries the OCI labels, its creation time the commit time.
func TestBuildConfig(t *testing.T) {
	t.Parallel()
	img, err := ociimage.Build(testConfig(t, true))
	require.NoError(t, err)
	mt, err := img.MediaType()
	require.NoError(t, err)
	require.Equal(t, types.OCIManifestSchema1, mt)
	m, err := img.Manifest()
	require.NoError(t, err)
	require.Equal(t, types.OCIConfigJSON, m.Config.MediaType)
	require.Len(t, m.Layers, 1)
	require.Equal(t, types.OCILayer, m.Layers[0].MediaType)

	cf, err := img.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, "linux", cf.OS)
	require.Equal(t, "amd64", cf.Architecture)
	require.True(t, cf.Created.Equal(created), "created %v", cf.Created)
	require.Equal(t, "65532:65532", cf.Config.User)
	require.Equal(t, []string{"/usr/bin/tidemark"}, cf.Config.Entrypoint)
	require.Empty(t, cf.Config.Cmd)
	require.Equal(t, "/home/nonroot", cf.Config.WorkingDir)
	require.Equal(t, []string{
		"PATH=/usr/bin:/bin", "HOME=/home/nonroot", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
	}, cf.Config.Env)
	require.Contains(t, cf.Config.ExposedPorts, "6565/tcp")
	require.Equal(t, map[string]string{
		"org.opencontainers.image.title":       "tidemark",
		"org.opencontainers.image.description": "Load tests with k6 semantics, and the Kubernetes facts behind their numbers.",
		"org.opencontainers.image.source":      "https://github.com/tidemark/tidemark",
		"org.opencontainers.image.revision":    "0123456789abcdef0123456789abcdef01234567",
		"org.opencontainers.image.version":     "v1.2.3",
		"org.opencontainers.image.created":     "2026-12-01T17:00:00Z",
	}, cf.Config.Labels)
	require.Len(t, cf.History, 1)
	require.True(t, cf.History[0].Created.Equal(created))
}

// TestBuildLayer: the layer holds the binary, its k6 link, the CA bundle, the users and
// the shell, with their modes and owners and every time the commit time.
func TestBuildLayer(t *testing.T) {
	t.Parallel()
	got := layerEntries(t, mustBuild(t, testConfig(t, true)))
	for name, want := range map[string]entry{
		"usr/bin/tidemark":                  {typ: tar.TypeReg, mode: 0o755, data: "#!fake tidemark binary"},
		"usr/bin/k6":                        {typ: tar.TypeSymlink, mode: 0o777, link: "tidemark"},
		"etc/ssl/certs/ca-certificates.crt": {typ: tar.TypeReg, mode: 0o644, data: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"},
		"etc/passwd":                        {typ: tar.TypeReg, mode: 0o644, data: "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"},
		"etc/group":                         {typ: tar.TypeReg, mode: 0o644, data: "root:x:0:\nnonroot:x:65532:\n"},
		"home/nonroot/":                     {typ: tar.TypeDir, mode: 0o700, uid: 65532, gid: 65532},
		"tmp/":                              {typ: tar.TypeDir, mode: 0o1777},
		"usr/bin/":                          {typ: tar.TypeDir, mode: 0o755},
		"bin/busybox":                       {typ: tar.TypeReg, mode: 0o755, data: "#!fake busybox"},
		"bin/sh":                            {typ: tar.TypeSymlink, mode: 0o777, link: "busybox"},
		"bin/grep":                          {typ: tar.TypeSymlink, mode: 0o777, link: "busybox"},
	} {
		g, ok := got[name]
		require.True(t, ok, "%s missing from the layer", name)
		require.True(t, g.mtime.Equal(created), "%s: mtime %v", name, g.mtime)
		g.mtime = time.Time{}
		require.Equal(t, want, g, name)
	}
	for name, e := range got {
		require.True(t, e.mtime.Equal(created), "%s: mtime %v", name, e.mtime)
	}
}

// TestBuildWithoutShell: without busybox there is nothing in /bin.
func TestBuildWithoutShell(t *testing.T) {
	t.Parallel()
	got := layerEntries(t, mustBuild(t, testConfig(t, false)))
	require.Contains(t, got, "usr/bin/k6")
	for name := range got {
		require.NotRegexp(t, `^bin/`, name)
	}
}

// TestBuildReproducible: the same inputs give the same digest, a second later or with the
// inputs' own file times changed; another creation time gives another digest.
func TestBuildReproducible(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, true)
	first := digest(t, mustBuild(t, cfg))
	now := time.Now()
	require.NoError(t, os.Chtimes(cfg.Binary, now, now))
	require.Equal(t, first, digest(t, mustBuild(t, cfg)))

	later := cfg
	later.Created = created.Add(time.Second)
	require.NotEqual(t, first, digest(t, mustBuild(t, later)))
}

// TestBuildErrors: missing inputs are named with what was expected.
func TestBuildErrors(t *testing.T) {
	t.Parallel()
	ok := testConfig(t, false)
	noPEM := filepath.Join(t.TempDir(), "empty.crt")
	require.NoError(t, os.WriteFile(noPEM, nil, 0o600))
	for _, tc := range []struct {
		name    string
		edit    func(*ociimage.Config)
		wantErr string
	}{
		{"nothing", func(c *ociimage.Config) { *c = ociimage.Config{} }, "no binary given: want the path of a static tidemark binary\n" +
			"no CA bundle given: want a path such as /etc/ssl/certs/ca-certificates.crt (Debian package ca-certificates)\n" +
			"no architecture given: want a GOARCH such as amd64\n" +
			"no creation time given: want the commit time (SOURCE_DATE_EPOCH)"},
		{"missing binary", func(c *ociimage.Config) { c.Binary = "/nonexistent/tidemark" }, "read binary: open /nonexistent/tidemark: no such file or directory"},
		{"missing busybox", func(c *ociimage.Config) { c.Busybox = "/nonexistent/busybox" }, "read busybox: open /nonexistent/busybox: no such file or directory"},
		{"CA bundle without a certificate", func(c *ociimage.Config) { c.CACerts = noPEM }, "read CA bundle " + noPEM + ": no PEM certificate in it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := ok
			tc.edit(&cfg)
			_, err := ociimage.Build(cfg)
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

// TestTarRejects: paths that are not absolute and clean, and duplicates, are errors.
func TestTarRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		files   []ociimage.File
		wantErr string
	}{
		{[]ociimage.File{{Path: "etc/passwd", Mode: 0o644}}, `tar "etc/passwd": want an absolute, clean path other than /`},
		{[]ociimage.File{{Path: "/etc/../passwd", Mode: 0o644}}, `tar "/etc/../passwd": want an absolute, clean path other than /`},
		{[]ociimage.File{{Path: "/a", Mode: 0o644}, {Path: "/a", Mode: 0o644}}, `tar "/a": listed twice`},
		{[]ociimage.File{{Path: "/dev/null", Mode: fs.ModeDevice}}, `tar "/dev/null": unsupported mode D---------`},
	} {
		_, err := ociimage.Tar(tc.files, created)
		require.EqualError(t, err, tc.wantErr)
	}
}

// TestWriteOutputs: the layout, the OCI archive and the docker archive all hold the image
// with its digest, byte for byte the same when written twice; a layout replaces an old one
// but never a directory that is not a layout.
func TestWriteOutputs(t *testing.T) {
	t.Parallel()
	img := mustBuild(t, testConfig(t, true))
	want := digest(t, img)
	write := func(dir string) {
		require.NoError(t, ociimage.WriteLayout(filepath.Join(dir, "oci"), img, "v1.2.3"))
		require.NoError(t, ociimage.WriteOCIArchive(filepath.Join(dir, "oci.tar"), filepath.Join(dir, "oci"), created))
		require.NoError(t, ociimage.WriteDockerArchive(filepath.Join(dir, "docker.tar"), img, "tidemark:v1.2.3"))
	}
	a, b := t.TempDir(), t.TempDir()
	write(a)
	write(b)
	write(b) // over the first layout
	for _, name := range []string{"oci.tar", "docker.tar", "oci/index.json"} {
		x, err := os.ReadFile(filepath.Join(a, name))
		require.NoError(t, err)
		y, err := os.ReadFile(filepath.Join(b, name))
		require.NoError(t, err)
		require.True(t, bytes.Equal(x, y), "%s differs between two writes", name)
	}

	idx, err := layout.ImageIndexFromPath(filepath.Join(b, "oci"))
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1, "a second write replaces the layout, it does not append")
	require.Equal(t, want, im.Manifests[0].Digest.String())
	require.Equal(t, "v1.2.3", im.Manifests[0].Annotations["org.opencontainers.image.ref.name"])

	fromDocker, err := tarball.ImageFromPath(filepath.Join(a, "docker.tar"), nil)
	require.NoError(t, err)
	layers, err := fromDocker.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	wantCfg, err := img.ConfigName()
	require.NoError(t, err)
	gotCfg, err := fromDocker.ConfigName()
	require.NoError(t, err)
	require.Equal(t, wantCfg, gotCfg)

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "keep"), nil, 0o600))
	require.ErrorContains(t, ociimage.WriteLayout(other, img, "x"), "is neither empty nor an OCI layout")
	require.FileExists(t, filepath.Join(other, "keep"))
}

// TestCheckExecutable: a dynamically linked executable (Debian's /bin/bash) is refused,
// and so is a file that is not ELF, a static one of another architecture or an unknown
// architecture. (The static tidemark binary passing is checked by the integration test of
// cmd/tidemark-image.)
func TestCheckExecutable(t *testing.T) {
	t.Parallel()
	notELF := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(notELF, []byte("#!/bin/sh\n"+strings.Repeat("# not an ELF executable\n", 4)), 0o600))
	require.ErrorContains(t, ociimage.CheckExecutable(notELF, "amd64"), "check "+notELF+": bad magic number")
	if _, err := os.Stat("/bin/bash"); err == nil {
		require.ErrorIs(t, ociimage.CheckExecutable("/bin/bash", runtime.GOARCH), ociimage.ErrNotStatic)
	}
	const busybox = "/bin/busybox" // Debian's busybox-static, in DEB_PKGS
	if ociimage.CheckExecutable(busybox, runtime.GOARCH) == nil {
		other := map[bool]string{true: "arm64", false: "amd64"}[runtime.GOARCH == "amd64"]
		require.ErrorContains(t, ociimage.CheckExecutable(busybox, other), "check /bin/busybox: built for EM_")
		require.EqualError(t, ociimage.CheckExecutable(busybox, "mips"),
			`check /bin/busybox: unknown architecture "mips": want one of amd64, arm64, 386, arm, ppc64le, s390x, riscv64`)
	}
}

func mustBuild(t *testing.T, cfg ociimage.Config) v1.Image {
	t.Helper()
	img, err := ociimage.Build(cfg)
	require.NoError(t, err)
	return img
}

func digest(t *testing.T, img v1.Image) string {
	t.Helper()
	d, err := ociimage.Digest(img)
	require.NoError(t, err)
	return d
}
