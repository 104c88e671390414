package scenario

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Network are k6's test-wide transport options (reference/k6-js.md §4): rps,
// blacklistIPs, blockHostnames, dns, hosts, localIPs, noConnectionReuse and
// noVUConnectionReuse.
type Network struct {
	// RPS caps the requests per second of the whole test; 0 is no cap.
	RPS int
	// BlacklistIPs are ranges no request may connect to (error code 1110).
	BlacklistIPs []netip.Prefix
	// BlockHostnames are host names (a leading *. matches any subdomain) no request
	// may go to (error code 1111).
	BlockHostnames []string
	// DNS is how host names are resolved.
	DNS DNS
	// LocalIPs are the source addresses VUs connect from, handed out in turn.
	LocalIPs []netip.Addr
	// NoConnectionReuse closes every connection after its request;
	// NoVUConnectionReuse closes a VU's connections between iterations.
	NoConnectionReuse, NoVUConnectionReuse bool
	// Hosts are k6's DNS overrides (hosts): a host name ("test.k6.io", or "*.k6.io" for
	// its subdomains), alone or with a port ("test.k6.io:443", only that port), in
	// lower case, to the address connections go to instead; a port of 0 keeps the
	// request's.
	Hosts map[string]netip.AddrPort
}

// DNS is k6's dns option: how long a lookup is cached (TTL; negative for ever, 0
// never), which address is used (Select: first, random or roundRobin) and which
// family (Policy: preferIPv4, preferIPv6, onlyIPv4, onlyIPv6 or any).
type DNS struct {
	TTL    time.Duration
	Select string
	Policy string
}

// DefaultDNS is k6's default: ttl=5m, select=random, policy=preferIPv4.
func DefaultDNS() DNS { return DNS{TTL: 5 * time.Minute, Select: "random", Policy: "preferIPv4"} }

// network decodes the Network options of f.
func (d *decoder) network(f *fields) Network {
	nw := Network{DNS: DefaultDNS()}
	if n, ok := f.get("rps"); ok {
		if v, ok := d.integer(n, "rps"); ok {
			if v < 0 {
				d.errorf(n, "rps", "must not be negative, got %d", v)
			}
			nw.RPS = v
		}
	}
	if n, ok := f.get("blacklistIPs"); ok {
		for i, s := range d.stringList(n, "blacklistIPs") {
			p, err := ParseIPRange(s)
			if err != nil {
				d.errorf(n, index("blacklistIPs", i), "%v", err)
				continue
			}
			nw.BlacklistIPs = append(nw.BlacklistIPs, p)
		}
	}
	if n, ok := f.get("blockHostnames"); ok {
		for _, s := range d.stringList(n, "blockHostnames") {
			nw.BlockHostnames = append(nw.BlockHostnames, strings.ToLower(s))
		}
	}
	if n, ok := f.get("dns"); ok {
		nw.DNS = d.dns(n)
	}
	if n, ok := f.get("localIPs"); ok {
		if s, ok := d.str(n, "localIPs"); ok {
			ips, err := ParseLocalIPs(s)
			if err != nil {
				d.errorf(n, "localIPs", "%v", err)
			}
			nw.LocalIPs = ips
		}
	}
	if n, ok := f.get("hosts"); ok {
		nw.Hosts = d.hosts(n)
	}
	for k, dst := range map[string]*bool{"noConnectionReuse": &nw.NoConnectionReuse, "noVUConnectionReuse": &nw.NoVUConnectionReuse} {
		if n, ok := f.get(k); ok {
			*dst, _ = d.boolean(n, k)
		}
	}
	return nw
}

// hosts decodes k6's hosts option: {"name[:port]": "ip[:port]"}, a name starting with
// "*." matching its subdomains.
func (d *decoder) hosts(n *yaml.Node) map[string]netip.AddrPort {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "hosts", "expected an object of host names to addresses, e.g. {'test.k6.io': '1.2.3.4', 'test.k6.io:443': '1.2.3.4:8443', '*.k6.io': '1.2.3.4'}")
		return nil
	}
	out := map[string]netip.AddrPort{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := "hosts." + k.Value
		key, err := ParseHostsKey(k.Value)
		if err != nil {
			d.errorf(k, field, "%v", err)
			continue
		}
		s, ok := d.str(v, field)
		if !ok {
			continue
		}
		addr, err := ParseHostsAddr(s)
		if err != nil {
			d.errorf(v, field, "%v", err)
			continue
		}
		out[key] = addr
	}
	return out
}

// ParseHostsKey checks a key of the hosts option, "name", "name:port", "*.domain" or
// "*.domain:port", and returns it in lower case.
func ParseHostsKey(k string) (string, error) {
	host, port := k, ""
	if h, p, err := net.SplitHostPort(k); err == nil {
		host, port = h, p
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("port %q: expected a number from 1 to 65535", port)
		}
	}
	name := strings.TrimPrefix(host, "*.")
	if name == "" || strings.ContainsAny(name, "*/ ") {
		return "", fmt.Errorf("%q: expected a host name, with an optional port, or *. and a domain (test.k6.io, test.k6.io:443, *.k6.io)", k)
	}
	return strings.ToLower(k), nil
}

