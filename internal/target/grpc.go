package target

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tidemark/tidemark/internal/dbpool"
	"github.com/tidemark/tidemark/internal/target/grpctarget"
)

// DefaultGRPCAddress is where `tidemark target` serves gRPC: the address k6's gRPC
// examples default to (GRPC_ADDR).
const DefaultGRPCAddress = "127.0.0.1:10000"

// ListenAndServeAll serves s on addr (ListenAndServe), unless grpcAddr is empty the
// gRPC target (package grpctarget) on grpcAddr, and unless quickPizzaAddr is empty the
// QuickPizza stand-in (NewQuickPizza) on quickPizzaAddr, until ctx ends or one fails.
// With an enabled Config.Pool and no Config.DB, it first opens the pool (dbpool.Open)
// and closes it at the end.
func (s *Server) ListenAndServeAll(ctx context.Context, addr, grpcAddr, quickPizzaAddr string, grace time.Duration, logger *slog.Logger) error {
	if s.cfg.DB == nil && s.cfg.Pool.Enabled() {
		pool, err := dbpool.Open(ctx, s.cfg.Pool, logger)
		if err != nil {
			return err
		}
		defer func() { _ = pool.Close() }()
		s.cfg.DB = pool
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.ListenAndServe(gctx, addr, grace, logger) })
	if grpcAddr != "" {
		g.Go(func() error {
			err := grpctarget.ListenAndServe(gctx, grpcAddr, func(a net.Addr) {
				logger.Info("gRPC target listening", "address", a.String(), "services", "main.FeatureExplorer, main.RouteGuide, quickpizza.GRPC, tidemark.echo.Echo, health, reflection")
			})
			if err != nil {
				return fmt.Errorf("%w (--grpc.listen-address= turns the gRPC target off)", err)
			}
			return nil
		})
	}
	if quickPizzaAddr != "" {
		g.Go(func() error {
			err := ListenAndServeQuickPizza(gctx, quickPizzaAddr, grace, logger)
			if err != nil {
				return fmt.Errorf("%w (--quickpizza.listen-address= turns QuickPizza off)", err)
			}
			return nil
		})
	}
	return g.Wait()
}
