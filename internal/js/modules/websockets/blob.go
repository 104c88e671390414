package websockets

import (
	"fmt"
	"unicode/utf8"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules/jsbytes"
)

// blob is a Blob's content and MIME type.
type blob struct {
	data []byte
	typ  string
}

// newBlob is new Blob(parts, options): parts are strings (UTF-8), ArrayBuffers,
// views of them and Blobs, concatenated.
func (b *browser) newBlob(call sobek.ConstructorCall) *sobek.Object {
	rt := b.vu.Runtime()
	bl := &blob{}
	if parts := call.Argument(0); !sobek.IsUndefined(parts) && !sobek.IsNull(parts) {
		var items []sobek.Value
		if err := rt.ExportTo(parts, &items); err != nil {
			panic(rt.NewTypeError("Blob: expected an array of parts"))
		}
		for _, p := range items {
			if s, ok := p.Export().(string); ok {
				bl.data = append(bl.data, s...)
			} else if other := b.blobOf(p); other != nil {
				bl.data = append(bl.data, other.data...)
			} else if raw, err := jsbytes.Of(rt, p); err == nil {
				bl.data = append(bl.data, raw...)
			} else {
				bl.data = append(bl.data, p.String()...)
			}
		}
	}
	if opts := call.Argument(1); !sobek.IsUndefined(opts) && !sobek.IsNull(opts) {
		if t := opts.ToObject(rt).Get("type"); t != nil && !sobek.IsUndefined(t) {
			bl.typ = t.String()
		}
	}
	b.defineBlob(call.This, bl)
	return call.This
}

// blobOf returns the Blob behind v, or nil.
func (b *browser) blobOf(v sobek.Value) *blob {
	o, ok := v.(*sobek.Object)
	if !ok {
		return nil
	}
	h := o.GetSymbol(b.hidden)
	if h == nil {
		return nil
	}
	bl, _ := h.Export().(*blob)
	return bl
}

// blobObject returns a new Blob object of bl.
func (b *browser) blobObject(bl *blob) *sobek.Object {
	o := b.vu.Runtime().NewObject()
	_ = o.SetPrototype(b.blobProto)
	b.defineBlob(o, bl)
	return o
}

// resolved returns a promise resolved with v.
func resolved(rt *sobek.Runtime, v any) *sobek.Promise {
	p, resolve, _ := rt.NewPromise()
	_ = resolve(v)
	return p
}

// defineBlob defines the Blob's properties and methods on o.
func (b *browser) defineBlob(o *sobek.Object, bl *blob) {
	rt := b.vu.Runtime()
	_ = o.DefineDataPropertySymbol(b.hidden, rt.ToValue(bl), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE)
	_ = o.DefineDataProperty("size", rt.ToValue(len(bl.data)), sobek.FLAG_FALSE, sobek.FLAG_TRUE, sobek.FLAG_TRUE)
	_ = o.DefineDataProperty("type", rt.ToValue(bl.typ), sobek.FLAG_FALSE, sobek.FLAG_TRUE, sobek.FLAG_TRUE)
	copyOf := func() []byte { return append([]byte(nil), bl.data...) }
	_ = o.Set("arrayBuffer", func() *sobek.Promise { return resolved(rt, rt.NewArrayBuffer(copyOf())) })
	_ = o.Set("bytes", func() *sobek.Promise { return resolved(rt, uint8Array(rt, copyOf())) })
	_ = o.Set("text", func() *sobek.Promise { return resolved(rt, toText(bl.data)) })
	_ = o.Set("slice", func(call sobek.FunctionCall) sobek.Value {
		n := int64(len(bl.data))
		start, end := clampIndex(call.Argument(0), n, 0), clampIndex(call.Argument(1), n, n)
		typ := ""
		if t := call.Argument(2); !sobek.IsUndefined(t) {
			typ = t.String()
		}
		part := &blob{typ: typ}
		if start < end {
			part.data = append([]byte(nil), bl.data[start:end]...)
		}
		return b.blobObject(part)
	})
	_ = o.Set("stream", func() *sobek.Object { return b.stream(copyOf()) })
}

// clampIndex is a slice index as Blob.slice reads it: negative from the end,
// clamped to [0, n]; undefined is def.
func clampIndex(v sobek.Value, n, def int64) int64 {
	if v == nil || sobek.IsUndefined(v) {
		return def
	}
	i := v.ToInteger()
	if i < 0 {
		i = max(n+i, 0)
	}
	return min(i, n)
}

// toText decodes UTF-8, replacing invalid sequences as TextDecoder does.
func toText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]rune, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		out = append(out, r)
		b = b[size:]
	}
	return string(out)
}

// uint8Array returns new Uint8Array(data).
func uint8Array(rt *sobek.Runtime, data []byte) sobek.Value {
	ctor := rt.Get("Uint8Array")
	o, err := rt.New(ctor, rt.ToValue(rt.NewArrayBuffer(data)))
	if err != nil {
		panic(rt.NewGoError(fmt.Errorf("blob.bytes: %w", err)))
	}
	return o
}

// stream returns a ReadableStream-like object over data: getReader().read()
// resolves with {value: Uint8Array, done: false} once, then {done: true}.
func (b *browser) stream(data []byte) *sobek.Object {
	rt := b.vu.Runtime()
	s := rt.NewObject()
	locked := false
	_ = s.DefineAccessorProperty("locked", rt.ToValue(func() bool { return locked }), nil, sobek.FLAG_TRUE, sobek.FLAG_TRUE)
	_ = s.Set("getReader", func() *sobek.Object {
		if locked {
			panic(rt.NewTypeError("ReadableStream.getReader: the stream is locked"))
		}
		locked = true
		r := rt.NewObject()
		_ = r.Set("read", func() *sobek.Promise {
			res := rt.NewObject()
			if data == nil {
				_ = res.Set("value", sobek.Undefined())
				_ = res.Set("done", true)
			} else {
				_ = res.Set("value", uint8Array(rt, data))
				_ = res.Set("done", false)
				data = nil
			}
			return resolved(rt, res)
		})
		_ = r.Set("releaseLock", func() { locked = false })
		_ = r.Set("cancel", func() *sobek.Promise { data = nil; return resolved(rt, sobek.Undefined()) })
		return r
	})
	return s
}
