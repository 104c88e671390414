// Package serving runs the HTTP server of a long-running command (tidemark serve,
// tidemark exporter) with exporter-toolkit's web flags, beside the parts that run with it,
// until the command is told to stop; then it drains the server.
package serving

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	oklogrun "github.com/oklog/run"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/exporter-toolkit/web"
)

// ShutdownTimeout bounds how long in-flight requests may take once the server stops.
const ShutdownTimeout = 10 * time.Second

// ReadHeaderTimeout bounds how long a client may take to send a request's headers.
const ReadHeaderTimeout = 30 * time.Second

// Actor is a part that runs beside the server, as an oklog/run actor: Run blocks until
// it is done, Interrupt makes it return. The first actor to return stops all.
type Actor struct {
	Run       func() error
	Interrupt func(error)
}

// Run serves srv on listeners until ctx ends or an actor returns, runs the actors beside
// it, then drains srv for at most ShutdownTimeout. With no listeners it serves flags'
// addresses itself (systemd socket activation among them). The actors are interrupted in
// order, before the server is shut down.
func Run(ctx context.Context, srv *http.Server, listeners []net.Listener, flags *web.FlagConfig, logger *slog.Logger, actors ...Actor) error {
	var g oklogrun.Group
	stopCtx, stop := context.WithCancel(ctx)
	g.Add(func() error {
		<-stopCtx.Done()
		if ctx.Err() != nil {
			logger.Info("Received signal, shutting down")
		}
		return nil
	}, func(error) { stop() })
	for _, a := range actors {
		g.Add(a.Run, a.Interrupt)
	}
	g.Add(func() error {
		var err error
		if listeners == nil {
			err = web.ListenAndServe(srv, flags, logger)
		} else {
			err = web.ServeMultiple(listeners, srv, flags, logger)
		}
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}, func(error) {
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			logger.Warn("Failed to shut down HTTP server gracefully", "err", err)
		}
	})
	return g.Run()
}

// OnSIGHUP is an actor that calls reload at every SIGHUP, as Prometheus re-reads its
// configuration then. A failed reload is logged and the previous configuration kept.
func OnSIGHUP(reload func() error, logger *slog.Logger) Actor {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	return Actor{Run: func() error {
		defer signal.Stop(hup)
		for {
			select {
			case <-hup:
				if err := reload(); err != nil {
					logger.Error("Failed to reload scrape configuration", "err", err)
					continue
				}
				logger.Info("Reloaded scrape configuration")
			case <-done:
				return nil
			}
		}
	}, Interrupt: func(error) { close(done) }}
}

// NewRegistry returns a registry with the Go runtime's, the process' and the build's
// metrics, and cs; the error joins those that failed to register.
func NewRegistry(cs ...prometheus.Collector) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	errs := []error{reg.Register(collectors.NewGoCollector()),
		reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})),
		reg.Register(versioncollector.NewCollector("tidemark"))}
	for _, c := range cs {
		errs = append(errs, reg.Register(c))
	}
	return reg, errors.Join(errs...)
}
