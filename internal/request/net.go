package request

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// k6's error codes of requests its options refuse.
const (
	CodeBlacklistedIP   = 1110
	CodeBlockedHostname = 1111
)

// Net are k6's test-wide transport options, shared by every VU's client: the rps cap,
// blacklisted ranges, blocked host names, the DNS resolver, the local addresses and
// connection reuse. A nil *Net is k6's defaults without a cap.
type Net struct {
	// Limiter caps the requests per second of all VUs (rps); nil for none.
	Limiter *Limiter
	// Blacklist are the ranges no connection may go to (blacklistIPs).
	Blacklist []netip.Prefix
	// BlockHostnames are host names no request may go to; a leading * matches any
	// start, so "*.example.com" matches example.com's subdomains (blockHostnames).
	BlockHostnames []string
	// Resolver resolves host names (dns); nil uses the system's resolver.
	Resolver *Resolver
	// LocalIPs hands each client a source address in turn (localIPs); nil lets the
	// system choose.
	LocalIPs *LocalIPs
	// NoConnectionReuse closes each connection after its request.
	NoConnectionReuse bool
	// Hosts override the resolution of host names (hosts): "name", "name:port",
	// "*.domain" or "*.domain:port" (lower case) to the address to connect to, whose
	// port 0 keeps the request's. The request itself (its Host header, TLS server
	// name) is unchanged.
	Hosts map[string]netip.AddrPort
}

// override is the hosts entry for host and port: host:port, else host, else the
// closest wildcard domain with the port, then without.
func (n *Net) override(host, port string) (netip.AddrPort, bool) {
	if n == nil || len(n.Hosts) == 0 {
		return netip.AddrPort{}, false
	}
	host = strings.ToLower(host)
	for name := host; ; {
		for _, k := range []string{net.JoinHostPort(name, port), name} {
			if a, ok := n.Hosts[k]; ok {
				return a, true
			}
		}
		_, rest, ok := strings.Cut(strings.TrimPrefix(name, "*."), ".")
		if !ok {
			return netip.AddrPort{}, false
		}
		name = "*." + rest
	}
}

// BlockedError is a request k6's options refuse: its host is blocked (1111) or its
// address blacklisted (1110).
type BlockedError struct {
	Code int
	Msg  string
}

func (e *BlockedError) Error() string { return e.Msg }

// checkHost refuses a host name of BlockHostnames.
func (n *Net) checkHost(target string) error {
	if n == nil || len(n.BlockHostnames) == 0 {
		return nil
	}
	host := ""
	if u, err := url.Parse(target); err == nil {
		host = strings.ToLower(u.Hostname())
	} // else the request itself reports the bad URL
	for _, p := range n.BlockHostnames {
		if host == p || strings.HasPrefix(p, "*") && strings.HasSuffix(host, p[1:]) {
			return &BlockedError{Code: CodeBlockedHostname, Msg: fmt.Sprintf("hostname (%s) is in a blocked pattern (%s)", host, p)}
		}
	}
	return nil
}

// checkIP refuses an address of a blacklisted range, as k6 does.
func (n *Net) checkIP(ip netip.Addr) error {
	if n == nil {
		return nil
	}
	ip = ip.Unmap()
	for _, p := range n.Blacklist {
		if p.Contains(ip) {
			return &BlockedError{Code: CodeBlacklistedIP, Msg: fmt.Sprintf("IP (%s) is in a blacklisted range (%s)", ip, p)}
		}
	}
	return nil
}

