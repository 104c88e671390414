package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/internal/store"
)

// embeddedBaseURL is the base URL used for an in-process store: requests to it never
// leave the process (store.Transport serves them from the handler).
const embeddedBaseURL = "http://embedded.tidemark"

// embeddedStore is the embedded default: a live `tidemark serve` holding dir, or the
// store in dir opened in this process.
type embeddedStore struct {
	// URL is the base URL of the Prometheus API and of the remote-write receiver
	// (URL + "/api/v1/write").
	URL string
	// Transport reaches URL: http.DefaultTransport for a server, the in-process handler
	// otherwise.
	Transport http.RoundTripper
	// Where says, for people, where the data is.
	Where string
	st    *store.Store
}

// openEmbedded finds a `tidemark serve` holding dir, or opens the store in dir in this
// process. Close releases an in-process store.
func openEmbedded(ctx context.Context, dir string, logger *slog.Logger) (*embeddedStore, error) {
	if url, ok, err := store.Discover(ctx, dir); err != nil {
		return nil, fmt.Errorf("look for a tidemark serve holding %s: %w", dir, err)
	} else if ok {
		return &embeddedStore{URL: url, Transport: http.DefaultTransport, Where: fmt.Sprintf("tidemark serve at %s (data in %s)", url, dir)}, nil
	}
	cfg := store.DefaultConfig
	cfg.Dir = dir
	st, err := store.Open(cfg, logger, prometheus.NewRegistry())
	if err != nil {
		return nil, fmt.Errorf("open the embedded store in %s: %w", dir, err)
	}
	return &embeddedStore{URL: embeddedBaseURL, Transport: st.Transport(), Where: fmt.Sprintf("embedded store in %s", dir), st: st}, nil
}

// Close closes an in-process store; it does nothing for a server.
func (e *embeddedStore) Close() error {
	if e.st == nil {
		return nil
	}
	return e.st.Close()
}
