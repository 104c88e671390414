package js

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// loader resolves import specifiers and compiles every source module once; the
// programs are shared by every VU (a sobek.Program may run in many runtimes).
type loader struct {
	modulesDir string
	natives    *modules.Registry

	mu       sync.Mutex
	programs map[string]*program
	files    map[string][]byte // open()ed files, read once
	// byRecord finds the program of an ES module's record (p.rec) or shape.
	byRecord   map[any]*program
	nativeRecs map[string]*nativeRecord // native modules imported by ES modules
	vus        sync.Map                 // *sobek.Runtime → its *vu, for module records
}

// program is one compiled source module.
type program struct {
	id   string         // absolute path, or the https:// URL
	name string         // name in messages and stack traces
	file string         // the file on disk
	src  []byte         // its source, for archives
	prg  *sobek.Program // a CommonJS-compiled module: evaluates to its wrapper
	// rec is an ES module with top-level await, evaluated by sobek; prg is then nil.
	rec *sobek.SourceTextModuleRecord
	// importAt locates the imports of an ES module (spec → "file:line:column").
	importAt map[string]string
	// cjs is prg's record when an ES module imports it.
	cjs *cjsRecord
	err error
}

// target is what a specifier resolves to: a native module or a source module.
type target struct {
	native modules.Module
	name   string // native module name, or program id
	file   string // the source file
	disp   string // the source's display name
}

func newLoader(modulesDir string, natives *modules.Registry) *loader {
	return &loader{modulesDir: modulesDir, natives: natives, programs: map[string]*program{}, files: map[string][]byte{},
		byRecord: map[any]*program{}, nativeRecs: map[string]*nativeRecord{}}
}

// resolve resolves spec imported by the module parent (nil: the main script, whose
// spec is its path).
func (l *loader) resolve(parent *program, spec string) (target, error) {
	isURL := strings.HasPrefix(spec, "https://") || strings.HasPrefix(spec, "http://")
	rel := strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || strings.HasPrefix(spec, "/")
	if parent != nil && !isURL && !rel && !strings.HasPrefix(spec, "file://") {
		if m, ok := l.natives.Lookup(spec); ok {
			return target{native: m, name: spec}, nil
		}
		switch {
		case strings.HasPrefix(spec, "k6/x/"):
			return target{}, fmt.Errorf("unknown module %q: k6 extensions (k6/x/...) are not supported by Tidemark", spec)
		case spec == "k6" || strings.HasPrefix(spec, "k6/"):
			return target{}, fmt.Errorf("unknown module %q: Tidemark does not implement it; its k6 modules are %s", spec, strings.Join(l.k6Names(), ", "))
		}
		return target{}, fmt.Errorf("unknown module %q: a specifier is a k6 module (k6/...), a relative path (./%s.js) or an https:// URL; there is no node_modules lookup", spec, spec)
	}
	if parent != nil && strings.HasPrefix(parent.id, "http") && !isURL {
		// Inside a remote module, relative specifiers are relative URLs.
		base, err := url.Parse(parent.id)
		if err != nil {
			return target{}, fmt.Errorf("resolve %q from %s: %w", spec, parent.id, err)
		}
		ref, err := url.Parse(spec)
		if err != nil {
			return target{}, fmt.Errorf("resolve %q from %s: %w", spec, parent.id, err)
		}
		spec, isURL = base.ResolveReference(ref).String(), true
	}
	if isURL {
		return l.remote(spec)
	}
	p := strings.TrimPrefix(spec, "file://")
	disp := p
	if parent != nil && !filepath.IsAbs(p) {
		disp = filepath.Join(filepath.Dir(parent.name), p)
		p = filepath.Join(filepath.Dir(parent.file), p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return target{}, fmt.Errorf("resolve %q: %w", spec, err)
	}
	return target{name: abs, file: abs, disp: disp}, nil
}

// remote maps https://host/path to <modules.dir>/host/path, or to a native module
// registered for the URL (Tidemark's own jslib modules) when the directory lacks it.
func (l *loader) remote(spec string) (target, error) {
	u, err := url.Parse(spec)
	if err != nil || u.Host == "" {
		return target{}, fmt.Errorf("unknown module %q: not a valid URL", spec)
	}
	// The host is a directory under --modules.dir: https://../x would read ../x.
	if h := u.Hostname(); h == "." || h == ".." || strings.ContainsAny(u.Host, `/\`) {
		return target{}, fmt.Errorf("remote module %q: %q is not a host name", spec, u.Host)
	}
	l.mu.Lock()
	p, ok := l.programs[spec]
	l.mu.Unlock()
	if ok {
		// Loaded once already: an archive's directory is gone once the script is loaded.
		return target{name: spec, file: p.file, disp: spec}, nil
	}
	if l.modulesDir != "" {
		file := filepath.Join(l.modulesDir, u.Host, filepath.FromSlash(path.Clean("/"+u.Path)))
		if _, err := os.Stat(file); err == nil {
			return target{name: spec, file: file, disp: spec}, nil
		}
	}
	if m, ok := l.natives.Lookup(spec); ok {
		return target{native: m, name: spec}, nil
	}
	if l.modulesDir == "" {
		return target{}, fmt.Errorf("remote module %q: Tidemark does not download modules; vendor it into a directory as <dir>/%s%s and pass --modules.dir=<dir>", spec, u.Host, u.Path)
	}
	return target{}, fmt.Errorf("remote module %q: not found in --modules.dir as %s", spec, filepath.Join(l.modulesDir, u.Host, filepath.FromSlash(u.Path)))
}

// k6Names are the registered k6/* modules, for messages.
func (l *loader) k6Names() []string {
	var out []string
	for _, n := range l.natives.Names() {
		if n == "k6" || strings.HasPrefix(n, "k6/") {
			out = append(out, n)
		}
	}
	return out
}

// load returns the compiled program of t, compiling it on first use.
func (l *loader) load(t target) *program {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.programs[t.name]; ok {
		return p
	}
	p := &program{id: t.name, name: t.disp, file: t.file}
	src, err := os.ReadFile(t.file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.err = &ScriptError{Msg: fmt.Sprintf("module %s: file does not exist", t.disp), Err: err}
	case err != nil:
		p.err = &ScriptError{Msg: fmt.Sprintf("module %s: %v", t.disp, err), Err: err}
	default:
		p.src = src
		p.err = l.compileSource(p, src)
	}
	l.programs[t.name] = p
	return p
}

// programOf returns the program of an ES module record, nil if not the loader's.
func (l *loader) programOf(rec any) *program {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byRecord[rec]
}

// readFile returns the content of an open()ed file, read once per process.
func (l *loader) readFile(p string) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.files[p]; ok {
		return b, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	l.files[p] = b
	return b, nil
}
