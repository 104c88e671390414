package remotewrite

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/sigv4"
	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/series"
)

// Protocol versions.
const (
	Protocol1 = "1.0"
	Protocol2 = "2.0"
)

// Config configures a Client. Structure is YAML (--remote-write.config.file); the
// common knobs also have flags and k6's K6_PROMETHEUS_RW_* environment variables.
type Config struct {
	// URL is the receiver's write endpoint, e.g. http://prometheus:9090/api/v1/write.
	URL *config.URL `yaml:"url"`
	// Protocol is "1.0" (prometheus.WriteRequest, as k6 sends) or "2.0"
	// (io.prometheus.write.v2.Request, with metadata).
	Protocol string `yaml:"protocol"`
	// PushInterval is how often every live series is sent.
	PushInterval model.Duration `yaml:"push_interval"`
	// StaleMarkers sends a stale marker for every series ever sent when the client
	// stops, so the series end with the run instead of lingering for 5 minutes.
	StaleMarkers bool `yaml:"stale_markers"`
	// Timeout bounds one HTTP request.
	Timeout model.Duration `yaml:"remote_timeout"`
	// Headers are added to every request (e.g. X-Scope-OrgID for Mimir).
	Headers map[string]string `yaml:"headers,omitempty"`
	// Series is the naming and labelling of the series (trend stats, native
	// histograms, static labels, label rules).
	Series series.Config `yaml:",inline"`
	// Queue tunes batching, retries and the final flush.
	Queue QueueConfig `yaml:"queue_config"`
	// HTTPClientConfig holds authentication, TLS and proxy settings.
	HTTPClientConfig config.HTTPClientConfig `yaml:",inline"`
	// SigV4 signs requests for Amazon Managed Service for Prometheus.
	SigV4 *sigv4.SigV4Config `yaml:"sigv4,omitempty"`

	// statsGiven: the YAML file lists trend_stats. k6Native: a k6 variable
	// (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM, K6_FEATURES) turned native histograms
	// on, with k6's meaning: histograms instead of the trend-stat gauges (Compose).
	statsGiven, k6Native bool
}

// QueueConfig tunes delivery.
type QueueConfig struct {
	// MaxSamplesPerSend caps the samples (or native histograms) of one request.
	MaxSamplesPerSend int `yaml:"max_samples_per_send"`
	// MinBackoff and MaxBackoff bound the exponential backoff between retries.
	MinBackoff model.Duration `yaml:"min_backoff"`
	MaxBackoff model.Duration `yaml:"max_backoff"`
	// FinalFlushTimeout bounds the last push at Stop, and then the stale markers.
	FinalFlushTimeout model.Duration `yaml:"final_flush_timeout"`
}

// MinPushInterval is the shortest push interval: each push sends every live series, and
// 1ns pushed about 1,250 times a second. k6's own default is 5 s; tests push every 20 ms.
const MinPushInterval = 10 * time.Millisecond

// DefaultQueueConfig follows Prometheus' remote-write queue defaults where they apply.
var DefaultQueueConfig = QueueConfig{
	// 2000 samples is Prometheus' max_samples_per_send: about 100 KiB compressed,
	// well below common receiver limits (Mimir's default is 10 MiB).
	MaxSamplesPerSend: 2000,
	// Prometheus' defaults: start at 30 ms, cap at 5 s so a recovering receiver is
	// retried promptly.
	MinBackoff: model.Duration(30 * time.Millisecond),
	MaxBackoff: model.Duration(5 * time.Second),
	// Long enough to ride out a receiver restart, short enough not to hold a CI job.
	FinalFlushTimeout: model.Duration(15 * time.Second),
}

// DefaultConfig is the default configuration. URL must still be set.
var DefaultConfig = Config{
	Protocol:         Protocol1,
	PushInterval:     model.Duration(5 * time.Second), // k6's default.
	StaleMarkers:     true,
	Timeout:          model.Duration(10 * time.Second),
	Series:           series.DefaultConfig,
	Queue:            DefaultQueueConfig,
	HTTPClientConfig: config.DefaultHTTPClientConfig,
}

// UnmarshalYAML sets defaults, decodes and validates. Decoded by a yaml.v3 Decoder with
// KnownFields(true), a misspelt key is an error here too: the unmarshal function keeps
// the decoder's settings, which yaml.Node.Decode would not.
func (c *Config) UnmarshalYAML(unmarshal func(any) error) error {
	*c = DefaultConfig
	c.Series.TrendStats = nil
	type plain Config
	if err := unmarshal((*plain)(c)); err != nil {
		return err
	}
	// An empty list (trend_stats: []) is none; no key, the defaults.
	c.statsGiven = c.Series.TrendStats != nil
	if !c.statsGiven {
		c.Series.TrendStats = append([]string(nil), series.DefaultTrendStats...)
	}
	return c.validate(false)
}

// Validate reports every problem of c, including a missing URL.
func (c *Config) Validate() error { return c.validate(true) }

