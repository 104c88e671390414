package restapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultAddress is k6's default --address.
const DefaultAddress = "localhost:6565"

// ErrListen is returned by Listen when the address cannot be bound; k6 exits with
// 106 (CannotStartRESTAPI) then.
var ErrListen = errors.New("start the REST API")

// Server is the REST API listening on one address.
type Server struct {
	srv    *http.Server
	ln     net.Listener
	logger *slog.Logger
	done   chan struct{}
	once   sync.Once
	err    error
}

// Listen binds addr (DefaultAddress when empty) and serves h on it in the background.
// It returns once the address is bound; errors wrap ErrListen.
func Listen(addr string, h http.Handler, logger *slog.Logger) (*Server, error) {
	if addr == "" {
		addr = DefaultAddress
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w on %q: %w", ErrListen, addr, err)
	}
	s := &Server{
		// The API answers small documents; a slow client must not hold a goroutine forever.
		srv:    &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		ln:     ln,
		logger: logger.With("component", "restapi", "address", ln.Addr().String()),
		done:   make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("REST API server failed", "err", err)
		}
	}()
	s.logger.Debug("REST API listening")
	return s, nil
}

// Addr returns the bound address (the port chosen when addr asked for port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stop shuts the server down, waiting for requests in flight until ctx is done, then
// closes it. It is safe to call more than once; later calls return the first result.
func (s *Server) Stop(ctx context.Context) error {
	s.once.Do(func() {
		if err := s.srv.Shutdown(ctx); err != nil {
			s.err = fmt.Errorf("stop the REST API: %w", err)
			_ = s.srv.Close()
		}
		<-s.done
	})
	return s.err
}
