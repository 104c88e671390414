// Package secretsource reads k6's secret sources (--secret-source, K6_SECRET_SOURCE),
// hands their secrets to the k6/secrets module, and redacts their values from the log
// as k6 does (***SECRET_REDACTED***).
//
// A source is file=PATH (KEY=VALUE lines) or mock=KEY=VALUE,…, each optionally named
// (name=NAME) and marked as the default one (default): file=name=a,filename=PATH,default.
// With a single source, it is the default. k6's url and cloud sources, which fetch
// secrets over the network, are refused.
package secretsource

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces a secret's value in the log, as k6 writes it.
const Redacted = "***SECRET_REDACTED***"

// ErrNotFound is what Get returns for a key its source does not have.
var ErrNotFound = errors.New("not found")

// Source is one secret source.
type Source interface {
	// Get returns the secret of key, or an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) (string, error)
}

// Values is a source held in memory (file and mock): keys to values.
type Values map[string]string

// Get returns v[key].
func (v Values) Get(_ context.Context, key string) (string, error) {
	s, ok := v[key]
	if !ok {
		return "", ErrNotFound
	}
	return s, nil
}

// Set is a run's secret sources by name, and the redaction of their values. A nil
// *Set has no sources and redacts nothing. It is safe for concurrent use.
type Set struct {
	byName map[string]Source
	names  []string // in the order of the flags
	def    string   // the default source's name; "" when there is none

	mu       sync.RWMutex
	secrets  map[string]struct{} // values to redact
	replacer *strings.Replacer   // nil when secrets is empty
}

// New returns a set of sources by name; def names the default one ("" for none).
// Every value of a Values source is redacted from the start.
func New(byName map[string]Source, names []string, def string) *Set {
	s := &Set{byName: byName, names: names, def: def, secrets: map[string]struct{}{}}
	for _, src := range byName {
		if v, ok := src.(Values); ok {
			for _, val := range v {
				s.secrets[val] = struct{}{}
			}
		}
	}
	s.rebuild()
	return s
}

// Names returns the names of the sources, in the order they were given.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.names)
}

// Get returns the secret key of the named source, or of the default source when
// source is "". Its errors name the source and the key, never a value. The value is
// redacted from the log from then on.
func (s *Set) Get(ctx context.Context, source, key string) (string, error) {
	if s == nil || len(s.names) == 0 {
		return "", fmt.Errorf("get secret %q: no secret source is configured; use --secret-source", key)
	}
	name := source
	if name == "" {
		if s.def == "" {
			return "", fmt.Errorf("get secret %q: no default secret source among %s; mark one with default (--secret-source=mock=default,…) or use secrets.source(name)",
				key, strings.Join(s.names, ", "))
		}
		name = s.def
	}
	src, ok := s.byName[name]
	if !ok {
		return "", fmt.Errorf("get secret %q: no secret source named %q; the sources are %s", key, name, strings.Join(s.names, ", "))
	}
	v, err := src.Get(ctx, key)
	if err != nil {
		return "", fmt.Errorf("get secret %q from source %q: %w", key, name, err)
	}
	s.add(v)
	return v, nil
}

// Redact replaces every secret value in line with Redacted, longest first.
func (s *Set) Redact(line string) string {
	if s == nil {
		return line
	}
	s.mu.RLock()
	r := s.replacer
	s.mu.RUnlock()
	if r == nil {
		return line
	}
	return r.Replace(line)
}

// add redacts v from now on.
func (s *Set) add(v string) {
	s.mu.RLock()
	_, known := s.secrets[v]
	s.mu.RUnlock()
	if known || v == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets[v] = struct{}{}
	s.rebuild()
}

// rebuild makes the replacer of the secrets, longest first so that a secret that
// contains another is redacted whole. The caller holds mu (or owns s).
func (s *Set) rebuild() {
	vals := slices.DeleteFunc(slices.Collect(maps.Keys(s.secrets)), func(v string) bool { return v == "" })
	if len(vals) == 0 {
		s.replacer = nil
		return
	}
	slices.SortFunc(vals, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, Redacted)
	}
	s.replacer = strings.NewReplacer(pairs...)
}

