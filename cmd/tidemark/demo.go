package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/examples"
	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/report"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/store"
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
	cmd.Flag("profile", "Simulated cluster profile (YAML file); default: the built-in examples/"+demoProfile+".").
		PlaceHolder("FILE").StringVar(&cfg.profile)
	cmd.Flag("scenario", "Scenario to run against the cluster's first service (TARGET_URL is set to it); default: the built-in examples/"+demoScenario+".").
		PlaceHolder("FILE").StringVar(&cfg.scenario)
	cmd.Flag("scrape.interval", "How often the store scrapes the simulated cluster.").Default("5s").DurationVar(&cfg.scrape)
	cmd.Flag("fast.downscale-stabilization", "Downscale stabilisation window of the simulated HPAs (Kubernetes: 5m).").
		Default("30s").DurationVar(&cfg.fastWindow)
	cmd.Flag("cooldown", "Longest wait after the run for the HPAs to scale back in.").Default("75s").DurationVar(&cfg.cooldown)
	cmd.Flag("keep", "Keep the store and the cluster running after the demo, until Ctrl-C, to explore them.").BoolVar(&cfg.keep)
	cmd.Flag("quiet", "Print no live progress during the run.").BoolVar(&cfg.quietProgress)
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

func runDemo(ctx context.Context, cfg *demoConfig, g *globals) (err error) {
	if err := cfg.validate(); err != nil {
		return exitcode.Invalid(err)
	}
	// The demo's parts (store, scrape, simulated cluster) log a lot at info level; unless
	// asked for debug logs, show warnings and errors only so the story stays readable.
	if g.logConfig.Level != nil && g.logConfig.Level.String() == "info" {
		_ = g.logConfig.Level.Set("warn")
	}
	logger := g.logger()
	d, err := startDemo(ctx, cfg, logger, g.stdout)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := d.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("stop the demo: %w", cerr))
		}
	}()
	if err := d.run(ctx, cfg, g, logger); err != nil {
		return err
	}
	if cfg.keep && ctx.Err() == nil {
		fmt.Fprintf(g.stdout, "\nThe store (%s) and the simulated cluster keep running; press Ctrl-C to stop.\n", d.local.URL)
		<-ctx.Done()
	}
	return nil
}

// demo holds the running parts of the demo.
type demo struct {
	dataDir  string
	cluster  *sim.Server
	local    *store.Local
	announce func() error
	started  time.Time
}

func startDemo(ctx context.Context, cfg *demoConfig, logger *slog.Logger, out io.Writer) (*demo, error) {
	raw, name, err := readInput(cfg.profile, demoProfile)
	if err != nil {
		return nil, exitcode.Invalid(err)
	}
	profile, err := sim.ParseProfile(raw, name)
	if err != nil {
		return nil, exitcode.Invalid(err)
	}
	d := &demo{dataDir: filepath.Join(cfg.outputDir, "data"), started: time.Now()}
	if err := os.MkdirAll(d.dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", d.dataDir, err)
	}
	d.cluster, err = sim.NewServer(profile, logger.With("component", "sim"), sim.WithFast(cfg.fastWindow))
	if err != nil {
		return nil, err
	}
	if err := d.cluster.Start(ctx); err != nil {
		return nil, err
	}
	if err := d.openStore(cfg, logger); err != nil {
		return nil, errors.Join(err, d.close())
	}
	fmt.Fprintf(out, "Tidemark demo\n  simulated cluster  %s (profile %s, fast scale-in: %s)\n  embedded store     %s (data in %s)\n",
		d.cluster.MetricsURL(), profile.Name, cfg.fastWindow, d.local.URL, d.dataDir)
	return d, nil
}

