package serving

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBaseURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tlsFile := filepath.Join(dir, "web-tls.yml")
	require.NoError(t, os.WriteFile(tlsFile, []byte("tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"), 0o600))
	authFile := filepath.Join(dir, "web-auth.yml")
	require.NoError(t, os.WriteFile(authFile, []byte("basic_auth_users:\n  a: b\n"), 0o600))
	for _, tc := range []struct {
		name, addr, file, want string
	}{
		{"loopback", "127.0.0.1:9091", "", "http://127.0.0.1:9091"},
		{"wildcard is reached through loopback", "0.0.0.0:9091", "", "http://127.0.0.1:9091"},
		{"IPv6 wildcard", "[::]:9091", "", "http://127.0.0.1:9091"},
		{"IPv6 loopback", "[::1]:9091", "", "http://[::1]:9091"},
		{"TLS", "127.0.0.1:9091", tlsFile, "https://127.0.0.1:9091"},
		{"auth without TLS", "127.0.0.1:9091", authFile, "http://127.0.0.1:9091"},
		{"missing file", "127.0.0.1:9091", filepath.Join(dir, "nope"), "http://127.0.0.1:9091"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, err := net.ResolveTCPAddr("tcp", tc.addr)
			require.NoError(t, err)
			require.Equal(t, tc.want, BaseURL(addr, tc.file))
		})
	}
}

// TestWhere: issue 24's exporter said http://127.0.0.1:9466 while it listened on every
// interface; the banner says so.
func TestWhere(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"0.0.0.0:9466":   "http://127.0.0.1:9466 (listening on every interface)",
		"[::]:9466":      "http://127.0.0.1:9466 (listening on every interface)",
		"127.0.0.1:9466": "http://127.0.0.1:9466",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		require.NoError(t, err)
		require.Equal(t, want, Where(a, ""), addr)
	}
}

func TestListen(t *testing.T) {
	t.Parallel()
	_, err := Listen(nil)
	require.EqualError(t, err, "no listen address")
	ls, err := Listen([]string{"127.0.0.1:0", "127.0.0.1:0"})
	require.NoError(t, err)
	require.Len(t, ls, 2)
	_, err = Listen([]string{"127.0.0.1:0", ls[0].Addr().String()})
	require.ErrorContains(t, err, "listen on "+ls[0].Addr().String())
	CloseListeners(ls)
}
