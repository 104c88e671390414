package ociimage

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Paths and identities inside the image.
const (
	// BinaryPath is where the tidemark binary lives; K6Path links to it.
	BinaryPath = "/usr/bin/tidemark"
	// K6Path is the k6 name of the binary: k6-operator's runner and initializer run `k6 …`
	// from PATH.
	K6Path = "/usr/bin/k6"
	// CACertsPath is the CA bundle, where Go's crypto/x509 and most other TLS stacks look
	// on Linux.
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
	// BusyboxPath is the optional static busybox; ShellApplets link to it in /bin.
	BusyboxPath = "/bin/busybox"
	// User is the uid:gid the image runs as: distroless' "nonroot", which Kubernetes'
	// runAsNonRoot accepts because it is numeric.
	User = "65532:65532"
	// Home is the non-root user's home directory, the working directory.
	Home = "/home/nonroot"
)

// ShellApplets are the busybox applets linked into /bin when Config.Busybox is set: what
// k6-operator's initializer script (`sh -c`, command -v, mkdir, dirname, cat, grep) and
// its LocalFile runner (`sh -c "if [ ! -f … ]"`) call, plus a few for a person debugging
// a pod with kubectl exec.
var ShellApplets = []string{"[", "cat", "dirname", "echo", "env", "grep", "ls", "mkdir", "rm", "sh", "test", "wget"}

// nonroot is uid and gid of User.
const nonroot = 65532

// Config is what goes into the image.
type Config struct {
	// Binary is the path of the static tidemark binary on this machine.
	Binary string
	// CACerts is the path of the CA bundle on this machine (Debian's ca-certificates
	// package installs /etc/ssl/certs/ca-certificates.crt).
	CACerts string
	// Busybox is the path of a static busybox (Debian's busybox-static); empty leaves the
	// image without a shell.
	Busybox string
	// Version, Revision and Source fill the OCI labels of the same names.
	Version, Revision, Source string
	// Created is the image's creation time and every file's modification time; use the
	// commit time so the same commit gives the same image.
	Created time.Time
	// Arch is the GOARCH the binary was built for (amd64, arm64, …).
	Arch string
}

// Build assembles the image described by cfg. It reads the files cfg names.
func Build(cfg Config) (v1.Image, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	files, err := cfg.files()
	if err != nil {
		return nil, err
	}
	created := cfg.Created.UTC().Truncate(time.Second)
	layerTar, err := Tar(files, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("build layer: %w", err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "tidemark-image",
			Comment:   "tidemark " + cfg.Version,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.Architecture = cfg.Arch
	cf.OS = "linux"
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		User:       User,
		Entrypoint: []string{BinaryPath},
		WorkingDir: Home,
		Env: []string{
			"PATH=/usr/bin:/bin",
			"HOME=" + Home,
			"SSL_CERT_FILE=" + CACertsPath,
		},
		// k6-operator's runners serve k6's REST API on 6565 (--address=0.0.0.0:6565).
		ExposedPorts: map[string]struct{}{"6565/tcp": {}},
		Labels:       Labels(cfg.Version, cfg.Revision, cfg.Source, created),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set config: %w", err)
	}
	return img, nil
}

// Labels returns the image's OCI annotation labels.
func Labels(version, revision, source string, created time.Time) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "tidemark",
		"org.opencontainers.image.description": "Load tests with k6 semantics, and the Kubernetes facts behind their numbers.",
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.revision":    revision,
		"org.opencontainers.image.version":     version,
		"org.opencontainers.image.created":     created.UTC().Format(time.RFC3339),
	}
}

func (cfg Config) validate() error {
	var errs []error
	if cfg.Binary == "" {
		errs = append(errs, errors.New("no binary given: want the path of a static tidemark binary"))
	}
	if cfg.CACerts == "" {
		errs = append(errs, errors.New("no CA bundle given: want a path such as /etc/ssl/certs/ca-certificates.crt (Debian package ca-certificates)"))
	}
	if cfg.Arch == "" {
		errs = append(errs, errors.New("no architecture given: want a GOARCH such as amd64"))
	}
	if cfg.Created.IsZero() {
		errs = append(errs, errors.New("no creation time given: want the commit time (SOURCE_DATE_EPOCH)"))
	}
	return errors.Join(errs...)
}

// File is one entry of the image's root file system.
type File struct {
	// Path is absolute, cleaned, without a trailing slash.
	Path string
	// Mode holds the permission bits and fs.ModeDir, fs.ModeSymlink or fs.ModeSticky.
	Mode fs.FileMode
	// UID and GID own the entry.
	UID, GID int
	// Data is a regular file's content.
	Data []byte
	// Link is a symlink's target.
	Link string
}

