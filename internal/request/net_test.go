package request

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/scenario"
)

// TestNetRefusesBlockedRequests: a blacklisted address fails with k6's error code
// 1110 and a blocked host name with 1111, before any byte reaches the server, on the
// plain-HTTP path and the net/http one (HTTPS) alike.
func TestNetRefusesBlockedRequests(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served.Add(1) })
	plain, tlsSrv := httptest.NewServer(h), httptest.NewTLSServer(h)
	defer plain.Close()
	defer tlsSrv.Close()
	for _, tc := range []struct {
		name, url string
		net       *Net
		code      int
		msg       string
	}{
		{"blacklisted", plain.URL, &Net{Blacklist: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}, CodeBlacklistedIP,
			"IP (127.0.0.1) is in a blacklisted range (127.0.0.0/8)"},
		{"blacklisted https", tlsSrv.URL, &Net{Blacklist: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, CodeBlacklistedIP,
			"IP (127.0.0.1) is in a blacklisted range (127.0.0.1/32)"},
		{"blacklisted by name", strings.Replace(plain.URL, "127.0.0.1", "localhost", 1),
			&Net{Blacklist: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}, CodeBlacklistedIP, "is in a blacklisted range"},
		{"blocked host", strings.Replace(plain.URL, "127.0.0.1", "localhost", 1), &Net{BlockHostnames: []string{"localhost"}}, CodeBlockedHostname,
			"hostname (localhost) is in a blocked pattern (localhost)"},
		{"blocked subdomain", "http://api.test.localhost:1/", &Net{BlockHostnames: []string{"*.localhost"}}, CodeBlockedHostname,
			"hostname (api.test.localhost) is in a blocked pattern (*.localhost)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			st := f.compile(t, &scenario.Step{URL: tmpl(t, tc.url+"/")})
			c := NewClient(f.env, Options{Net: tc.net, TLS: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig})
			defer c.Close()
			out := c.Do(context.Background(), st, &scenario.Vars{})
			be, ok := errors.AsType[*BlockedError](out.Err)
			require.True(t, ok, "%v", out.Err)
			require.Equal(t, tc.code, be.Code)
			require.Contains(t, be.Msg, tc.msg)
			code, msg := Classify(out.Err)
			require.Equal(t, tc.code, code)
			require.Equal(t, be.Msg, msg)
		})
	}
	require.Zero(t, served.Load())
}

// TestNetNoConnectionReuse: every request opens its own connection.
func TestNetNoConnectionReuse(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for reuse, want := range map[bool]int64{true: 1, false: 3} {
		conns.Store(0)
		f := newFixture()
		st := f.compile(t, &scenario.Step{URL: tmpl(t, srv.URL+"/")})
		c := NewClient(f.env, Options{Net: &Net{NoConnectionReuse: !reuse}})
		for range 3 {
			require.NoError(t, c.Do(context.Background(), st, &scenario.Vars{}).Err)
		}
		c.Close()
		require.Equal(t, want, conns.Load(), "reuse %v", reuse)
	}
}

