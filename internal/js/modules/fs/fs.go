// Package fs is the native `k6/experimental/fs` module: open(path) in the init
// context resolves to a File, whose stat, read and seek return promises settled on the
// VU's event loop; SeekMode names seek's origins.
//
// A file is loaded as open() loads it (modules.FileLoader): relative to the main
// script, read once per process and shared by every VU (k6's "memory efficiency"), and
// recorded in archives. Each VU's File has its own offset: reads and seeks in one VU
// do not move another's.
package fs

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// SeekMode values: the origin of File.seek's offset.
const (
	SeekStart   = 0
	SeekCurrent = 1
	SeekEnd     = 2
)

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		loader, ok := vu.(modules.FileLoader)
		if !ok {
			return nil, errors.New("k6/experimental/fs: the runtime does not load files")
		}
		rt := vu.Runtime()
		m := &instance{vu: vu, loader: loader}
		ctor, ok := rt.ToValue(m.fileCtor).(*sobek.Object)
		if !ok {
			return nil, errors.New("k6/experimental/fs: File is not a constructor")
		}
		m.proto = ctor.Get("prototype").ToObject(rt)
		seek := rt.NewObject()
		for name, val := range map[string]int{"Start": SeekStart, "Current": SeekCurrent, "End": SeekEnd} {
			if err := seek.DefineDataProperty(name, rt.ToValue(val), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		return modules.Exports{Named: map[string]any{
			"open":     m.open,
			"File":     ctor,
			"SeekMode": seek,
		}}, nil
	})
}

// instance is the module in one VU.
type instance struct {
	vu     modules.VU
	loader modules.FileLoader
	proto  *sobek.Object // File.prototype: a File is instanceof File
}

// open is open(path): a promise of a File. Files are opened in the init context, as
// k6 documents (the script awaits them there or in its functions).
func (m *instance) open(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	arg := call.Argument(0)
	return Settle(m.vu, func() (sobek.Value, error) {
		if sobek.IsUndefined(arg) || sobek.IsNull(arg) || arg.String() == "" {
			return nil, TypeError(rt, "open: expected a file path")
		}
		if err := modules.InitOnly(m.vu, "open"); err != nil {
			return nil, fmt.Errorf("open %s: opening a file is %w", arg.String(), modules.ErrInitContext)
		}
		name := arg.String()
		p, data, err := m.loader.LoadFile(name)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", name, err)
		}
		obj := rt.ToValue(&File{Path: p, data: data, vu: m.vu}).ToObject(rt)
		if err := obj.SetPrototype(m.proto); err != nil {
			return nil, err
		}
		return obj, nil
	})
}

// fileCtor is the File export: Files come from open() only.
func (m *instance) fileCtor(sobek.ConstructorCall) *sobek.Object {
	panic(m.vu.Runtime().NewTypeError("File cannot be constructed: open a file with open(path)"))
}

// File is one VU's handle on an opened file, shown to JavaScript as an object with
// path (its absolute path) and the methods stat, read and seek.
type File struct {
	// Path is the file's absolute path.
	Path string

	data   []byte // shared by every VU: never written
	offset int64
	vu     modules.VU
}

// Content returns the path and the content of v, a File that fs.open returned; ok is
// false for any other value. The content is shared: the caller must not modify it.
func Content(v sobek.Value) (path string, data []byte, ok bool) {
	if v == nil {
		return "", nil, false
	}
	f, ok := v.Export().(*File)
	if !ok || f == nil {
		return "", nil, false
	}
	return f.Path, f.data, true
}

// Stat is file.stat(): a promise of a FileInfo {name, size}.
func (f *File) Stat(sobek.FunctionCall) sobek.Value {
	rt := f.vu.Runtime()
	return Settle(f.vu, func() (sobek.Value, error) {
		info := rt.NewObject()
		if err := info.Set("name", filepath.Base(f.Path)); err != nil {
			return nil, err
		}
		if err := info.Set("size", len(f.data)); err != nil {
			return nil, err
		}
		return info, nil
	})
}

