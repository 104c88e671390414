package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// inProcessBaseURL is the base URL of a store opened in this process and not listening:
// requests to it never leave the process (Transport serves them from the handler).
const inProcessBaseURL = "http://embedded.tidemark"

// Local is the embedded default as its clients reach it over HTTP: a running
// `tidemark serve` holding a data directory, or the store in that directory opened in
// this process.
type Local struct {
	// URL is the base URL of the Prometheus API and of the remote-write receiver
	// (URL + "/api/v1/write").
	URL string
	// Transport reaches URL: http.DefaultTransport for a server, the in-process handler
	// otherwise.
	Transport http.RoundTripper
	// Where says, for people, where the data is.
	Where string
	st    *Store
	srv   *http.Server
	// served is closed when the Listen goroutine has returned.
	served chan struct{}
}

// OpenLocal finds a `tidemark serve` holding dir, or opens the store in dir in this
// process. Close releases an in-process store.
func OpenLocal(ctx context.Context, dir string, logger *slog.Logger) (*Local, error) {
	if url, ok, err := Discover(ctx, dir); err != nil {
		return nil, fmt.Errorf("look for a tidemark serve holding %s: %w", dir, err)
	} else if ok {
		return &Local{URL: url, Transport: http.DefaultTransport, Where: fmt.Sprintf("tidemark serve at %s (data in %s)", url, dir)}, nil
	}
	cfg := DefaultConfig
	cfg.Dir = dir
	st, err := Open(cfg, logger, prometheus.NewRegistry())
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("open the embedded store in %s: %w (another run or command is using it: "+
			"start `tidemark serve --storage.tsdb.path %s` to share it, or pass another --storage.tsdb.path)", dir, err, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open the embedded store in %s: %w", dir, err)
	}
	return Serving(st, fmt.Sprintf("embedded store in %s", dir)), nil
}

// Serving wraps a store opened in this process; where says where its data is. Close
// closes the store.
func Serving(st *Store, where string) *Local {
	return &Local{URL: inProcessBaseURL, Transport: st.Transport(), Where: where, st: st}
}

// InProcess reports whether the store runs in this process (and not in a
// `tidemark serve`).
func (l *Local) InProcess() bool { return l.st != nil }

// Listen serves an in-process store on addr (empty: a free loopback port), so that
// clients that need a real URL (remote write) reach it; URL changes to that address.
// It does nothing for a server found by OpenLocal, or when already listening.
func (l *Local) Listen(addr string, logger *slog.Logger) error {
	if l.st == nil || l.srv != nil {
		return nil
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve the embedded store: %w", err)
	}
	l.srv = &http.Server{Handler: l.st.Handler(), ReadHeaderTimeout: 10 * time.Second}
	l.URL = "http://" + ln.Addr().String()
	l.Transport = http.DefaultTransport
	l.served = make(chan struct{})
	go func() {
		defer close(l.served)
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("Embedded store server stopped", "err", err)
		}
	}()
	return nil
}

// Close stops serving, waits for the server goroutine and closes an in-process store,
// keeping its data; it does nothing for a server.
func (l *Local) Close() error {
	if l.st == nil {
		return nil
	}
	var errs []error
	if l.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, l.srv.Shutdown(ctx))
		cancel()
		<-l.served
	}
	errs = append(errs, l.st.Close())
	return errors.Join(errs...)
}
