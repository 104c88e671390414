package webcrypto

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	_ "crypto/sha1" // SHA-1 for digest, HMAC, RSA and PBKDF2
	_ "crypto/sha256"
	_ "crypto/sha512"
	"math/big"

	"github.com/grafana/sobek"
)

// work is what an asynchronous method does off the VU's goroutine.
type work = func() (any, error)

// subtle is the crypto.subtle object.
func (w *webcrypto) subtle() *sobek.Object {
	o := w.rt.NewObject()
	methods := map[string]func(sobek.FunctionCall) (work, error){
		"digest":      w.digest,
		"generateKey": w.generateKey,
		"importKey":   w.importKey,
		"exportKey":   w.exportKey,
		"sign":        w.sign,
		"verify":      w.verify,
		"encrypt":     func(c sobek.FunctionCall) (work, error) { return w.crypt(c, "encrypt") },
		"decrypt":     func(c sobek.FunctionCall) (work, error) { return w.crypt(c, "decrypt") },
		"deriveBits":  w.deriveBits,
		"deriveKey":   w.deriveKey,
	}
	for name, m := range methods {
		_ = o.Set(name, func(call sobek.FunctionCall) sobek.Value {
			return w.promise(func() (work, error) { return m(call) })
		})
	}
	return o
}

// digest is subtle.digest(algorithm, data).
func (w *webcrypto) digest(call sobek.FunctionCall) (work, error) {
	p, err := readParams(call.Argument(0), "digest", algSHA1, algSHA256, algSHA384, algSHA512)
	if err != nil {
		return nil, err
	}
	data, err := w.bufferSource(call.Argument(1), "digest: data")
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		h := hashOf(p.name).New()
		h.Write(data)
		return h.Sum(nil), nil
	}, nil
}

// generateKey is subtle.generateKey(algorithm, extractable, keyUsages).
func (w *webcrypto) generateKey(call sobek.FunctionCall) (work, error) {
	const op = "generateKey"
	p, err := readParams(call.Argument(0), op, algAESCBC, algAESCTR, algAESGCM, algHMAC,
		algECDSA, algECDH, algRSAOAEP, algRSASSA, algRSAPSS)
	if err != nil {
		return nil, err
	}
	usages, err := readUsages(w.rt, call.Argument(2), op)
	if err != nil {
		return nil, err
	}
	extractable := call.Argument(1).ToBoolean()
	switch p.name {
	case algAESCBC, algAESCTR, algAESGCM:
		return generateAES(p, extractable, usages)
	case algHMAC:
		return generateHMAC(p, extractable, usages)
	case algECDSA, algECDH:
		return generateEC(p, extractable, usages)
	}
	return w.generateRSA(p, extractable, usages)
}

// secretKey is a new secret key of alg with usages, failing with a SyntaxError
// when usages is empty.
func secretKey(op string, alg keyAlgorithm, extractable bool, usages []string, b []byte) (*key, error) {
	if len(usages) == 0 {
		return nil, fail(errSyntax, "%s: a %s key needs at least one usage", op, alg.name)
	}
	return &key{typ: typeSecret, extractable: extractable, alg: alg, usages: usages, secret: b}, nil
}

// aesUsages are the usages an AES key may have.
func aesUsages(name string) []string {
	if name == algAESKW {
		return []string{usageWrap, usageUnwrap}
	}
	return []string{usageEnc, usageDec, usageWrap, usageUnwrap}
}

func generateAES(p params, extractable bool, usages []string) (work, error) {
	const op = "generateKey"
	if err := checkUsages(op, p.name, usages, aesUsages(p.name)...); err != nil {
		return nil, err
	}
	bits, ok, err := p.number("length", op)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fail(errType, "%s: %s requires a length", op, p.name)
	}
	if bits != 128 && bits != 192 && bits != 256 {
		return nil, fail(errOperation, "%s: an AES key is 128, 192 or 256 bits long, not %d", op, bits)
	}
	return func() (any, error) {
		b := make([]byte, bits/8)
		_, _ = rand.Read(b)
		return secretKey(op, keyAlgorithm{name: p.name, length: bits}, extractable, usages, b)
	}, nil
}

// hmacBlockBits is the default length of an HMAC key: the hash's block size.
func hmacBlockBits(hash string) int {
	return hashOf(hash).New().BlockSize() * 8
}