// Parse reads k6's --secret-source values (and K6_SECRET_SOURCE's, passed as one
// more spec). An unnamed source is called by its kind ("file", "mock"), or by its kind
// and position when that name is taken. The errors name the spec.
func Parse(specs []string) (*Set, error) {
	byName := map[string]Source{}
	var names []string
	def := ""
	for i, spec := range specs {
		p, err := parseSpec(spec)
		if err != nil {
			return nil, fmt.Errorf("--secret-source %q: %w", spec, err)
		}
		name := p.name
		if name == "" {
			name = p.kind
			if _, taken := byName[name]; taken {
				name = fmt.Sprintf("%s%d", p.kind, i)
			}
		} else if _, taken := byName[name]; taken {
			return nil, fmt.Errorf("--secret-source %q: a secret source is already named %q", spec, name)
		}
		if p.isDefault {
			if def != "" {
				return nil, fmt.Errorf("--secret-source %q: %q is already the default secret source", spec, def)
			}
			def = name
		}
		byName[name] = p.source
		names = append(names, name)
	}
	if def == "" && len(names) == 1 {
		def = names[0]
	}
	return New(byName, names, def), nil
}

// spec is one parsed --secret-source value.
type spec struct {
	kind, name string
	isDefault  bool
	source     Source
}

// parseSpec parses KIND=PARAMS.
func parseSpec(s string) (spec, error) {
	kind, arg, _ := strings.Cut(s, "=")
	p := spec{kind: kind}
	switch kind {
	case "file":
		return p, p.parseFile(arg)
	case "mock":
		return p, p.parseMock(arg)
	case "url", "cloud":
		return p, errors.New("fetching secrets over the network is not supported by Tidemark; use file=PATH or mock=KEY=VALUE")
	default:
		return p, fmt.Errorf("unknown source %q; expected file=PATH or mock=KEY=VALUE", kind)
	}
}

// parseFile parses file=PATH and file=name=N,filename=PATH[,default].
func (p *spec) parseFile(arg string) error {
	path := arg
	if strings.HasPrefix(arg, "name=") || strings.HasPrefix(arg, "filename=") || strings.HasPrefix(arg, "default,") {
		path = ""
		for part := range strings.SplitSeq(arg, ",") {
			k, v, _ := strings.Cut(part, "=")
			switch k {
			case "name":
				p.name = v
			case "filename":
				path = v
			case "default":
				p.isDefault = true
			default:
				return fmt.Errorf("unknown parameter %q; expected file=PATH or file=name=NAME,filename=PATH[,default]", k)
			}
		}
	}
	if path == "" {
		return errors.New("no file; expected file=PATH or file=name=NAME,filename=PATH")
	}
	v, err := ReadFile(path)
	if err != nil {
		return err
	}
	p.source = v
	return nil
}

// parseMock parses mock=KEY=VALUE,… with name=NAME and default among them.
func (p *spec) parseMock(arg string) error {
	v := Values{}
	for part := range strings.SplitSeq(arg, ",") {
		k, val, ok := strings.Cut(part, "=")
		switch {
		case k == "default" && !ok:
			p.isDefault = true
		case !ok:
			return fmt.Errorf("%q: expected mock=KEY=VALUE,…", part)
		case k == "name":
			p.name = val
		default:
			v[k] = unquote(val)
		}
	}
	p.source = v
	return nil
}

// unquote removes the double quotes around a value a shell passed through
// (k6's documentation writes cool="cool secret" inside one argument).
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// ReadFile reads a file source: KEY=VALUE lines; blank lines are skipped.
func ReadFile(path string) (Values, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	out := Values{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: expected KEY=VALUE", path, n)
		}
		out[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}
