// Package webcrypto is the WebCrypto API k6 (v1 and later) installs as the global
// `crypto` on every VU runtime: crypto.getRandomValues, crypto.randomUUID and
// crypto.subtle (digest, generateKey, importKey, exportKey, sign, verify, encrypt,
// decrypt, deriveBits, deriveKey) with the algorithms k6 documents, built on Go's
// standard library only.
//
// The asynchronous methods of crypto.subtle read and check their arguments on the
// VU's goroutine, do the cryptography on another goroutine and settle their promise
// through the VU's event loop (modules.State.Loop), so an iteration waits for them.
// In the init context, which has no event loop, the promise settles before the call
// returns. A failure rejects the promise with an Error whose name is the
// DOMException name k6 documents (NotSupportedError, InvalidAccessError,
// OperationError, SyntaxError, DataError, QuotaExceededError) or a TypeError.
package webcrypto

import (
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// The DOMException names k6's WebCrypto errors carry.
const (
	errNotSupported  = "NotSupportedError"
	errInvalidAccess = "InvalidAccessError"
	errOperation     = "OperationError"
	errSyntax        = "SyntaxError"
	errData          = "DataError"
	errQuota         = "QuotaExceededError"
	errTypeMismatch  = "TypeMismatchError"
	errType          = "TypeError"
)

// domError is a WebCrypto failure: a DOMException name and a message.
type domError struct {
	name string
	msg  string
}

func (e *domError) Error() string { return e.name + ": " + e.msg }

// fail returns a domError named name.
func fail(name, format string, args ...any) error {
	return &domError{name: name, msg: fmt.Sprintf(format, args...)}
}

// webcrypto is one VU's `crypto` object.
type webcrypto struct {
	vu modules.VU
	rt *sobek.Runtime
	// keySym is the hidden property of a CryptoKey object holding its *key.
	keySym *sobek.Symbol
}

// Global returns a new `crypto` object for vu's runtime, to install as its global
// `crypto`.
func Global(vu modules.VU) *sobek.Object {
	w := &webcrypto{vu: vu, rt: vu.Runtime(), keySym: sobek.NewSymbol("CryptoKey")}
	c := w.rt.NewObject()
	_ = c.Set("getRandomValues", w.getRandomValues)
	_ = c.Set("randomUUID", w.randomUUID)
	_ = c.Set("subtle", w.subtle())
	return c
}

// throw throws err as the JavaScript error k6 throws.
func (w *webcrypto) throw(err error) {
	panic(w.jsError(err))
}

// jsError is err as a JavaScript value: a TypeError, or an Error named as the
// DOMException.
func (w *webcrypto) jsError(err error) sobek.Value {
	de, ok := errors.AsType[*domError](err)
	if !ok {
		de = &domError{name: errOperation, msg: err.Error()}
	}
	if de.name == errType {
		return w.rt.NewTypeError(de.msg)
	}
	o, cerr := w.rt.New(w.rt.Get("Error"), w.rt.ToValue(de.msg))
	if cerr != nil {
		return w.rt.NewGoError(err)
	}
	_ = o.DefineDataProperty("name", w.rt.ToValue(de.name), sobek.FLAG_TRUE, sobek.FLAG_TRUE, sobek.FLAG_FALSE)
	return o
}

// getRandomValues fills an integer typed array with random bytes and returns it.
func (w *webcrypto) getRandomValues(v sobek.Value) sobek.Value {
	o, ok := v.(*sobek.Object)
	if !ok || !isIntegerArray(o) {
		w.throw(fail(errTypeMismatch, "getRandomValues: expected an integer TypedArray, got %s", describe(v)))
	}
	var b []byte
	if err := w.rt.ExportTo(o, &b); err != nil {
		w.throw(fail(errType, "getRandomValues: %v", err))
	}
	if len(b) > 65536 {
		w.throw(fail(errQuota, "getRandomValues: the array's byteLength %d exceeds 65536", len(b)))
	}
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return v
}

// isIntegerArray reports whether o is an integer typed array (not a float one).
func isIntegerArray(o *sobek.Object) bool {
	switch o.ExportType().String() {
	case "[]int8", "[]uint8", "[]int16", "[]uint16", "[]int32", "[]uint32", "[]int64", "[]uint64":
		return isView(o)
	}
	return false
}

// isView reports whether o is a typed array or a DataView (its buffer an ArrayBuffer).
func isView(o *sobek.Object) bool {
	b := o.Get("buffer")
	if b == nil {
		return false
	}
	_, ok := b.Export().(sobek.ArrayBuffer)
	return ok
}

// randomUUID returns a random version 4 UUID.
func (w *webcrypto) randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// describe names the kind of a JavaScript value for error messages.
func describe(v sobek.Value) string {
	if v == nil || sobek.IsUndefined(v) {
		return "undefined"
	}
	if sobek.IsNull(v) {
		return "null"
	}
	if o, ok := v.(*sobek.Object); ok {
		if c := o.Get("constructor"); c != nil {
			if co, ok := c.(*sobek.Object); ok {
				if n := co.Get("name"); n != nil && n.String() != "" {
					return "a " + n.String()
				}
			}
		}
		return "an object"
	}
	return fmt.Sprintf("%T %q", v.Export(), v.String())
}

// bufferSource returns a copy of the bytes of an ArrayBuffer, a typed array or a
// DataView; anything else is a TypeError naming what.
func (w *webcrypto) bufferSource(v sobek.Value, what string) ([]byte, error) {
	if v != nil {
		if ab, ok := v.Export().(sobek.ArrayBuffer); ok {
			return append([]byte(nil), ab.Bytes()...), nil
		}
		if o, ok := v.(*sobek.Object); ok {
			if isView(o) {
				var b []byte
				if err := w.rt.ExportTo(o, &b); err == nil {
					return append([]byte(nil), b...), nil
				}
			}
		}
	}
	return nil, fail(errType, "%s: expected an ArrayBuffer, a TypedArray or a DataView, got %s", what, describe(v))
}

// promise runs an asynchronous method: prep reads the arguments on the VU's
// goroutine and returns the work, which runs on another goroutine; its result
// settles the returned promise on the VU's event loop. In the init context (no
// loop) the work runs at once.
func (w *webcrypto) promise(prep func() (func() (any, error), error)) sobek.Value {
	p, resolve, reject := w.rt.NewPromise()
	settle := func(res any, err error) {
		if err != nil {
			_ = reject(w.jsError(err))
			return
		}
		_ = resolve(w.toJS(res))
	}
	work, err := prep()
	if err != nil {
		settle(nil, err)
		return w.rt.ToValue(p)
	}
	st := w.vu.State()
	if st == nil || st.Loop == nil {
		settle(work())
		return w.rt.ToValue(p)
	}
	done := st.Loop.RegisterCallback()
	go func() {
		res, err := work()
		done(func() error {
			settle(res, err)
			return nil
		})
	}()
	return w.rt.ToValue(p)
}

// toJS converts a method's result: bytes to an ArrayBuffer, keys to CryptoKey
// objects, a JWK to an object.
func (w *webcrypto) toJS(res any) sobek.Value {
	switch r := res.(type) {
	case []byte:
		return w.rt.ToValue(w.rt.NewArrayBuffer(r))
	case *key:
		return w.keyObject(r)
	case keyPair:
		o := w.rt.NewObject()
		_ = o.Set("publicKey", w.keyObject(r.public))
		_ = o.Set("privateKey", w.keyObject(r.private))
		return o
	case *jwk:
		return w.jwkObject(r)
	}
	return w.rt.ToValue(res)
}
