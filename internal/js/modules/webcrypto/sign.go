package webcrypto

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"math/big"

	"github.com/grafana/sobek"
)

// signSpec is what sign and verify read from their arguments.
type signSpec struct {
	k          *key
	hash       crypto.Hash
	saltLength int
	data       []byte
	signature  []byte // verify
}

// readSign reads sign(algorithm, key, data) or, with verify, verify(algorithm, key,
// signature, data).
func (w *webcrypto) readSign(call sobek.FunctionCall, op, usage string) (signSpec, error) {
	var s signSpec
	p, err := readParams(call.Argument(0), op, algHMAC, algECDSA, algRSASSA, algRSAPSS)
	if err != nil {
		return s, err
	}
	if s.k, err = w.keyOf(call.Argument(1), op, "key"); err != nil {
		return s, err
	}
	if err = s.k.use(op, usage, p.name); err != nil {
		return s, err
	}
	dataArg := call.Argument(2)
	if usage == usageVerify {
		if s.signature, err = w.bufferSource(call.Argument(2), op+": signature"); err != nil {
			return s, err
		}
		dataArg = call.Argument(3)
	}
	if s.data, err = w.bufferSource(dataArg, op+": data"); err != nil {
		return s, err
	}
	s.hash = hashOf(s.k.alg.hash)
	switch p.name {
	case algECDSA:
		h, err := p.hash(op, true)
		if err != nil {
			return s, err
		}
		s.hash = hashOf(h)
	case algRSAPSS:
		n, ok, err := p.number("saltLength", op)
		if err != nil {
			return s, err
		}
		if !ok {
			return s, fail(errType, "%s: RSA-PSS requires a saltLength", op)
		}
		if n == 0 {
			return s, fail(errNotSupported, "%s: RSA-PSS with a saltLength of 0 is not supported", op)
		}
		s.saltLength = n
	}
	return s, nil
}

// sign is subtle.sign(algorithm, key, data).
func (w *webcrypto) sign(call sobek.FunctionCall) (work, error) {
	s, err := w.readSign(call, "sign", usageSign)
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		sig, err := s.sign()
		if err != nil {
			return nil, fail(errOperation, "sign: %v", err)
		}
		return sig, nil
	}, nil
}

// verify is subtle.verify(algorithm, key, signature, data).
func (w *webcrypto) verify(call sobek.FunctionCall) (work, error) {
	s, err := w.readSign(call, "verify", usageVerify)
	if err != nil {
		return nil, err
	}
	return func() (any, error) { return s.verify(), nil }, nil
}

// digestOf hashes data with h.
func digestOf(h crypto.Hash, data []byte) []byte {
	d := h.New()
	d.Write(data)
	return d.Sum(nil)
}

func (s signSpec) sign() ([]byte, error) {
	k := s.k
	switch k.alg.name {
	case algHMAC:
		m := hmac.New(s.hash.New, k.secret)
		m.Write(s.data)
		return m.Sum(nil), nil
	case algECDSA:
		r, ss, err := ecdsa.Sign(rand.Reader, k.ecPriv, digestOf(s.hash, s.data))
		if err != nil {
			return nil, err
		}
		size := (k.ecPriv.Curve.Params().BitSize + 7) / 8
		out := make([]byte, 2*size)
		r.FillBytes(out[:size])
		ss.FillBytes(out[size:])
		return out, nil
	case algRSASSA:
		return rsa.SignPKCS1v15(rand.Reader, k.rsaPriv, s.hash, digestOf(s.hash, s.data))
	}
	return rsa.SignPSS(rand.Reader, k.rsaPriv, s.hash, digestOf(s.hash, s.data), &rsa.PSSOptions{SaltLength: s.saltLength, Hash: s.hash})
}

func (s signSpec) verify() bool {
	k := s.k
	switch k.alg.name {
	case algHMAC:
		m := hmac.New(s.hash.New, k.secret)
		m.Write(s.data)
		return hmac.Equal(m.Sum(nil), s.signature)
	case algECDSA:
		size := (k.ecPub.Curve.Params().BitSize + 7) / 8
		if len(s.signature) != 2*size {
			return false
		}
		r := new(big.Int).SetBytes(s.signature[:size])
		ss := new(big.Int).SetBytes(s.signature[size:])
		return ecdsa.Verify(k.ecPub, digestOf(s.hash, s.data), r, ss)
	case algRSASSA:
		return rsa.VerifyPKCS1v15(k.rsaPub, s.hash, digestOf(s.hash, s.data), s.signature) == nil
	}
	return rsa.VerifyPSS(k.rsaPub, s.hash, digestOf(s.hash, s.data), s.signature, &rsa.PSSOptions{SaltLength: s.saltLength, Hash: s.hash}) == nil
}
