package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/report"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/store"
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

// demoCmd is `tidemark demo`: the whole product on the embedded default.
func demoCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, func() int) {
	cfg := &demoConfig{}
	cmd := app.Command("demo", demoHelp)
	cmd.Flag("output.dir", "Where the store's data, the report and the dashboards go.").Default("tidemark-demo").StringVar(&cfg.outputDir)
	cmd.Flag("web.listen-address", "Address of the embedded store's Prometheus API (add it to Grafana as a Prometheus data source). "+
		"A free port is used when it is taken.").Default(defaultServeAddress).StringVar(&cfg.listen)
	cmd.Flag("profile", "Simulated cluster profile.").Default("examples/cluster-shoong.yaml").StringVar(&cfg.profile)
	cmd.Flag("scenario", "Scenario to run against the cluster's first service (TARGET_URL is set to it).").
		Default("examples/demo-spike.yaml").StringVar(&cfg.scenario)
	cmd.Flag("scrape.interval", "How often the store scrapes the simulated cluster.").Default("5s").DurationVar(&cfg.scrape)
	cmd.Flag("fast.downscale-stabilization", "Downscale stabilisation window of the simulated HPAs (Kubernetes: 5m).").
		Default("30s").DurationVar(&cfg.fastWindow)
	cmd.Flag("cooldown", "Longest wait after the run for the HPAs to scale back in.").Default("75s").DurationVar(&cfg.cooldown)
	cmd.Flag("keep", "Keep the store and the cluster running after the demo, until Ctrl-C, to explore them.").BoolVar(&cfg.keep)
	cmd.Flag("quiet", "Print no live progress during the run.").BoolVar(&cfg.quietProgress)
	return cmd, func() int { return runDemo(cfg, g) }
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

func runDemo(cfg *demoConfig, g *globals) int {
	if err := cfg.validate(); err != nil {
		fmt.Fprintf(g.stderr, "tidemark demo: %v\n", err)
		return exitInvalidConfig
	}
	// The demo's parts (store, scrape, simulated cluster) log a lot at info level; unless
	// asked for debug logs, show warnings and errors only so the story stays readable.
	if g.logConfig.Level != nil && g.logConfig.Level.String() == "info" {
		_ = g.logConfig.Level.Set("warn")
	}
	logger := g.logger()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := startDemo(ctx, cfg, logger, g.stdout)
	if err != nil {
		fmt.Fprintf(g.stderr, "tidemark demo: %v\n", err)
		return exitGeneric
	}
	defer func() {
		if err := d.close(); err != nil {
			logger.Error("Failed to stop the demo cleanly", "err", err)
		}
	}()
	code, err := d.run(ctx, cfg, g)
	if err != nil {
		fmt.Fprintf(g.stderr, "tidemark demo: %v\n", err)
		if ctx.Err() != nil {
			return exitExternalAbort
		}
		return exitGeneric
	}
	if cfg.keep && ctx.Err() == nil {
		fmt.Fprintf(g.stdout, "\nThe store (%s) and the simulated cluster keep running; press Ctrl-C to stop.\n", d.storeURL)
		<-ctx.Done()
	}
	return code
}

// demo holds the running parts of the demo.
type demo struct {
	dataDir  string
	cluster  *sim.Server
	st       *store.Store
	srv      *http.Server
	storeURL string
	announce func() error
	started  time.Time
}

func startDemo(ctx context.Context, cfg *demoConfig, logger *slog.Logger, out io.Writer) (*demo, error) {
	profile, err := sim.LoadProfile(cfg.profile)
	if err != nil {
		return nil, err
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
	scrapeFile := filepath.Join(cfg.outputDir, "prometheus.yml")
	if err := writeDemoScrapeConfig(scrapeFile, d.cluster.MetricsURL(), cfg.scrape); err != nil {
		return nil, errors.Join(err, d.close())
	}
	scfg := store.DefaultConfig
	scfg.Dir = d.dataDir
	scfg.ScrapeConfigFile = scrapeFile
	d.st, err = store.Open(scfg, logger.With("component", "store"), prometheus.NewRegistry())
	if err != nil {
		return nil, errors.Join(err, d.close())
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		// The default port may be taken by a `tidemark serve`; any free one will do.
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, errors.Join(fmt.Errorf("listen for the store: %w", err), d.close())
		}
	}
	d.storeURL = "http://" + ln.Addr().String()
	d.srv = &http.Server{Handler: d.st.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("Store server stopped", "err", err)
		}
	}()
	if d.announce, err = store.Announce(d.dataDir, d.storeURL); err != nil {
		return nil, errors.Join(err, d.close())
	}
	fmt.Fprintf(out, "Tidemark demo\n  simulated cluster  %s (profile %s, fast scale-in: %s)\n  embedded store     %s (data in %s)\n",
		d.cluster.MetricsURL(), profile.Name, cfg.fastWindow, d.storeURL, d.dataDir)
	return d, nil
}

// writeDemoScrapeConfig scrapes the simulated cluster with the job names and labels a
// kube-prometheus installation gives its exporters, so the catalog's default selectors
// match as they would on a real cluster.
func writeDemoScrapeConfig(path, metricsURL string, every time.Duration) error {
	u, err := urlHost(metricsURL)
	if err != nil {
		return err
	}
	cfg := "# Written by tidemark demo.\n" + sim.ScrapeConfig(u, every)
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		return fmt.Errorf("write scrape configuration: %w", err)
	}
	return nil
}

func urlHost(raw string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", raw, err)
	}
	return req.URL.Host, nil
}

