package browser

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "defaults", env: nil, want: Config{Headless: true, Timeout: 30 * time.Second}},
		{
			name: "k6's variables",
			env: map[string]string{EnvHeadless: "false", EnvArgs: "--window-size=800,600,lang=fr", EnvTimeout: "5s",
				EnvIgnoreDefaultArgs: "disable-extensions", EnvExecutablePath: "/opt/chrome"},
			want: Config{ExecutablePath: "/opt/chrome", Headless: false, Args: []string{"window-size=800", "600", "lang=fr"},
				IgnoreDefaultArgs: []string{"disable-extensions"}, Timeout: 5 * time.Second},
		},
		{
			name:    "bad values",
			env:     map[string]string{EnvHeadless: "maybe", EnvTimeout: "soon"},
			want:    Config{Headless: true, Timeout: 30 * time.Second},
			wantErr: "K6_BROWSER_HEADLESS=\"maybe\": expected true or false\nK6_BROWSER_TIMEOUT=\"soon\": expected a positive duration such as 30s",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestExecutable(t *testing.T) {
	t.Parallel()
	none := func(string) (string, error) { return "", errors.New("not found") }
	_, err := Config{}.Executable(none)
	require.ErrorIs(t, err, ErrNoBrowser)
	require.ErrorContains(t, err, "K6_BROWSER_EXECUTABLE_PATH")

	second := func(name string) (string, error) {
		if name == "chromium-browser" {
			return "/usr/bin/chromium-browser", nil
		}
		return "", errors.New("not found")
	}
	p, err := Config{}.Executable(second)
	require.NoError(t, err)
	require.Equal(t, "/usr/bin/chromium-browser", p)

	_, err = Config{ExecutablePath: filepath.Join(t.TempDir(), "nope")}.Executable(none)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.ErrorContains(t, err, "K6_BROWSER_EXECUTABLE_PATH=")
}

// TestHostResolverRules: the hosts option as Chromium's switch, names and wildcard
// domains in order, IPv6 in brackets, a port kept; a key with a port is not applied.
func TestHostResolverRules(t *testing.T) {
	arg, skipped := HostResolverRules(map[string]netip.AddrPort{
		"test.k6.io":     netip.MustParseAddrPort("1.2.3.4:0"),
		"*.grafana.com":  netip.MustParseAddrPort("[::1]:0"),
		"api.test":       netip.MustParseAddrPort("127.0.0.1:8080"),
		"test.k6.io:443": netip.MustParseAddrPort("1.2.3.4:8443"),
	})
	require.Equal(t, "host-resolver-rules=MAP *.grafana.com [::1], MAP api.test 127.0.0.1:8080, MAP test.k6.io 1.2.3.4", arg)
	require.Equal(t, []string{"test.k6.io:443"}, skipped)
	arg, skipped = HostResolverRules(nil)
	require.Empty(t, arg)
	require.Empty(t, skipped)
}
