package remotewrite_test

import (
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/config"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/remotewrite"
)

func TestLoadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "password"), []byte("s3cret\n"), 0o600))
	path := filepath.Join(dir, "rw.yml")
	require.NoError(t, os.WriteFile(path, []byte(`
url: https://mimir.example/api/v1/push
protocol: "2.0"
push_interval: 10s
stale_markers: false
headers:
  X-Scope-OrgID: team-a
trend_stats: ["p(95)", "max"]
native_histograms: true
labels: {cluster: eks-1}
label_rules:
  - {label: url, action: drop}
  - {label: name, regex: '(.*)\?.*', replacement: '$1'}
queue_config:
  max_samples_per_send: 500
  final_flush_timeout: 30s
basic_auth:
  username: loadtest
  password_file: password
tls_config:
  insecure_skip_verify: true
`), 0o600))
	cfg, err := remotewrite.LoadFile(path)
	require.NoError(t, err)
	require.Equal(t, "https://mimir.example/api/v1/push", cfg.URL.String())
	require.Equal(t, remotewrite.Protocol2, cfg.Protocol)
	require.Equal(t, 10*time.Second, time.Duration(cfg.PushInterval))
	require.False(t, cfg.StaleMarkers)
	require.Equal(t, map[string]string{"X-Scope-OrgID": "team-a"}, cfg.Headers)
	require.Equal(t, []string{"p(95)", "max"}, cfg.Series.TrendStats)
	require.True(t, cfg.Series.NativeHistograms)
	require.Equal(t, map[string]string{"cluster": "eks-1"}, cfg.Series.Labels)
	require.Equal(t, []series.LabelRule{{Label: "url", Action: "drop"}, {Label: "name", Regex: `(.*)\?.*`, Replacement: "$1"}}, cfg.Series.LabelRules)
	require.Equal(t, 500, cfg.Queue.MaxSamplesPerSend)
	require.Equal(t, remotewrite.DefaultQueueConfig.MinBackoff, cfg.Queue.MinBackoff, "defaults kept")
	require.Equal(t, 30*time.Second, time.Duration(cfg.Queue.FinalFlushTimeout))
	require.Equal(t, filepath.Join(dir, "password"), cfg.HTTPClientConfig.BasicAuth.PasswordFile, "relative to the file")
	require.True(t, cfg.HTTPClientConfig.TLSConfig.InsecureSkipVerify)
	require.True(t, cfg.HTTPClientConfig.FollowRedirects, "common defaults kept")
	require.NoError(t, cfg.Validate())
}

func TestLoadFileErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		wantErr    []string
	}{
		{name: "unknown field", yaml: "url: http://x/\npush_intervall: 5s\n", wantErr: []string{"field push_intervall not found"}},
		{name: "bad values", yaml: "url: ftp://x/\nprotocol: \"3.0\"\npush_interval: 0s\ntrend_stats: [p99]\n", wantErr: []string{
			`scheme must be http or https`, `remote write protocol "3.0": want 1.0 or 2.0`,
			"remote write push interval 0s: expected at least 10ms", `parse trend stat "p99"`,
		}},
		{name: "sigv4 with basic auth", yaml: "url: http://x/\nsigv4: {region: eu-west-1}\nbasic_auth: {username: u, password: p}\n",
			wantErr: []string{"sigv4 cannot be combined with basic_auth"}},
		{name: "reserved header", yaml: "url: http://x/\nheaders: {Authorization: x}\n", wantErr: []string{`remote write header "Authorization" is reserved`}},
		{name: "bad label rule", yaml: "url: http://x/\nlabel_rules: [{label: url, regex: '('}]\n", wantErr: []string{"label rule 1 (url): compile regex"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "rw.yml")
			require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o600))
			_, err := remotewrite.LoadFile(path)
			require.Error(t, err)
			for _, want := range tc.wantErr {
				require.ErrorContains(t, err, want)
			}
		})
	}
	_, err := remotewrite.LoadFile(filepath.Join(t.TempDir(), "missing.yml"))
	require.ErrorContains(t, err, "read remote write config")
	empty := remotewrite.DefaultConfig
	require.EqualError(t, empty.Validate(), "remote write url is empty")
}

