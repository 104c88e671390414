// Package demo runs Tidemark's demo on a laptop: the embedded store scraping a simulated
// cluster, one load test against it with remote write into the store, the correlation of
// the run, its report and dashboards, and the key facts.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/internal/cluster"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/report"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/store"
)

// SimulatorFile holds the simulator's own count of the run's answers under the output
// directory, to check the report's failure facts against.
const SimulatorFile = "simulator.json"

// Load runs the demo's load test: testID against target, with remote write to writeURL
// (the embedded store's receiver).
type Load func(ctx context.Context, testID, target, writeURL string) error

// Config is what the demo runs with.
type Config struct {
	// OutputDir receives the store's data, the report and the dashboards.
	OutputDir string
	// Listen is the store's address; a free port is used when it is taken.
	Listen string
	// Profile is the simulated cluster's profile.
	Profile *sim.Profile
	// Scrape is how often the store scrapes the cluster; FastWindow is the simulated
	// HPAs' downscale stabilisation window; Cooldown bounds the wait for the scale-in.
	Scrape, FastWindow, Cooldown time.Duration
	// Keep keeps the store and the cluster running after the demo until ctx ends.
	Keep bool
	// Load runs the load test.
	Load Load
	// Dashboards writes the Grafana dashboards and their provisioning into a directory.
	Dashboards func(dir string) error
	// Runtime is the cluster's runtime (cluster.RuntimeSim when empty).
	Runtime string
}

// Run runs the demo and prints its story to out.
func Run(ctx context.Context, cfg Config, logger *slog.Logger, out io.Writer) (err error) {
	d, err := start(ctx, cfg, logger, out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := d.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("stop the demo: %w", cerr))
		}
	}()
	if err := d.run(ctx, logger); err != nil {
		return err
	}
	if cfg.Keep && ctx.Err() == nil {
		fmt.Fprintf(out, "\nThe store (%s) and the simulated cluster keep running; press Ctrl-C to stop.\n", d.local.URL)
		<-ctx.Done()
	}
	return nil
}

// demo holds the running parts of the demo.
type demo struct {
	cfg      Config
	out      io.Writer
	dataDir  string
	cluster  cluster.Cluster
	local    *store.Local
	announce func() error
	started  time.Time
}

func start(ctx context.Context, cfg Config, logger *slog.Logger, out io.Writer) (*demo, error) {
	d := &demo{cfg: cfg, out: out, dataDir: filepath.Join(cfg.OutputDir, "data"), started: time.Now()}
	if err := os.MkdirAll(d.dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", d.dataDir, err)
	}
	var err error
	c, err := cluster.New(cfg.Profile, cluster.Config{Runtime: cfg.Runtime, Fast: true, FastWindow: cfg.FastWindow}, logger)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	d.cluster = c
	if err := d.openStore(logger); err != nil {
		return nil, errors.Join(err, d.close())
	}
	fmt.Fprintf(out, "Tidemark demo\n  simulated cluster  %s (profile %s, fast scale-in: %s)\n  embedded store     %s (data in %s)\n",
		d.cluster.MetricsURL(), cfg.Profile.Name, cfg.FastWindow, d.local.URL, d.dataDir)
	return d, nil
}

// openStore opens the embedded store scraping the simulated cluster with the job names
// and labels a kube-prometheus installation gives its exporters (so the catalog's
// default selectors match as on a real cluster), and serves it on cfg.Listen or, when
// that is taken (by a `tidemark serve`), on a free port.
func (d *demo) openStore(logger *slog.Logger) error {
	scrape, err := d.cluster.ScrapeConfig(d.cfg.Scrape)
	if err != nil {
		return err
	}
	scrapeFile := filepath.Join(d.cfg.OutputDir, "prometheus.yml")
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
	if err := d.local.Listen(d.cfg.Listen, logger); err != nil {
		if err := d.local.Listen("", logger); err != nil {
			return err
		}
	}
	d.announce, err = store.Announce(d.dataDir, d.local.URL)
	return err
}