// ParseHostsAddr parses a value of the hosts option: an IP address, with an optional
// port ("1.2.3.4", "1.2.3.4:8443", "[::1]:8443"); a port of 0 keeps the request's.
func ParseHostsAddr(v string) (netip.AddrPort, error) {
	if a, err := netip.ParseAddr(v); err == nil {
		return netip.AddrPortFrom(a, 0), nil
	}
	ap, err := netip.ParseAddrPort(v)
	if err != nil || ap.Port() == 0 {
		return netip.AddrPort{}, fmt.Errorf("%q: expected an IP address with an optional port (1.2.3.4, 1.2.3.4:8443, [::1]:8443)", v)
	}
	return ap, nil
}

// dns decodes k6's dns option: {ttl, select, policy}, or the K6_DNS string form
// "ttl=1m,select=first,policy=any".
func (d *decoder) dns(n *yaml.Node) DNS {
	out := DefaultDNS()
	m := map[string]string{}
	switch n.Kind {
	case yaml.ScalarNode:
		parsed, err := ParseDNS(n.Value)
		if err != nil {
			d.errorf(n, "dns", "%v", err)
		}
		return parsed
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = n.Content[i+1].Value
		}
	default:
		d.errorf(n, "dns", "expected {ttl, select, policy}, e.g. {ttl: '1m', select: 'first', policy: 'preferIPv4'}")
		return out
	}
	parsed, err := dnsFromMap(m)
	if err != nil {
		d.errorf(n, "dns", "%v", err)
	}
	return parsed
}

// ParseDNS reads the K6_DNS / --dns form: ttl=DURATION|inf|0,select=first|random|
// roundRobin,policy=preferIPv4|preferIPv6|onlyIPv4|onlyIPv6|any; omitted keys keep
// k6's defaults.
func ParseDNS(s string) (DNS, error) {
	m := map[string]string{}
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return DefaultDNS(), fmt.Errorf("dns %q: expected KEY=VALUE pairs such as ttl=1m,select=first,policy=any", s)
		}
		m[k] = v
	}
	return dnsFromMap(m)
}

func dnsFromMap(m map[string]string) (DNS, error) {
	out := DefaultDNS()
	for k, v := range m {
		switch k {
		case "ttl":
			switch v {
			case "inf":
				out.TTL = -1
			case "0":
				out.TTL = 0
			default:
				ttl, err := parseDuration(v)
				if err != nil || ttl < 0 {
					return out, fmt.Errorf("dns ttl %q: expected a duration such as 1m, 0 (no caching) or inf", v)
				}
				out.TTL = ttl
			}
		case "select":
			if !slices.Contains([]string{"first", "random", "roundRobin"}, v) {
				return out, fmt.Errorf("dns select %q: expected first, random or roundRobin", v)
			}
			out.Select = v
		case "policy":
			if !slices.Contains([]string{"preferIPv4", "preferIPv6", "onlyIPv4", "onlyIPv6", "any"}, v) {
				return out, fmt.Errorf("dns policy %q: expected preferIPv4, preferIPv6, onlyIPv4, onlyIPv6 or any", v)
			}
			out.Policy = v
		default:
			return out, fmt.Errorf("dns: unknown key %q; expected ttl, select or policy", k)
		}
	}
	return out, nil
}

// parseDuration reads a k6 duration: Go's form, or a number of milliseconds.
func parseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	var ms float64
	if _, err := fmt.Sscanf(s, "%g", &ms); err == nil && fmt.Sprint(ms) == s {
		return time.Duration(ms * float64(time.Millisecond)), nil
	}
	return 0, fmt.Errorf("bad duration %q", s)
}

// ParseIPRange reads a blacklistIPs entry: a CIDR range or a single address.
func ParseIPRange(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	return netip.Prefix{}, fmt.Errorf("%q is not an IP range; expected CIDR such as 10.0.0.0/8", s)
}

// maxLocalIPs bounds the addresses localIPs may expand to: each VU takes one, and
// no test has more VUs than this.
const maxLocalIPs = 1 << 20

// ParseLocalIPs reads k6's localIPs: comma-separated addresses, FIRST-LAST ranges and
// CIDR ranges, expanded in order.
func ParseLocalIPs(s string) ([]netip.Addr, error) {
	var out []netip.Addr
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		first, last, err := ipRange(part)
		if err != nil {
			return nil, err
		}
		for a := first; a.IsValid() && a.Compare(last) <= 0; a = a.Next() {
			if len(out) >= maxLocalIPs {
				return nil, fmt.Errorf("localIPs %q: more than %d addresses", s, maxLocalIPs)
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// ipRange is the first and last address of A, A-B or a CIDR range.
func ipRange(part string) (netip.Addr, netip.Addr, error) {
	bad := fmt.Errorf("localIPs %q: expected an address, a range such as 10.0.0.1-10.0.0.9 or a CIDR range", part)
	if a, b, ok := strings.Cut(part, "-"); ok {
		first, err1 := netip.ParseAddr(strings.TrimSpace(a))
		last, err2 := netip.ParseAddr(strings.TrimSpace(b))
		if err1 != nil || err2 != nil || first.BitLen() != last.BitLen() || last.Less(first) {
			return netip.Addr{}, netip.Addr{}, bad
		}
		return first, last, nil
	}
	if p, err := netip.ParsePrefix(part); err == nil {
		return p.Masked().Addr(), lastAddr(p), nil
	}
	a, err := netip.ParseAddr(part)
	if err != nil {
		return netip.Addr{}, netip.Addr{}, bad
	}
	return a, a, nil
}

// lastAddr is the last address of p: its host bits set.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
