package webcrypto

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"errors"
	"math/big"

	"github.com/grafana/sobek"
)

// cryptSpec is what encrypt and decrypt read from their arguments.
type cryptSpec struct {
	op      string
	k       *key
	iv      []byte // AES-CBC, AES-GCM; AES-CTR's counter
	ctrBits int    // AES-CTR
	aad     []byte // AES-GCM
	tagLen  int    // AES-GCM, bytes
	label   []byte // RSA-OAEP
	data    []byte
}

// crypt is subtle.encrypt or subtle.decrypt (op) (algorithm, key, data).
func (w *webcrypto) crypt(call sobek.FunctionCall, op string) (work, error) {
	s := cryptSpec{op: op}
	p, err := readParams(call.Argument(0), op, algAESCBC, algAESCTR, algAESGCM, algRSAOAEP)
	if err != nil {
		return nil, err
	}
	if s.k, err = w.keyOf(call.Argument(1), op, "key"); err != nil {
		return nil, err
	}
	if err = s.k.use(op, op, p.name); err != nil {
		return nil, err
	}
	if s.data, err = w.bufferSource(call.Argument(2), op+": data"); err != nil {
		return nil, err
	}
	if err = w.readCryptParams(p, &s); err != nil {
		return nil, err
	}
	return func() (any, error) {
		out, err := s.run()
		if _, isDOM := errors.AsType[*domError](err); err != nil && !isDOM {
			return nil, fail(errOperation, "%s: %v", op, err)
		}
		return out, err
	}, nil
}

// member reads an optional BufferSource member of the algorithm; required ones
// are a TypeError when absent.
func (w *webcrypto) member(p params, name, op string, required bool) ([]byte, error) {
	v := p.get(name)
	if v == nil {
		if required {
			return nil, fail(errType, "%s: %s requires %s", op, p.name, name)
		}
		return nil, nil
	}
	return w.bufferSource(v, op+": "+p.name+"."+name)
}

func (w *webcrypto) readCryptParams(p params, s *cryptSpec) (err error) {
	op := s.op
	switch p.name {
	case algAESCBC:
		if s.iv, err = w.member(p, "iv", op, true); err == nil && len(s.iv) != 16 {
			err = fail(errOperation, "%s: AES-CBC's iv must be 16 bytes long, not %d", op, len(s.iv))
		}
	case algAESCTR:
		if s.iv, err = w.member(p, "counter", op, true); err != nil {
			return err
		}
		var ok bool
		if s.ctrBits, ok, err = p.number("length", op); err == nil && (!ok || len(s.iv) != 16 || s.ctrBits == 0 || s.ctrBits > 128) {
			err = fail(errOperation, "%s: AES-CTR needs a 16-byte counter and a length of 1 to 128 bits", op)
		}
	case algAESGCM:
		return w.readGCMParams(p, s)
	case algRSAOAEP:
		s.label, err = w.member(p, "label", op, false)
	}
	return err
}

func (w *webcrypto) readGCMParams(p params, s *cryptSpec) (err error) {
	op := s.op
	if s.iv, err = w.member(p, "iv", op, true); err != nil {
		return err
	}
	if len(s.iv) == 0 {
		return fail(errOperation, "%s: AES-GCM's iv cannot be empty", op)
	}
	if s.aad, err = w.member(p, "additionalData", op, false); err != nil {
		return err
	}
	bits, ok, err := p.number("tagLength", op)
	if err != nil {
		return err
	}
	if !ok {
		bits = 128
	}
	switch bits {
	case 96, 104, 112, 120, 128:
	case 32, 64:
		return fail(errNotSupported, "%s: an AES-GCM tagLength of %d bits is not supported", op, bits)
	default:
		return fail(errOperation, "%s: %d is not an AES-GCM tagLength", op, bits)
	}
	s.tagLen = bits / 8
	return nil
}

// run encrypts or decrypts.
func (s cryptSpec) run() ([]byte, error) {
	enc := s.op == usageEnc
	if s.k.alg.name == algRSAOAEP {
		h := hashOf(s.k.alg.hash)
		if enc {
			return rsa.EncryptOAEP(h.New(), rand.Reader, s.k.rsaPub, s.data, s.label)
		}
		return rsa.DecryptOAEP(h.New(), rand.Reader, s.k.rsaPriv, s.data, s.label)
	}
	block, err := aes.NewCipher(s.k.secret)
	if err != nil {
		return nil, err
	}
	switch s.k.alg.name {
	case algAESCBC:
		if enc {
			return cbcEncrypt(block, s.iv, s.data), nil
		}
		return cbcDecrypt(block, s.iv, s.data)
	case algAESCTR:
		return ctr(block, s.iv, s.ctrBits, s.data)
	}
	if enc {
		return gcmSeal(block, s.iv, s.aad, s.data, s.tagLen)
	}
	return gcmOpen(block, s.iv, s.aad, s.data, s.tagLen)
}