// lookup resolves host with the Resolver, or the system's.
func (n *Net) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if n != nil && n.Resolver != nil {
		return n.Resolver.Lookup(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// dial connects to addr as the net/http transport asks, resolving and checking its
// host as the plain-HTTP path does.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &c.h1.dialer
	return c.dialResolved(ctx, network, addr, func(ctx context.Context, a string) (net.Conn, error) {
		return d.DialContext(ctx, network, a)
	})
}

// dialResolved resolves addr's host (by the hosts option first; an address is taken as it
// is), refuses an address
// the blacklist holds, and dials the addresses in order with dial until one connects;
// when none does, the first error is returned.
func (c *Client) dialResolved(ctx context.Context, network, addr string, dial func(ctx context.Context, addr string) (net.Conn, error)) (net.Conn, error) {
	n := c.opts.Net
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips := []netip.Addr{}
	if a, ok := n.override(host, port); ok {
		ips = append(ips, a.Addr())
		if a.Port() != 0 {
			port = strconv.Itoa(int(a.Port()))
		}
	} else if ip, err := netip.ParseAddr(host); err == nil {
		ips = append(ips, ip)
	} else if ips, err = n.lookup(ctx, host); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	var first error
	for _, ip := range ips {
		if err := n.checkIP(ip); err != nil {
			return nil, err
		}
		conn, err := dial(ctx, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if first == nil {
		first = &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	return nil, first
}

// Limiter spaces requests evenly at a rate per second (k6's rps). It is safe for
// concurrent use.
type Limiter struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

// NewLimiter returns a limiter of rps requests per second, or nil when rps ≤ 0.
func NewLimiter(rps int) *Limiter {
	if rps <= 0 {
		return nil
	}
	return &Limiter{interval: time.Second / time.Duration(rps)}
}

// Wait blocks until the caller's turn, or until ctx ends.
func (l *Limiter) Wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.interval)
	l.mu.Unlock()
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// LocalIPs hands out source addresses in turn. It is safe for concurrent use.
type LocalIPs struct {
	ips  []netip.Addr
	next atomic.Uint64
}

// NewLocalIPs returns the addresses' dispenser, or nil when there are none.
func NewLocalIPs(ips []netip.Addr) *LocalIPs {
	if len(ips) == 0 {
		return nil
	}
	return &LocalIPs{ips: ips}
}

// Next is the next address.
func (l *LocalIPs) Next() netip.Addr {
	i := l.next.Add(1) - 1
	return l.ips[i%uint64(len(l.ips))]
}

// Resolver resolves host names as k6's dns option says: cached for TTL (negative
// for ever, 0 not at all), the address Select picks (first, random, roundRobin)
// first, of the family Policy allows (preferIPv4, preferIPv6, onlyIPv4, onlyIPv6,
// any). It is safe for concurrent use.
type Resolver struct {
	ttl            time.Duration
	selection      string
	policy         string
	lookup         func(ctx context.Context, host string) ([]netip.Addr, error)
	mu             sync.Mutex
	cache          map[string]dnsEntry
	rr             map[string]int
	now            func() time.Time
	randIntN       func(int) int
	systemResolver *net.Resolver
}

type dnsEntry struct {
	ips []netip.Addr
	at  time.Time
}

// NewResolver returns a resolver over the system's.
func NewResolver(ttl time.Duration, selection, policy string) *Resolver {
	r := &Resolver{ttl: ttl, selection: selection, policy: policy, cache: map[string]dnsEntry{}, rr: map[string]int{},
		now: time.Now, randIntN: rand.IntN, systemResolver: net.DefaultResolver}
	r.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return r.systemResolver.LookupNetIP(ctx, "ip", host)
	}
	return r
}

// Lookup returns host's addresses of the policy's family, the selected one first.
func (r *Resolver) Lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	ips, err := r.cached(ctx, host)
	if err != nil {
		return nil, err
	}
	ips = r.family(ips)
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := 0
	switch r.selection {
	case "random":
		i = r.randIntN(len(ips))
	case "roundRobin":
		r.mu.Lock()
		i = r.rr[host] % len(ips)
		r.rr[host]++
		r.mu.Unlock()
	}
	out := make([]netip.Addr, 0, len(ips))
	out = append(out, ips[i])
	out = append(out, ips[:i]...)
	return append(out, ips[i+1:]...), nil
}

// cached is host's addresses from the cache while their TTL lasts.
func (r *Resolver) cached(ctx context.Context, host string) ([]netip.Addr, error) {
	if r.ttl != 0 {
		r.mu.Lock()
		e, ok := r.cache[host]
		r.mu.Unlock()
		if ok && (r.ttl < 0 || r.now().Sub(e.at) < r.ttl) {
			return e.ips, nil
		}
	}
	ips, err := r.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if r.ttl != 0 {
		r.mu.Lock()
		r.cache[host] = dnsEntry{ips: ips, at: r.now()}
		r.mu.Unlock()
	}
	return ips, nil
}

// family keeps the addresses the policy allows, the preferred family only when it
// has any.
func (r *Resolver) family(ips []netip.Addr) []netip.Addr {
	var v4, v6 []netip.Addr
	for _, ip := range ips {
		if ip.Unmap().Is4() {
			v4 = append(v4, ip.Unmap())
		} else {
			v6 = append(v6, ip)
		}
	}
	switch r.policy {
	case "onlyIPv4":
		return v4
	case "onlyIPv6":
		return v6
	case "preferIPv6":
		if len(v6) > 0 {
			return v6
		}
		return v4
	case "any":
		return ips
	}
	if len(v4) > 0 {
		return v4
	}
	return v6
}
