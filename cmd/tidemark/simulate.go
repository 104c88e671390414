package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/cluster"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/sim"
)

type simulateConfig struct {
	profile string
	cluster cluster.Config
}

// simulateCmd is `tidemark simulate`: the simulated cluster alone.
func simulateCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &simulateConfig{cluster: cluster.Config{ServiceAddresses: map[string]string{}}}
	cmd := app.Command("simulate", "Run a simulated cluster (services with HPA, pods, CFS throttling, a database) from a YAML profile: "+
		"one HTTP endpoint per service for load tests, and kube-state-metrics, cAdvisor and YACE RDS series on /metrics.")
	cmd.Arg("profile", "Cluster profile (YAML), e.g. examples/cluster-shoong.yaml.").Required().StringVar(&cfg.profile)
	cmd.Flag("web.listen-address", "Address of the metrics endpoint (/metrics, /metrics/kube-state-metrics, /metrics/cadvisor, /metrics/rds). Port 0 picks a free port.").
		Default("127.0.0.1:0").StringVar(&cfg.cluster.MetricsAddress)
	cmd.Flag("web.config.file", "Path to a web configuration file (TLS, basic auth) for the metrics endpoint.").StringVar(&cfg.cluster.WebConfigFile)
	cmd.Flag("service.listen-address", "NAME=ADDRESS for one service's endpoint, overriding the profile. Repeatable. Default 127.0.0.1 with a free port.").
		StringMapVar(&cfg.cluster.ServiceAddresses)
	cmd.Flag("fast", "Shorten the HPA downscale stabilisation window for demos (says so in the output and in tidemark_sim_info).").BoolVar(&cfg.cluster.Fast)
	cmd.Flag("fast.downscale-stabilization", "Downscale stabilisation window used with --fast.").
		Default(sim.FastDownscaleStabilization.String()).DurationVar(&cfg.cluster.FastWindow)
	cmd.Flag("runtime", "Cluster runtime: sim (in memory) or process (pods as real processes in kernel cgroups; needs root).").Default(cluster.RuntimeSim).EnumVar(&cfg.cluster.Runtime, cluster.RuntimeSim, cluster.RuntimeProcess)
	return cmd, func(ctx context.Context) error { return simulate(ctx, cfg, g.logger(), g.stdout) }
}

// simulate runs the simulated cluster until ctx is done.
func simulate(ctx context.Context, cfg *simulateConfig, logger *slog.Logger, stdout io.Writer) error {
	if cfg.cluster.Fast && cfg.cluster.FastWindow <= 0 {
		return exitcode.Invalid(fmt.Errorf("--fast.downscale-stabilization %s: expected a positive duration, such as 30s", cfg.cluster.FastWindow))
	}
	p, err := sim.LoadProfile(cfg.profile)
	if err != nil {
		return exitcode.Invalid(err)
	}
	realWindow := p.Controller.DownscaleStabilization.D()
	srv, err := cluster.New(p, cfg.cluster, logger)
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
