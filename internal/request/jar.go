package request

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// CookieJar stores cookies as a browser does (RFC 6265 §5.3 and §5.4), with
// the calls of k6's CookieJar (set, cookiesForURL, clear, delete). It has no
// public-suffix list: like net/http/cookiejar without one, a Domain attribute is
// accepted whenever the host domain-matches it. It is safe for concurrent use (a
// batch's requests share their jar).
//
// k6 gives every VU one jar and empties it before each iteration unless the
// noCookiesReset option is set: the VU's owner calls Reset.
type CookieJar struct {
	mu      sync.Mutex
	entries []jarEntry
	seq     uint64
	now     func() time.Time
}

var _ http.CookieJar = (*CookieJar)(nil)

// jarEntry is one stored cookie (RFC 6265 §5.3).
type jarEntry struct {
	name, value, domain, path  string
	hostOnly, secure, httpOnly bool
	persistent                 bool
	expires                    time.Time
	seq                        uint64 // creation order
}

// NewCookieJar returns an empty jar.
func NewCookieJar() *CookieJar { return &CookieJar{now: time.Now} }

// ErrCookieDomain is a cookie whose Domain the URL's host does not domain-match.
var ErrCookieDomain = errors.New("cookie domain does not match the url")

// SetCookies stores the cookies a response from u set; the ones the storage
// model rejects are dropped. It implements http.CookieJar.
func (j *CookieJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cookies {
		_ = j.store(u, c)
	}
}

// Set stores one cookie for u, as k6's jar.set(url, name, value, options)
// does: c's Domain, Path, Expires, MaxAge, Secure and HttpOnly are its options.
func (j *CookieJar) Set(u *url.URL, c *http.Cookie) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.store(u, c); err != nil {
		return fmt.Errorf("set cookie %q for %s: %w", c.Name, u.Redacted(), err)
	}
	return nil
}

// Cookies returns the cookies to send to u, in the order RFC 6265 §5.4 sends
// them: longer paths first, then older ones. It implements http.CookieJar.
func (j *CookieJar) Cookies(u *url.URL) []*http.Cookie {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*http.Cookie
	for _, e := range j.matching(u) {
		out = append(out, &http.Cookie{Name: e.name, Value: e.value})
	}
	return out
}

// CookiesForURL returns the values of the cookies sent to u by name, as k6's
// jar.cookiesForURL does: a name has several when cookies of that name have
// other domains or paths.
func (j *CookieJar) CookiesForURL(u *url.URL) map[string][]string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string][]string{}
	for _, e := range j.matching(u) {
		out[e.name] = append(out[e.name], e.value)
	}
	return out
}

// Clear deletes every cookie that would be sent to u, whatever its Secure
// attribute (k6's jar.clear(url)).
func (j *CookieJar) Clear(u *url.URL) { j.remove(u, "") }

// Delete deletes the cookies named name that would be sent to u, whatever their
// Secure attribute (k6's jar.delete(url, name)).
func (j *CookieJar) Delete(u *url.URL, name string) { j.remove(u, name) }

// empty reports whether the jar (nil: none) holds no cookie.
func (j *CookieJar) empty() bool {
	if j == nil {
		return true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.entries) == 0
}

// Reset empties the jar (k6 does so to the VU's jar before each iteration).
func (j *CookieJar) Reset() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = j.entries[:0]
}

func (j *CookieJar) remove(u *url.URL, name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	host, path := jarHost(u), jarPath(u)
	j.entries = slices.DeleteFunc(j.entries, func(e jarEntry) bool {
		return (name == "" || e.name == name) && e.sentTo(host, path)
	})
}

