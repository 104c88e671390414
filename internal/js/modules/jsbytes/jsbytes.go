// Package jsbytes reads the binary input of native modules (k6/encoding, k6/crypto): a
// string is its UTF-8 bytes, an ArrayBuffer, a typed array or a DataView its bytes, as
// k6 documents for those modules' inputs.
package jsbytes

import (
	"fmt"

	"github.com/grafana/sobek"
)

// Of returns the bytes of v. The slice may alias an ArrayBuffer's memory: the caller
// must not modify or retain it after returning to JavaScript.
func Of(rt *sobek.Runtime, v sobek.Value) ([]byte, error) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return nil, fmt.Errorf("expected a string or an ArrayBuffer, got %v", v)
	}
	switch e := v.Export().(type) {
	case string:
		return []byte(e), nil
	case sobek.ArrayBuffer:
		return e.Bytes(), nil
	}
	if o, ok := v.(*sobek.Object); ok {
		var b []byte
		if err := rt.ExportTo(o, &b); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("expected a string or an ArrayBuffer, got %s", v.String())
}
