package webcrypto

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"slices"

	"github.com/grafana/sobek"
)

// Key types (CryptoKey.type).
const (
	typeSecret  = "secret"
	typePublic  = "public"
	typePrivate = "private"
)

// keyAlgorithm is a CryptoKey's algorithm: its name and the members of its kind.
type keyAlgorithm struct {
	name           string
	hash           string // HMAC, RSA-*
	length         int    // AES-*, HMAC: bits
	namedCurve     string // ECDSA, ECDH
	modulusLength  int    // RSA-*
	publicExponent []byte // RSA-*
}

// key is a CryptoKey's Go side: its attributes and its material.
type key struct {
	typ         string
	extractable bool
	alg         keyAlgorithm
	usages      []string

	secret  []byte // AES-*, HMAC, PBKDF2
	ecPriv  *ecdsa.PrivateKey
	ecPub   *ecdsa.PublicKey
	rsaPriv *rsa.PrivateKey
	rsaPub  *rsa.PublicKey
}

// keyPair is a CryptoKeyPair.
type keyPair struct {
	public, private *key
}

// keyObject is k as a CryptoKey object: type, extractable, algorithm and usages, and
// k itself under a hidden symbol.
func (w *webcrypto) keyObject(k *key) *sobek.Object {
	rt := w.rt
	o := rt.NewObject()
	_ = o.Set("type", k.typ)
	_ = o.Set("extractable", k.extractable)
	_ = o.Set("algorithm", w.algorithmObject(k.alg))
	usages := make([]any, len(k.usages))
	for i, u := range k.usages {
		usages[i] = u
	}
	_ = o.Set("usages", rt.NewArray(usages...))
	_ = o.DefineDataPropertySymbol(w.keySym, rt.ToValue(k), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE)
	return o
}

// algorithmObject is a key's algorithm as JavaScript sees it (KeyAlgorithm and its
// AES, HMAC, EC and RSA-hashed extensions).
func (w *webcrypto) algorithmObject(a keyAlgorithm) *sobek.Object {
	rt := w.rt
	o := rt.NewObject()
	_ = o.Set("name", a.name)
	switch a.name {
	case algAESCBC, algAESCTR, algAESGCM, algAESKW:
		_ = o.Set("length", a.length)
	case algHMAC:
		_ = o.Set("hash", w.nameObject(a.hash))
		_ = o.Set("length", a.length)
	case algECDSA, algECDH:
		_ = o.Set("namedCurve", a.namedCurve)
	case algRSAOAEP, algRSASSA, algRSAPSS:
		_ = o.Set("modulusLength", a.modulusLength)
		u8, _ := rt.New(rt.Get("Uint8Array"), rt.ToValue(rt.NewArrayBuffer(append([]byte(nil), a.publicExponent...))))
		_ = o.Set("publicExponent", u8)
		_ = o.Set("hash", w.nameObject(a.hash))
	}
	return o
}

// nameObject is {name: name}.
func (w *webcrypto) nameObject(name string) *sobek.Object {
	o := w.rt.NewObject()
	_ = o.Set("name", name)
	return o
}

// keyOf returns the key of a CryptoKey object.
func (w *webcrypto) keyOf(v sobek.Value, op, what string) (*key, error) {
	if o, ok := v.(*sobek.Object); ok {
		if hidden := o.GetSymbol(w.keySym); hidden != nil {
			if k, ok := hidden.Export().(*key); ok {
				return k, nil
			}
		}
	}
	return nil, fail(errType, "%s: %s must be a CryptoKey, got %s", op, what, describe(v))
}

// use checks that k is a key of one of algs that may be used for usage.
func (k *key) use(op, usage string, algs ...string) error {
	if !slices.Contains(algs, k.alg.name) {
		return fail(errInvalidAccess, "%s: the key is a %s key, not %v", op, k.alg.name, algs)
	}
	if !slices.Contains(k.usages, usage) {
		return fail(errInvalidAccess, "%s: the key's usages %v do not include %q", op, k.usages, usage)
	}
	return nil
}
