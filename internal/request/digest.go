package request

import (
	"crypto"
	"crypto/md5" //nolint:gosec // HTTP Digest's MD5 (RFC 7616), not a security choice of ours
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"net/url"
	"strings"
)

// Auth is how a dynamic request uses the credentials of its URL
// (user:password@), k6's params.auth.
type Auth uint8

// The authentication schemes.
const (
	// AuthBasic sends them as basic authentication on every request (k6's
	// default and auth: "basic").
	AuthBasic Auth = iota
	// AuthDigest sends the request without them, and, when the answer is a 401
	// with a Digest challenge, once more with the digest of the challenge (RFC
	// 7616; k6's auth: "digest"). Both requests are measured; the first is
	// expected to be the 401.
	AuthDigest
)

// errDigestChallenge is a challenge the client cannot answer.
var errDigestChallenge = errors.New("unsupported digest challenge")

// digestAuthorization returns the Authorization header that answers the
// Digest challenge of a WWW-Authenticate header for method and uri (the request
// target), with client nonce cnonce and nonce count 1. It supports the
// algorithms MD5, MD5-sess, SHA-256 and SHA-256-sess, with qop auth or none.
func digestAuthorization(challenge, user, pass, method, uri, cnonce string) (string, error) {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(challenge), " ")
	if !strings.EqualFold(scheme, "Digest") {
		return "", fmt.Errorf("%w: scheme %q", errDigestChallenge, scheme)
	}
	p := authParams(rest)
	realm, nonce := p["realm"], p["nonce"]
	if nonce == "" {
		return "", fmt.Errorf("%w: no nonce", errDigestChallenge)
	}
	algo := p["algorithm"]
	up := strings.ToUpper(algo)
	sess := strings.HasSuffix(up, "-SESS")
	var newHash func() hash.Hash
	switch strings.TrimSuffix(up, "-SESS") {
	case "", crypto.MD5.String():
		newHash = md5.New
	case crypto.SHA256.String():
		newHash = sha256.New
	default:
		return "", fmt.Errorf("%w: algorithm %q", errDigestChallenge, algo)
	}
	h := func(s string) string {
		d := newHash()
		d.Write([]byte(s))
		return hex.EncodeToString(d.Sum(nil))
	}
	ha1 := h(user + ":" + realm + ":" + pass)
	if sess {
		ha1 = h(ha1 + ":" + nonce + ":" + cnonce)
	}
	ha2 := h(method + ":" + uri)
	qop := ""
	if q, ok := p["qop"]; ok {
		for o := range strings.SplitSeq(q, ",") {
			if strings.TrimSpace(o) == "auth" {
				qop = "auth"
			}
		}
		if qop == "" {
			return "", fmt.Errorf("%w: qop %q", errDigestChallenge, q)
		}
	}
	const nc = "00000001"
	var response string
	if qop == "" {
		response = h(ha1 + ":" + nonce + ":" + ha2)
	} else {
		response = h(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":" + qop + ":" + ha2)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `Digest username=%q, realm=%q, nonce=%q, uri=%q`, user, realm, nonce, uri)
	if algo != "" {
		fmt.Fprintf(&b, `, algorithm=%s`, algo)
	}
	fmt.Fprintf(&b, `, response=%q`, response)
	if qop != "" {
		fmt.Fprintf(&b, `, qop=%s, nc=%s, cnonce=%q`, qop, nc, cnonce)
	}
	if o, ok := p["opaque"]; ok {
		fmt.Fprintf(&b, `, opaque=%q`, o)
	}
	return b.String(), nil
}

// authParams parses the comma-separated name=value pairs of a challenge;
// values may be quoted strings with backslash escapes.
func authParams(s string) map[string]string {
	out := map[string]string{}
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t,")
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			break
		}
		name = strings.ToLower(strings.TrimSpace(name))
		rest = strings.TrimLeft(rest, " \t")
		var val strings.Builder
		if strings.HasPrefix(rest, `"`) {
			i := 1
			for ; i < len(rest) && rest[i] != '"'; i++ {
				if rest[i] == '\\' && i+1 < len(rest) {
					i++
				}
				val.WriteByte(rest[i])
			}
			s = rest[min(i+1, len(rest)):]
		} else {
			end := strings.IndexByte(rest, ',')
			if end < 0 {
				end = len(rest)
			}
			val.WriteString(strings.TrimSpace(rest[:end]))
			s = rest[end:]
		}
		out[name] = val.String()
	}
	return out
}

// newCnonce returns a random client nonce.
func newCnonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b)
}

// digest runs a request with digest authentication: first without the URL's
// credentials, expected to be answered 401 (k6), then, when the answer is a
// 401 with a Digest challenge, once more with the digest. A request without
// credentials, or a challenge it cannot answer, is run once.
func (c *Client) digest(sp *spec, h *hop, ck *cookies) (*http.Response, Outcome) {
	u, err := url.Parse(h.target)
	if err != nil || u.User == nil {
		return c.hops(sp, h, false, ck)
	}
	user := u.User.Username()
	pass, _ := u.User.Password()
	u.User = nil
	h.target = u.String()
	first := &c.dyn.digest[0]
	if sp == &c.dyn.tagged {
		first = &c.dyn.digest[1]
	}
	*first = *sp
	if !sp.unjudged {
		first.expected = c.dyn.only401[:]
	}
	resp, out := c.hops(first, h, false, ck)
	if out.Err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, out
	}
	target, err := url.Parse(h.target)
	if err != nil {
		return resp, out
	}
	auth, err := digestAuthorization(resp.Header.Get("Www-Authenticate"), user, pass, h.method, target.RequestURI(), newCnonce())
	if err != nil {
		return resp, out // the 401 stands
	}
	h.header = h.header.Clone()
	if h.header == nil {
		h.header = http.Header{}
	}
	h.header.Set("Authorization", auth)
	return c.hops(sp, h, false, ck)
}
