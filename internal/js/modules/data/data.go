// Package data is the native `k6/data` module: SharedArray (reference/k6-js.md §2.4).
//
// new SharedArray(name, fn) runs fn once per process, in the init context of the first
// runtime that constructs an array of that name (the options-reading init run), and
// keeps its result once, as JSON text per element (primitives as Go values). Every VU
// constructing an array of that name gets a read-only, array-like view of the same
// data: length, [i], for…of and Array.prototype's methods (slice, map, filter,
// forEach, …, which give plain arrays) work, and reading an element materialises a
// fresh copy in the reading VU's runtime, frozen to its last nested object as k6's
// elements are: assigning to one of its properties throws a TypeError in a module
// (strict code) and changes nothing otherwise. Writing an element or the length throws
// a TypeError.
package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// New returns the module. Its arrays live as long as the module: one process, one run.
func New() modules.Module {
	s := &store{arrays: map[string]*array{}}
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		rt := vu.Runtime()
		parse, ok := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
		if !ok {
			return nil, errors.New("k6/data: JSON.parse is not a function")
		}
		stringify, ok := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
		if !ok {
			return nil, errors.New("k6/data: JSON.stringify is not a function")
		}
		m := &instance{vu: vu, store: s, parse: parse, stringify: stringify}
		ctor := rt.ToValue(m.sharedArray).(*sobek.Object)
		m.proto = ctor.Get("prototype").ToObject(rt)
		return modules.Exports{Named: map[string]any{"SharedArray": ctor}}, nil
	})
}

// store holds the process's shared arrays by name.
type store struct {
	mu     sync.Mutex
	arrays map[string]*array
}

// array is one shared array. The first VU to construct it runs its function; others
// wait for ready instead of running the function again.
type array struct {
	mu    sync.Mutex
	owner *instance     // the VU running the function; nil before and after
	ready chan struct{} // closed once elems or err is set
	elems []element
	err   error
}

// element is one element: JSON text for objects and arrays, a Go value otherwise.
type element struct {
	json string
	prim any
}

func (s *store) get(name string) *array {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.arrays[name]
	if !ok {
		a = &array{ready: make(chan struct{})}
		s.arrays[name] = a
	}
	return a
}

type instance struct {
	vu        modules.VU
	store     *store
	parse     sobek.Callable
	stringify sobek.Callable
	proto     *sobek.Object // SharedArray.prototype, to tell new from a plain call
}

// sharedArray is the SharedArray constructor.
func (m *instance) sharedArray(call sobek.ConstructorCall) *sobek.Object {
	rt := m.vu.Runtime()
	if call.This.Prototype() != m.proto {
		panic(rt.NewTypeError("SharedArray is a constructor: use new SharedArray(name, fn)"))
	}
	if m.vu.State() != nil {
		modules.Throw(rt, fmt.Errorf("new SharedArray must be called in the init context: %w", modules.ErrInitContext))
	}
	name := call.Argument(0)
	if sobek.IsUndefined(name) || sobek.IsNull(name) || name.String() == "" {
		modules.Throw(rt, errors.New("new SharedArray: empty name provided to SharedArray's constructor; the name identifies the array across VUs"))
	}
	fn, ok := sobek.AssertFunction(call.Argument(1))
	if !ok {
		modules.Throw(rt, fmt.Errorf("new SharedArray(%q): a function is expected as the second argument", name.String()))
	}
	a := m.store.get(name.String())
	if err := m.fill(a, name.String(), fn); err != nil {
		if ex, ok := errors.AsType[*sobek.Exception](err); ok {
			panic(ex)
		}
		if ie, ok := errors.AsType[*sobek.InterruptedError](err); ok {
			panic(ie) // test.abort() in the function: the runtime stops.
		}
		modules.Throw(rt, fmt.Errorf("new SharedArray(%q): %w", name.String(), err))
	}
	if a.err != nil {
		modules.Throw(rt, fmt.Errorf("new SharedArray(%q): %w", name.String(), a.err))
	}
	return rt.NewDynamicArray(&view{rt: rt, name: name.String(), elems: a.elems, parse: m.parse, freeze: m.freezer()})
}