// openStore opens the embedded store scraping the simulated cluster with the job names
// and labels a kube-prometheus installation gives its exporters (so the catalog's
// default selectors match as on a real cluster), and serves it on --web.listen-address
// or, when that is taken (by a `tidemark serve`), on a free port.
func (d *demo) openStore(cfg *demoConfig, logger *slog.Logger) error {
	scrape, err := d.cluster.ScrapeConfig(cfg.scrape)
	if err != nil {
		return err
	}
	scrapeFile := filepath.Join(cfg.outputDir, "prometheus.yml")
	if err := os.WriteFile(scrapeFile, []byte("# Written by tidemark demo.\n"+scrape), 0o644); err != nil {
		return fmt.Errorf("write scrape configuration: %w", err)
	}
	scfg := store.DefaultConfig
	scfg.Dir = d.dataDir
	scfg.ScrapeConfigFile = scrapeFile
	logger = logger.With("component", "store")
	st, err := store.Open(scfg, logger, prometheus.NewRegistry())
	if err != nil {
		return err
	}
	d.local = store.Serving(st, "the embedded store")
	if err := d.local.Listen(cfg.listen, logger); err != nil {
		if err := d.local.Listen("", logger); err != nil {
			return err
		}
	}
	d.announce, err = store.Announce(d.dataDir, d.local.URL)
	return err
}

func (d *demo) run(ctx context.Context, cfg *demoConfig, g *globals, logger *slog.Logger) error {
	target, err := d.cluster.FirstServiceURL()
	if err != nil {
		return err
	}
	q, err := query.NewPrometheus(d.local.URL, http.DefaultTransport)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "\nWaiting for the first scrape of the cluster...\n")
	if err := query.WaitForSeries(ctx, q, `kube_deployment_spec_replicas`, time.Minute); err != nil {
		return fmt.Errorf("wait for the first scrape: %w: is the simulated cluster scraped?", err)
	}
	// A short baseline: the cluster idles before the load starts.
	if err := sleepCtx(ctx, 2*cfg.scrape); err != nil {
		return err
	}
	testID := "demo-" + time.Now().UTC().Format("20060102-150405")
	runStart := time.Now()
	if err := d.load(ctx, cfg, g, logger, testID, target); err != nil {
		return err
	}
	runEnd := time.Now()

	fmt.Fprintf(g.stdout, "\nWaiting up to %s for the HPAs to scale back in...\n", cfg.cooldown)
	d.cluster.WaitScaledIn(ctx, cfg.cooldown)
	// One more scrape so the last replica change is in the store.
	if err := sleepCtx(ctx, cfg.scrape+time.Second); err != nil {
		return err
	}
	cat, err := query.Default()
	if err != nil {
		return err
	}
	res, err := correlator.New(q, cat, logger).Correlate(ctx, correlator.Config{
		TestID:   testID,
		Baseline: max(runStart.Sub(d.started)-time.Second, cfg.scrape),
		After:    time.Since(runEnd),
		Params:   map[string]float64{"db_pool_per_pod": float64(d.cluster.Profile().PoolPerPod())},
	})
	if err != nil {
		return fmt.Errorf("correlate the run: %w", err)
	}
	truth := simTruthOf(d.cluster.Snapshot().Responses)
	if err := writeJSONFile(filepath.Join(cfg.outputDir, demoSimulatorFile), truth); err != nil {
		return err
	}
	if err := d.show(cfg, g, res, testID); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "\nWhat the simulator counted itself\n  %s\n", truth)
	return nil
}

// demoSimulatorFile holds the simulator's own count of the run's answers under
// --output.dir, to check the report's failure facts against.
const demoSimulatorFile = "simulator.json"

// simTruth is the simulated cluster's ground truth about the answers the load got: what
// it answered, what failed, and what failed while some HPA's current replicas exceeded
// its Deployment's Ready replicas (the start-up gap the report reads from
// kube-state-metrics).
type simTruth struct {
	Answered           int     `json:"answered"`
	Failed             int     `json:"failed"`
	FailedInStartupGap int     `json:"failed_in_startup_gap"`
	StartupGapSeconds  float64 `json:"startup_gap_seconds"`
}

func simTruthOf(r sim.Responses) simTruth {
	return simTruth{Answered: r.Total, Failed: r.Failed, FailedInStartupGap: r.FailedInStartupGap, StartupGapSeconds: r.StartupGap.Seconds()}
}

// InGapShare is the share of failures answered inside start-up gaps; 0 without failures.
func (t simTruth) InGapShare() float64 {
	if t.Failed == 0 {
		return 0
	}
	return float64(t.FailedInStartupGap) / float64(t.Failed)
}