func TestApplyK6Env(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     []string
		check   func(t *testing.T, c remotewrite.Config)
		wantSet bool
		wantErr string
	}{
		{name: "none", env: []string{"HOME=/root", "K6_OTHER=1"}, check: func(t *testing.T, c remotewrite.Config) {
			require.Nil(t, c.URL)
		}},
		{name: "the k6 CronJob", wantSet: true, env: []string{
			"K6_PROMETHEUS_RW_SERVER_URL=http://prometheus:9090/api/v1/write",
			"K6_PROMETHEUS_RW_PUSH_INTERVAL=10s",
			"K6_PROMETHEUS_RW_TREND_STATS=p(95),p(99),min,max",
			"K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true",
			"K6_PROMETHEUS_RW_STALE_MARKERS=false",
			"K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY=true",
			"K6_PROMETHEUS_RW_TLS_MINIMUM_VERSION=1.2",
			"K6_PROMETHEUS_RW_CLIENT_CERTIFICATE=/certs/tls.crt",
			"K6_PROMETHEUS_RW_CLIENT_CERTIFICATE_KEY=/certs/tls.key",
			"K6_PROMETHEUS_RW_LABELS=cluster=eks,team=a",
		}, check: func(t *testing.T, c remotewrite.Config) {
			require.Equal(t, "http://prometheus:9090/api/v1/write", c.URL.String())
			require.Equal(t, 10*time.Second, time.Duration(c.PushInterval))
			require.Equal(t, []string{"p(95)", "p(99)", "min", "max"}, c.Series.TrendStats)
			require.True(t, c.Series.NativeHistograms)
			require.False(t, c.StaleMarkers)
			require.True(t, c.HTTPClientConfig.TLSConfig.InsecureSkipVerify)
			require.Equal(t, config.TLSVersion(tls.VersionTLS12), c.HTTPClientConfig.TLSConfig.MinVersion)
			require.Equal(t, "/certs/tls.crt", c.HTTPClientConfig.TLSConfig.CertFile)
			require.Equal(t, "/certs/tls.key", c.HTTPClientConfig.TLSConfig.KeyFile)
			require.Equal(t, map[string]string{"cluster": "eks", "team": "a"}, c.Series.Labels)
		}},
		{name: "headers, HTTP_HEADERS wins", wantSet: true, env: []string{
			"K6_PROMETHEUS_RW_HEADERS_X-Scope-OrgID=from-prefix",
			"K6_PROMETHEUS_RW_HEADERS_X-Other=o",
			"K6_PROMETHEUS_RW_HTTP_HEADERS=X-Scope-OrgID:tenant-1, X-Team: b",
		}, check: func(t *testing.T, c remotewrite.Config) {
			require.Equal(t, map[string]string{"X-Scope-OrgID": "tenant-1", "X-Other": "o", "X-Team": "b"}, c.Headers)
		}},
		{name: "authorization header", wantSet: true, env: []string{"K6_PROMETHEUS_RW_HTTP_HEADERS=Authorization:Bearer abc,X-A:1", "K6_PROMETHEUS_RW_SERVER_URL=http://x/w"},
			check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, "Bearer", c.HTTPClientConfig.Authorization.Type)
				require.Equal(t, config.Secret("abc"), c.HTTPClientConfig.Authorization.Credentials)
				require.Equal(t, map[string]string{"X-A": "1"}, c.Headers)
				require.NoError(t, c.Validate())
			}},
		{name: "basic auth", wantSet: true, env: []string{"K6_PROMETHEUS_RW_USERNAME=u", "K6_PROMETHEUS_RW_PASSWORD=p"},
			check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, "u", c.HTTPClientConfig.BasicAuth.Username)
				require.Equal(t, config.Secret("p"), c.HTTPClientConfig.BasicAuth.Password)
			}},
		{name: "bearer", wantSet: true, env: []string{"K6_PROMETHEUS_RW_BEARER_TOKEN=tok"},
			check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, "Bearer", c.HTTPClientConfig.Authorization.Type)
				require.Equal(t, config.Secret("tok"), c.HTTPClientConfig.Authorization.Credentials)
			}},
		{name: "sigv4", wantSet: true, env: []string{"K6_PROMETHEUS_RW_SIGV4_REGION=us-east-1", "K6_PROMETHEUS_RW_SIGV4_ACCESS_KEY=AK", "K6_PROMETHEUS_RW_SIGV4_SECRET_KEY=SK"},
			check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, "us-east-1", c.SigV4.Region)
				require.Equal(t, "AK", c.SigV4.AccessKey)
				require.Equal(t, config.Secret("SK"), c.SigV4.SecretKey)
			}},
		{name: "k6 features", wantSet: true, env: []string{"K6_FEATURES=foo,native-histograms"},
			check: func(t *testing.T, c remotewrite.Config) { require.True(t, c.Series.NativeHistograms) }},
		// k6 leaves out a pair with an empty name or value, and __name__.
		{name: "labels k6 ignores", wantSet: true, env: []string{"K6_PROMETHEUS_RW_LABELS=env=prod,empty=,=novalue,__name__=x, team = a "},
			check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, map[string]string{"env": "prod", "team": "a"}, c.Series.Labels)
			}},
		{name: "labels, a pair without =", wantSet: true, env: []string{"K6_PROMETHEUS_RW_LABELS=env=prod,team"},
			wantErr: `K6_PROMETHEUS_RW_LABELS: label "team": want name=value`},
		{name: "TLS_MIN_VERSION doc spelling", wantSet: true, env: []string{"K6_PROMETHEUS_RW_TLS_MIN_VERSION=1.3"},
			check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, config.TLSVersion(tls.VersionTLS13), c.HTTPClientConfig.TLSConfig.MinVersion)
			}},
		{name: "partial sigv4", wantSet: true, env: []string{"K6_PROMETHEUS_RW_SIGV4_REGION=us-east-1"},
			wantErr: "K6_PROMETHEUS_RW_SIGV4_REGION, _SIGV4_ACCESS_KEY and _SIGV4_SECRET_KEY must be set together"},
		{name: "bad bool", wantSet: true, env: []string{"K6_PROMETHEUS_RW_STALE_MARKERS=yes please"},
			wantErr: `K6_PROMETHEUS_RW_STALE_MARKERS="yes please": want true or false`},
		{name: "bad header pair", wantSet: true, env: []string{"K6_PROMETHEUS_RW_HTTP_HEADERS=novalue"},
			wantErr: `K6_PROMETHEUS_RW_HTTP_HEADERS: pair "novalue": want key:value`},
		{name: "bad interval", wantSet: true, env: []string{"K6_PROMETHEUS_RW_PUSH_INTERVAL=soon"},
			wantErr: "K6_PROMETHEUS_RW_PUSH_INTERVAL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := remotewrite.DefaultConfig
			set, err := cfg.ApplyK6Env(envOf(tc.env))
			require.Equal(t, tc.wantSet, set)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, cfg)
		})
	}
}