func (d *demo) run(ctx context.Context, cfg *demoConfig, g *globals) (int, error) {
	target, err := d.firstServiceURL()
	if err != nil {
		return exitGeneric, err
	}
	q, err := query.NewPrometheus(d.storeURL, http.DefaultTransport)
	if err != nil {
		return exitGeneric, err
	}
	fmt.Fprintf(g.stdout, "\nWaiting for the first scrape of the cluster...\n")
	if err := waitForSeries(ctx, q, `kube_deployment_spec_replicas`, time.Minute); err != nil {
		return exitGeneric, err
	}
	// A short baseline: the cluster idles before the load starts.
	if err := sleepCtx(ctx, 2*cfg.scrape); err != nil {
		return exitExternalAbort, err
	}
	testID := "demo-" + time.Now().UTC().Format("20060102-150405")
	args := []string{"run", "--testid", testID, "--env", "TARGET_URL=" + target,
		"--remote-write.url", d.storeURL + "/api/v1/write", "--remote-write.push-interval", "5s"}
	if cfg.quietProgress {
		args = append(args, "--quiet")
	}
	fmt.Fprintf(g.stdout, "\nRunning %s against %s (testid %s)\n", cfg.scenario, target, testID)
	runStart := time.Now()
	// The run's own exit code (99 when its thresholds are crossed, as they are meant to
	// be in this spike) is part of the story, not a failure of the demo.
	if code := run(append(args, cfg.scenario), g.stdout, g.stderr); code != exitOK && code != exitThresholdsFailed {
		return code, fmt.Errorf("the load test exited with code %d", code)
	}
	runEnd := time.Now()

	fmt.Fprintf(g.stdout, "\nWaiting up to %s for the HPAs to scale back in...\n", cfg.cooldown)
	d.waitForScaleIn(ctx, cfg.cooldown)
	// One more scrape so the last replica change is in the store.
	if err := sleepCtx(ctx, cfg.scrape+time.Second); err != nil {
		return exitExternalAbort, err
	}

	cat, err := query.Default()
	if err != nil {
		return exitGeneric, err
	}
	res, err := correlator.New(q, cat, slog.New(slog.DiscardHandler)).Correlate(ctx, correlator.Config{
		TestID:   testID,
		Baseline: max(runStart.Sub(d.started)-time.Second, cfg.scrape),
		After:    time.Since(runEnd),
		Params:   map[string]float64{"db_pool_per_pod": float64(d.poolPerPod())},
	})
	if err != nil {
		return exitGeneric, fmt.Errorf("correlate the run: %w", err)
	}
	reportDir := filepath.Join(cfg.outputDir, "report")
	paths, err := writeReports(reportDir, "report", report.FromCorrelation(res), res)
	if err != nil {
		return exitGeneric, err
	}
	dashDir := filepath.Join(cfg.outputDir, "dashboards")
	if err := dashboards.Generate(dashDir); err != nil {
		return exitGeneric, fmt.Errorf("generate dashboards: %w", err)
	}

	fmt.Fprintf(g.stdout, "\n%s\n", "What happened")
	printKeyFacts(g.stdout, res, "the embedded store")
	fmt.Fprintf(g.stdout, "\nWhere to look\n")
	for _, p := range paths {
		fmt.Fprintf(g.stdout, "  report      %s\n", p)
	}
	fmt.Fprintf(g.stdout, "  dashboards  %s (Grafana JSON and provisioning)\n", dashDir)
	fmt.Fprintf(g.stdout, "  store       %s/api/v1 as a Prometheus data source", d.storeURL)
	if !cfg.keep {
		fmt.Fprintf(g.stdout, " (stops with the demo; later: tidemark serve --storage.tsdb.path %s)", d.dataDir)
	}
	fmt.Fprintf(g.stdout, "\n  again       tidemark correlate --storage.tsdb.path %s --testid %s\n", d.dataDir, testID)
	return exitOK, nil
}

func (d *demo) firstServiceURL() (string, error) {
	urls := d.cluster.ServiceURLs()
	for _, s := range d.cluster.Profile().Services {
		if u, ok := urls[s.Name]; ok {
			return u, nil
		}
	}
	return "", errors.New("the simulated cluster serves no service")
}

func (d *demo) poolPerPod() int {
	for _, s := range d.cluster.Profile().Services {
		if s.Pool.Size > 0 {
			return s.Pool.Size
		}
	}
	return 0
}

// waitForScaleIn waits until every HPA is back at its minimum, or for at most limit.
func (d *demo) waitForScaleIn(ctx context.Context, limit time.Duration) {
	deadline := time.Now().Add(limit)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for time.Now().Before(deadline) {
		done := true
		for _, dep := range d.cluster.Snapshot().Deployments {
			if dep.HPA != nil && dep.HPA.CurrentReplicas > dep.HPA.MinReplicas {
				done = false
			}
		}
		if done {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (d *demo) close() error {
	var errs []error
	if d.srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, d.srv.Shutdown(sctx))
		cancel()
	}
	if d.announce != nil {
		errs = append(errs, d.announce())
	}
	if d.st != nil {
		errs = append(errs, d.st.Close())
	}
	if d.cluster != nil {
		errs = append(errs, d.cluster.Stop())
	}
	return errors.Join(errs...)
}

func waitForSeries(ctx context.Context, q query.Querier, expr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		v, _, err := q.Query(ctx, expr, time.Now())
		if err == nil && v != nil && v.String() != "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s in the store after %s: is the simulated cluster scraped?", expr, limit)
		}
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
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