// matching returns the live entries sent to u, in sending order, and drops the
// expired ones.
func (j *CookieJar) matching(u *url.URL) []*jarEntry {
	now := j.now()
	j.entries = slices.DeleteFunc(j.entries, func(e jarEntry) bool { return e.persistent && !e.expires.After(now) })
	host, path := jarHost(u), jarPath(u)
	secure := u.Scheme == "https" || u.Scheme == "wss"
	var out []*jarEntry
	for i := range j.entries {
		e := &j.entries[i]
		if (e.secure && !secure) || !e.sentTo(host, path) {
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b *jarEntry) int {
		if d := len(b.path) - len(a.path); d != 0 {
			return d
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out
}

func (e *jarEntry) sentTo(host, path string) bool {
	if e.hostOnly {
		if host != e.domain {
			return false
		}
	} else if !domainMatch(host, e.domain) {
		return false
	}
	return pathMatch(path, e.path)
}

// store is RFC 6265 §5.3 for one cookie received from u.
func (j *CookieJar) store(u *url.URL, c *http.Cookie) error {
	if c.Name == "" {
		return errors.New("cookie has no name")
	}
	host := jarHost(u)
	if host == "" {
		return errors.New("url has no host")
	}
	e := jarEntry{name: c.Name, value: c.Value, secure: c.Secure, httpOnly: c.HttpOnly}
	domain := strings.ToLower(strings.TrimPrefix(c.Domain, "."))
	switch {
	case domain == "":
		e.domain, e.hostOnly = host, true
	case net.ParseIP(host) != nil:
		// An IP address takes no domain cookie, only its own (host-only).
		if domain != host {
			return ErrCookieDomain
		}
		e.domain, e.hostOnly = host, true
	case !domainMatch(host, domain):
		return ErrCookieDomain
	default:
		e.domain = domain // subdomains get it too, even when it is the host
	}
	e.path = c.Path
	if e.path == "" || e.path[0] != '/' {
		e.path = defaultPath(u.Path)
	}
	now := j.now()
	switch {
	case c.MaxAge < 0:
		e.persistent, e.expires = true, now // Max-Age=0: delete
	case c.MaxAge > 0:
		e.persistent, e.expires = true, now.Add(time.Duration(c.MaxAge)*time.Second)
	case !c.Expires.IsZero():
		e.persistent, e.expires = true, c.Expires
	}
	i := slices.IndexFunc(j.entries, func(o jarEntry) bool {
		return o.name == e.name && o.domain == e.domain && o.path == e.path
	})
	if e.persistent && !e.expires.After(now) {
		if i >= 0 {
			j.entries = slices.Delete(j.entries, i, i+1)
		}
		return nil
	}
	if i >= 0 {
		e.seq = j.entries[i].seq // the creation time of the cookie it replaces
		j.entries[i] = e
		return nil
	}
	j.seq++
	e.seq = j.seq
	j.entries = append(j.entries, e)
	return nil
}

// jarHost is u's host as cookies see it: lower case, without port or brackets.
func jarHost(u *url.URL) string {
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

func jarPath(u *url.URL) string {
	if u.Path == "" {
		return "/"
	}
	return u.Path
}

// defaultPath is RFC 6265 §5.1.4's default-path of a request path.
func defaultPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if p == "" || p[0] != '/' || i <= 0 {
		return "/"
	}
	return p[:i]
}

// domainMatch is RFC 6265 §5.1.3: host is domain or one of its subdomains, and
// not an IP address.
func domainMatch(host, domain string) bool {
	if host == domain {
		return true
	}
	return strings.HasSuffix(host, domain) && len(host) > len(domain) && host[len(host)-len(domain)-1] == '.' && net.ParseIP(host) == nil
}

// pathMatch is RFC 6265 §5.1.4.
func pathMatch(reqPath, cookiePath string) bool {
	if reqPath == cookiePath {
		return true
	}
	if !strings.HasPrefix(reqPath, cookiePath) {
		return false
	}
	return strings.HasSuffix(cookiePath, "/") || reqPath[len(cookiePath)] == '/'
}

// Cookie is a cookie of one request only (k6's params.cookies): it is
// never stored. With Replace it takes the place of the jar's cookies of its
// name; without, both are sent.
type Cookie struct {
	Name, Value string
	Replace     bool
}

// cookies adds a dynamic request's cookies to each of its hops and stores the
// cookies its responses set. It is the client's, reused.
type cookies struct {
	jar   *CookieJar
	own   []Cookie
	first string // the first hop's host
	// sent are the cookies of the last hop.
	sent []Cookie
}

func (ck *cookies) reset(jar *CookieJar, own []Cookie) {
	ck.jar, ck.own, ck.first, ck.sent = jar, own, "", ck.sent[:0]
}

// header returns hdr with the hop's cookies: the jar's for target, then the
// request's own, which do not follow a redirect to another domain (as an
// explicit Cookie header does not). hdr is never modified.
func (ck *cookies) header(target string, hdr http.Header, first bool) http.Header {
	ck.sent = ck.sent[:0]
	if len(ck.own) == 0 && ck.jar.empty() {
		return hdr // most requests: nothing to parse the URL for
	}
	u, err := url.Parse(target)
	if err != nil {
		return hdr
	}
	host := jarHost(u)
	if first {
		ck.first = host
	}
	own := ck.own
	if !first && !isDomainOrSubdomain(host, ck.first) {
		own = nil
	}
	if ck.jar != nil {
		for _, c := range ck.jar.Cookies(u) {
			if slices.ContainsFunc(own, func(o Cookie) bool { return o.Replace && o.Name == c.Name }) {
				continue
			}
			ck.sent = append(ck.sent, Cookie{Name: c.Name, Value: c.Value})
		}
	}
	ck.sent = append(ck.sent, own...)
	if len(ck.sent) == 0 {
		return hdr
	}
	var b strings.Builder
	if v := hdr.Get("Cookie"); v != "" {
		b.WriteString(v)
	}
	for _, c := range ck.sent {
		s := (&http.Cookie{Name: c.Name, Value: c.Value}).String()
		if s == "" {
			continue // an invalid name, which net/http would not send either
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s)
	}
	out := hdr.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Set("Cookie", b.String())
	return out
}

// store keeps the cookies resp set in the jar.
func (ck *cookies) store(resp *http.Response) {
	if ck.jar == nil || len(resp.Header["Set-Cookie"]) == 0 || resp.Request == nil || resp.Request.URL == nil {
		return
	}
	ck.jar.SetCookies(resp.Request.URL, resp.Cookies())
}
