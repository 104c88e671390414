package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/examples"
	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/cluster"
	"github.com/tidemark/tidemark/internal/demo"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadgen"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/testrun"
	"github.com/tidemark/tidemark/remotewrite"
)

type demoConfig struct {
	outputDir     string
	listen        string
	profile       string
	scenario      string
	scrape        time.Duration
	fastWindow    time.Duration
	cooldown      time.Duration
	keep          bool
	quietProgress bool
	runtime       string
}

const demoHelp = `Show all of Tidemark on a laptop, in about five minutes, with nothing else installed.

The demo starts the embedded Prometheus-compatible store and the simulated cluster of
story 1 (order → kitchen → notification, HPA 2–5 at 70% CPU, 100m/200m CPU, an RDS
t3.micro-like database, a Prisma pool of 5), scrapes the cluster every 5 s, runs a
10 → 50 RPS spike against the order service with remote write into the store, waits for
the scale-in, correlates the run, and writes the report and the Grafana dashboards. It
ends with the key facts and where to look.

The simulated cluster runs with --fast: its downscale stabilisation window is 30 s
instead of 5 minutes, which the report and tidemark_sim_info say. The demo exits 0 when
every step worked, whether or not the spike crossed its thresholds (it is meant to).
It logs warnings only, unless --log.level=debug.`

// The demo's built-in profile and scenario (examples/, embedded in the binary).
const (
	demoProfile  = "cluster-shoong.yaml"
	demoScenario = "demo-spike.yaml"
)

// demoCmd is `tidemark demo`: the whole product on the embedded default.
func demoCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &demoConfig{}
	cmd := app.Command("demo", demoHelp)
	cmd.Flag("output.dir", "Where the store's data, the report and the dashboards go.").Default("tidemark-demo").StringVar(&cfg.outputDir)
	cmd.Flag("web.listen-address", "Address of the embedded store's Prometheus API (add it to Grafana as a Prometheus data source). "+
		"A free port is used when it is taken.").Default(defaultServeAddress).StringVar(&cfg.listen)
	cmd.Flag("profile", "Simulated cluster profile (YAML file); default: the built-in examples/"+demoProfile+" (--runtime process: "+demo.DefaultProfile(cluster.RuntimeProcess)+").").
		PlaceHolder("FILE").StringVar(&cfg.profile)
	cmd.Flag("scenario", "Scenario file, or k6 script (.js, .mjs, .cjs, .ts) run as tidemark run runs it, against the cluster's first service (TARGET_URL is set to it); default: the built-in examples/"+demoScenario+" (--runtime process: "+demo.DefaultScenario(cluster.RuntimeProcess)+").").
		PlaceHolder("FILE").StringVar(&cfg.scenario)
	cmd.Flag("scrape.interval", "How often the store scrapes the simulated cluster.").Default("5s").DurationVar(&cfg.scrape)
	cmd.Flag("fast.downscale-stabilization", "Downscale stabilisation window of the simulated HPAs (Kubernetes: 5m).").
		Default("30s").DurationVar(&cfg.fastWindow)
	cmd.Flag("cooldown", "Longest wait after the run for the HPAs to scale back in.").Default("75s").DurationVar(&cfg.cooldown)
	cmd.Flag("keep", "Keep the store and the cluster running after the demo, until Ctrl-C, to explore them.").BoolVar(&cfg.keep)
	cmd.Flag("quiet", "Print no live progress during the run.").BoolVar(&cfg.quietProgress)
	cmd.Flag("runtime", "Cluster runtime: sim (in memory) or process (pods as real processes in kernel cgroups; needs root).").Default(cluster.RuntimeSim).EnumVar(&cfg.runtime, cluster.RuntimeSim, cluster.RuntimeProcess)
	return cmd, func(ctx context.Context) error { return runDemo(ctx, cfg, g) }
}

