// Package promapi opens the Prometheus-compatible API a command queries: a remote one
// (Prometheus, Thanos Query, Mimir, VictoriaMetrics) with its HTTP client configuration,
// or the embedded store in a data directory.
package promapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/store"
)

// Config says which API to open.
type Config struct {
	// URL is the remote API; empty opens the embedded store in Dir.
	URL string
	// HTTPConfigFile is the remote's HTTP client configuration, in Prometheus'
	// http_config format; empty for none.
	HTTPConfigFile string
	// Dir is the embedded store's data directory.
	Dir string
	// QueryTimeout bounds each query to the remote; 0 for no bound.
	QueryTimeout time.Duration
}

// ConfigError is an error in the Config (the URL, the HTTP client configuration): the
// caller's to fix.
type ConfigError struct{ Err error }

// Error returns the message of the underlying error.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// API is an opened API.
type API struct {
	// Querier queries it.
	Querier query.Querier
	// Where names it for messages, credentials redacted.
	Where string
	// EmbeddedWriteURL is the embedded store's remote-write URL, for write-back; empty
	// for a remote API.
	EmbeddedWriteURL string
	// Close releases it.
	Close func() error
}

// Open opens the API of cfg. The embedded store is served on loopback, so that
// write-back can reach it by remote write.
func Open(ctx context.Context, cfg Config, logger *slog.Logger) (API, error) {
	if cfg.URL != "" {
		u, err := url.Parse(cfg.URL)
		if err != nil {
			return API{}, &ConfigError{fmt.Errorf("--prometheus.url: %w", err)}
		}
		q, err := Remote(cfg)
		if err != nil {
			return API{}, err
		}
		return API{Querier: q, Where: u.Redacted(), Close: func() error { return nil }}, nil
	}
	local, err := store.OpenLocal(ctx, cfg.Dir, logger)
	if err != nil {
		return API{}, err
	}
	if err := local.Listen("", logger); err != nil {
		return API{}, errors.Join(err, local.Close())
	}
	q, err := query.NewPrometheus(local.URL, local.Transport)
	if err != nil {
		return API{}, errors.Join(err, local.Close())
	}
	return API{Querier: q, Where: local.Where, EmbeddedWriteURL: local.URL + "/api/v1/write", Close: local.Close}, nil
}

// Remote returns the querier of the remote API cfg.URL, with cfg.HTTPConfigFile's
// authentication and TLS.
func Remote(cfg Config) (query.Querier, error) {
	rt, err := query.RoundTripperFromFile(cfg.HTTPConfigFile)
	if err != nil {
		return nil, &ConfigError{err}
	}
	return query.NewPrometheus(cfg.URL, rt, query.WithTimeout(cfg.QueryTimeout))
}

// Rule returns the querier of a run's server-side rules (--slo): the remote API url
// (--prometheus.url), else the embedded store the run writes to, served at embedded;
// an error when there is neither (the run's series go to a remote-write URL).
func Rule(url, embedded string) (query.Querier, error) {
	if url == "" && embedded == "" {
		return nil, &ConfigError{errors.New("the run's series go to a remote-write URL: give --prometheus.url, the Prometheus API that holds them and the cluster's metrics")}
	}
	if url == "" {
		return query.NewPrometheus(embedded, nil)
	}
	return Remote(Config{URL: url})
}
