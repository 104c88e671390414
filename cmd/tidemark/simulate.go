package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/demo"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/process"
)

type simulateConfig struct {
	profile       string
	listenAddress string
	webConfigFile string
	serviceAddrs  map[string]string
	fast          bool
	fastWindow    time.Duration
	runtime       string
}

// simulateCmd is `tidemark simulate`: the simulated cluster alone.
func simulateCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &simulateConfig{serviceAddrs: map[string]string{}}
	cmd := app.Command("simulate", "Run a simulated cluster (services with HPA, pods, CFS throttling, a database) from a YAML profile: "+
		"one HTTP endpoint per service for load tests, and kube-state-metrics, cAdvisor and YACE RDS series on /metrics.")
	cmd.Arg("profile", "Cluster profile (YAML), e.g. examples/cluster-shoong.yaml.").Required().StringVar(&cfg.profile)
	cmd.Flag("web.listen-address", "Address of the metrics endpoint (/metrics, /metrics/kube-state-metrics, /metrics/cadvisor, /metrics/rds). Port 0 picks a free port.").
		Default("127.0.0.1:0").StringVar(&cfg.listenAddress)
	cmd.Flag("web.config.file", "Path to a web configuration file (TLS, basic auth) for the metrics endpoint.").StringVar(&cfg.webConfigFile)
	cmd.Flag("service.listen-address", "NAME=ADDRESS for one service's endpoint, overriding the profile. Repeatable. Default 127.0.0.1 with a free port.").
		StringMapVar(&cfg.serviceAddrs)
	cmd.Flag("fast", "Shorten the HPA downscale stabilisation window for demos (says so in the output and in tidemark_sim_info).").BoolVar(&cfg.fast)
	cmd.Flag("fast.downscale-stabilization", "Downscale stabilisation window used with --fast.").
		Default(sim.FastDownscaleStabilization.String()).DurationVar(&cfg.fastWindow)
	cmd.Flag("runtime", "Cluster runtime: sim (in-memory simulator) or process (pods as real processes in kernel cgroups; needs root).").
		Default(demo.RuntimeSim).EnumVar(&cfg.runtime, demo.RuntimeSim, demo.RuntimeProcess)
	return cmd, func(ctx context.Context) error { return simulate(ctx, cfg, g.logger(), g.stdout) }
}

// simulate runs the simulated cluster until ctx is done.
func simulate(ctx context.Context, cfg *simulateConfig, logger *slog.Logger, stdout io.Writer) error {
	if cfg.fast && cfg.fastWindow <= 0 {
		return exitcode.Invalid(fmt.Errorf("--fast.downscale-stabilization %s: expected a positive duration, such as 30s", cfg.fastWindow))
	}
	p, err := sim.LoadProfile(cfg.profile)
	if err != nil {
		return exitcode.Invalid(err)
	}
	opts := []sim.Option{sim.WithMetricsAddress(cfg.listenAddress), sim.WithWebConfigFile(cfg.webConfigFile)}
	for name, addr := range cfg.serviceAddrs {
		opts = append(opts, sim.WithServiceAddress(name, addr))
	}
	realWindow := p.Controller.DownscaleStabilization.D()
	if cfg.fast {
		opts = append(opts, sim.WithFast(cfg.fastWindow))
	}
	if cfg.runtime == demo.RuntimeProcess {
		return simulateProcess(ctx, cfg, p, logger, stdout, realWindow)
	}
	srv, err := sim.NewServer(p, logger, opts...)
	if err != nil {
		return exitcode.Invalid(err)
	}
	if err := srv.Start(ctx); err != nil {
		return err
	}
	if err := srv.WriteIntro(stdout, realWindow); err != nil {
		return errors.Join(err, srv.Stop())
	}
	<-ctx.Done()
	return srv.Stop()
}

// simulateProcess runs the profile's pods as real processes (package process) until ctx is done.
func simulateProcess(ctx context.Context, cfg *simulateConfig, p *sim.Profile, logger *slog.Logger, stdout io.Writer, realWindow time.Duration) error {
	opts := []process.Option{process.WithMetricsAddress(cfg.listenAddress), process.WithWebConfigFile(cfg.webConfigFile)}
	for name, addr := range cfg.serviceAddrs {
		opts = append(opts, process.WithServiceAddress(name, addr))
	}
	if cfg.fast {
		opts = append(opts, process.WithFast(cfg.fastWindow))
	}
	rt, err := process.New(p, logger, opts...)
	if err != nil {
		return err
	}
	if err := rt.Start(ctx); err != nil {
		return err
	}
	if err := rt.WriteIntro(stdout, realWindow); err != nil {
		return errors.Join(err, rt.Stop())
	}
	<-ctx.Done()
	return rt.Stop()
}
