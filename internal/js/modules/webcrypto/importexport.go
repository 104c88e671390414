package webcrypto

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"math/big"

	"github.com/grafana/sobek"
)

// Key formats.
const (
	fmtRaw   = "raw"
	fmtSPKI  = "spki"
	fmtPKCS8 = "pkcs8"
	fmtJWK   = "jwk"
)

// importSpec is what importKey read from its arguments.
type importSpec struct {
	format      string
	data        []byte // raw, spki, pkcs8
	jwk         *jwk
	alg         keyAlgorithm // name, and hash, namedCurve or length as given
	hasLength   bool
	extractable bool
	usages      []string
}

// importKey is subtle.importKey(format, keyData, algorithm, extractable, keyUsages).
// Importing is cheap: it is done before the promise is returned.
func (w *webcrypto) importKey(call sobek.FunctionCall) (work, error) {
	spec, err := w.readImport(call)
	if err != nil {
		return nil, err
	}
	var k *key
	switch spec.alg.name {
	case algAESCBC, algAESCTR, algAESGCM, algHMAC, algPBKDF2:
		k, err = importSecret(spec)
	case algECDSA, algECDH:
		k, err = importEC(spec)
	default:
		k, err = importRSA(spec)
	}
	if err != nil {
		return nil, err
	}
	return func() (any, error) { return k, nil }, nil
}

// readImport reads importKey's arguments.
func (w *webcrypto) readImport(call sobek.FunctionCall) (importSpec, error) {
	const op = "importKey"
	spec := importSpec{format: call.Argument(0).String(), extractable: call.Argument(3).ToBoolean()}
	if err := checkFormat(op, spec.format); err != nil {
		return spec, err
	}
	p, err := readParams(call.Argument(2), op, algAESCBC, algAESCTR, algAESGCM, algHMAC,
		algECDSA, algECDH, algRSAOAEP, algRSASSA, algRSAPSS, algPBKDF2)
	if err != nil {
		return spec, err
	}
	spec.alg.name = p.name
	if spec.usages, err = readUsages(w.rt, call.Argument(4), op); err != nil {
		return spec, err
	}
	switch p.name {
	case algHMAC, algRSAOAEP, algRSASSA, algRSAPSS:
		spec.alg.hash, err = p.hash(op, true)
	case algECDSA, algECDH:
		spec.alg.namedCurve, err = p.curve(op)
	}
	if err != nil {
		return spec, err
	}
	if spec.alg.length, spec.hasLength, err = p.number("length", op); err != nil {
		return spec, err
	}
	if spec.format == fmtJWK {
		spec.jwk, err = w.readJWK(call.Argument(1))
	} else {
		spec.data, err = w.bufferSource(call.Argument(1), op+": keyData")
	}
	return spec, err
}

// checkFormat fails with a NotSupportedError for a format that is not one of the four.
func checkFormat(op, format string) error {
	switch format {
	case fmtRaw, fmtSPKI, fmtPKCS8, fmtJWK:
		return nil
	}
	return fail(errNotSupported, "%s: the key format %q is not supported (raw, spki, pkcs8, jwk)", op, format)
}

