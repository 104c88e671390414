package webcrypto

import (
	"crypto/pbkdf2"

	"github.com/grafana/sobek"
)

// deriveSpec is what deriveBits and deriveKey read from their arguments.
type deriveSpec struct {
	k          *key
	alg        string
	public     *key // ECDH
	salt       []byte
	iterations int
	hash       string
}

// readDerive reads the algorithm and base key of deriveBits (ECDH, PBKDF2) or
// deriveKey (PBKDF2: k6 derives keys from nothing else).
func (w *webcrypto) readDerive(call sobek.FunctionCall, op, usage string, algs ...string) (deriveSpec, error) {
	var s deriveSpec
	p, err := readParams(call.Argument(0), op, algs...)
	if err != nil {
		return s, err
	}
	s.alg = p.name
	if s.k, err = w.keyOf(call.Argument(1), op, "baseKey"); err != nil {
		return s, err
	}
	if err = s.k.use(op, usage, p.name); err != nil {
		return s, err
	}
	if p.name == algECDH {
		if s.k.typ != typePrivate {
			return s, fail(errInvalidAccess, "%s: the ECDH base key must be a private key", op)
		}
		return s, w.readECDH(p, &s, op)
	}
	if s.hash, err = p.hash(op, true); err != nil {
		return s, err
	}
	if s.salt, err = w.member(p, "salt", op, true); err != nil {
		return s, err
	}
	n, ok, err := p.number("iterations", op)
	if err != nil {
		return s, err
	}
	if !ok || n == 0 {
		return s, fail(errOperation, "%s: PBKDF2's iterations must be greater than 0", op)
	}
	s.iterations = n
	return s, nil
}

// readECDH reads the other party's public key: "public" as the specification
// names it, or "publicKey" as k6's EcdhKeyDeriveParams does.
func (w *webcrypto) readECDH(p params, s *deriveSpec, op string) error {
	v := p.get("public")
	if v == nil {
		v = p.get("publicKey")
	}
	pub, err := w.keyOf(v, op, "the ECDH public key")
	if err != nil {
		return err
	}
	if pub.typ != typePublic || pub.alg.name != algECDH {
		return fail(errInvalidAccess, "%s: the other party's key must be an ECDH public key, not a %s %s key", op, pub.typ, pub.alg.name)
	}
	if pub.alg.namedCurve != s.k.alg.namedCurve {
		return fail(errInvalidAccess, "%s: the public key's curve %s is not the private key's %s", op, pub.alg.namedCurve, s.k.alg.namedCurve)
	}
	s.public = pub
	return nil
}

// bits derives n bits.
func (s deriveSpec) bits(op string, n int) ([]byte, error) {
	if n == 0 || n%8 != 0 {
		return nil, fail(errOperation, "%s: the length must be a positive multiple of 8, not %d", op, n)
	}
	if s.alg == algPBKDF2 {
		b, err := pbkdf2.Key(hashOf(s.hash).New, string(s.k.secret), s.salt, s.iterations, n/8)
		if err != nil {
			return nil, fail(errOperation, "%s: %v", op, err)
		}
		return b, nil
	}
	priv, err := s.k.ecPriv.ECDH()
	if err != nil {
		return nil, fail(errOperation, "%s: %v", op, err)
	}
	pub, err := s.public.ecPub.ECDH()
	if err != nil {
		return nil, fail(errOperation, "%s: %v", op, err)
	}
	secret, err := priv.ECDH(pub)
	if err != nil {
		return nil, fail(errOperation, "%s: %v", op, err)
	}
	if n > len(secret)*8 {
		return nil, fail(errOperation, "%s: ECDH on %s gives %d bits, not %d", op, s.k.alg.namedCurve, len(secret)*8, n)
	}
	return secret[:n/8], nil
}

// deriveBits is subtle.deriveBits(algorithm, baseKey, length).
func (w *webcrypto) deriveBits(call sobek.FunctionCall) (work, error) {
	const op = "deriveBits"
	s, err := w.readDerive(call, op, usageDBits, algECDH, algPBKDF2)
	if err != nil {
		return nil, err
	}
	n := 0
	if l := call.Argument(2); !sobek.IsUndefined(l) && !sobek.IsNull(l) {
		n = int(l.ToInteger())
	} else if s.alg == algECDH {
		n = (curveOf(s.k.alg.namedCurve).Params().BitSize + 7) / 8 * 8
	}
	return func() (any, error) { return s.bits(op, n) }, nil
}

// deriveKey is subtle.deriveKey(algorithm, baseKey, derivedKeyType, extractable,
// keyUsages): PBKDF2 into an AES key, as k6 documents.
func (w *webcrypto) deriveKey(call sobek.FunctionCall) (work, error) {
	const op = "deriveKey"
	s, err := w.readDerive(call, op, usageDKey, algPBKDF2)
	if err != nil {
		return nil, err
	}
	t, err := readParams(call.Argument(2), op, algAESCBC, algAESCTR, algAESGCM, algAESKW)
	if err != nil {
		return nil, err
	}
	bits, ok, err := t.number("length", op)
	if err != nil {
		return nil, err
	}
	if !ok || bits != 128 && bits != 192 && bits != 256 {
		return nil, fail(errOperation, "%s: an AES key is 128, 192 or 256 bits long, got %v", op, t.get("length"))
	}
	usages, err := readUsages(w.rt, call.Argument(4), op)
	if err != nil {
		return nil, err
	}
	if err := checkUsages(op, t.name, usages, aesUsages(t.name)...); err != nil {
		return nil, err
	}
	extractable := call.Argument(3).ToBoolean()
	return func() (any, error) {
		b, err := s.bits(op, bits)
		if err != nil {
			return nil, err
		}
		return secretKey(op, keyAlgorithm{name: t.name, length: bits}, extractable, usages, b)
	}, nil
}