// cbcEncrypt pads data as PKCS #7 and encrypts it.
func cbcEncrypt(block cipher.Block, iv, data []byte) []byte {
	pad := aes.BlockSize - len(data)%aes.BlockSize
	out := append(append([]byte(nil), data...), bytes.Repeat([]byte{byte(pad)}, pad)...)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, out)
	return out
}

// cbcDecrypt decrypts data and removes its PKCS #7 padding.
func cbcDecrypt(block cipher.Block, iv, data []byte) ([]byte, error) {
	if len(data) == 0 || len(data)%aes.BlockSize != 0 {
		return nil, fail(errOperation, "decrypt: AES-CBC data must be a non-empty multiple of 16 bytes, got %d", len(data))
	}
	out := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, data)
	pad := int(out[len(out)-1])
	if pad == 0 || pad > aes.BlockSize || !bytes.Equal(out[len(out)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		return nil, fail(errOperation, "decrypt: AES-CBC padding is invalid")
	}
	return out[:len(out)-pad], nil
}

// ctr is AES-CTR with a counter of the rightmost bits of the counter block, which
// wraps around within those bits (the specification's counter, unlike Go's
// 128-bit cipher.NewCTR).
func ctr(block cipher.Block, counter []byte, bits int, data []byte) ([]byte, error) {
	blocks := (len(data) + aes.BlockSize - 1) / aes.BlockSize
	if bits < 64 && uint64(blocks) > uint64(1)<<bits {
		return nil, fail(errOperation, "AES-CTR: %d blocks exceed a %d-bit counter", blocks, bits)
	}
	whole := new(big.Int).SetBytes(counter)
	mod := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	low := new(big.Int).Mod(whole, mod)
	high := new(big.Int).Sub(whole, low)
	out := make([]byte, len(data))
	cb, ks := make([]byte, aes.BlockSize), make([]byte, aes.BlockSize)
	for i := 0; i < len(data); i += aes.BlockSize {
		new(big.Int).Add(high, low).FillBytes(cb)
		block.Encrypt(ks, cb)
		end := min(i+aes.BlockSize, len(data))
		subtle.XORBytes(out[i:end], data[i:end], ks)
		low.Add(low, big.NewInt(1)).Mod(low, mod)
	}
	return out, nil
}

// gcm is AES-GCM with iv's length as its nonce size and a 16-byte tag.
func gcm(block cipher.Block, iv []byte) (cipher.AEAD, error) {
	if len(iv) == 12 {
		return cipher.NewGCM(block)
	}
	return cipher.NewGCMWithNonceSize(block, len(iv))
}

// gcmSeal encrypts and appends a tag of tagLen bytes (GCM's tag truncated).
func gcmSeal(block cipher.Block, iv, aad, data []byte, tagLen int) ([]byte, error) {
	a, err := gcm(block, iv)
	if err != nil {
		return nil, err
	}
	out := a.Seal(nil, iv, data, aad)
	return out[:len(data)+tagLen], nil
}

// gcmOpen checks a tag of tagLen bytes and decrypts: the plaintext is the data
// XOR the keystream (the encryption of zeros), and its encryption must give the
// same truncated tag.
func gcmOpen(block cipher.Block, iv, aad, data []byte, tagLen int) ([]byte, error) {
	if len(data) < tagLen {
		return nil, fail(errOperation, "decrypt: AES-GCM data is shorter than its %d-byte tag", tagLen)
	}
	a, err := gcm(block, iv)
	if err != nil {
		return nil, err
	}
	ct, tag := data[:len(data)-tagLen], data[len(data)-tagLen:]
	if tagLen == 16 {
		plain, err := a.Open(nil, iv, data, aad)
		if err != nil {
			return nil, fail(errOperation, "decrypt: AES-GCM authentication failed")
		}
		return plain, nil
	}
	stream := a.Seal(nil, iv, make([]byte, len(ct)), nil)[:len(ct)]
	plain := make([]byte, len(ct))
	subtle.XORBytes(plain, ct, stream)
	full := a.Seal(nil, iv, plain, aad)
	if subtle.ConstantTimeCompare(full[len(ct):len(ct)+tagLen], tag) != 1 {
		return nil, fail(errOperation, "decrypt: AES-GCM authentication failed")
	}
	return plain, nil
}