// TestLimiter: requests are spaced at the rate, shared by every caller.
func TestLimiter(t *testing.T) {
	t.Parallel()
	require.Nil(t, NewLimiter(0))
	l := NewLimiter(50)
	start := time.Now()
	done := make(chan error, 2)
	for range 2 {
		go func() {
			var err error
			for range 5 {
				err = errors.Join(err, l.Wait(context.Background()))
			}
			done <- err
		}()
	}
	require.NoError(t, <-done)
	require.NoError(t, <-done)
	// 10 turns 20 ms apart: the last at least 180 ms after the first.
	require.GreaterOrEqual(t, time.Since(start), 180*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 3 {
		_ = l.Wait(context.Background())
	}
	require.ErrorIs(t, l.Wait(ctx), context.Canceled)
}

// TestResolver: k6's dns option: the family the policy allows, the selection, and the
// cache's TTL.
func TestResolver(t *testing.T) {
	t.Parallel()
	v4a, v4b, v6 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("fd00::1")
	var lookups int
	now := time.Unix(0, 0)
	newR := func(ttl time.Duration, sel, policy string) *Resolver {
		r := NewResolver(ttl, sel, policy)
		r.lookup = func(context.Context, string) ([]netip.Addr, error) { lookups++; return []netip.Addr{v6, v4a, v4b}, nil }
		r.now = func() time.Time { return now }
		r.randIntN = func(int) int { return 1 }
		return r
	}
	first := func(r *Resolver) netip.Addr {
		ips, err := r.Lookup(context.Background(), "h")
		require.NoError(t, err)
		return ips[0]
	}
	require.Equal(t, v4a, first(newR(0, "first", "preferIPv4")))
	require.Equal(t, v6, first(newR(0, "first", "preferIPv6")))
	require.Equal(t, v6, first(newR(0, "first", "any")))
	require.Equal(t, v4b, first(newR(0, "random", "onlyIPv4")))
	rr := newR(0, "roundRobin", "onlyIPv4")
	require.Equal(t, []netip.Addr{v4a, v4b, v4a}, []netip.Addr{first(rr), first(rr), first(rr)})
	require.Equal(t, v6, first(newR(0, "first", "onlyIPv6")))

	lookups = 0
	cached := newR(time.Minute, "first", "any")
	first(cached)
	first(cached)
	require.Equal(t, 1, lookups, "cached within the TTL")
	now = now.Add(2 * time.Minute)
	first(cached)
	require.Equal(t, 2, lookups, "looked up again after the TTL")
	none := newR(0, "first", "any")
	first(none)
	first(none)
	require.Equal(t, 4, lookups, "ttl 0: no cache")
}

// TestLocalIPs: each client connects from the next address.
func TestLocalIPs(t *testing.T) {
	t.Parallel()
	peers := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		peers <- host
	}))
	defer srv.Close()
	ips := NewLocalIPs([]netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")})
	f := newFixture()
	st := f.compile(t, &scenario.Step{URL: tmpl(t, srv.URL+"/")})
	for _, want := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.2"} {
		c := NewClient(f.env, Options{Net: &Net{LocalIPs: ips}})
		require.NoError(t, c.Do(context.Background(), st, &scenario.Vars{}).Err)
		c.Close()
		require.Equal(t, want, <-peers)
	}
}

// TestNetHosts: k6's hosts option sends a host's connections to another address,
// keeping the request (its Host header, its TLS server name): a name, a name on one
// port (with another port), a wildcard domain; the plain-HTTP path and HTTPS alike.
// A name it does not map resolves as before.
func TestNetHosts(t *testing.T) {
	t.Parallel()
	var hosts []string
	var mu sync.Mutex
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		w.WriteHeader(http.StatusTeapot)
	})
	plain, tlsSrv := httptest.NewServer(h), httptest.NewTLSServer(h)
	defer plain.Close()
	defer tlsSrv.Close()
	pa, ta := netip.MustParseAddrPort(plain.Listener.Addr().String()), netip.MustParseAddrPort(tlsSrv.Listener.Addr().String())
	n := &Net{Hosts: map[string]netip.AddrPort{
		"tidemark.invalid":    pa,
		"other.invalid:80":    pa,
		"*.wild.invalid":      netip.AddrPortFrom(pa.Addr(), 0),
		"example.com":         ta,
		"nowhere.invalid:443": pa, // only for port 443
	}}
	for _, tc := range []struct {
		name, url, host string
		status          int
	}{
		{"name", "http://tidemark.invalid/", "tidemark.invalid", http.StatusTeapot},
		{"name and port", "http://other.invalid/", "other.invalid", http.StatusTeapot},
		{"wildcard keeps the port", "http://a.b.wild.invalid:" + strconv.Itoa(int(pa.Port())) + "/", "a.b.wild.invalid:" + strconv.Itoa(int(pa.Port())), http.StatusTeapot},
		{"https keeps the server name", "https://example.com/", "example.com", http.StatusTeapot},
		{"another port is not mapped", "http://nowhere.invalid/", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			st := f.compile(t, &scenario.Step{URL: tmpl(t, tc.url)})
			c := NewClient(f.env, Options{Net: n, TLS: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig})
			defer c.Close()
			out := c.Do(context.Background(), st, &scenario.Vars{})
			require.Equal(t, tc.status, out.Status, "%v", out.Err)
			if tc.status == 0 {
				require.ErrorContains(t, out.Err, "lookup nowhere.invalid", "on port 80 the name is looked up, and found nowhere")
				return
			}
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, tc.host, hosts[len(hosts)-1])
		})
	}
}
