package target

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ListenAndServe serves s on addr, with its collector on /metrics, until ctx ends; the
// requests in flight then get grace to finish. It logs where it listens and, once
// stopped, what it served.
func (s *Server) ListenAndServe(ctx context.Context, addr string, grace time.Duration, logger *slog.Logger) error {
	reg := prometheus.NewRegistry()
	if err := reg.Register(NewCollector(s)); err != nil {
		return fmt.Errorf("register the target's metrics: %w", err)
	}
	if c, ok := s.cfg.DB.(prometheus.Collector); ok {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("register the database pool's metrics: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	logger.Info("Target listening", "address", ln.Addr().String(), "latency", s.cfg.Latency.String(), "cpu_work_seconds", s.cfg.CPUWork.Seconds(),
		"error_ratio", s.cfg.ErrorRatio, "error_status", s.cfg.ErrorStatus, "body_size", s.cfg.BodySize)
	if err := s.Serve(ctx, ln, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), grace); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	st := s.Stats()
	logger.Info("Target stopped", "requests", st.Requests, "errors", st.Errors)
	return nil
}
