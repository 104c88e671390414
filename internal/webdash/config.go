package webdash

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the dashboard's configuration: k6's web-dashboard parameters.
type Config struct {
	// Host is the address the page listens on; empty is every interface.
	Host string
	// Port is the TCP port: 0 picks a free one, -1 serves nothing (only the export).
	Port int
	// Period is how often the page is updated.
	Period time.Duration
	// Export, when set, is the HTML file written at the end of the run; a name ending
	// in .gz is gzipped.
	Export string
	// Open asks for a browser to be opened on the page; Tidemark does not do that
	// (the caller warns).
	Open bool
	// Ignored are the `--out web-dashboard=…` parameters that are not k6's, sorted:
	// k6 ignores them silently, Tidemark ignores them too (so that a k6 command line
	// still runs) and the caller warns once naming them.
	Ignored []string
}

// DefaultConfig is k6's defaults, but for Period: k6 updates its dashboard every 10 s;
// Tidemark updates it every second, so that a short CI run still draws a curve.
var DefaultConfig = Config{Host: "localhost", Port: 5665, Period: time.Second}

// NoServer is the Port that serves no page (k6's -1): only the export is written.
const NoServer = -1

// params are the parameters of `--out web-dashboard=…` and their K6_WEB_DASHBOARD_*
// variables, in k6's order.
var params = []string{"host", "port", "period", "open", "export"}

// Addr is the listen address, host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// Enabled reports whether the web dashboard is on: an `--out web-dashboard` was given
// (out is true), or K6_WEB_DASHBOARD is true.
func Enabled(out bool, getenv func(string) string) (bool, error) {
	if out {
		return true, nil
	}
	v := getenv("K6_WEB_DASHBOARD")
	if v == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("K6_WEB_DASHBOARD=%q: expected true or false", v)
	}
	return on, nil
}

// ParseConfig returns DefaultConfig with k6's K6_WEB_DASHBOARD_HOST, _PORT, _PERIOD,
// _OPEN and _EXPORT variables applied (read with getenv), then the parameters of an
// `--out web-dashboard=ARG` argument, which win: a URL query such as
// `port=8080&period=2s&export=report.html`, as k6 takes it. A parameter k6 does not
// have is listed in Ignored; a bad value is an error naming it and what was expected
// (errors are joined).
func ParseConfig(arg string, getenv func(string) string) (Config, error) {
	cfg := DefaultConfig
	var errs []error
	for _, p := range params {
		env := "K6_WEB_DASHBOARD_" + strings.ToUpper(p)
		if v, ok := lookup(getenv, env); ok {
			if err := cfg.set(p, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", env, err))
			}
		}
	}
	q, err := url.ParseQuery(arg)
	if err != nil {
		errs = append(errs, fmt.Errorf("web-dashboard parameters %q: expected key=value pairs joined by &: %w", arg, err))
	}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(params, k) && k != "report" {
			cfg.Ignored = append(cfg.Ignored, k)
			continue
		}
		vs := q[k]
		if err := cfg.set(k, vs[len(vs)-1]); err != nil {
			errs = append(errs, fmt.Errorf("web-dashboard parameter %s: %w", k, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// lookup reads an environment variable; empty counts as unset, as k6 reads it.
func lookup(getenv func(string) string, k string) (string, bool) {
	if getenv == nil {
		return "", false
	}
	v := getenv(k)
	return v, v != ""
}

// set applies one parameter.
func (c *Config) set(k, v string) error {
	switch k {
	case "host":
		c.Host = v
	case "port":
		n, err := strconv.Atoi(v)
		if err != nil || n < NoServer || n > 65535 {
			return fmt.Errorf("%q is not a port: expected 0 to 65535, or -1 for no page", v)
		}
		c.Port = n
	case "period":
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q is not a positive duration such as 1s or 10s", v)
		}
		c.Period = d
	case "open":
		if v == "" {
			c.Open = true // `open` alone, as a flag.
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q: expected true or false", v)
		}
		c.Open = b
	case "export", "report": // report is xk6-dashboard's older name.
		c.Export = v
	default:
		return fmt.Errorf("unknown parameter: the web-dashboard parameters are %s", strings.Join(params, ", "))
	}
	return nil
}
