package k6http

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/request"
)

// cookieJar is http.cookieJar(): the VU's jar.
func (m *instance) cookieJar(sobek.FunctionCall) sobek.Value {
	m.sync(m.vu.State())
	if m.jarObj == nil {
		m.jarObj = m.jarObject(m.jar, true)
	}
	return m.jarObj
}

// newCookieJar is new http.CookieJar(): a local jar, for params.jar.
func (m *instance) newCookieJar(sobek.ConstructorCall) *sobek.Object {
	return m.jarObject(request.NewCookieJar(), false)
}

// jarObject is k6's CookieJar object of j. The VU's jar is emptied first when a
// new iteration began.
func (m *instance) jarObject(j *request.CookieJar, vuJar bool) *sobek.Object {
	rt := m.vu.Runtime()
	o := m.wrap(j)
	parseURL := func(what string, v sobek.Value) *url.URL {
		if vuJar {
			m.sync(m.vu.State())
		}
		u, err := url.Parse(v.String())
		if err != nil || u.Host == "" {
			m.throw(fmt.Errorf("%s: invalid url %q", what, v.String()))
		}
		return u
	}
	_ = o.Set("set", func(call sobek.FunctionCall) sobek.Value {
		u := parseURL("jar.set", call.Argument(0))
		c := &http.Cookie{Name: call.Argument(1).String(), Value: call.Argument(2).String()}
		if err := cookieOptions(rt, c, call.Argument(3)); err != nil {
			m.throw(fmt.Errorf("jar.set: %w", err))
		}
		// A cookie whose domain the URL's host does not match is dropped, as a
		// browser drops such a Set-Cookie: k6 does not throw (its
		// examples/cookies.js sets one for httpbin.org with domain example.com
		// and checks that it is not sent).
		if err := j.Set(u, c); err != nil && !errors.Is(err, request.ErrCookieDomain) {
			m.throw(fmt.Errorf("jar.set: %w", err))
		}
		return sobek.Undefined()
	})
	_ = o.Set("cookiesForURL", func(call sobek.FunctionCall) sobek.Value {
		u := parseURL("jar.cookiesForURL", call.Argument(0))
		out := rt.NewObject()
		for name, vals := range j.CookiesForURL(u) {
			items := make([]any, len(vals))
			for i, v := range vals {
				items[i] = v
			}
			_ = out.Set(name, rt.NewArray(items...))
		}
		return out
	})
	_ = o.Set("clear", func(call sobek.FunctionCall) sobek.Value {
		j.Clear(parseURL("jar.clear", call.Argument(0)))
		return sobek.Undefined()
	})
	_ = o.Set("delete", func(call sobek.FunctionCall) sobek.Value {
		j.Delete(parseURL("jar.delete", call.Argument(0)), call.Argument(1).String())
		return sobek.Undefined()
	})
	return o
}

// cookieOptions applies jar.set's options: domain, path, expires (an RFC 1123
// date), max_age (seconds), secure, http_only.
func cookieOptions(rt *sobek.Runtime, c *http.Cookie, opts sobek.Value) error {
	if isNullish(opts) {
		return nil
	}
	o := opts.ToObject(rt)
	for _, k := range o.Keys() {
		v := o.Get(k)
		switch k {
		case "domain":
			c.Domain = v.String()
		case "path":
			c.Path = v.String()
		case "expires":
			t, err := time.Parse(time.RFC1123, v.String())
			if err != nil {
				return errors.New("expires: want an RFC 1123 date (Mon, 02 Jan 2006 15:04:05 MST)")
			}
			c.Expires = t
		case "max_age":
			c.MaxAge = int(v.ToInteger())
			if c.MaxAge == 0 {
				c.MaxAge = -1 // Max-Age=0 deletes; http.Cookie's 0 means none
			}
		case "secure":
			c.Secure = v.ToBoolean()
		case "http_only":
			c.HttpOnly = v.ToBoolean()
		}
	}
	return nil
}