// Read is file.read(buffer): copies up to buffer.byteLength bytes from the offset into
// buffer, a Uint8Array, and resolves to the count, or to null at the end of the file.
func (f *File) Read(call sobek.FunctionCall) sobek.Value {
	rt := f.vu.Runtime()
	arg := call.Argument(0)
	return Settle(f.vu, func() (sobek.Value, error) {
		ctor, _ := rt.Get("Uint8Array").(*sobek.Object)
		if ctor == nil || !rt.InstanceOf(arg, ctor) {
			return nil, TypeError(rt, "read: expected a Uint8Array buffer, got %s", modules.Describe(arg))
		}
		buf, ok := arg.Export().([]byte)
		if !ok {
			return nil, TypeError(rt, "read: the buffer's bytes are not readable")
		}
		if f.offset >= int64(len(f.data)) {
			return sobek.Null(), nil
		}
		n := copy(buf, f.data[f.offset:])
		f.offset += int64(n)
		return rt.ToValue(n), nil
	})
}

// Seek is file.seek(offset, whence): moves the offset and resolves to it.
func (f *File) Seek(call sobek.FunctionCall) sobek.Value {
	rt := f.vu.Runtime()
	offArg, whenceArg := call.Argument(0), call.Argument(1)
	return Settle(f.vu, func() (sobek.Value, error) {
		if _, ok := offArg.Export().(int64); !ok && !isWhole(offArg) {
			return nil, TypeError(rt, "seek: the offset must be a whole number, got %s", modules.Describe(offArg))
		}
		off := offArg.ToInteger()
		whence := SeekStart
		if !sobek.IsUndefined(whenceArg) {
			whence = int(whenceArg.ToInteger())
		}
		pos, err := seekTo(f.offset, int64(len(f.data)), off, whence)
		if err != nil {
			return nil, TypeError(rt, "seek: %v", err)
		}
		f.offset = pos
		return rt.ToValue(pos), nil
	})
}

// seekTo is the offset that seeking off from whence gives in a file of size bytes
// whose offset is cur, with k6's rules: from Start the offset is >= 0, from End <= 0.
func seekTo(cur, size, off int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case SeekStart:
		if off < 0 {
			return 0, fmt.Errorf("offset %d: with SeekMode.Start the offset must be zero or more", off)
		}
		pos = off
	case SeekCurrent:
		pos = cur + off
	case SeekEnd:
		if off > 0 {
			return 0, fmt.Errorf("offset %d: with SeekMode.End the offset must be zero or less", off)
		}
		pos = size + off
	default:
		return 0, fmt.Errorf("whence %d: expected SeekMode.Start (0), SeekMode.Current (1) or SeekMode.End (2)", whence)
	}
	if pos < 0 {
		return 0, fmt.Errorf("offset %d: the position %d would be before the start of the file", off, pos)
	}
	return pos, nil
}

// isWhole reports whether v is a finite number without a fraction.
func isWhole(v sobek.Value) bool {
	f, ok := v.Export().(float64)
	return ok && f == float64(int64(f))
}

// Settle returns a promise settled by f on the VU's event loop: resolved with its
// value, or rejected with its error (a JavaScript exception as it is, any other error
// as an Error). In the init context f runs now and the promise is settled when Settle
// returns: what the script does not await at the top level (the init context's loop
// is dropped when it ends) is still settled when an iteration awaits it.
func Settle(vu modules.VU, f func() (sobek.Value, error)) sobek.Value {
	rt := vu.Runtime()
	p, resolve, reject := rt.NewPromise()
	finish := func() error {
		v, err := f()
		if err != nil {
			return reject(errorValue(rt, err))
		}
		return resolve(v)
	}
	if st := vu.State(); st != nil && st.Loop != nil {
		st.Loop.RegisterCallback()(finish)
	} else if err := finish(); err != nil {
		panic(err) // an uncatchable error (interrupt) of the runtime
	}
	return rt.ToValue(p)
}

// errorValue is err as the reason of a rejected promise.
func errorValue(rt *sobek.Runtime, err error) sobek.Value {
	if r, ok := errors.AsType[*Rejection](err); ok {
		return r.Value
	}
	if ex, ok := errors.AsType[*sobek.Exception](err); ok {
		return ex.Value()
	}
	return rt.NewGoError(err)
}

// Rejection is an error that rejects a promise with its JavaScript value as it is.
type Rejection struct {
	Value *sobek.Object
}

// Error returns the value as a string ("TypeError: ...").
func (r *Rejection) Error() string { return r.Value.String() }

// TypeError returns a Rejection with a TypeError of the formatted message.
func TypeError(rt *sobek.Runtime, format string, args ...any) error {
	return &Rejection{Value: rt.NewTypeError(fmt.Sprintf(format, args...))}
}