// importSecret imports an AES, HMAC or PBKDF2 key.
func importSecret(s importSpec) (*key, error) {
	const op = "importKey"
	if s.alg.name == algPBKDF2 {
		if err := checkPBKDF2Import(s); err != nil {
			return nil, err
		}
	}
	allowed := aesUsages(s.alg.name)
	switch s.alg.name {
	case algHMAC:
		allowed = []string{usageSign, usageVerify}
	case algPBKDF2:
		allowed = []string{usageDKey, usageDBits}
	}
	if err := checkUsages(op, s.alg.name, s.usages, allowed...); err != nil {
		return nil, err
	}
	b := s.data
	switch s.format {
	case fmtJWK:
		var err error
		if b, err = s.jwk.secret(s.alg, s.extractable, s.usages); err != nil {
			return nil, err
		}
	case fmtSPKI, fmtPKCS8:
		return nil, fail(errNotSupported, "%s: a %s key cannot be imported from %s", op, s.alg.name, s.format)
	}
	alg := keyAlgorithm{name: s.alg.name, hash: s.alg.hash, length: len(b) * 8}
	switch s.alg.name {
	case algHMAC:
		if len(b) == 0 || s.hasLength && s.alg.length != len(b)*8 {
			return nil, fail(errData, "%s: the HMAC key is %d bits long, the algorithm's length is %d", op, len(b)*8, s.alg.length)
		}
	case algAESCBC, algAESCTR, algAESGCM:
		if len(b) != 16 && len(b) != 24 && len(b) != 32 {
			return nil, fail(errData, "%s: an AES key is 128, 192 or 256 bits long, not %d", op, len(b)*8)
		}
	case algPBKDF2:
		alg.length = 0
	}
	return secretKey(op, alg, s.extractable, s.usages, b)
}

// checkPBKDF2Import applies k6's PBKDF2 constraints: raw format only, not
// extractable, deriveBits and deriveKey usages only.
func checkPBKDF2Import(s importSpec) error {
	const op = "importKey"
	if s.format != fmtRaw {
		return fail(errNotSupported, "%s: a PBKDF2 key can be imported from raw only, not %s", op, s.format)
	}
	if s.extractable {
		return fail(errSyntax, "%s: a PBKDF2 key cannot be extractable", op)
	}
	return nil
}

// importEC imports an ECDSA or ECDH key.
func importEC(s importSpec) (*key, error) {
	const op = "importKey"
	curve := curveOf(s.alg.namedCurve)
	var priv *ecdsa.PrivateKey
	var pub *ecdsa.PublicKey
	switch s.format {
	case fmtRaw:
		p, err := ecdsa.ParseUncompressedPublicKey(curve, s.data)
		if err != nil {
			return nil, fail(errData, "%s: not an uncompressed %s point: %v", op, s.alg.namedCurve, err)
		}
		pub = p
	case fmtSPKI:
		parsed, err := x509.ParsePKIXPublicKey(s.data)
		p, ok := parsed.(*ecdsa.PublicKey)
		if err != nil || !ok || p.Curve != curve {
			return nil, fail(errData, "%s: not an SPKI %s public key (%v)", op, s.alg.namedCurve, err)
		}
		pub = p
	case fmtPKCS8:
		parsed, err := x509.ParsePKCS8PrivateKey(s.data)
		p, ok := parsed.(*ecdsa.PrivateKey)
		if err != nil || !ok || p.Curve != curve {
			return nil, fail(errData, "%s: not a PKCS #8 %s private key (%v)", op, s.alg.namedCurve, err)
		}
		priv = p
	case fmtJWK:
		var err error
		if priv, pub, err = s.jwk.ec(s.alg, s.extractable, s.usages); err != nil {
			return nil, err
		}
	}
	return asymmetricKey(s, keyAlgorithm{name: s.alg.name, namedCurve: s.alg.namedCurve}, func(k *key) {
		k.ecPriv, k.ecPub = priv, pub
	}, priv != nil)
}

// asymmetricKey checks the usages of an imported public or private key and makes it.
func asymmetricKey(s importSpec, alg keyAlgorithm, set func(*key), private bool) (*key, error) {
	const op = "importKey"
	pubU, privU := pairUsages(alg.name)
	k := &key{typ: typePublic, extractable: s.extractable, alg: alg, usages: s.usages}
	allowed := pubU
	if private {
		k.typ, allowed = typePrivate, privU
		if len(s.usages) == 0 {
			return nil, fail(errSyntax, "%s: a private %s key needs at least one usage", op, alg.name)
		}
	}
	if err := checkUsages(op, alg.name+" "+k.typ, s.usages, allowed...); err != nil {
		return nil, err
	}
	set(k)
	return k, nil
}

