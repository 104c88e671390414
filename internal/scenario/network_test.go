package scenario

import (
	"encoding/json"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLayerScriptOptions: the --config file lies under the script's options and the
// K6_* variables (the flags) over them, as k6 layers them.
func TestLayerScriptOptions(t *testing.T) {
	t.Parallel()
	out, err := LayerScriptOptions([]byte(`{"iterations": 5, "maxRedirects": 2}`),
		[]byte(`{"vus": 3, "iterations": 9, "collectors": {"x": 1}, "batch": 4}`),
		map[string]string{"K6_MAX_REDIRECTS": "0", "K6_DISCARD_RESPONSE_BODIES": "true", "K6_SYSTEM_TAGS": "status, url",
			"K6_DNS": "ttl=inf,select=first", "K6_RPS": "7", "K6_BLACKLIST_IPS": "10.0.0.0/8"})
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	require.Equal(t, map[string]any{
		"iterations": 5.0, "vus": 3.0, "batch": 4.0, "maxRedirects": 0.0, "discardResponseBodies": true,
		"systemTags": []any{"status", "url"}, "rps": 7.0, "blacklistIPs": []any{"10.0.0.0/8"},
		"dns": map[string]any{"ttl": "inf", "select": "first", "policy": "preferIPv4"},
	}, got)

	_, err = LayerScriptOptions(nil, nil, map[string]string{"K6_BATCH": "many"})
	require.EqualError(t, err, `K6_BATCH: "many": expected a whole number`)
	_, err = LayerScriptOptions(nil, []byte(`[1]`), nil)
	require.ErrorContains(t, err, "--config: not a JSON object of k6 options")
}

// TestScriptNetworkOptions: a script's transport options decode into Test.Network.
func TestScriptNetworkOptions(t *testing.T) {
	t.Parallel()
	s, err := ParseScript("s.js", []byte(`{"rps": 5, "blacklistIPs": ["10.0.0.0/8", "192.168.1.1"], "blockHostnames": ["*.Example.com"],
		"dns": {"ttl": "1m", "select": "roundRobin", "policy": "onlyIPv6"}, "localIPs": "10.0.0.1-10.0.0.3,10.1.0.0/31",
		"noConnectionReuse": true, "noVUConnectionReuse": true, "systemTags": ["status"],
		"hosts": {"Test.k6.io": "1.2.3.4", "test.k6.io:443": "1.2.3.4:8443", "*.grafana.com": "::1"}}`), ScriptConfig{})
	require.NoError(t, err)
	require.Equal(t, Network{
		RPS:            5,
		BlacklistIPs:   []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.1/32")},
		BlockHostnames: []string{"*.example.com"},
		DNS:            DNS{TTL: time.Minute, Select: "roundRobin", Policy: "onlyIPv6"},
		LocalIPs: []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3"),
			netip.MustParseAddr("10.1.0.0"), netip.MustParseAddr("10.1.0.1")},
		NoConnectionReuse: true, NoVUConnectionReuse: true,
		Hosts: map[string]netip.AddrPort{"test.k6.io": netip.MustParseAddrPort("1.2.3.4:0"), "test.k6.io:443": netip.MustParseAddrPort("1.2.3.4:8443"),
			"*.grafana.com": netip.MustParseAddrPort("[::1]:0")},
	}, s.Test.Network)
	require.Equal(t, []string{"status"}, s.Test.SystemTags)

	for opts, wantErr := range map[string]string{
		`{"blacklistIPs": ["nope"]}`:                `s.js: blacklistIPs[0]: "nope" is not an IP range; expected CIDR such as 10.0.0.0/8`,
		`{"dns": {"policy": "ipv4"}}`:               `s.js: dns: dns policy "ipv4": expected preferIPv4, preferIPv6, onlyIPv4, onlyIPv6 or any`,
		`{"localIPs": "10.0.0.9-10.0.0.1"}`:         `s.js: localIPs: localIPs "10.0.0.9-10.0.0.1": expected an address, a range such as 10.0.0.1-10.0.0.9 or a CIDR range`,
		`{"rps": -1}`:                               `s.js: rps: must not be negative, got -1`,
		`{"hosts": {"test.k6.io": "test.example"}}`: `s.js: hosts.test.k6.io: "test.example": expected an IP address with an optional port (1.2.3.4, 1.2.3.4:8443, [::1]:8443)`,
		`{"hosts": {"test.k6.io:http": "1.2.3.4"}}`: `s.js: hosts.test.k6.io:http: port "http": expected a number from 1 to 65535`,
		`{"hosts": {"a.*.k6.io": "1.2.3.4"}}`:       `s.js: hosts.a.*.k6.io: "a.*.k6.io": expected a host name, with an optional port, or *. and a domain (test.k6.io, test.k6.io:443, *.k6.io)`,
		`{"hosts": ["1.2.3.4"]}`:                    `s.js: hosts: expected an object of host names to addresses, e.g. {'test.k6.io': '1.2.3.4', 'test.k6.io:443': '1.2.3.4:8443', '*.k6.io': '1.2.3.4'}`,
	} {
		_, err := ParseScript("s.js", []byte(opts), ScriptConfig{})
		require.EqualError(t, err, wantErr, opts)
	}
}

// TestDroppedSystemTags: the system tags a systemTags list leaves out.
func TestDroppedSystemTags(t *testing.T) {
	t.Parallel()
	require.Nil(t, DroppedSystemTags(nil))
	require.Nil(t, DroppedSystemTags(DefaultSystemTags()))
	dropped := DroppedSystemTags([]string{"status", "method"})
	require.Contains(t, dropped, "url")
	require.Contains(t, dropped, "scenario")
	require.NotContains(t, dropped, "status")
	require.NotContains(t, dropped, "method")
}
