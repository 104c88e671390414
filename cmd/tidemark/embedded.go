package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

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
	srv   *http.Server
	// served is closed when the Listen goroutine has returned.
	served chan struct{}
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
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("open the embedded store in %s: %w (another run or command is using it: "+
			"start `tidemark serve --storage.tsdb.path %s` to share it, or pass another --storage.tsdb.path)", dir, err, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open the embedded store in %s: %w", dir, err)
	}
	return &embeddedStore{URL: embeddedBaseURL, Transport: st.Transport(), Where: fmt.Sprintf("embedded store in %s", dir), st: st}, nil
}

// Listen serves an in-process store on a free loopback port, so that clients that need
// a real URL (remote write) reach it; URL changes to that address. It does nothing for a
// server found by Discover.
func (e *embeddedStore) Listen(logger *slog.Logger) error {
	if e.st == nil || e.srv != nil {
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("serve the embedded store on loopback: %w", err)
	}
	e.srv = &http.Server{Handler: e.st.Handler(), ReadHeaderTimeout: 10 * time.Second}
	e.URL = "http://" + ln.Addr().String()
	e.Transport = http.DefaultTransport
	e.served = make(chan struct{})
	go func() {
		defer close(e.served)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("Embedded store server stopped", "err", err)
		}
	}()
	return nil
}

// Close stops serving, waits for the server goroutine and closes an in-process store,
// keeping its data; it does nothing for a server.
func (e *embeddedStore) Close() error {
	if e.st == nil {
		return nil
	}
	var errs []error
	if e.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, e.srv.Shutdown(ctx))
		cancel()
		<-e.served
	}
	errs = append(errs, e.st.Close())
	return errors.Join(errs...)
}