// fill runs fn to fill a if no VU has, or waits for the VU that does. It returns the
// exception of fn when this VU ran it and it threw (others then get its message).
func (m *instance) fill(a *array, name string, fn sobek.Callable) error {
	a.mu.Lock()
	select {
	case <-a.ready:
		a.mu.Unlock()
		return nil
	default:
	}
	switch a.owner {
	case nil:
	case m:
		a.mu.Unlock()
		return fmt.Errorf("its function constructs SharedArray %q itself", name)
	default:
		a.mu.Unlock()
		<-a.ready
		return nil
	}
	a.owner = m
	a.mu.Unlock()
	var (
		elems []element
		err   = errors.New("its function did not return")
	)
	defer func() {
		// Also when fn panics, so that no VU waits forever.
		a.mu.Lock()
		defer a.mu.Unlock()
		a.owner, a.elems, a.err = nil, elems, err
		if ex, ok := errors.AsType[*sobek.Exception](err); ok {
			// The function threw: every other VU fails its init with the same message.
			a.err = errors.New(ex.Value().String())
		}
		close(a.ready)
	}()
	elems, err = m.build(name, fn)
	if _, ok := errors.AsType[*sobek.Exception](err); ok {
		return err
	}
	if _, ok := errors.AsType[*sobek.InterruptedError](err); ok {
		return err
	}
	return nil
}

// build runs fn in this VU and keeps its result, which must be an array.
func (m *instance) build(name string, fn sobek.Callable) ([]element, error) {
	rt := m.vu.Runtime()
	res, err := fn(sobek.Undefined())
	if err != nil {
		return nil, err
	}
	isArray, _ := sobek.AssertFunction(rt.Get("Array").ToObject(rt).Get("isArray"))
	if ok, err := isArray(sobek.Undefined(), res); err != nil || !ok.ToBoolean() {
		return nil, fmt.Errorf("only arrays can be made into SharedArray, got %s", modules.Describe(res))
	}
	text, err := m.stringify(sobek.Undefined(), res)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(text.String()), &raw); err != nil {
		return nil, fmt.Errorf("keep the data of SharedArray %q: %w", name, err)
	}
	elems := make([]element, len(raw))
	for i, r := range raw {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && (r[0] == '{' || r[0] == '[') {
			elems[i].json = string(r)
			continue
		}
		if err := json.Unmarshal(r, &elems[i].prim); err != nil {
			return nil, fmt.Errorf("keep element %d of SharedArray %q: %w", i, name, err)
		}
	}
	return elems, nil
}

// freezer returns a JSON.parse reviver that freezes every value it is given: parsed
// with it, an element is frozen from its leaves up.
func (m *instance) freezer() sobek.Value {
	rt := m.vu.Runtime()
	freeze, ok := sobek.AssertFunction(rt.Get("Object").ToObject(rt).Get("freeze"))
	if !ok {
		panic(rt.NewTypeError("k6/data: Object.freeze is not a function"))
	}
	return rt.ToValue(func(call sobek.FunctionCall) sobek.Value {
		v, err := freeze(sobek.Undefined(), call.Argument(1))
		if err != nil {
			panic(err)
		}
		return v
	})
}

// view is one VU's read-only view of a shared array.
type view struct {
	rt     *sobek.Runtime
	name   string
	elems  []element
	parse  sobek.Callable
	freeze sobek.Value // the reviver of freezer
}

var _ sobek.DynamicArray = (*view)(nil)

// Len returns the number of elements.
func (v *view) Len() int { return len(v.elems) }

// Get returns a fresh copy of element idx, undefined outside the array.
func (v *view) Get(idx int) sobek.Value {
	if idx < 0 || idx >= len(v.elems) {
		return sobek.Undefined()
	}
	e := v.elems[idx]
	if e.json == "" {
		return v.rt.ToValue(e.prim)
	}
	val, err := v.parse(sobek.Undefined(), v.rt.ToValue(e.json), v.freeze)
	if err != nil {
		// The text came from JSON.stringify; it parses.
		panic(err)
	}
	return val
}

// Set throws: a SharedArray is read-only.
func (v *view) Set(int, sobek.Value) bool {
	panic(v.rt.NewTypeError(fmt.Sprintf("SharedArray %q is read-only", v.name)))
}

// SetLen throws: a SharedArray is read-only.
func (v *view) SetLen(int) bool {
	panic(v.rt.NewTypeError(fmt.Sprintf("SharedArray %q is read-only", v.name)))
}