// validate checks the demo's durations before anything starts.
func (cfg *demoConfig) validate() error {
	switch {
	case cfg.scrape <= 0 || cfg.scrape%time.Millisecond != 0:
		return fmt.Errorf("--scrape.interval %s: expected a positive duration in whole milliseconds, such as 5s", cfg.scrape)
	case cfg.fastWindow <= 0: // sim.WithFast would read 0 as its own default
		return fmt.Errorf("--fast.downscale-stabilization %s: expected a positive duration, such as 30s", cfg.fastWindow)
	case cfg.cooldown < 0:
		return fmt.Errorf("--cooldown %s: expected a duration of zero or more, such as 75s", cfg.cooldown)
	}
	return nil
}

// readInput returns the file at path, or the built-in example name when path is empty.
func readInput(path, name string) ([]byte, string, error) {
	if path == "" {
		b, err := examples.Read(name)
		return b, "examples/" + name + " (built in)", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, path, fmt.Errorf("read %s: %w", path, err)
	}
	return b, path, nil
}

func runDemo(ctx context.Context, cfg *demoConfig, g *globals) error {
	if err := cfg.validate(); err != nil {
		return exitcode.Invalid(err)
	}
	// The demo's parts (store, scrape, simulated cluster) log a lot at info level; unless
	// asked for debug logs, show warnings and errors only so the story stays readable.
	if g.logConfig.Level != nil && g.logConfig.Level.String() == "info" {
		_ = g.logConfig.Level.Set("warn")
	}
	logger := g.logger()
	raw, name, err := readInput(cfg.profile, demo.DefaultProfile(cfg.runtime))
	if err != nil {
		return exitcode.Invalid(err)
	}
	profile, err := sim.ParseProfile(raw, name)
	if err != nil {
		return exitcode.Invalid(err)
	}
	return demo.Run(ctx, demo.Config{OutputDir: cfg.outputDir, Listen: cfg.listen, Profile: profile, Scrape: cfg.scrape,
		FastWindow: cfg.fastWindow, Cooldown: cfg.cooldown, Keep: cfg.keep, Dashboards: dashboards.Generate, Runtime: cfg.runtime,
		Load: func(ctx context.Context, testID, target, writeURL string) error {
			return loadDemo(ctx, cfg, g, logger, testID, target, writeURL)
		}}, logger, g.stdout)
}

// demoSummaryFile is the run's summary (--summary-file's format, with the STAGES rows)
// under --output.dir.
const demoSummaryFile = "summary.json"

// loadDemo runs the demo's scenario or k6 script against target with remote write
// into the store, as `tidemark run` would, and prints it the same way.
func loadDemo(ctx context.Context, cfg *demoConfig, g *globals, logger *slog.Logger, testID, target, writeURL string) error {
	// k6's push interval, and native histograms, so that the report's per-stage
	// latencies and the thresholds judged per stage are exact within the histogram's
	// buckets.
	every, native := 5*time.Second, true
	_, rw, err := remotewrite.Compose(remotewrite.Overrides{URLs: []string{writeURL}, PushInterval: &every,
		NativeHistograms: &native, TestID: testID})
	if err != nil {
		return err
	}
	d := testrun.Demo{File: cfg.scenario, TestID: testID, Target: target, Logger: logger, IO: testrun.IO{Stdout: g.stdout, Stderr: g.stderr},
		Show: testrun.Show{Quiet: cfg.quietProgress, SummaryFile: filepath.Join(cfg.outputDir, demoSummaryFile)},
		Outputs: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, runTags map[string]string) ([]loadtest.Sink, error) {
			// With the generator's own CPU, as `tidemark run` writes it: the verdict
			// can then tell a run that measured the tool.
			return toSinks(remotewrite.Sinks(rw, loadgen.Source(series.FromAggregate(agg), runTags, logger), logger, prometheus.NewRegistry()))
		})}}
	if !d.Script() {
		if d.Raw, d.Name, err = readInput(cfg.scenario, demo.DefaultScenario(cfg.runtime)); err != nil {
			return exitcode.Invalid(err)
		}
	}
	// Crossed thresholds (exit code 99, as they are meant to be in this spike) are part
	// of the story, not a failure of the demo.
	err = d.Run(ctx)
	if exitcode.Of(err) == exitcode.ThresholdsFailed {
		fmt.Fprintf(g.stderr, "tidemark demo: the load test's verdict: %v\n", err)
		return nil
	}
	return err
}