func (c *Config) validate(needURL bool) error {
	var errs []error
	if needURL && (c.URL == nil || c.URL.URL == nil) {
		errs = append(errs, errors.New("remote write url is empty"))
	}
	if c.URL != nil && c.URL.URL != nil && c.URL.Scheme != "http" && c.URL.Scheme != "https" {
		errs = append(errs, fmt.Errorf("remote write url %q: scheme must be http or https", c.URL.Redacted()))
	}
	if c.Protocol != Protocol1 && c.Protocol != Protocol2 {
		errs = append(errs, fmt.Errorf("remote write protocol %q: want %s or %s", c.Protocol, Protocol1, Protocol2))
	}
	if time.Duration(c.PushInterval) < MinPushInterval {
		errs = append(errs, fmt.Errorf("remote write push interval %s: expected at least %s", time.Duration(c.PushInterval), MinPushInterval))
	}
	if c.Timeout <= 0 {
		errs = append(errs, errors.New("remote write timeout must be positive"))
	}
	if c.Queue.MaxSamplesPerSend <= 0 {
		errs = append(errs, errors.New("remote write max_samples_per_send must be positive"))
	}
	if c.Queue.MinBackoff <= 0 || c.Queue.MaxBackoff < c.Queue.MinBackoff {
		errs = append(errs, errors.New("remote write backoff: want 0 < min_backoff <= max_backoff"))
	}
	if c.Queue.FinalFlushTimeout <= 0 {
		errs = append(errs, errors.New("remote write final_flush_timeout must be positive"))
	}
	if err := c.Series.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.HTTPClientConfig.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("remote write http client: %w", err))
	}
	if c.SigV4 != nil {
		if err := c.SigV4.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("remote write sigv4: %w", err))
		}
		h := c.HTTPClientConfig
		if h.BasicAuth != nil || h.Authorization != nil || h.OAuth2 != nil || h.BearerToken != "" || h.BearerTokenFile != "" {
			errs = append(errs, errors.New("remote write: sigv4 cannot be combined with basic_auth, authorization or oauth2"))
		}
	}
	for k := range c.Headers {
		switch http := strings.ToLower(k); http {
		case "authorization", "content-encoding", "content-type", "user-agent", "x-prometheus-remote-write-version", "host":
			errs = append(errs, fmt.Errorf("remote write header %q is reserved; use the auth settings instead", k))
		}
	}
	return errors.Join(errs...)
}

// LoadFile reads a YAML remote-write configuration. Relative file paths in it (CA,
// certificates, password files) are relative to the file.
func LoadFile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read remote write config: %w", err)
	}
	cfg := DefaultConfig
	cfg.Series.TrendStats = append([]string(nil), series.DefaultTrendStats...)
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf("remote write config %q: %w", path, redactURLError(err))
	}
	cfg.HTTPClientConfig.SetDirectory(filepath.Dir(path))
	return cfg, nil
}

// ParseURL parses a remote-write URL. Its error never quotes a URL that may hold
// credentials (see redactURLError).
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, redactURLError(err)
	}
	return u, nil
}

// redactURLError keeps a URL that may hold credentials (it has an '@') out of a
// url.Parse error: the error quotes the whole URL, and its cause can quote part of the
// password (a '/' in the password ends the host early, leaving the rest as the port).
// Other errors are returned unchanged.
func redactURLError(err error) error {
	uerr, ok := errors.AsType[*url.Error](err)
	if !ok || !strings.Contains(uerr.URL, "@") {
		return err
	}
	return errors.New("parse url: invalid URL (not shown: it may hold credentials)")
}

// k6Env is the prefix of k6's remote-write environment variables.
const k6Env = "K6_PROMETHEUS_RW_"

