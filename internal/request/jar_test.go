package request

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

func cookieNames(cs []*http.Cookie) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name+"="+c.Value)
	}
	return strings.Join(out, "; ")
}

func TestCookieJarStorageModel(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		from   string
		set    []*http.Cookie
		to     string
		want   string
		setErr string
	}{
		{name: "host-only", from: "http://a.example/x/y", set: []*http.Cookie{{Name: "a", Value: "1"}}, to: "http://a.example/x/z", want: "a=1"},
		{name: "host-only is not sent to subdomains", from: "http://example.com/", set: []*http.Cookie{{Name: "a", Value: "1"}}, to: "http://sub.example.com/"},
		{name: "domain cookie goes to subdomains", from: "http://www.example.com/", set: []*http.Cookie{{Name: "a", Value: "1", Domain: ".example.com"}}, to: "http://api.example.com/", want: "a=1"},
		{name: "foreign domain is rejected", from: "http://www.example.com/", set: []*http.Cookie{{Name: "a", Value: "1", Domain: "other.com"}}, to: "http://other.com/", setErr: "cookie domain does not match the url"},
		{name: "a Domain of the host itself goes to subdomains", from: "http://example.com/", set: []*http.Cookie{{Name: "a", Value: "1", Domain: "example.com"}}, to: "http://www.example.com/", want: "a=1"},
		{name: "IP host with its own Domain is host-only", from: "http://127.0.0.1/", set: []*http.Cookie{{Name: "a", Value: "1", Domain: "127.0.0.1"}}, to: "http://127.0.0.1/", want: "a=1"},
		{name: "IP host takes no domain cookie", from: "http://127.0.0.1/", set: []*http.Cookie{{Name: "a", Value: "1", Domain: "0.0.1"}}, to: "http://127.0.0.1/", setErr: "cookie domain does not match the url"},
		{name: "default path is the directory", from: "http://h/app/login", set: []*http.Cookie{{Name: "a", Value: "1"}}, to: "http://h/other", want: ""},
		{name: "default path matches below", from: "http://h/app/login", set: []*http.Cookie{{Name: "a", Value: "1"}}, to: "http://h/app/x", want: "a=1"},
		{name: "path is not a string prefix", from: "http://h/", set: []*http.Cookie{{Name: "a", Value: "1", Path: "/app"}}, to: "http://h/apple"},
		{name: "secure only over https", from: "https://h/", set: []*http.Cookie{{Name: "a", Value: "1", Secure: true}, {Name: "b", Value: "2"}}, to: "http://h/", want: "b=2"},
		{name: "secure over https", from: "https://h/", set: []*http.Cookie{{Name: "a", Value: "1", Secure: true}}, to: "https://h/", want: "a=1"},
		{name: "longer paths first, then older", from: "http://h/", set: []*http.Cookie{{Name: "b", Value: "1"}, {Name: "c", Value: "2", Path: "/a/b"}, {Name: "a", Value: "3"}}, to: "http://h/a/b/c", want: "c=2; b=1; a=3"},
		{name: "same name, domain and path replaces", from: "http://h/", set: []*http.Cookie{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "a", Value: "3"}}, to: "http://h/", want: "a=3; b=2"},
		{name: "max-age 0 deletes", from: "http://h/", set: []*http.Cookie{{Name: "a", Value: "1"}, {Name: "a", MaxAge: -1}}, to: "http://h/"},
		{name: "past expiry deletes", from: "http://h/", set: []*http.Cookie{{Name: "a", Value: "1"}, {Name: "a", Expires: now.Add(-time.Hour)}}, to: "http://h/"},
		{name: "future expiry keeps", from: "http://h/", set: []*http.Cookie{{Name: "a", Value: "1", Expires: now.Add(time.Hour)}}, to: "http://h/", want: "a=1"},
		{name: "ports do not matter", from: "http://h:8080/", set: []*http.Cookie{{Name: "a", Value: "1"}}, to: "http://H:9090/", want: "a=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := NewCookieJar()
			j.now = func() time.Time { return now }
			var err error
			for _, c := range tc.set {
				if e := j.Set(mustURL(t, tc.from), c); e != nil {
					err = e
				}
			}
			if tc.setErr != "" {
				require.ErrorContains(t, err, tc.setErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.want, cookieNames(j.Cookies(mustURL(t, tc.to))))
		})
	}
}

func TestCookieJarExpiresWithTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := NewCookieJar()
	j.now = func() time.Time { return now }
	u := mustURL(t, "http://h/")
	j.SetCookies(u, []*http.Cookie{{Name: "a", Value: "1", MaxAge: 60}, {Name: "s", Value: "session"}})
	require.Equal(t, "a=1; s=session", cookieNames(j.Cookies(u)))
	now = now.Add(61 * time.Second)
	require.Equal(t, "s=session", cookieNames(j.Cookies(u)))
}

func TestCookieJarK6Calls(t *testing.T) {
	t.Parallel()
	j := NewCookieJar()
	api := mustURL(t, "http://h.example/api/x")
	require.NoError(t, j.Set(api, &http.Cookie{Name: "a", Value: "1"}))
	require.NoError(t, j.Set(api, &http.Cookie{Name: "a", Value: "2", Path: "/"}))
	require.NoError(t, j.Set(api, &http.Cookie{Name: "b", Value: "3", Path: "/"}))
	require.NoError(t, j.Set(mustURL(t, "http://other.example/"), &http.Cookie{Name: "c", Value: "4"}))
	require.Equal(t, map[string][]string{"a": {"1", "2"}, "b": {"3"}}, j.CookiesForURL(api), "a name repeats with another path")
	require.Equal(t, map[string][]string{"a": {"2"}, "b": {"3"}}, j.CookiesForURL(mustURL(t, "http://h.example/")))

	j.Delete(api, "a")
	require.Equal(t, map[string][]string{"b": {"3"}}, j.CookiesForURL(api))
	j.Clear(api)
	require.Empty(t, j.CookiesForURL(api))
	require.Equal(t, map[string][]string{"c": {"4"}}, j.CookiesForURL(mustURL(t, "http://other.example/")), "clear is per URL")
	j.Reset()
	require.Empty(t, j.CookiesForURL(mustURL(t, "http://other.example/")))
	require.Error(t, j.Set(api, &http.Cookie{Value: "no name"}))
}

// cookieHandler sets cookies and echoes the Cookie header it got.
func cookieHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		for k, v := range r.URL.Query() {
			http.SetCookie(w, &http.Cookie{Name: k, Value: v[0], Path: "/"})
		}
		_, _ = w.Write([]byte("set"))
	})
	mux.HandleFunc("/set-and-redirect", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "hop", Value: "1", Path: "/"})
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		var got []string
		for _, c := range r.Cookies() {
			got = append(got, c.Name+"="+c.Value)
		}
		sort.Strings(got)
		_, _ = w.Write([]byte(strings.Join(got, ",")))
	})
	return mux
}

