package serving

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Listen opens a TCP listener on every address, or none when one fails.
func Listen(addrs []string) ([]net.Listener, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no listen address")
	}
	var ls []net.Listener
	for _, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			CloseListeners(ls)
			return nil, fmt.Errorf("listen on %s: %w", a, err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// CloseListeners closes every listener, ignoring errors: they are not served yet.
func CloseListeners(ls []net.Listener) {
	for _, l := range ls {
		_ = l.Close()
	}
}

// BaseURL is the URL clients on this host use for a listener served with the
// exporter-toolkit web configuration file webConfigFile (empty: none): https when the
// file turns on TLS, and loopback for a wildcard address.
func BaseURL(addr net.Addr, webConfigFile string) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		host, port = "127.0.0.1", "9091"
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	scheme := "http"
	if webConfigHasTLS(webConfigFile) {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// Where describes a listener for a banner: its BaseURL, and, when it listens on every
// interface (":9466"), says so, so that a banner showing 127.0.0.1 does not read as a
// loopback-only server.
func Where(addr net.Addr, webConfigFile string) string {
	u := BaseURL(addr, webConfigFile)
	if host, _, err := net.SplitHostPort(addr.String()); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			return u + " (listening on every interface)"
		}
	}
	return u
}

// webConfigHasTLS reports whether an exporter-toolkit web config file turns on TLS.
// exporter-toolkit has already validated the file.
func webConfigHasTLS(path string) bool {
	if path == "" {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var c struct {
		TLS struct {
			Cert     string `yaml:"cert"`
			CertFile string `yaml:"cert_file"`
		} `yaml:"tls_server_config"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return false
	}
	return strings.TrimSpace(c.TLS.Cert+c.TLS.CertFile) != ""
}
