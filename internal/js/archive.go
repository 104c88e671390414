package js

import (
	"archive/tar"
	gojson "encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ArchiveMetadata is metadata.json of a k6 test archive (`k6 archive`): the main
// script's URL, the options the test was archived with and its __ENV.
type ArchiveMetadata struct {
	// Type is "js": k6 archives hold scripts.
	Type string `json:"type"`
	// Options are the test's options as the archive recorded them; running the
	// archive reads them in place of the script's exported options, as k6 does.
	Options gojson.RawMessage `json:"options"`
	// Filename is the main script's URL, file:///abs/path or https://host/path.
	Filename string `json:"filename"`
	// Pwd is the URL of the directory the archive was made in.
	Pwd string `json:"pwd"`
	// Env is the __ENV the archive was made with (-e and, when asked, the system's).
	Env map[string]string `json:"env"`
	// CompatibilityMode is k6's JavaScript compatibility mode, "extended".
	CompatibilityMode string `json:"compatibilityMode"`
	// K6Version is the k6 version whose archive format this is.
	K6Version string `json:"k6version"`
	// Goos is the operating system the archive was made on.
	Goos string `json:"goos"`
}

// ArchiveK6Version is the k6 version whose archive layout WriteArchive follows and
// records as k6version: k6 reads the archive as one of its own.
const ArchiveK6Version = "1.8.1"

// Source is one file a script loaded in its init context: a module or an open()ed
// file, named by its URL.
type Source struct {
	// URL is file:///abs/path for a local file, https://host/path for a remote module.
	URL string
	// Data is the file's content. The caller must not modify it.
	Data []byte
}

// archiveMagic is the ustar magic at offset 257 of a tar header.
const archiveMagic = "ustar"

// IsArchive reports whether the file at path is a tar file, as a k6 archive is,
// whatever its name.
func IsArchive(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read only
	var hdr [512]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return false
	}
	return string(hdr[257:257+len(archiveMagic)]) == archiveMagic
}

// archivePath is the name in a k6 archive of the file at URL u: file/<abs path> for
// file:///abs/path, <scheme>/<host>/<path> for a remote module.
func archivePath(u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("archive %s: %w", u, err)
	}
	switch pu.Scheme {
	case "file":
		return path.Join("file", path.Clean("/"+pu.Path)), nil
	case "https", "http":
		return path.Join(pu.Scheme, pu.Host, path.Clean("/"+pu.Path)), nil
	}
	return "", fmt.Errorf("archive %s: expected a file:// or https:// URL", u)
}

// FileURL is the file:// URL of the local path p, as an archive names it.
func FileURL(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// WriteArchive writes a k6 archive to w, in k6's layout: metadata.json, the main
// script (the source whose URL is meta.Filename) as data, and every source under
// file/<abs path> or https/<host>/<path>, the main script as a hard link to data.
func WriteArchive(w io.Writer, meta ArchiveMetadata, sources []Source) error {
	mb, err := gojson.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("write archive metadata: %w", err)
	}
	i := slices.IndexFunc(sources, func(s Source) bool { return s.URL == meta.Filename })
	if i < 0 {
		return fmt.Errorf("write archive: the main script %s is not among the sources", meta.Filename)
	}
	tw := tar.NewWriter(w)
	now := time.Now().Truncate(time.Second)
	file := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: now, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := file("metadata.json", mb); err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	if err := file("data", sources[i].Data); err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	dirs := map[string]bool{}
	for _, s := range sources {
		name, err := archivePath(s.URL)
		if err != nil {
			return err
		}
		var parents []string
		for d := path.Dir(name); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			parents = append(parents, d)
		}
		for _, d := range slices.Backward(parents) {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: now, Format: tar.FormatPAX}); err != nil {
				return fmt.Errorf("write archive: %w", err)
			}
		}
		if s.URL == meta.Filename {
			// As k6: the main script is data, and its path a hard link to it.
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeLink, Name: name, Linkname: "data", ModTime: now, Format: tar.FormatPAX}); err != nil {
				return fmt.Errorf("write archive: %w", err)
			}
			continue
		}
		if err := file(name, s.Data); err != nil {
			return fmt.Errorf("write archive: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	return nil
}

// extracted is an archive unpacked into a temporary directory.
type extracted struct {
	dir     string // the root: file/…, https/…
	main    string // the main script's path under dir
	meta    ArchiveMetadata
	options []byte // meta.Options without k6's null (unset) options
}

// extractArchive unpacks the k6 archive at p into a new temporary directory, which
// the caller removes.
func extractArchive(p string) (*extracted, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open archive: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	dir, err := os.MkdirTemp("", "tidemark-archive-")
	if err != nil {
		return nil, fmt.Errorf("open archive %s: %w", p, err)
	}
	x := &extracted{dir: dir}
	if err := x.unpack(tar.NewReader(f)); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("open archive %s: %w", p, err)
	}
	return x, nil
}

// What an archive may unpack to: an entry claiming more (a sparse file of 6 GiB in a
// 10 KB archive reached 4 GB of memory) is refused before it is read. k6 archives hold
// scripts, modules and the files they open(): 256 MiB is far above a large CSV of test
// data, and 1 GiB above any archive k6-operator ships in a ConfigMap or volume.
const (
	MaxArchiveEntry = 256 << 20
	MaxArchiveTotal = 1 << 30
)

