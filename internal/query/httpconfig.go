package query

import (
	"fmt"
	"net/http"

	"github.com/prometheus/common/config"
)

// RoundTripperFromFile returns the transport for a Prometheus-compatible API from an
// HTTP client configuration file in Prometheus' http_config format (promtool's
// --http.config.file): basic_auth, authorization, oauth2, tls_config, proxy_url,
// http_headers. Relative file paths in it (a CA, a password_file) are read from the
// file's directory. An empty path is http.DefaultTransport.
func RoundTripperFromFile(path string) (http.RoundTripper, error) {
	if path == "" {
		return http.DefaultTransport, nil
	}
	cfg, _, err := config.LoadHTTPConfigFile(path)
	if err != nil {
		return nil, fmt.Errorf("HTTP client configuration %s: %w", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("HTTP client configuration %s: %w", path, err)
	}
	rt, err := config.NewRoundTripperFromConfig(*cfg, "tidemark")
	if err != nil {
		return nil, fmt.Errorf("HTTP client configuration %s: %w", path, err)
	}
	return rt, nil
}
