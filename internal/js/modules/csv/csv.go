// Package csv is the native `k6/experimental/csv` module: csv.parse(file, options)
// resolves to a read-only, array-like SharedArray of the file's records, parsed once
// per process and shared by every VU; new csv.Parser(file, options) reads one record
// per next() call. The file is a File of k6/experimental/fs (its content is shared
// already); a path is accepted too, loaded as open() loads files.
//
// Options (k6's documentation): delimiter (one character, default ","), skipFirstLine,
// fromLine (the first record read, 0-based, default 0), toLine (the last record read,
// inclusive; default the end) and asObjects (the first record is the header, the
// others objects keyed by its column names; it cannot be combined with skipFirstLine
// or fromLine > 0). Records are numbered from 0 as the file has them, the header
// included.
package csv

import (
	"bytes"
	encsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/js/modules/fs"
)

// New returns the module. Parsed files live as long as the module: one process.
func New() modules.Module {
	s := &store{parsed: map[key]*parsed{}}
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		rt := vu.Runtime()
		freeze, ok := sobek.AssertFunction(rt.Get("Object").ToObject(rt).Get("freeze"))
		if !ok {
			return nil, errors.New("k6/experimental/csv: Object.freeze is not a function")
		}
		m := &instance{vu: vu, store: s, freeze: freeze}
		ctor, ok := rt.ToValue(m.parser).(*sobek.Object)
		if !ok {
			return nil, errors.New("k6/experimental/csv: Parser is not a constructor")
		}
		m.proto = ctor.Get("prototype").ToObject(rt)
		return modules.Exports{Named: map[string]any{
			"parse":  m.parse,
			"Parser": ctor,
		}}, nil
	})
}

// instance is the module in one VU.
type instance struct {
	vu     modules.VU
	store  *store
	freeze sobek.Callable
	proto  *sobek.Object // Parser.prototype, to tell new from a plain call
}

// source is the file a call reads: its path (for messages) and shared content.
type source struct {
	path string
	data []byte
}

// fileOf returns the file of the first argument: a File of k6/experimental/fs, or a
// path loaded as open() loads it (in the init context).
func (m *instance) fileOf(v sobek.Value, what string) (source, error) {
	if p, data, ok := fs.Content(v); ok {
		return source{path: p, data: data}, nil
	}
	if s, ok := v.Export().(string); ok && s != "" {
		loader, ok := m.vu.(modules.FileLoader)
		if !ok {
			return source{}, fmt.Errorf("%s: the runtime does not load files", what)
		}
		if err := modules.InitOnly(m.vu, what+" of a path"); err != nil {
			return source{}, err
		}
		p, data, err := loader.LoadFile(s)
		if err != nil {
			return source{}, fmt.Errorf("%s: %w", what, err)
		}
		return source{path: p, data: data}, nil
	}
	return source{}, fs.TypeError(m.vu.Runtime(), "%s: expected a File of k6/experimental/fs (await open(path)) as the first argument", what)
}

// parse is csv.parse(file, options): a promise of the file's records as a SharedArray.
func (m *instance) parse(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	fileArg, optArg := call.Argument(0), call.Argument(1)
	return fs.Settle(m.vu, func() (sobek.Value, error) {
		src, err := m.fileOf(fileArg, "csv.parse")
		if err != nil {
			return nil, err
		}
		opts, err := readOptions(optArg)
		if err != nil {
			return nil, fmt.Errorf("csv.parse %s: %w", src.path, err)
		}
		p := m.store.get(src, opts)
		if p.err != nil {
			return nil, p.err
		}
		return rt.NewDynamicArray(&view{m: m, p: p}), nil
	})
}

// key identifies one parse of a file: the same file with the same options is parsed
// once per process.
type key struct {
	path string
	opts options
}

// store holds the files csv.parse parsed.
type store struct {
	mu     sync.Mutex
	parsed map[key]*parsed
}

// parsed is one parse's result: the records (after the header for asObjects).
type parsed struct {
	once    sync.Once
	header  []string
	records [][]string
	err     error
}

// get returns the parse of src with opts, parsing it on first use.
func (s *store) get(src source, opts options) *parsed {
	s.mu.Lock()
	p, ok := s.parsed[key{src.path, opts}]
	if !ok {
		p = &parsed{}
		s.parsed[key{src.path, opts}] = p
	}
	s.mu.Unlock()
	p.once.Do(func() {
		r := newReader(src, opts)
		for {
			rec, err := r.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				p.err = err
				return
			}
			p.records = append(p.records, rec)
		}
		p.header = r.header
	})
	return p
}

// view is one VU's read-only view of a parse: elements are fresh frozen copies.
type view struct {
	m *instance
	p *parsed
}

var _ sobek.DynamicArray = (*view)(nil)

// Len returns the number of records.
func (v *view) Len() int { return len(v.p.records) }