func (t simTruth) String() string {
	if t.Failed == 0 {
		return fmt.Sprintf("%d answers, none failed", t.Answered)
	}
	return fmt.Sprintf("%d answers, %d failed (%.1f%%); %d of the failures (%.1f%%) while Ready lagged the HPA's current replicas",
		t.Answered, t.Failed, 100*float64(t.Failed)/float64(t.Answered), t.FailedInStartupGap, 100*t.InGapShare())
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// demoSummaryFile is the run's summary (--summary-file's format, with the STAGES rows)
// under --output.dir.
const demoSummaryFile = "summary.json"

// load runs the demo's scenario against target with remote write into the store, as
// `tidemark run` would, and prints it the same way.
func (d *demo) load(ctx context.Context, cfg *demoConfig, g *globals, logger *slog.Logger, testID, target string) error {
	raw, name, err := readInput(cfg.scenario, demoScenario)
	if err != nil {
		return exitcode.Invalid(err)
	}
	env := map[string]string{"TARGET_URL": target}
	test, err := scenario.Parse(name, raw, env)
	if err != nil {
		return exitcode.Invalid(err)
	}
	// k6's push interval, and native histograms, so that the report's per-stage
	// latencies and the thresholds judged per stage are exact within the histogram's
	// buckets.
	every, native := 5*time.Second, true
	_, rw, err := remotewrite.Compose(remotewrite.Overrides{URLs: []string{d.local.URL + "/api/v1/write"}, PushInterval: &every,
		NativeHistograms: &native, TestID: testID})
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "\nRunning %s against %s (testid %s)\n", name, target, testID)
	err = testrun.Execute(ctx, loadtest.Config{
		Test:   test,
		Source: name,
		TestID: testID,
		Actors: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
			return remoteWriteSinks(rw, series.FromAggregate(agg), logger, prometheus.NewRegistry())
		})},
		Logger: logger,
	}, testrun.Show{Quiet: cfg.quietProgress, SummaryFile: filepath.Join(cfg.outputDir, demoSummaryFile)}, testrun.IO{Stdout: g.stdout, Stderr: g.stderr})
	// Crossed thresholds (exit code 99, as they are meant to be in this spike) are part
	// of the story, not a failure of the demo.
	if exitcode.Of(err) == exitcode.ThresholdsFailed {
		fmt.Fprintf(g.stderr, "tidemark demo: the load test's verdict: %v\n", err)
		return nil
	}
	return err
}

// show writes the report and the dashboards, and prints the key facts and where to look.
func (d *demo) show(cfg *demoConfig, g *globals, res *correlator.Result, testID string) error {
	paths, err := report.WriteFiles(filepath.Join(cfg.outputDir, "report"), "report", report.FromCorrelation(res), res)
	if err != nil {
		return err
	}
	dashDir := filepath.Join(cfg.outputDir, "dashboards")
	if err := dashboards.Generate(dashDir); err != nil {
		return fmt.Errorf("generate dashboards: %w", err)
	}
	fmt.Fprintf(g.stdout, "\n%s\n", "What happened")
	if err := printKeyFacts(g.stdout, res, "the embedded store"); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "\nWhere to look\n")
	for _, p := range paths {
		fmt.Fprintf(g.stdout, "  report      %s\n", p)
	}
	fmt.Fprintf(g.stdout, "  dashboards  %s (Grafana JSON and provisioning)\n", dashDir)
	fmt.Fprintf(g.stdout, "  store       %s/api/v1 as a Prometheus data source", d.local.URL)
	if !cfg.keep {
		fmt.Fprintf(g.stdout, " (stops with the demo; later: tidemark serve --storage.tsdb.path %s)", d.dataDir)
	}
	fmt.Fprintf(g.stdout, "\n  again       tidemark correlate --storage.tsdb.path %s --testid %s\n", d.dataDir, testID)
	return nil
}
func (d *demo) close() error {
	var errs []error
	if d.announce != nil {
		errs = append(errs, d.announce())
	}
	if d.local != nil {
		errs = append(errs, d.local.Close())
	}
	if d.cluster != nil {
		errs = append(errs, d.cluster.Stop())
	}
	return errors.Join(errs...)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
