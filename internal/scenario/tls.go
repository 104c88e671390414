package scenario

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// TLS are k6's TLS options of a script: tlsVersion, tlsCipherSuites and tlsAuth.
// The zero value leaves Go's defaults.
type TLS struct {
	// MinVersion and MaxVersion are tlsVersion's range (a single version is both);
	// 0 leaves Go's default.
	MinVersion, MaxVersion uint16
	// CipherSuites are tlsCipherSuites, by Go's (and k6's) names; nil allows Go's
	// defaults. Go does not let TLS 1.3's suites be chosen: they apply to TLS 1.2
	// and older, as k6 documents.
	CipherSuites []uint16
	// ClientCerts are tlsAuth's client certificates, each for its domains.
	ClientCerts []ClientCert
}

// ClientCert is one entry of tlsAuth: a client certificate and its key, sent to a
// server of one of Domains that asks for one (to every server when Domains is
// empty).
type ClientCert struct {
	Domains []string
	Cert    tls.Certificate
}

// IsZero reports whether t sets nothing.
func (t TLS) IsZero() bool {
	return t.MinVersion == 0 && t.MaxVersion == 0 && t.CipherSuites == nil && t.ClientCerts == nil
}

// Matches reports whether host (no port) is one of c's domains: equal to one, or
// matching a "*.example.com" wildcard one level down.
func (c ClientCert) Matches(host string) bool {
	if len(c.Domains) == 0 {
		return true
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, d := range c.Domains {
		d = strings.TrimSuffix(strings.ToLower(d), ".")
		if d == host {
			return true
		}
		if rest, ok := strings.CutPrefix(d, "*."); ok {
			if i := strings.IndexByte(host, '.'); i > 0 && host[i+1:] == rest {
				return true
			}
		}
	}
	return false
}

// tlsVersions are k6's names of the SSL/TLS versions (http.SSL_3_0 … http.TLS_1_3).
func tlsVersions() map[string]uint16 {
	return map[string]uint16{
		"ssl3.0": tls.VersionSSL30, //nolint:staticcheck // k6 names it; Go negotiates TLS 1.0 at least
		"tls1.0": tls.VersionTLS10, "tls1.1": tls.VersionTLS11, "tls1.2": tls.VersionTLS12, "tls1.3": tls.VersionTLS13,
	}
}

// CipherSuiteByName returns the cipher suite of Go's (and k6's) name, secure or
// not.
func CipherSuiteByName(name string) (uint16, bool) {
	// k6 names the ChaCha20 suites without their hash, as Go's older constants.
	switch name {
	case "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305":
		return tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305, true
	case "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305":
		return tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305, true
	}
	for _, s := range slices.Concat(tls.CipherSuites(), tls.InsecureCipherSuites()) {
		if s.Name == name {
			return s.ID, true
		}
	}
	return 0, false
}

// scriptTLS takes the TLS options out of a script's options.
func (d *decoder) scriptTLS(top *yaml.Node) TLS {
	var t TLS
	if n := take(top, "tlsVersion"); n != nil && n.ShortTag() != "!!null" {
		t.MinVersion, t.MaxVersion = d.tlsVersion(n)
	}
	if n := take(top, "tlsCipherSuites"); n != nil && n.ShortTag() != "!!null" {
		for i, name := range d.stringList(n, "tlsCipherSuites") {
			id, ok := CipherSuiteByName(name)
			if !ok {
				d.errorf(n, index("tlsCipherSuites", i), "unknown cipher suite %q; expected one of Go's crypto/tls names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", name)
				continue
			}
			t.CipherSuites = append(t.CipherSuites, id)
		}
		if t.CipherSuites == nil {
			t.CipherSuites = []uint16{}
		}
	}
	if n := take(top, "tlsAuth"); n != nil && n.ShortTag() != "!!null" {
		items, _ := d.sequence(n, "tlsAuth", false)
		for i, it := range items {
			if c, ok := d.clientCert(it, index("tlsAuth", i)); ok {
				t.ClientCerts = append(t.ClientCerts, c)
			}
		}
	}
	return t
}

// tlsVersion decodes tlsVersion: a version, or {min, max}.
func (d *decoder) tlsVersion(n *yaml.Node) (lo, hi uint16) {
	one := func(n *yaml.Node, field string) uint16 {
		s, ok := d.str(n, field)
		if !ok {
			return 0
		}
		v, ok := tlsVersions()[s]
		if !ok {
			d.errorf(n, field, "unknown TLS version %q; expected ssl3.0, tls1.0, tls1.1, tls1.2 or tls1.3 (http.TLS_1_2, …)", s)
		}
		return v
	}
	if r := d.resolve(n); r != nil && r.Kind == yaml.MappingNode {
		f, ok := d.mapping(r, "tlsVersion", []string{"min", "max"})
		if !ok {
			return 0, 0
		}
		if m, ok := f.get("min"); ok {
			lo = one(m, "tlsVersion.min")
		}
		if m, ok := f.get("max"); ok {
			hi = one(m, "tlsVersion.max")
		}
		if lo != 0 && hi != 0 && lo > hi {
			d.errorf(n, "tlsVersion", "min is above max")
		}
		return lo, hi
	}
	v := one(n, "tlsVersion")
	return v, v
}

// clientCert decodes one entry of tlsAuth: domains, cert, key and password (of a
// key encrypted as RFC 1423 PEM, "Proc-Type: 4,ENCRYPTED").
func (d *decoder) clientCert(n *yaml.Node, field string) (ClientCert, bool) {
	f, ok := d.mapping(n, field, []string{"domains", "cert", "key", "password"})
	if !ok {
		return ClientCert{}, false
	}
	var c ClientCert
	if v, ok := f.get("domains"); ok && d.resolve(v).ShortTag() != "!!null" {
		c.Domains = d.stringList(v, join(field, "domains"))
	}
	var cert, key, password string
	for name, dst := range map[string]*string{"cert": &cert, "key": &key, "password": &password} {
		if v, ok := f.get(name); ok {
			*dst, _ = d.str(v, join(field, name))
		} else if name != "password" {
			d.errorf(n, join(field, name), "missing; tlsAuth needs a PEM certificate and its PEM key")
			return c, false
		}
	}
	pair, err := keyPair([]byte(cert), []byte(key), password)
	if err != nil {
		d.errorf(n, field, "%v", err)
		return c, false
	}
	c.Cert = pair
	return c, true
}

// keyPair parses a PEM certificate (chain) and its PEM key, decrypting the key
// with password when it is encrypted.
func keyPair(cert, key []byte, password string) (tls.Certificate, error) {
	if password != "" {
		block, _ := pem.Decode(key)
		if block == nil {
			return tls.Certificate{}, errors.New("key: not PEM")
		}
		//nolint:staticcheck // RFC 1423 keys are what k6's password decrypts
		if !x509.IsEncryptedPEMBlock(block) {
			return tls.Certificate{}, errors.New("key: a password is given but the key is not encrypted (Proc-Type: 4,ENCRYPTED)")
		}
		der, err := x509.DecryptPEMBlock(block, []byte(password)) //nolint:staticcheck // as above
		if err == nil && !parsesAsKey(der) {
			// RFC 1423 has no integrity check: a wrong password passes the padding
			// check about once in 256 tries and yields bytes that are no key.
			err = errors.New("the decrypted key does not parse (a wrong password?)")
		}
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("key: decrypt with the password: %w", err)
		}
		key = pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der})
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("cert and key: %w", err)
	}
	return pair, nil
}

// parsesAsKey reports whether der is a private key in one of the forms a PEM key holds.
func parsesAsKey(der []byte) bool {
	if _, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return true
	}
	if _, err := x509.ParseECPrivateKey(der); err == nil {
		return true
	}
	_, err := x509.ParsePKCS8PrivateKey(der)
	return err == nil
}