// TestSecretsNeverLeak: passwords, tokens and URL credentials appear in no log line
// (at any level), no error and no summary, while they do reach the receiver.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	const (
		password = "hunter2-password"
		urlPass  = "url-pass-9876"
		secret   = "sigv4-secret-abcdef"
	)
	var mu sync.Mutex
	var gotAuth []string
	rc := newReceiver(t)
	rc.setRespond(func(n int, r request) (int, http.Header, string) {
		mu.Lock()
		gotAuth = append(gotAuth, r.header.Get("Authorization"))
		mu.Unlock()
		switch n % 3 {
		case 0:
			return http.StatusUnauthorized, nil, "bad credentials"
		case 1:
			return http.StatusServiceUnavailable, nil, "try later"
		}
		return http.StatusNoContent, nil, ""
	})
	for _, tc := range []struct {
		name  string
		setup func(c *remotewrite.Config)
		check func(t *testing.T, auth string)
	}{
		{name: "basic auth", setup: func(c *remotewrite.Config) {
			c.HTTPClientConfig.BasicAuth = &config.BasicAuth{Username: "user", Password: password}
		}, check: func(t *testing.T, auth string) { require.True(t, strings.HasPrefix(auth, "Basic ")) }},
		{name: "url userinfo", setup: func(c *remotewrite.Config) {
			u := *c.URL.URL
			u.User = url.UserPassword("user", urlPass)
			c.URL = &config.URL{URL: &u}
		}, check: func(t *testing.T, auth string) { require.True(t, strings.HasPrefix(auth, "Basic ")) }},
		{name: "bearer", setup: func(c *remotewrite.Config) {
			c.HTTPClientConfig.Authorization = &config.Authorization{Type: "Bearer", Credentials: password}
		}, check: func(t *testing.T, auth string) { require.Equal(t, "Bearer "+password, auth) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(rc.url())
			cfg.Queue.FinalFlushTimeout = modelDuration(100 * time.Millisecond)
			tc.setup(&cfg)
			logger, logs := newLogger(slog.LevelDebug)
			c := start(t, cfg, newCounterSource(), logger, nil)
			require.Eventually(t, func() bool { return c.Stats().Requests > 0 }, 5*time.Second, 5*time.Millisecond)
			stopErr := c.Stop()
			mu.Lock()
			tc.check(t, gotAuth[len(gotAuth)-1])
			mu.Unlock()
			all := logs.String()
			require.NotEmpty(t, all)
			if stopErr != nil {
				all += stopErr.Error()
			}
			all += c.Stats().String()
			for _, s := range []string{password, urlPass} {
				require.NotContains(t, all, s)
			}
		})
	}
	// Errors at construction (a missing password file, a bad URL) do not leak either.
	cfg := testConfig(rc.url())
	cfg.SigV4 = nil
	cfg.HTTPClientConfig.BasicAuth = &config.BasicAuth{Username: "u", Password: secret, PasswordFile: "/nonexistent"}
	_, err := remotewrite.NewClient(cfg, newCounterSource(), slog.New(slog.DiscardHandler), nil)
	require.Error(t, err)
	require.NotContains(t, err.Error(), secret)
}

