// Package crypto is the native `k6/crypto` module (reference/k6-js.md §2.6): the hash
// functions md4, md5, sha1, sha256, sha384, sha512, sha512_224, sha512_256 and
// ripemd160 (input, outputEncoding), hmac(algorithm, secret, data, outputEncoding),
// createHash(algorithm) and createHMAC(algorithm, secret) with update and digest, and
// randomBytes(n). Hashes come from Go's standard library, md4 and ripemd160 from
// golang.org/x/crypto.
//
// Inputs are strings (their UTF-8 bytes) or ArrayBuffers (typed arrays too). Output
// encodings are hex, base64, base64url (padded), base64rawurl and binary, an
// ArrayBuffer (the docs' example wraps it in a Uint8Array, which works on either an
// ArrayBuffer or their "array of integers").
package crypto

import (
	"crypto/hmac"
	"crypto/md5" //nolint:gosec // k6/crypto offers md5 to scripts; not a security measure of ours.
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // k6/crypto offers sha1 to scripts.
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"

	"github.com/grafana/sobek"
	"golang.org/x/crypto/md4"       //nolint:staticcheck,gosec // k6/crypto documents md4; scripts ask for it.
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck,gosec // k6/crypto documents ripemd160; scripts ask for it.

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/js/modules/jsbytes"
)

// algorithms are the hash functions by their k6 names.
func algorithms() map[string]func() hash.Hash {
	return map[string]func() hash.Hash{
		"md4":        md4.New,
		"md5":        md5.New,
		"sha1":       sha1.New,
		"sha256":     sha256.New,
		"sha384":     sha512.New384,
		"sha512":     sha512.New,
		"sha512_224": sha512.New512_224,
		"sha512_256": sha512.New512_256,
		"ripemd160":  ripemd160.New,
	}
}

// New returns the module.
func New() modules.Module {
	algs := algorithms()
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m := &instance{vu: vu, algs: algs}
		named := map[string]any{
			"hmac":        m.hmac,
			"createHash":  m.createHash,
			"createHMAC":  m.createHMAC,
			"randomBytes": m.randomBytes,
		}
		for name := range algs {
			named[name] = m.digestOf(name)
		}
		return modules.Exports{Named: named}, nil
	})
}

type instance struct {
	vu   modules.VU
	algs map[string]func() hash.Hash
}

// newHash returns a hash of algorithm name, or throws naming the known ones.
func (m *instance) newHash(what string, name sobek.Value) func() hash.Hash {
	if f, ok := m.algs[name.String()]; ok && !sobek.IsUndefined(name) {
		return f
	}
	names := make([]string, 0, len(m.algs))
	for n := range m.algs {
		names = append(names, n)
	}
	slices.Sort(names)
	modules.Throw(m.vu.Runtime(), fmt.Errorf("%s: unknown hash algorithm %q; expected one of %v", what, name.String(), names))
	return nil
}

// input returns the bytes of a string or ArrayBuffer argument, or throws.
func (m *instance) input(what string, v sobek.Value) []byte {
	b, err := jsbytes.Of(m.vu.Runtime(), v)
	if err != nil {
		modules.Throw(m.vu.Runtime(), fmt.Errorf("%s: %w", what, err))
	}
	return b
}

// encode returns sum in the output encoding enc.
func (m *instance) encode(what string, sum []byte, enc sobek.Value) sobek.Value {
	rt := m.vu.Runtime()
	name := ""
	if !sobek.IsUndefined(enc) && !sobek.IsNull(enc) {
		name = enc.String()
	}
	switch name {
	case "hex":
		return rt.ToValue(hex.EncodeToString(sum))
	case "base64":
		return rt.ToValue(base64.StdEncoding.EncodeToString(sum))
	case "base64url":
		return rt.ToValue(base64.URLEncoding.EncodeToString(sum))
	case "base64rawurl":
		return rt.ToValue(base64.RawURLEncoding.EncodeToString(sum))
	case "binary":
		return rt.ToValue(rt.NewArrayBuffer(sum))
	}
	modules.Throw(rt, fmt.Errorf("%s: unknown output encoding %q; expected hex, base64, base64url, base64rawurl or binary", what, name))
	return nil
}

// digestOf is the function md5(input, outputEncoding) and its kin.
func (m *instance) digestOf(alg string) func(sobek.FunctionCall) sobek.Value {
	return func(call sobek.FunctionCall) sobek.Value {
		h := m.algs[alg]()
		h.Write(m.input(alg, call.Argument(0)))
		return m.encode(alg, h.Sum(nil), call.Argument(1))
	}
}

// hmac is hmac(algorithm, secret, data, outputEncoding).
func (m *instance) hmac(call sobek.FunctionCall) sobek.Value {
	f := m.newHash("hmac", call.Argument(0))
	h := hmac.New(f, m.input("hmac secret", call.Argument(1)))
	h.Write(m.input("hmac data", call.Argument(2)))
	return m.encode("hmac", h.Sum(nil), call.Argument(3))
}

// createHash is createHash(algorithm): an object with update(input) and
// digest(outputEncoding).
func (m *instance) createHash(call sobek.FunctionCall) sobek.Value {
	f := m.newHash("createHash", call.Argument(0))
	return m.hasher("createHash", f())
}

// createHMAC is createHMAC(algorithm, secret), the same object keyed.
func (m *instance) createHMAC(call sobek.FunctionCall) sobek.Value {
	f := m.newHash("createHMAC", call.Argument(0))
	return m.hasher("createHMAC", hmac.New(f, m.input("createHMAC secret", call.Argument(1))))
}

// hasher is the object of createHash and createHMAC. digest may be called more than
// once, and update after it: it does not reset the hash.
func (m *instance) hasher(what string, h hash.Hash) sobek.Value {
	rt := m.vu.Runtime()
	o := rt.NewObject()
	must := func(err error) {
		if err != nil {
			modules.Throw(rt, fmt.Errorf("%s: %w", what, err))
		}
	}
	must(o.Set("update", func(call sobek.FunctionCall) sobek.Value {
		h.Write(m.input(what+" update", call.Argument(0)))
		return call.This
	}))
	must(o.Set("digest", func(call sobek.FunctionCall) sobek.Value {
		return m.encode(what+" digest", h.Sum(nil), call.Argument(0))
	}))
	return o
}

// maxRandomBytes bounds randomBytes so that a wrong argument throws instead of
// exhausting the process's memory: 64 MiB is far more than any token or nonce.
const maxRandomBytes = 64 << 20

// randomBytes is randomBytes(n): an ArrayBuffer of n bytes from crypto/rand.
func (m *instance) randomBytes(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	n := call.Argument(0).ToInteger()
	if n < 0 || n > maxRandomBytes || sobek.IsUndefined(call.Argument(0)) {
		modules.Throw(rt, fmt.Errorf("randomBytes: expected a size from 0 to %d, got %s", maxRandomBytes, call.Argument(0)))
	}
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		modules.Throw(rt, fmt.Errorf("randomBytes: %w", err))
	}
	return rt.ToValue(rt.NewArrayBuffer(b))
}
