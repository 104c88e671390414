// Package encoding is the native `k6/encoding` module: b64encode and b64decode
// (reference/k6-js.md §2.6) with the encodings std (the default: padded, `+/`), rawstd
// (unpadded), url (`-_`, padded) and rawurl, Go's encoding/base64 alphabets.
package encoding

import (
	"encoding/base64"
	"fmt"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/js/modules/jsbytes"
)

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m := &instance{vu: vu}
		return modules.Exports{Named: map[string]any{
			"b64encode": m.b64encode,
			"b64decode": m.b64decode,
		}}, nil
	})
}

type instance struct {
	vu modules.VU
}

// encodingOf returns the base64 encoding named by v (undefined or "" is std); other
// names are an error rather than a silent default.
func encodingOf(v sobek.Value) (*base64.Encoding, error) {
	name := ""
	if !sobek.IsUndefined(v) && !sobek.IsNull(v) {
		name = v.String()
	}
	switch name {
	case "", "std":
		return base64.StdEncoding, nil
	case "rawstd":
		return base64.RawStdEncoding, nil
	case "url":
		return base64.URLEncoding, nil
	case "rawurl":
		return base64.RawURLEncoding, nil
	}
	return nil, fmt.Errorf("unknown base64 encoding %q; expected std, rawstd, url or rawurl", name)
}

// b64encode is b64encode(input, [encoding]): input, a string (its UTF-8 bytes) or an
// ArrayBuffer, as a base64 string.
func (m *instance) b64encode(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	b, err := jsbytes.Of(rt, call.Argument(0))
	if err != nil {
		modules.Throw(rt, fmt.Errorf("b64encode: %w", err))
	}
	enc, err := encodingOf(call.Argument(1))
	if err != nil {
		modules.Throw(rt, fmt.Errorf("b64encode: %w", err))
	}
	return rt.ToValue(enc.EncodeToString(b))
}

// b64decode is b64decode(input, [encoding], [format]): an ArrayBuffer, or a string
// (the bytes as UTF-8) when format is "s".
func (m *instance) b64decode(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	in := call.Argument(0)
	if sobek.IsUndefined(in) || sobek.IsNull(in) {
		modules.Throw(rt, fmt.Errorf("b64decode: expected a base64 string, got %s", in))
	}
	enc, err := encodingOf(call.Argument(1))
	if err != nil {
		modules.Throw(rt, fmt.Errorf("b64decode: %w", err))
	}
	b, err := enc.DecodeString(in.String())
	if err != nil {
		modules.Throw(rt, fmt.Errorf("b64decode: %w", err))
	}
	switch f := call.Argument(2); {
	case sobek.IsUndefined(f) || sobek.IsNull(f) || f.String() == "":
		return rt.ToValue(rt.NewArrayBuffer(b))
	case f.String() == "s":
		return rt.ToValue(string(b))
	default:
		modules.Throw(rt, fmt.Errorf("b64decode: unknown output format %q; expected \"s\" for a string, or none for an ArrayBuffer", f.String()))
	}
	return nil
}