func TestSigV4(t *testing.T) {
	t.Parallel()
	const secret = "sigv4-secret-abcdef"
	var mu sync.Mutex
	var auth string
	rc := newReceiver(t)
	rc.setRespond(func(_ int, r request) (int, http.Header, string) {
		mu.Lock()
		defer mu.Unlock()
		auth = r.header.Get("Authorization")
		return http.StatusForbidden, nil, "signature does not match"
	})
	cfg := testConfig(rc.url())
	cfg.Series.TestID = ""
	set, err := cfg.ApplyK6Env(envOf([]string{
		"K6_PROMETHEUS_RW_SIGV4_REGION=us-east-1",
		"K6_PROMETHEUS_RW_SIGV4_ACCESS_KEY=AKIDEXAMPLE",
		"K6_PROMETHEUS_RW_SIGV4_SECRET_KEY=" + secret,
	}))
	require.NoError(t, err)
	require.True(t, set)
	logger, logs := newLogger(slog.LevelDebug)
	c := start(t, cfg, newCounterSource(), logger, nil)
	require.Eventually(t, func() bool { return c.Stats().Dropped > 0 }, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, c.Stop())
	mu.Lock()
	defer mu.Unlock()
	require.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"), auth)
	require.Contains(t, auth, "/us-east-1/aps/aws4_request")
	require.NotContains(t, logs.String(), secret)
	require.Contains(t, logs.String(), "signature does not match")
}

// TestConfigUnmarshalYAML: embedded in a larger file, the config gets its defaults and
// is validated.
func TestConfigUnmarshalYAML(t *testing.T) {
	t.Parallel()
	var doc struct {
		RemoteWrite remotewrite.Config `yaml:"remote_write"`
	}
	require.NoError(t, yaml.Unmarshal([]byte("remote_write:\n  url: http://p/api/v1/write\n  trend_stats: [max]\n"), &doc))
	c := doc.RemoteWrite
	require.Equal(t, "http://p/api/v1/write", c.URL.String())
	require.Equal(t, []string{"max"}, c.Series.TrendStats)
	require.Equal(t, remotewrite.DefaultConfig.PushInterval, c.PushInterval)
	require.True(t, c.StaleMarkers)
	require.Equal(t, 2000, c.Queue.MaxSamplesPerSend)
	err := yaml.Unmarshal([]byte("remote_write:\n  protocol: \"9\"\n"), &doc)
	require.ErrorContains(t, err, `remote write protocol "9"`)
}

// TestBadURLNeverLeaks checks that a URL that does not parse is not repeated in the
// error when it may hold credentials: url.Parse quotes the whole string, and its cause
// can quote part of a password (a '/' in the password ends the host early).
func TestBadURLNeverLeaks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, url, want string
	}{
		{name: "bad port", url: "http://user:s3cr/et-pa55@host:bad/api/v1/write", want: "invalid URL"},
		{name: "slash in password", url: "https://user:s3cr/et-pa55@host/api/v1/write", want: "invalid URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var c remotewrite.Config
			_, err := c.ApplyK6Env(envOf([]string{"K6_PROMETHEUS_RW_SERVER_URL=" + tc.url}))
			require.ErrorContains(t, err, "K6_PROMETHEUS_RW_SERVER_URL")
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "s3cr")
			require.NotContains(t, err.Error(), "pa55")

			path := filepath.Join(t.TempDir(), "rw.yml")
			require.NoError(t, os.WriteFile(path, []byte("url: "+tc.url+"\n"), 0o600))
			_, err = remotewrite.LoadFile(path)
			require.ErrorContains(t, err, path)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "s3cr")
			require.NotContains(t, err.Error(), "pa55")
		})
	}
	// Without credentials, the cause stays.
	var c remotewrite.Config
	_, err := c.ApplyK6Env(envOf([]string{"K6_PROMETHEUS_RW_SERVER_URL=http://host:bad/"}))
	require.ErrorContains(t, err, `invalid port ":bad" after host`)
}

// envOf is an environment in os.Environ form as a map.
func envOf(kvs []string) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}
