package webcrypto

import (
	"crypto"
	"crypto/elliptic"
	"math"
	"slices"
	"strings"

	"github.com/grafana/sobek"
)

// The algorithm names of the WebCrypto specification, as k6 spells them.
const (
	algSHA1     = "SHA-1"   //nolint:usestdlibvars // WebCrypto's name, which Go's happens to equal
	algSHA256   = "SHA-256" //nolint:usestdlibvars // WebCrypto's name
	algSHA384   = "SHA-384" //nolint:usestdlibvars // WebCrypto's name
	algSHA512   = "SHA-512" //nolint:usestdlibvars // WebCrypto's name
	algHMAC     = "HMAC"
	algAESCBC   = "AES-CBC"
	algAESCTR   = "AES-CTR"
	algAESGCM   = "AES-GCM"
	algAESKW    = "AES-KW"
	algECDSA    = "ECDSA"
	algECDH     = "ECDH"
	algRSAOAEP  = "RSA-OAEP"
	algRSASSA   = "RSASSA-PKCS1-v1_5"
	algRSAPSS   = "RSA-PSS"
	algPBKDF2   = "PBKDF2"
	algHKDF     = "HKDF"
	algX25519   = "X25519"
	algEd25519  = "Ed25519"
	curveP256   = "P-256"
	curveP384   = "P-384"
	curveP521   = "P-521"
	usageEnc    = "encrypt"
	usageDec    = "decrypt"
	usageSign   = "sign"
	usageVerify = "verify"
	usageDKey   = "deriveKey"
	usageDBits  = "deriveBits"
	usageWrap   = "wrapKey"
	usageUnwrap = "unwrapKey"
)

// knownAlgorithms are every name the specification registers; names are matched
// case-insensitively, as the specification normalizes them.
func knownAlgorithms() []string {
	return []string{
		algSHA1, algSHA256, algSHA384, algSHA512, algHMAC, algAESCBC, algAESCTR, algAESGCM,
		algAESKW, algECDSA, algECDH, algRSAOAEP, algRSASSA, algRSAPSS, algPBKDF2, algHKDF,
		algX25519, algEd25519,
	}
}

// hashOf is Go's hash for a normalized hash name (0 for another name).
func hashOf(name string) crypto.Hash {
	switch name {
	case algSHA1:
		return crypto.SHA1
	case algSHA256:
		return crypto.SHA256
	case algSHA384:
		return crypto.SHA384
	case algSHA512:
		return crypto.SHA512
	}
	return 0
}

// curveOf is Go's curve for a named curve (nil for another name).
func curveOf(name string) elliptic.Curve {
	switch name {
	case curveP256:
		return elliptic.P256()
	case curveP384:
		return elliptic.P384()
	case curveP521:
		return elliptic.P521()
	}
	return nil
}

// params is an algorithm argument: a name, and the object when one was given.
type params struct {
	name string
	obj  *sobek.Object
}

// readParams normalizes an algorithm argument (a string or an object with a name)
// for operation op, which supports the names in supported.
func readParams(v sobek.Value, op string, supported ...string) (params, error) {
	var p params
	if o, ok := v.(*sobek.Object); ok {
		p.obj = o
		n := o.Get("name")
		if n == nil || sobek.IsUndefined(n) {
			return p, fail(errType, "%s: the algorithm has no name", op)
		}
		p.name = n.String()
	} else if v != nil && !sobek.IsUndefined(v) && !sobek.IsNull(v) {
		p.name = v.String()
	} else {
		return p, fail(errType, "%s: an algorithm is required", op)
	}
	for _, known := range knownAlgorithms() {
		if strings.EqualFold(known, p.name) {
			p.name = known
			break
		}
	}
	if slices.Contains(supported, p.name) {
		return p, nil
	}
	return p, fail(errNotSupported, "%s: the algorithm %q is not supported", op, p.name)
}

// get returns the member name of the algorithm object, nil when absent.
func (p params) get(name string) sobek.Value {
	if p.obj == nil {
		return nil
	}
	v := p.obj.Get(name)
	if v == nil || sobek.IsUndefined(v) {
		return nil
	}
	return v
}

// hash reads the member "hash" (a name or an object with a name); required tells
// whether its absence is a TypeError, else "" is returned.
func (p params) hash(op string, required bool) (string, error) {
	v := p.get("hash")
	if v == nil {
		if required {
			return "", fail(errType, "%s: %s requires a hash", op, p.name)
		}
		return "", nil
	}
	h, err := readParams(v, op, algSHA1, algSHA256, algSHA384, algSHA512)
	if err != nil {
		return "", err
	}
	return h.name, nil
}

// number reads a numeric member (a string such as "256" converts, as WebIDL does);
// ok is false when it is absent.
func (p params) number(name, op string) (n int, ok bool, err error) {
	v := p.get(name)
	if v == nil {
		return 0, false, nil
	}
	f := v.ToFloat()
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > math.MaxInt32 {
		return 0, true, fail(errType, "%s: %s.%s must be a non-negative integer, got %s", op, p.name, name, v.String())
	}
	return int(f), true, nil
}

// curve reads the member "namedCurve".
func (p params) curve(op string) (string, error) {
	v := p.get("namedCurve")
	if v == nil {
		return "", fail(errType, "%s: %s requires a namedCurve", op, p.name)
	}
	c := v.String()
	if curveOf(c) == nil {
		return "", fail(errNotSupported, "%s: the named curve %q is not supported (P-256, P-384, P-521)", op, c)
	}
	return c, nil
}

// readUsages reads a key usages array.
func readUsages(rt *sobek.Runtime, v sobek.Value, op string) ([]string, error) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return nil, fail(errType, "%s: keyUsages must be an array", op)
	}
	var raw []string
	if err := rt.ExportTo(v, &raw); err != nil {
		return nil, fail(errType, "%s: keyUsages must be an array of strings: %v", op, err)
	}
	out := make([]string, 0, len(raw))
	for _, u := range raw {
		switch u {
		case usageEnc, usageDec, usageSign, usageVerify, usageDKey, usageDBits, usageWrap, usageUnwrap:
		default:
			return nil, fail(errType, "%s: %q is not a key usage", op, u)
		}
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out, nil
}

// checkUsages fails with a SyntaxError when a usage is not one of allowed.
func checkUsages(op, alg string, usages []string, allowed ...string) error {
	for _, u := range usages {
		if !slices.Contains(allowed, u) {
			return fail(errSyntax, "%s: the usage %q is not valid for a %s key (allowed: %s)", op, u, alg, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// only returns the usages that are in allowed.
func only(usages []string, allowed ...string) []string {
	out := []string{}
	for _, u := range usages {
		if slices.Contains(allowed, u) {
			out = append(out, u)
		}
	}
	return out
}