func generateHMAC(p params, extractable bool, usages []string) (work, error) {
	const op = "generateKey"
	if err := checkUsages(op, p.name, usages, usageSign, usageVerify); err != nil {
		return nil, err
	}
	hash, err := p.hash(op, true)
	if err != nil {
		return nil, err
	}
	bits, ok, err := p.number("length", op)
	if err != nil {
		return nil, err
	}
	if !ok {
		bits = hmacBlockBits(hash)
	}
	if bits == 0 {
		return nil, fail(errOperation, "%s: an HMAC key's length cannot be 0", op)
	}
	return func() (any, error) {
		b := make([]byte, (bits+7)/8)
		_, _ = rand.Read(b)
		return secretKey(op, keyAlgorithm{name: algHMAC, hash: hash, length: bits}, extractable, usages, b)
	}, nil
}

// pairUsages are the usages of the public and private keys of a pair of alg.
func pairUsages(alg string) (public, private []string) {
	switch alg {
	case algECDSA, algRSASSA, algRSAPSS:
		return []string{usageVerify}, []string{usageSign}
	case algECDH:
		return []string{}, []string{usageDKey, usageDBits}
	}
	return []string{usageEnc, usageWrap}, []string{usageDec, usageUnwrap}
}

// newPair is a key pair with usages split as the specification splits them.
func newPair(op string, alg keyAlgorithm, extractable bool, usages []string) (keyPair, error) {
	pubU, privU := pairUsages(alg.name)
	if err := checkUsages(op, alg.name, usages, append(append([]string{}, pubU...), privU...)...); err != nil {
		return keyPair{}, err
	}
	priv := &key{typ: typePrivate, extractable: extractable, alg: alg, usages: only(usages, privU...)}
	if len(priv.usages) == 0 {
		return keyPair{}, fail(errSyntax, "%s: the private key of a %s pair needs at least one of the usages %v", op, alg.name, privU)
	}
	pub := &key{typ: typePublic, extractable: true, alg: alg, usages: only(usages, pubU...)}
	return keyPair{public: pub, private: priv}, nil
}

func generateEC(p params, extractable bool, usages []string) (work, error) {
	const op = "generateKey"
	curve, err := p.curve(op)
	if err != nil {
		return nil, err
	}
	pair, err := newPair(op, keyAlgorithm{name: p.name, namedCurve: curve}, extractable, usages)
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		priv, err := ecdsa.GenerateKey(curveOf(curve), rand.Reader)
		if err != nil {
			return nil, fail(errOperation, "%s: %v", op, err)
		}
		pair.private.ecPriv, pair.public.ecPub = priv, &priv.PublicKey
		return pair, nil
	}, nil
}

func (w *webcrypto) generateRSA(p params, extractable bool, usages []string) (work, error) {
	const op = "generateKey"
	hash, err := p.hash(op, true)
	if err != nil {
		return nil, err
	}
	bits, ok, err := p.number("modulusLength", op)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fail(errType, "%s: %s requires a modulusLength", op, p.name)
	}
	e, err := w.publicExponent(p, op)
	if err != nil {
		return nil, err
	}
	pair, err := newPair(op, keyAlgorithm{name: p.name, hash: hash, modulusLength: bits, publicExponent: e}, extractable, usages)
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		priv, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			return nil, fail(errOperation, "%s: a %d-bit RSA key: %v", op, bits, err)
		}
		pair.private.rsaPriv, pair.public.rsaPub = priv, &priv.PublicKey
		return pair, nil
	}, nil
}

// publicExponent reads an RSA key's publicExponent: Go generates keys with 65537 only.
func (w *webcrypto) publicExponent(p params, op string) ([]byte, error) {
	v := p.get("publicExponent")
	if v == nil {
		return nil, fail(errType, "%s: %s requires a publicExponent", op, p.name)
	}
	o, ok := v.(*sobek.Object)
	if !ok || o.ExportType().String() != "[]uint8" {
		return nil, fail(errType, "%s: publicExponent must be a Uint8Array, got %s", op, describe(v))
	}
	var b []byte
	_ = w.rt.ExportTo(o, &b) // a Uint8Array exports as bytes
	if new(big.Int).SetBytes(b).Int64() != 65537 {
		return nil, fail(errOperation, "%s: only the public exponent 65537 ([1, 0, 1]) is supported, got %v", op, b)
	}
	return []byte{1, 0, 1}, nil
}
