package webcrypto

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/grafana/sobek"
)

// jwk is a JSON Web Key: its string members, ext and key_ops.
type jwk struct {
	str    map[string]string
	ext    *bool
	keyOps []string
}

// readJWK reads a JsonWebKey object.
func (w *webcrypto) readJWK(v sobek.Value) (*jwk, error) {
	o, ok := v.(*sobek.Object)
	if _, err := w.bufferSource(v, ""); err == nil || !ok {
		return nil, fail(errType, "importKey: a jwk key must be an object, got %s", describe(v))
	}
	j := &jwk{str: map[string]string{}}
	for _, name := range o.Keys() {
		val := o.Get(name)
		switch name {
		case "ext":
			b := val.ToBoolean()
			j.ext = &b
		case "key_ops":
			if err := w.rt.ExportTo(val, &j.keyOps); err != nil {
				return nil, fail(errData, "importKey: jwk.key_ops must be an array of strings")
			}
		default:
			if s, ok := val.Export().(string); ok {
				j.str[name] = s
			}
		}
	}
	if j.str["kty"] == "" {
		return nil, fail(errData, "importKey: the jwk has no kty")
	}
	return j, nil
}

// jwkObject is j as a JavaScript object, its members in name order.
func (w *webcrypto) jwkObject(j *jwk) *sobek.Object {
	names := make([]string, 0, len(j.str)+2)
	for n := range j.str {
		names = append(names, n)
	}
	names = append(names, "ext", "key_ops")
	sort.Strings(names)
	o := w.rt.NewObject()
	for _, n := range names {
		switch n {
		case "ext":
			_ = o.Set(n, j.ext != nil && *j.ext)
		case "key_ops":
			ops := make([]any, len(j.keyOps))
			for i, u := range j.keyOps {
				ops[i] = u
			}
			_ = o.Set(n, w.rt.NewArray(ops...))
		default:
			_ = o.Set(n, j.str[n])
		}
	}
	return o
}

// bytes decodes the base64url member name; required members must be present.
func (j *jwk) bytes(name string) ([]byte, error) {
	s, ok := j.str[name]
	if !ok {
		return nil, fail(errData, "importKey: the jwk has no %q", name)
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fail(errData, "importKey: jwk.%s is not base64url: %v", name, err)
	}
	return b, nil
}

// check applies the checks every JWK import does: kty, alg when present, ext and
// key_ops against the requested extractability and usages.
func (j *jwk) check(kty, alg string, extractable bool, usages []string) error {
	if j.str["kty"] != kty {
		return fail(errData, "importKey: jwk.kty is %q, expected %q", j.str["kty"], kty)
	}
	if a, ok := j.str["alg"]; ok && alg != "" && a != alg {
		return fail(errData, "importKey: jwk.alg is %q, expected %q", a, alg)
	}
	if j.ext != nil && !*j.ext && extractable {
		return fail(errData, "importKey: the jwk is not extractable (ext: false)")
	}
	if j.keyOps != nil {
		for _, u := range usages {
			if !slices.Contains(j.keyOps, u) {
				return fail(errData, "importKey: the usage %q is not in jwk.key_ops %v", u, j.keyOps)
			}
		}
	}
	return nil
}

