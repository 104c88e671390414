//go:build integration

package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/ociimage"
)

// moduleRoot is where the Makefile is, seen from this package.
const moduleRoot = "../.."

// TestMakeImage builds the image twice from the current tree with `make image`, as CI and
// a release do: both builds give the same digest and the same bytes (two go builds with the
// same flags give the same binary, and the image assembly is reproducible); the config
// runs as 65532 with tidemark as entrypoint and carries the commit in its labels; the
// layer holds the binary, its k6 link, the CA bundle and the shell with their modes; the
// binary taken out of the layer runs --version, and, through its k6 name, `k6 version`,
// the command -v check of k6-operator's initializer and `k6 run` the way k6-operator's
// runner invokes it.
func TestMakeImage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	// The commit as make reads it, read once and passed to both builds: in a shared work
	// tree someone may commit during the test, which moves HEAD but not the files built.
	git := func(args ...string) string {
		return strings.TrimSpace(command(ctx, t, moduleRoot, nil, "git", args...))
	}
	commit := git("rev-parse", "HEAD")
	epoch, err := strconv.ParseInt(git("log", "-1", "--format=%ct", commit), 10, 64)
	require.NoError(t, err)
	commitTime := time.Unix(epoch, 0).UTC()
	vars := []string{
		"VERSION=" + git("describe", "--tags", "--always", "--dirty"), "IMAGE_REVISION=" + commit,
		"SOURCE_DATE_EPOCH=" + strconv.FormatInt(epoch, 10), "IMAGE_TAG=tidemark:test",
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	var digests []string
	for _, dir := range dirs {
		out := command(ctx, t, moduleRoot, nil, "make", append([]string{"-s", "image", "IMAGE_DIR=" + dir}, vars...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		digests = append(digests, lines[len(lines)-1])
	}
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, digests[0])
	require.Equal(t, digests[0], digests[1], "two builds of one commit give one digest")
	for _, name := range []string{"tidemark", "tidemark.tar", "tidemark-oci.tar", "oci/index.json"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		require.NoError(t, err)
		require.True(t, bytes.Equal(a, b), "%s differs between two builds", name)
	}
	require.NoError(t, ociimage.CheckExecutable(filepath.Join(dirs[0], "tidemark"), runtime.GOARCH))

	idx, err := layout.ImageIndexFromPath(filepath.Join(dirs[0], "oci"))
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1)
	require.Equal(t, digests[0], im.Manifests[0].Digest.String())
	img, err := idx.Image(im.Manifests[0].Digest)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, "65532:65532", cf.Config.User)
	require.Equal(t, []string{"/usr/bin/tidemark"}, cf.Config.Entrypoint)
	require.Contains(t, cf.Config.Env, "PATH=/usr/bin:/bin")
	require.Contains(t, cf.Config.Env, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt")
	require.Equal(t, commit, cf.Config.Labels["org.opencontainers.image.revision"])
	require.Equal(t, commitTime.Format(time.RFC3339), cf.Config.Labels["org.opencontainers.image.created"])
	require.NotEmpty(t, cf.Config.Labels["org.opencontainers.image.version"])
	require.Equal(t, "https://github.com/tidemark/tidemark", cf.Config.Labels["org.opencontainers.image.source"])
	require.True(t, cf.Created.Equal(commitTime), "created %v, commit %v", cf.Created, commitTime)

	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	root := t.TempDir()
	hdrs := extract(t, rc, root)
	require.NoError(t, rc.Close())
	for name, want := range map[string]struct {
		typ  byte
		mode int64
		link string
	}{
		"usr/bin/tidemark":                  {tar.TypeReg, 0o755, ""},
		"usr/bin/k6":                        {tar.TypeSymlink, 0o777, "tidemark"},
		"etc/ssl/certs/ca-certificates.crt": {tar.TypeReg, 0o644, ""},
		"bin/busybox":                       {tar.TypeReg, 0o755, ""},
		"bin/sh":                            {tar.TypeSymlink, 0o777, "busybox"},
		"tmp/":                              {tar.TypeDir, 0o1777, ""},
	} {
		h, ok := hdrs[name]
		require.True(t, ok, "%s missing from the layer", name)
		require.Equal(t, want.typ, h.Typeflag, name)
		require.Equal(t, want.mode, h.Mode, name)
		require.Equal(t, want.link, h.Linkname, name)
		require.Zero(t, h.Uid, name)
		require.Zero(t, h.Gid, name)
		require.True(t, h.ModTime.Equal(commitTime), "%s: mtime %v", name, h.ModTime)
	}
	certs, err := os.ReadFile(filepath.Join(root, "etc/ssl/certs/ca-certificates.crt"))
	require.NoError(t, err)
	host, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	require.NoError(t, err)
	require.Equal(t, host, certs, "the CA bundle is Debian's")
	inLayer, err := os.ReadFile(filepath.Join(root, "usr/bin/tidemark"))
	require.NoError(t, err)
	built, err := os.ReadFile(filepath.Join(dirs[0], "tidemark"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(built, inLayer), "the layer holds the binary make built")

	// The image's PATH, pointed into the extracted root.
	env := []string{"PATH=" + filepath.Join(root, "usr/bin") + ":" + filepath.Join(root, "bin"), "HOME=" + t.TempDir()}
	bin := filepath.Join(root, "usr/bin")
	buildDate := commitTime.Format("20060102-15:04:05")
	versionOut := command(ctx, t, root, env, filepath.Join(bin, "tidemark"), "--version")
	require.Contains(t, versionOut, "tidemark v")
	require.Contains(t, versionOut, "(commit/"+commit[:7]+", ")
	require.Contains(t, command(ctx, t, root, env, filepath.Join(bin, "tidemark"), "version", "--json"), `"build_date":"`+buildDate+`"`)
	require.NotContains(t, versionOut, "usage:", "the version alone")
	require.Equal(t, versionOut, command(ctx, t, root, env, filepath.Join(bin, "k6"), "version"), "k6 version is --version")
	require.Equal(t, versionOut, command(ctx, t, root, env, filepath.Join(bin, "k6"), "--version"))
	// The first lines of k6-operator's initializer script, in the image's shell.
	archive := filepath.Join(t.TempDir(), "archived", "test.js.archived.tar")
	require.Equal(t, filepath.Join(bin, "k6")+"\n", command(ctx, t, root, env, filepath.Join(root, "bin/sh"), "-c",
		`if ! command -v k6 >/dev/null 2>&1; then echo 'k6 missing' >&2; exit 127; fi; mkdir -p "$(dirname `+archive+`)" && command -v k6`))
	require.DirExists(t, filepath.Dir(archive))

	// k6-operator's runner command line, flags after the script (without --address and
	// --paused, which would wait for its starter).
	script := filepath.Join(t.TempDir(), "test.js")
	require.NoError(t, os.WriteFile(script, []byte("export const options = { vus: 1, iterations: 2 };\nexport default function () {}\n"), 0o600))
	runOut := command(ctx, t, root, env, filepath.Join(root, "bin/sh"), "-c",
		fmt.Sprintf("k6 run --quiet %s --tag instance_id=1 --tag testrun_name=test", script))
	require.Contains(t, runOut, "iterations")
}

// command runs name in dir (env added to this process's, less make's own variables when
// running make under `make test`) and returns its stdout; a failure fails the test with
// stderr.
func command(ctx context.Context, t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL":
			continue
		}
		if env != nil && (k == "PATH" || k == "HOME") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "%s %s\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), stdout.String(), stderr.String())
	return stdout.String()
}

// extract writes the layer's regular files, directories and symlinks under root and
// returns the headers by name.
func extract(t *testing.T, r io.Reader, root string) map[string]*tar.Header {
	t.Helper()
	hdrs := map[string]*tar.Header{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return hdrs
		}
		require.NoError(t, err)
		hdrs[h.Name] = h
		p := filepath.Join(root, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(p, 0o755))
		case tar.TypeSymlink:
			require.NoError(t, os.Symlink(h.Linkname, p))
		case tar.TypeReg:
			data, err := io.ReadAll(tr)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, data, os.FileMode(h.Mode).Perm()))
		default:
			t.Fatalf("%s: unexpected type %c", h.Name, h.Typeflag)
		}
	}
}
