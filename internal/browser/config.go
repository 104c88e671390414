// Package browser drives Chromium through the DevTools protocol for k6/browser: it
// finds and launches one browser process, opens incognito browser contexts and pages
// in it, navigates them, runs functions in them, sends input, and measures their
// network requests as k6/browser's metrics. The JavaScript module
// (internal/js/modules/browser) is built on it.
//
// A browser process never outlives its Browser: it runs in its own process group,
// which Close kills, and the kernel kills it if this process dies (Pdeathsig).
package browser

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Environment variables k6 reads to launch its browser.
const (
	EnvExecutablePath    = "K6_BROWSER_EXECUTABLE_PATH"
	EnvHeadless          = "K6_BROWSER_HEADLESS"
	EnvArgs              = "K6_BROWSER_ARGS"
	EnvTimeout           = "K6_BROWSER_TIMEOUT"
	EnvIgnoreDefaultArgs = "K6_BROWSER_IGNORE_DEFAULT_ARGS"
	EnvDebug             = "K6_BROWSER_DEBUG"
)

// EnvNames are the K6_BROWSER_* variables the browser module honours.
func EnvNames() []string {
	return []string{EnvExecutablePath, EnvHeadless, EnvArgs, EnvTimeout, EnvIgnoreDefaultArgs}
}

// Config is how a browser is launched.
type Config struct {
	// ExecutablePath is the browser's binary; "" finds chromium, chromium-browser or
	// google-chrome on PATH.
	ExecutablePath string
	// Headless runs without a window (default true).
	Headless bool
	// Args are extra command-line switches, "name" or "name=value", without dashes.
	Args []string
	// IgnoreDefaultArgs are default switches not to pass.
	IgnoreDefaultArgs []string
	// Timeout is the default timeout of browser operations (default 30s).
	Timeout time.Duration
}

// DefaultConfig is k6's: headless, 30 s.
var DefaultConfig = Config{Headless: true, Timeout: 30 * time.Second}

// ConfigFromEnv reads k6's K6_BROWSER_* variables through lookup (os.LookupEnv, or the
// run's environment) over DefaultConfig.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	c := DefaultConfig
	var errs []error
	if v, ok := lookup(EnvExecutablePath); ok {
		c.ExecutablePath = v
	}
	if v, ok := lookup(EnvHeadless); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: expected true or false", EnvHeadless, v))
		}
		c.Headless = b || err != nil
	}
	if v, ok := lookup(EnvArgs); ok {
		c.Args = splitList(v)
	}
	if v, ok := lookup(EnvIgnoreDefaultArgs); ok {
		c.IgnoreDefaultArgs = splitList(v)
	}
	if v, ok := lookup(EnvTimeout); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s=%q: expected a positive duration such as 30s", EnvTimeout, v))
		} else {
			c.Timeout = d
		}
	}
	return c, errors.Join(errs...)
}

// splitList splits k6's comma-separated switch lists, dropping leading dashes.
func splitList(v string) []string {
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimLeft(strings.TrimSpace(s), "-"); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ErrNoBrowser is the error when no Chromium is found.
var ErrNoBrowser = errors.New("no Chromium found: set " + EnvExecutablePath +
	" to the browser's binary, or install chromium (looked for chromium, chromium-browser and google-chrome on PATH)")

// Executable returns the binary to launch: ExecutablePath if set (it must exist), else
// the first of chromium, chromium-browser and google-chrome that lookPath finds.
func (c Config) Executable(lookPath func(string) (string, error)) (string, error) {
	if c.ExecutablePath != "" {
		if _, err := os.Stat(c.ExecutablePath); err != nil {
			return "", fmt.Errorf("%s=%q: %w", EnvExecutablePath, c.ExecutablePath, err)
		}
		return c.ExecutablePath, nil
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := lookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// HostResolverRules is Chromium's switch that applies k6's hosts option (name or
// "*.domain" to an address, see scenario.Network.Hosts) to the browser:
// "host-resolver-rules=MAP name addr, …"; "" without hosts. Chromium maps names, not a
// name on one port: the keys with a port are returned in skipped, not applied.
func HostResolverRules(hosts map[string]netip.AddrPort) (arg string, skipped []string) {
	var rules []string
	for _, k := range slices.Sorted(maps.Keys(hosts)) {
		if _, _, err := net.SplitHostPort(k); err == nil {
			skipped = append(skipped, k)
			continue
		}
		a := hosts[k]
		to := a.Addr().String()
		if a.Addr().Is6() {
			to = "[" + to + "]"
		}
		if a.Port() != 0 {
			to = a.String()
		}
		rules = append(rules, "MAP "+k+" "+to)
	}
	if len(rules) == 0 {
		return "", skipped
	}
	return "host-resolver-rules=" + strings.Join(rules, ", "), skipped
}