// Get returns record idx (undefined outside the array) as an array of strings, or an
// object for asObjects; frozen, as SharedArray's elements are.
func (v *view) Get(idx int) sobek.Value {
	if idx < 0 || idx >= len(v.p.records) {
		return sobek.Undefined()
	}
	val := v.m.record(v.p.header, v.p.records[idx])
	if _, err := v.m.freeze(sobek.Undefined(), val); err != nil {
		panic(err)
	}
	return val
}

// Set throws: the array is read-only.
func (v *view) Set(int, sobek.Value) bool {
	panic(v.m.vu.Runtime().NewTypeError("the records csv.parse returned are read-only"))
}

// SetLen throws: the array is read-only.
func (v *view) SetLen(int) bool {
	panic(v.m.vu.Runtime().NewTypeError("the records csv.parse returned are read-only"))
}

// record is rec as a JavaScript value: an array of strings, or with a header an
// object keyed by its column names.
func (m *instance) record(header, rec []string) sobek.Value {
	rt := m.vu.Runtime()
	if header == nil {
		vals := make([]any, len(rec))
		for i, f := range rec {
			vals[i] = f
		}
		return rt.NewArray(vals...)
	}
	o := rt.NewObject()
	for i, name := range header {
		_ = o.Set(name, rec[i])
	}
	return o
}

// parser is the csv.Parser constructor.
func (m *instance) parser(call sobek.ConstructorCall) *sobek.Object {
	rt := m.vu.Runtime()
	if call.This.Prototype() != m.proto {
		panic(rt.NewTypeError("csv.Parser is a constructor: use new csv.Parser(file, options)"))
	}
	src, err := m.fileOf(call.Argument(0), "new csv.Parser")
	if err != nil {
		throw(rt, err)
	}
	opts, err := readOptions(call.Argument(1))
	if err != nil {
		throw(rt, fmt.Errorf("new csv.Parser %s: %w", src.path, err))
	}
	p := &parserObj{m: m, r: newReader(src, opts)}
	obj := rt.NewObject()
	if err := obj.SetPrototype(m.proto); err != nil {
		throw(rt, err)
	}
	if err := obj.Set("next", p.next); err != nil {
		throw(rt, err)
	}
	return obj
}

// throw throws err as a JavaScript exception (a TypeError as it is).
func throw(rt *sobek.Runtime, err error) {
	if r, ok := errors.AsType[*fs.Rejection](err); ok {
		panic(r.Value)
	}
	modules.Throw(rt, err)
}

// parserObj is one csv.Parser.
type parserObj struct {
	m *instance
	r *reader
}

// next is parser.next(): a promise of {done, value}, value the next record, or
// {done: true, value: undefined} after the last.
func (p *parserObj) next(sobek.FunctionCall) sobek.Value {
	rt := p.m.vu.Runtime()
	return fs.Settle(p.m.vu, func() (sobek.Value, error) {
		res := rt.NewObject()
		rec, err := p.r.next()
		switch {
		case errors.Is(err, io.EOF):
			_ = res.Set("done", true)
			_ = res.Set("value", sobek.Undefined())
			return res, nil
		case err != nil:
			return nil, err
		}
		_ = res.Set("done", false)
		_ = res.Set("value", p.m.record(p.r.header, rec))
		return res, nil
	})
}

// reader reads a file's records as the options select them.
type reader struct {
	src    source
	opts   options
	r      *encsv.Reader
	n      int64 // records read from the file so far
	header []string
	done   bool
}

func newReader(src source, opts options) *reader {
	r := encsv.NewReader(bytes.NewReader(src.data))
	r.Comma = opts.delimiter
	r.FieldsPerRecord = -1
	return &reader{src: src, opts: opts, r: r}
}

// next returns the next selected record, io.EOF after the last; an error names the
// file and line.
func (r *reader) next() ([]string, error) {
	for !r.done {
		idx := r.n
		if r.opts.toLine >= 0 && idx > r.opts.toLine {
			r.done = true
			break
		}
		rec, err := r.r.Read()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			return nil, fmt.Errorf("csv %s: %w", r.src.path, err)
		}
		r.n++
		switch {
		case r.opts.asObjects && idx == 0:
			r.header = rec
			continue
		case idx < r.opts.fromLine, idx == 0 && r.opts.skipFirstLine:
			continue
		}
		if r.header != nil && len(rec) != len(r.header) {
			line, _ := r.r.FieldPos(0)
			return nil, fmt.Errorf("csv %s:%d: record %d has %d fields, the header has %d", r.src.path, line, idx, len(rec), len(r.header))
		}
		return rec, nil
	}
	if r.opts.asObjects && r.header == nil {
		return nil, fmt.Errorf("csv %s: asObjects needs a header line, and the file is empty", r.src.path)
	}
	return nil, io.EOF
}