func TestSendCookies(t *testing.T) {
	t.Parallel()
	srv, _, c := serve(t, cookieHandler())
	vu := NewCookieJar()
	send := func(r Request) *Response {
		t.Helper()
		r.Redirects = 10
		res := c.Send(context.Background(), &r)
		require.NoError(t, res.Err)
		return res
	}

	res := send(Request{URL: srv.URL + "/set?a=1&b=2", Jar: vu})
	require.Len(t, res.Cookies, 2)
	require.Equal(t, "a=1,b=2", string(send(Request{URL: srv.URL + "/echo", Jar: vu}).Body), "a response's cookies go with the VU's next requests")
	require.Empty(t, string(send(Request{URL: srv.URL + "/echo"}).Body), "no jar, no cookies")

	// A cookie set by a redirect hop goes with the next hop.
	res = send(Request{URL: srv.URL + "/set-and-redirect", Jar: vu})
	require.Equal(t, "a=1,b=2,hop=1", string(res.Body))
	require.Empty(t, res.Cookies, "the last hop set none")
	require.ElementsMatch(t, []Cookie{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "hop", Value: "1"}}, res.Request.Cookies)

	// Request cookies: sent once, never stored; replace wins over the jar.
	res = send(Request{URL: srv.URL + "/echo", Jar: vu, Cookies: []Cookie{{Name: "a", Value: "9", Replace: true}, {Name: "b", Value: "8"}, {Name: "own", Value: "x"}}})
	require.Equal(t, "a=9,b=2,b=8,hop=1,own=x", string(res.Body))
	require.Equal(t, map[string][]string{"a": {"1"}, "b": {"2"}, "hop": {"1"}}, vu.CookiesForURL(mustURL(t, srv.URL)))
	require.Equal(t, "own=x", send(Request{URL: srv.URL + "/echo", Cookies: []Cookie{{Name: "own", Value: "x"}}}).Request.Header.Get("Cookie"))

	// A local jar instead of the VU's: it sends and stores alone.
	local := NewCookieJar()
	require.NoError(t, local.Set(mustURL(t, srv.URL), &http.Cookie{Name: "l", Value: "1"}))
	require.Equal(t, "l=1", string(send(Request{URL: srv.URL + "/echo", Jar: local}).Body))
	send(Request{URL: srv.URL + "/set?z=1", Jar: local})
	require.NotContains(t, vu.CookiesForURL(mustURL(t, srv.URL)), "z")

	// An explicit Cookie header is kept, the jar's are added.
	res = send(Request{URL: srv.URL + "/echo", Jar: local, Header: http.Header{"Cookie": {"h=1"}}})
	require.Equal(t, "h=1,l=1,z=1", string(res.Body))

	// The VU's reset between iterations.
	vu.Reset()
	require.Empty(t, string(send(Request{URL: srv.URL + "/echo", Jar: vu}).Body))
}

func TestCookiesDoNotFollowToAnotherDomain(t *testing.T) {
	t.Parallel()
	echo, _, c := serve(t, cookieHandler())
	// localhost and 127.0.0.1 are two domains to a cookie.
	other := strings.Replace(echo.URL, "127.0.0.1", "localhost", 1)
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+"/echo", http.StatusFound)
	}))
	defer redir.Close()
	res := c.Send(context.Background(), &Request{URL: redir.URL + "/", Redirects: 1, Cookies: []Cookie{{Name: "own", Value: "x"}}})
	require.NoError(t, res.Err)
	require.Equal(t, 200, res.Status)
	require.Empty(t, string(res.Body))
}

// FuzzCookieJar checks the jar against net/http/cookiejar (without a public
// suffix list, as the jar has none): the same Set-Cookie lines from one URL give
// the same cookies, in the same order, to another.
func FuzzCookieJar(f *testing.F) {
	for _, seed := range [][3]string{
		{"http://www.example.com/a/b", "a=1; Path=/; Domain=example.com\nb=2", "http://api.example.com/a/x"},
		{"https://h.example/app/login", "s=1; Secure; HttpOnly\nt=2; Max-Age=0\nu=3; Path=/app", "http://h.example/app/x"},
		{"http://127.0.0.1:8080/", "a=1; Domain=127.0.0.1\nb=2; Domain=0.0.1", "http://127.0.0.1/"},
		{"http://example.com/", "a=1; Domain=.EXAMPLE.com; Path=/x\na=2; Path=/x/y\na=3", "http://sub.example.com/x/y/z"},
		{"http://h/", "a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT\nb=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT", "http://h/"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, from, setCookie, to string) {
		fu, tu := plainURL(from), plainURL(to)
		if fu == nil || tu == nil {
			t.Skip()
		}
		cookies := (&http.Response{Header: http.Header{"Set-Cookie": strings.Split(setCookie, "\n")}}).Cookies()
		ref, err := cookiejar.New(nil)
		require.NoError(t, err)
		ref.SetCookies(fu, cookies)
		j := NewCookieJar()
		j.SetCookies(fu, cookies)
		require.Equal(t, cookieNames(ref.Cookies(tu)), cookieNames(j.Cookies(tu)), "from %s to %s: %q", fu, tu, setCookie)
	})
}

// plainURL parses an http(s) URL whose host is lower-case ASCII letters,
// digits, dots and hyphens (no IPv6, no IDNA, which cookiejar canonicalizes
// further), or returns nil.
func plainURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" {
		return nil
	}
	h := u.Hostname()
	if h == "" || strings.Trim(h, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
		return nil
	}
	return u
}