// files lists the root file system, parents before children.
func (cfg Config) files() ([]File, error) {
	binary, err := os.ReadFile(cfg.Binary)
	if err != nil {
		return nil, fmt.Errorf("read binary: %w", err)
	}
	certs, err := os.ReadFile(cfg.CACerts)
	if err != nil {
		return nil, fmt.Errorf("read CA bundle: %w", err)
	}
	if !bytes.Contains(certs, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("read CA bundle %s: no PEM certificate in it", cfg.CACerts)
	}
	dir := func(p string) File { return File{Path: p, Mode: fs.ModeDir | 0o755} }
	files := []File{
		dir("/etc"),
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		dir("/etc/ssl"),
		dir("/etc/ssl/certs"),
		{Path: CACertsPath, Mode: 0o644, Data: certs},
		dir("/home"),
		{Path: Home, Mode: fs.ModeDir | 0o700, UID: nonroot, GID: nonroot},
		// k6-operator's initializer writes its archive and logs under /tmp.
		{Path: "/tmp", Mode: fs.ModeDir | fs.ModeSticky | 0o777},
		dir("/usr"),
		dir("/usr/bin"),
		{Path: BinaryPath, Mode: 0o755, Data: binary},
		{Path: K6Path, Mode: fs.ModeSymlink | 0o777, Link: path.Base(BinaryPath)},
	}
	if cfg.Busybox != "" {
		bb, err := os.ReadFile(cfg.Busybox)
		if err != nil {
			return nil, fmt.Errorf("read busybox: %w", err)
		}
		files = append(files, dir("/bin"), File{Path: BusyboxPath, Mode: 0o755, Data: bb})
		for _, a := range ShellApplets {
			files = append(files, File{Path: "/bin/" + a, Mode: fs.ModeSymlink | 0o777, Link: path.Base(BusyboxPath)})
		}
	}
	return files, nil
}

// Tar writes files as an uncompressed layer: entries sorted by path, every time set to
// mtime, owners numeric without names, so the same files always give the same bytes.
func Tar(files []File, mtime time.Time) ([]byte, error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i, f := range files {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || f.Path == "/" {
			return nil, fmt.Errorf("tar %q: want an absolute, clean path other than /", f.Path)
		}
		if i > 0 && files[i-1].Path == f.Path {
			return nil, fmt.Errorf("tar %q: listed twice", f.Path)
		}
		hdr := &tar.Header{
			Name:    strings.TrimPrefix(f.Path, "/"),
			Mode:    int64(f.Mode.Perm()),
			Uid:     f.UID,
			Gid:     f.GID,
			ModTime: mtime,
			Format:  tar.FormatPAX,
		}
		if f.Mode&fs.ModeSticky != 0 {
			hdr.Mode |= 0o1000 // c_ISVTX
		}
		switch {
		case f.Mode.IsDir():
			hdr.Typeflag = tar.TypeDir
			hdr.Name += "/"
		case f.Mode&fs.ModeSymlink != 0:
			hdr.Typeflag = tar.TypeSymlink
			hdr.Linkname = f.Link
		case f.Mode.IsRegular():
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(f.Data))
		default:
			return nil, fmt.Errorf("tar %q: unsupported mode %v", f.Path, f.Mode)
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("tar %q: %w", f.Path, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, fmt.Errorf("tar %q: %w", f.Path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("tar: %w", err)
	}
	return buf.Bytes(), nil
}

// ErrNotStatic is returned by CheckExecutable for a dynamically linked executable, which
// cannot run in an image without a C library.
var ErrNotStatic = errors.New("dynamically linked: the image has no C library; build with CGO_ENABLED=0 (or install busybox-static)")

// machines maps GOARCH to the ELF machine of its executables.
var machines = map[string]elf.Machine{
	"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "386": elf.EM_386, "arm": elf.EM_ARM,
	"ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390, "riscv64": elf.EM_RISCV,
}

// CheckExecutable returns an error unless the file at path is a statically linked ELF
// executable (no program interpreter) for goarch.
func CheckExecutable(path, goarch string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose on close
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("check %s: %w", path, ErrNotStatic)
		}
	}
	want, ok := machines[goarch]
	if !ok {
		return fmt.Errorf("check %s: unknown architecture %q: want one of amd64, arm64, 386, arm, ppc64le, s390x, riscv64", path, goarch)
	}
	if f.Machine != want {
		return fmt.Errorf("check %s: built for %v, the image is %s (%v)", path, f.Machine, goarch, want)
	}
	return nil
}