// importRSA imports an RSA-OAEP, RSASSA-PKCS1-v1_5 or RSA-PSS key.
func importRSA(s importSpec) (*key, error) {
	const op = "importKey"
	var priv *rsa.PrivateKey
	var pub *rsa.PublicKey
	switch s.format {
	case fmtSPKI:
		parsed, err := x509.ParsePKIXPublicKey(s.data)
		p, ok := parsed.(*rsa.PublicKey)
		if err != nil || !ok {
			return nil, fail(errData, "%s: not an SPKI RSA public key (%v)", op, err)
		}
		pub = p
	case fmtPKCS8:
		parsed, err := x509.ParsePKCS8PrivateKey(s.data)
		p, ok := parsed.(*rsa.PrivateKey)
		if err != nil || !ok {
			return nil, fail(errData, "%s: not a PKCS #8 RSA private key (%v)", op, err)
		}
		priv, pub = p, &p.PublicKey
	case fmtJWK:
		var err error
		if priv, pub, err = s.jwk.rsa(s.alg, s.extractable, s.usages); err != nil {
			return nil, err
		}
	default:
		return nil, fail(errNotSupported, "%s: an RSA key cannot be imported from %s", op, s.format)
	}
	alg := keyAlgorithm{name: s.alg.name, hash: s.alg.hash, modulusLength: pub.N.BitLen(),
		publicExponent: big.NewInt(int64(pub.E)).Bytes()}
	return asymmetricKey(s, alg, func(k *key) {
		k.rsaPriv, k.rsaPub = priv, pub
	}, priv != nil)
}

// exportKey is subtle.exportKey(format, key).
func (w *webcrypto) exportKey(call sobek.FunctionCall) (work, error) {
	const op = "exportKey"
	format := call.Argument(0).String()
	if err := checkFormat(op, format); err != nil {
		return nil, err
	}
	k, err := w.keyOf(call.Argument(1), op, "key")
	if err != nil {
		return nil, err
	}
	if !k.extractable {
		return nil, fail(errInvalidAccess, "%s: the key is not extractable", op)
	}
	var out any
	switch format {
	case fmtRaw:
		out, err = k.exportRaw()
	case fmtSPKI:
		out, err = k.exportSPKI()
	case fmtPKCS8:
		out, err = k.exportPKCS8()
	default:
		out, err = k.exportJWK()
	}
	if err != nil {
		return nil, err
	}
	return func() (any, error) { return out, nil }, nil
}

func (k *key) exportRaw() ([]byte, error) {
	switch {
	case k.secret != nil:
		return append([]byte(nil), k.secret...), nil
	case k.typ == typePublic && k.ecPub != nil:
		return k.ecPub.Bytes()
	}
	return nil, fail(errInvalidAccess, "exportKey: a %s %s key cannot be exported as raw", k.typ, k.alg.name)
}

func (k *key) exportSPKI() ([]byte, error) {
	var pub any
	switch {
	case k.typ == typePublic && k.ecPub != nil:
		pub = k.ecPub
	case k.typ == typePublic && k.rsaPub != nil:
		pub = k.rsaPub
	default:
		return nil, fail(errInvalidAccess, "exportKey: a %s %s key cannot be exported as spki", k.typ, k.alg.name)
	}
	b, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fail(errOperation, "exportKey: %v", err)
	}
	return b, nil
}

func (k *key) exportPKCS8() ([]byte, error) {
	var priv any
	switch {
	case k.ecPriv != nil:
		priv = k.ecPriv
	case k.rsaPriv != nil:
		priv = k.rsaPriv
	default:
		return nil, fail(errInvalidAccess, "exportKey: a %s %s key cannot be exported as pkcs8", k.typ, k.alg.name)
	}
	b, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fail(errOperation, "exportKey: %v", err)
	}
	return b, nil
}