// ApplyK6Env applies k6's K6_PROMETHEUS_RW_* environment variables (and
// K6_FEATURES=native-histograms) from environ, the process environment, so an
// existing k6 CronJob keeps its configuration. It reports whether any was set.
func (c *Config) ApplyK6Env(environ map[string]string) (bool, error) {
	env := map[string]string{}
	headers := map[string]string{}
	for k, v := range environ {
		if h, ok := strings.CutPrefix(k, k6Env+"HEADERS_"); ok && h != "" {
			headers[h] = v
			continue
		}
		if strings.HasPrefix(k, k6Env) || k == "K6_FEATURES" {
			env[k] = v
		}
	}
	var errs []error
	set := len(headers) > 0
	get := func(name string) (string, bool) {
		v, ok := env[k6Env+name]
		set = set || ok
		return v, ok
	}
	boolean := func(name string, dst *bool) {
		if v, ok := get(name); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s%s=%q: want true or false", k6Env, name, v))
				return
			}
			*dst = b
		}
	}
	if v, ok := get("SERVER_URL"); ok {
		u, err := ParseURL(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%sSERVER_URL: %w", k6Env, err))
		} else {
			c.URL = &config.URL{URL: u}
		}
	}
	if v, ok := get("HTTP_HEADERS"); ok && v != "" {
		for pair := range strings.SplitSeq(v, ",") {
			k, val, ok := strings.Cut(pair, ":")
			if !ok || strings.TrimSpace(k) == "" {
				errs = append(errs, fmt.Errorf("%sHTTP_HEADERS: pair %q: want key:value", k6Env, pair))
				continue
			}
			headers[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
	}
	for k, v := range headers {
		// k6 users pass tokens as a header; keep them secret through the auth settings.
		if strings.EqualFold(k, "Authorization") {
			typ, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
			if !ok {
				typ, cred = "Bearer", typ
			}
			c.HTTPClientConfig.Authorization = &config.Authorization{Type: typ, Credentials: config.Secret(strings.TrimSpace(cred))}
			delete(headers, k)
		}
	}
	if len(headers) > 0 {
		if c.Headers == nil {
			c.Headers = map[string]string{}
		}
		maps.Copy(c.Headers, headers)
	}
	if v, ok := get("PUSH_INTERVAL"); ok {
		d, err := parseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%sPUSH_INTERVAL: %w", k6Env, err))
		} else {
			c.PushInterval = model.Duration(d)
		}
	}
	if v, ok := get("TREND_STATS"); ok {
		c.Series.TrendStats = series.SplitStats(v)
	}
	boolean("TREND_AS_NATIVE_HISTOGRAM", &c.Series.NativeHistograms)
	c.k6Native = c.Series.NativeHistograms && env[k6Env+"TREND_AS_NATIVE_HISTOGRAM"] != ""
	if v, ok := env["K6_FEATURES"]; ok {
		for f := range strings.SplitSeq(v, ",") {
			if strings.TrimSpace(f) == "native-histograms" {
				c.Series.NativeHistograms, c.k6Native = true, true
				set = true
			}
		}
	}
	boolean("STALE_MARKERS", &c.StaleMarkers)
	boolean("INSECURE_SKIP_TLS_VERIFY", &c.HTTPClientConfig.TLSConfig.InsecureSkipVerify)
	for _, name := range []string{"TLS_MINIMUM_VERSION", "TLS_MIN_VERSION"} {
		if v, ok := get(name); ok {
			switch v {
			case "1.2":
				c.HTTPClientConfig.TLSConfig.MinVersion = config.TLSVersion(tls.VersionTLS12)
			case "1.3":
				c.HTTPClientConfig.TLSConfig.MinVersion = config.TLSVersion(tls.VersionTLS13)
			default:
				errs = append(errs, fmt.Errorf("%s%s=%q: want 1.2 or 1.3", k6Env, name, v))
			}
		}
	}
	if user, ok := get("USERNAME"); ok && user != "" {
		pass, _ := get("PASSWORD")
		c.HTTPClientConfig.BasicAuth = &config.BasicAuth{Username: user, Password: config.Secret(pass)}
	}
	if tok, ok := get("BEARER_TOKEN"); ok && tok != "" {
		c.HTTPClientConfig.Authorization = &config.Authorization{Type: "Bearer", Credentials: config.Secret(tok)}
	}
	if v, ok := get("CLIENT_CERTIFICATE"); ok {
		c.HTTPClientConfig.TLSConfig.CertFile = v
	}
	if v, ok := get("CLIENT_CERTIFICATE_KEY"); ok {
		c.HTTPClientConfig.TLSConfig.KeyFile = v
	}
	region, r := get("SIGV4_REGION")
	access, a := get("SIGV4_ACCESS_KEY")
	secret, s := get("SIGV4_SECRET_KEY")
	switch {
	case r && a && s:
		c.SigV4 = &sigv4.SigV4Config{Region: region, AccessKey: access, SecretKey: config.Secret(secret)}
	case r || a || s:
		errs = append(errs, fmt.Errorf("%sSIGV4_REGION, _SIGV4_ACCESS_KEY and _SIGV4_SECRET_KEY must be set together", k6Env))
	}
	if v, ok := get("LABELS"); ok && v != "" {
		labels, err := ParseLabels(k6Labels(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("%sLABELS: %w", k6Env, err))
		}
		if c.Series.Labels == nil {
			c.Series.Labels = map[string]string{}
		}
		maps.Copy(c.Series.Labels, labels)
	}
	return set, errors.Join(errs...)
}

// k6Labels splits K6_PROMETHEUS_RW_LABELS (k=v,k2=v2) into pairs, leaving out those k6
// ignores: an empty name or value, and __name__.
func k6Labels(v string) []string {
	var out []string
	for p := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(p, "=")
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		if ok && (k == "" || val == "" || k == model.MetricNameLabel) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// ParseLabels parses k=v pairs. Empty keys, empty values and __name__ are errors.
func ParseLabels(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	var errs []error
	for _, p := range pairs {
		if strings.TrimSpace(p) == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok || k == "" || v == "":
			errs = append(errs, fmt.Errorf("label %q: want name=value", p))
			continue
		case k == model.MetricNameLabel:
			errs = append(errs, fmt.Errorf("label %q: %s is the metric name and cannot be set", p, k))
			continue
		case !model.LegacyValidation.IsValidLabelName(k):
			errs = append(errs, fmt.Errorf("label %q: %q is not a valid label name; expected letters, digits and _, not starting with a digit", p, k))
			continue
		}
		out[k] = v
	}
	return out, errors.Join(errs...)
}

func parseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	d, err := model.ParseDuration(s)
	return time.Duration(d), err
}