// jwkAlg is the JWK "alg" of a key algorithm ("" when the specification sets none).
func jwkAlg(a keyAlgorithm) string {
	bits := strings.TrimPrefix(a.hash, "SHA-")
	switch a.name {
	case algHMAC:
		return "HS" + bits
	case algAESCBC, algAESCTR, algAESGCM, algAESKW:
		return "A" + itoa(a.length) + strings.TrimPrefix(a.name, "AES-")
	case algRSASSA:
		return "RS" + bits
	case algRSAPSS:
		return "PS" + bits
	case algRSAOAEP:
		if bits == "1" {
			return "RSA-OAEP"
		}
		return "RSA-OAEP-" + bits
	}
	return ""
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// secret returns the key of an "oct" JWK for alg.
func (j *jwk) secret(alg keyAlgorithm, extractable bool, usages []string) ([]byte, error) {
	b, err := j.bytes("k")
	if err != nil {
		return nil, err
	}
	expected := keyAlgorithm{name: alg.name, hash: alg.hash, length: len(b) * 8}
	if err := j.check("oct", jwkAlg(expected), extractable, usages); err != nil {
		return nil, err
	}
	return b, nil
}

// ec returns the key of an "EC" JWK: private when it has "d".
func (j *jwk) ec(alg keyAlgorithm, extractable bool, usages []string) (*ecdsa.PrivateKey, *ecdsa.PublicKey, error) {
	if err := j.check("EC", "", extractable, usages); err != nil {
		return nil, nil, err
	}
	if j.str["crv"] != alg.namedCurve {
		return nil, nil, fail(errData, "importKey: jwk.crv is %q, the algorithm's namedCurve %q", j.str["crv"], alg.namedCurve)
	}
	curve := curveOf(alg.namedCurve)
	size := (curve.Params().BitSize + 7) / 8
	x, err := j.bytes("x")
	if err != nil {
		return nil, nil, err
	}
	y, err := j.bytes("y")
	if err != nil {
		return nil, nil, err
	}
	if len(x) != size || len(y) != size {
		return nil, nil, fail(errData, "importKey: jwk.x and jwk.y of a %s key are %d bytes long", alg.namedCurve, size)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
	if err != nil {
		return nil, nil, fail(errData, "importKey: jwk.x and jwk.y are not a %s point: %v", alg.namedCurve, err)
	}
	if _, ok := j.str["d"]; !ok {
		return nil, pub, nil
	}
	d, err := j.bytes("d")
	if err != nil {
		return nil, nil, err
	}
	priv, err := ecdsa.ParseRawPrivateKey(curve, d)
	if err != nil || !priv.PublicKey.Equal(pub) {
		return nil, nil, fail(errData, "importKey: jwk.d is not the private key of jwk.x and jwk.y (%v)", err)
	}
	return priv, nil, nil
}

// rsa returns the key of an "RSA" JWK: private when it has "d".
func (j *jwk) rsa(alg keyAlgorithm, extractable bool, usages []string) (*rsa.PrivateKey, *rsa.PublicKey, error) {
	if err := j.check("RSA", jwkAlg(alg), extractable, usages); err != nil {
		return nil, nil, err
	}
	ints := map[string]*big.Int{}
	names := []string{"n", "e"}
	if _, ok := j.str["d"]; ok {
		names = append(names, "d", "p", "q")
	}
	for _, n := range names {
		b, err := j.bytes(n)
		if err != nil {
			return nil, nil, err
		}
		ints[n] = new(big.Int).SetBytes(b)
	}
	if !ints["e"].IsInt64() || ints["e"].Int64() > 1<<31-1 {
		return nil, nil, fail(errData, "importKey: jwk.e is too large")
	}
	pub := &rsa.PublicKey{N: ints["n"], E: int(ints["e"].Int64())}
	if ints["d"] == nil {
		return nil, pub, nil
	}
	priv := &rsa.PrivateKey{PublicKey: *pub, D: ints["d"], Primes: []*big.Int{ints["p"], ints["q"]}}
	if err := priv.Validate(); err != nil {
		return nil, nil, fail(errData, "importKey: the jwk is not a valid RSA private key: %v", err)
	}
	priv.Precompute()
	return priv, &priv.PublicKey, nil
}

// exportJWK is k as a JWK.
func (k *key) exportJWK() (*jwk, error) {
	ext := k.extractable
	j := &jwk{str: map[string]string{}, ext: &ext, keyOps: append([]string{}, k.usages...)}
	b64 := func(name string, b []byte) { j.str[name] = base64.RawURLEncoding.EncodeToString(b) }
	if a := jwkAlg(k.alg); a != "" {
		j.str["alg"] = a
	}
	switch {
	case k.secret != nil:
		j.str["kty"] = "oct"
		b64("k", k.secret)
	case k.ecPriv != nil || k.ecPub != nil:
		exportECJWK(k, j, b64)
	case k.rsaPriv != nil || k.rsaPub != nil:
		exportRSAJWK(k, j, b64)
	default:
		return nil, fail(errNotSupported, "exportKey: a %s key cannot be exported as jwk", k.alg.name)
	}
	return j, nil
}

func exportECJWK(k *key, j *jwk, b64 func(string, []byte)) {
	pub := k.ecPub
	if k.ecPriv != nil {
		pub = &k.ecPriv.PublicKey
		d, _ := k.ecPriv.Bytes() // a key Go parsed or generated has its scalar
		b64("d", d)
	}
	point, _ := pub.Bytes() // a NIST-curve key encodes uncompressed
	size := (len(point) - 1) / 2
	j.str["kty"], j.str["crv"] = "EC", k.alg.namedCurve
	b64("x", point[1:1+size])
	b64("y", point[1+size:])
}

func exportRSAJWK(k *key, j *jwk, b64 func(string, []byte)) {
	pub := k.rsaPub
	if pub == nil {
		pub = &k.rsaPriv.PublicKey
	}
	j.str["kty"] = "RSA"
	b64("n", pub.N.Bytes())
	b64("e", big.NewInt(int64(pub.E)).Bytes())
	if k.rsaPriv != nil && k.typ == typePrivate {
		// Computed here rather than read from Precomputed: the key is shared with
		// operations in flight and is never modified.
		d, p, q := k.rsaPriv.D, k.rsaPriv.Primes[0], k.rsaPriv.Primes[1]
		one := big.NewInt(1)
		b64("d", d.Bytes())
		b64("p", p.Bytes())
		b64("q", q.Bytes())
		b64("dp", new(big.Int).Mod(d, new(big.Int).Sub(p, one)).Bytes())
		b64("dq", new(big.Int).Mod(d, new(big.Int).Sub(q, one)).Bytes())
		b64("qi", new(big.Int).ModInverse(q, p).Bytes())
	}
}