func (x *extracted) unpack(tr *tar.Reader) error {
	contents := map[string][]byte{}
	var haveMeta bool
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		name := path.Clean("/" + h.Name)[1:] // no entry escapes the directory
		var data []byte
		switch h.Typeflag {
		case tar.TypeReg:
			if h.Size > MaxArchiveEntry {
				return fmt.Errorf("entry %s is %d bytes, more than the %d bytes an archive entry may hold", h.Name, h.Size, MaxArchiveEntry)
			}
			if total += h.Size; total > MaxArchiveTotal {
				return fmt.Errorf("entries up to %s add up to %d bytes, more than the %d bytes an archive may unpack to", h.Name, total, MaxArchiveTotal)
			}
			if data, err = io.ReadAll(io.LimitReader(tr, MaxArchiveEntry+1)); err != nil {
				return err
			}
		case tar.TypeLink:
			var ok bool
			if data, ok = contents[path.Clean("/" + h.Linkname)[1:]]; !ok {
				return fmt.Errorf("entry %s links to %s, which comes before it in no archive k6 writes", h.Name, h.Linkname)
			}
		default:
			continue // directories are made as needed
		}
		contents[name] = data
		if name == "metadata.json" {
			if err := gojson.Unmarshal(data, &x.meta); err != nil {
				return fmt.Errorf("metadata.json: %w", err)
			}
			haveMeta = true
			continue
		}
		dst := filepath.Join(x.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	if !haveMeta {
		return errors.New("no metadata.json: not a k6 archive (make one with tidemark archive or k6 archive)")
	}
	if x.meta.Type != "js" {
		return fmt.Errorf("metadata.json: type %q, expected \"js\": Tidemark runs script archives", x.meta.Type)
	}
	rel, err := archivePath(x.meta.Filename)
	if err != nil {
		return fmt.Errorf("metadata.json: filename: %w", err)
	}
	x.main = filepath.Join(x.dir, filepath.FromSlash(rel))
	if _, ok := contents[rel]; !ok {
		// Older archives have the main script only as data.
		data, ok := contents["data"]
		if !ok {
			return fmt.Errorf("the main script %s is missing", x.meta.Filename)
		}
		if err := os.MkdirAll(filepath.Dir(x.main), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(x.main, data, 0o644); err != nil {
			return err
		}
	}
	x.options = []byte("{}")
	if len(x.meta.Options) > 0 {
		var opts any
		if err := gojson.Unmarshal(x.meta.Options, &opts); err != nil {
			return fmt.Errorf("metadata.json: options: %w", err)
		}
		if m, ok := dropNulls(opts).(map[string]any); ok {
			if x.options, err = gojson.Marshal(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropNulls removes k6's unset options, the null values and the objects that hold
// only nulls (k6 writes "dns": {"ttl": null, …}), so that they read as absent.
func dropNulls(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, e := range m {
		if e == nil {
			continue
		}
		if sub, ok := e.(map[string]any); ok && len(sub) > 0 {
			d := dropNulls(sub).(map[string]any)
			if len(d) == 0 {
				continue
			}
			e = d
		}
		out[k] = e
	}
	return out
}

// env is __ENV of a run of the archive: the archive's, under the run's own.
func (x *extracted) env(run map[string]string) map[string]string {
	out := maps.Clone(x.meta.Env)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, run)
	return out
}

// sourceURL is the URL a loaded file came from: its place in the archive when the
// script ran from one, its file:// URL otherwise.
func (x *extracted) sourceURL(id string) (string, error) {
	if strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://") {
		return id, nil
	}
	if x != nil {
		if rel, err := filepath.Rel(x.dir, id); err == nil && !strings.HasPrefix(rel, "..") {
			scheme, rest, _ := strings.Cut(filepath.ToSlash(rel), "/")
			if scheme == "file" {
				return (&url.URL{Scheme: "file", Path: "/" + rest}).String(), nil
			}
			return scheme + "://" + rest, nil
		}
	}
	return FileURL(id)
}

// Sources returns the files the script loaded in its init context, the main script
// first: its modules (local and remote) and the files it open()ed, as `k6 archive`
// packs them. A script run from an archive names them as the archive did.
func (r *Runner) Sources() ([]Source, error) {
	l := r.loader
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Source
	seen := map[string]bool{}
	add := func(id string, data []byte) error {
		u, err := r.archive.sourceURL(id)
		if err != nil {
			return fmt.Errorf("source %s: %w", id, err)
		}
		if !seen[u] {
			seen[u] = true
			out = append(out, Source{URL: u, Data: data})
		}
		return nil
	}
	if err := add(r.main.id, r.main.src); err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(l.programs)) {
		if p := l.programs[id]; p.err == nil && p.src != nil {
			if err := add(id, p.src); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(l.files)) {
		if err := add(p, l.files[p]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MainURL returns the main script's URL as an archive names it.
func (r *Runner) MainURL() (string, error) { return r.archive.sourceURL(r.main.id) }

// ArchiveEnv returns the __ENV recorded in the archive the script ran from, nil for a
// script.
func (r *Runner) ArchiveEnv() map[string]string {
	if r.archive == nil {
		return nil
	}
	return maps.Clone(r.archive.meta.Env)
}