func (d *demo) run(ctx context.Context, logger *slog.Logger) error {
	target, err := d.cluster.FirstServiceURL()
	if err != nil {
		return err
	}
	q, err := query.NewPrometheus(d.local.URL, http.DefaultTransport)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\nWaiting for the first scrape of the cluster...\n")
	if err := query.WaitForSeries(ctx, q, `kube_deployment_spec_replicas`, time.Minute); err != nil {
		return fmt.Errorf("wait for the first scrape: %w: is the simulated cluster scraped?", err)
	}
	// A short baseline: the cluster idles before the load starts.
	if err := sleep(ctx, 2*d.cfg.Scrape); err != nil {
		return err
	}
	testID := "demo-" + time.Now().UTC().Format("20060102-150405")
	runStart := time.Now()
	if err := d.cfg.Load(ctx, testID, target, d.local.URL+"/api/v1/write"); err != nil {
		return err
	}
	runEnd := time.Now()
	fmt.Fprintf(d.out, "\nWaiting up to %s for the HPAs to scale back in...\n", d.cfg.Cooldown)
	d.cluster.WaitScaledIn(ctx, d.cfg.Cooldown)
	// One more scrape so the last replica change is in the store.
	if err := sleep(ctx, d.cfg.Scrape+time.Second); err != nil {
		return err
	}
	res, err := d.correlate(ctx, q, logger, testID, runStart, runEnd)
	if err != nil {
		return err
	}
	truth := truthOf(d.cluster.Snapshot().Responses)
	if err := writeJSONFile(filepath.Join(d.cfg.OutputDir, SimulatorFile), truth); err != nil {
		return err
	}
	if err := d.show(res, testID); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\nWhat the simulator counted itself\n  %s\n", truth)
	return nil
}

// correlate correlates the run with the cluster, the time before it as the baseline.
func (d *demo) correlate(ctx context.Context, q query.Querier, logger *slog.Logger, testID string, runStart, runEnd time.Time) (*correlator.Result, error) {
	cat, err := query.Default()
	if err != nil {
		return nil, err
	}
	res, err := correlator.New(q, cat, logger).Correlate(ctx, correlator.Config{
		TestID:   testID,
		Baseline: max(runStart.Sub(d.started)-time.Second, d.cfg.Scrape),
		After:    time.Since(runEnd),
		// The simulated RDS's max_connections: CloudWatch does not publish it.
		Params: map[string]float64{
			"db_pool_per_pod":    float64(d.cluster.Profile().PoolPerPod()),
			"db_max_connections": float64(d.cluster.Profile().DBMaxConnections()),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("correlate the run: %w", err)
	}
	return res, nil
}

// show writes the report and the dashboards, and prints the key facts and where to look.
func (d *demo) show(res *correlator.Result, testID string) error {
	paths, err := report.WriteFiles(filepath.Join(d.cfg.OutputDir, "report"), "report", report.FromCorrelation(res), res)
	if err != nil {
		return err
	}
	dashDir := filepath.Join(d.cfg.OutputDir, "dashboards")
	if err := d.cfg.Dashboards(dashDir); err != nil {
		return fmt.Errorf("generate dashboards: %w", err)
	}
	fmt.Fprintf(d.out, "\n%s\n", "What happened")
	if err := report.WriteRunKeyFacts(d.out, res, "the embedded store"); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\nWhere to look\n")
	for _, p := range paths {
		fmt.Fprintf(d.out, "  report      %s\n", p)
	}
	fmt.Fprintf(d.out, "  dashboards  %s (Grafana JSON and provisioning)\n", dashDir)
	fmt.Fprintf(d.out, "  store       %s/api/v1 as a Prometheus data source", d.local.URL)
	if !d.cfg.Keep {
		fmt.Fprintf(d.out, " (stops with the demo; later: tidemark serve --storage.tsdb.path %s)", d.dataDir)
	}
	fmt.Fprintf(d.out, "\n  again       tidemark correlate --storage.tsdb.path %s --testid %s\n", d.dataDir, testID)
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

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// DefaultProfile is the built-in profile (in examples/) of a runtime when none is given:
// story 1's cluster on the simulator; story 3's 500m pod on the process runtime, which
// does not run the simulated database.
func DefaultProfile(runtime string) string {
	if runtime == cluster.RuntimeProcess {
		return "cluster-story3-process-500m.yaml"
	}
	return "cluster-shoong.yaml"
}

// DefaultScenario is the built-in scenario (in examples/) of a runtime when none is given:
// story 1's spike on the simulator; story 3's step load on the process runtime.
func DefaultScenario(runtime string) string {
	if runtime == cluster.RuntimeProcess {
		return "story3-steps.yaml"
	}
	return "demo-spike.yaml"
}
