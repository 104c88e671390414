package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/progress"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/store"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/threshold"
)

const runHelp = `Run a load test described by a k6-style scenario file (YAML or JSON).

The file holds k6's options: scenarios with their executor (shared-iterations,
per-vu-iterations, constant-vus, ramping-vus, constant-arrival-rate,
ramping-arrival-rate) or the shortcuts vus/duration/iterations/stages, thresholds,
tags, and a flow of HTTP steps per scenario. Every sample carries the tag testid
(--testid, or --tag testid=..., default <file-stem>-<UTC yyyymmdd-hhmmss>), printed at
the start.

Examples:
  tidemark target &                        # a local server to aim at (127.0.0.1:8099)
  tidemark run examples/quick.yaml
  tidemark run --testid=spike-1 --tag env=staging --env TARGET_URL=http://127.0.0.1:8099 examples/spike.yaml
  tidemark run --remote-write.url=http://prometheus:9090/api/v1/write examples/load-steps.yaml
  tidemark run --execution-segment=0:1/2 test.yaml   # instance 1 of 2 (Kubernetes Indexed Job)

Without --remote-write.url (or K6_PROMETHEUS_RW_SERVER_URL) the series go into the
embedded store in --storage.tsdb.path, for tidemark serve and tidemark correlate.

Exit codes: 0 passed, 99 thresholds crossed (or abortOnFail), 104 invalid scenario or
flags, 105 interrupted by SIGINT/SIGTERM (running iterations get gracefulStop; the
summary is still printed), 255 other errors.`

type runConfig struct {
	file           string
	testID         string
	tags           []string
	env            []string
	quiet          bool
	summaryExport  string
	summaryFile    string
	noThresholds   bool
	segment        string
	segmentSeq     string
	insecureTLS    bool
	userAgent      string
	progressPeriod time.Duration
	cpuProfile     string
	outputs        *outputFlags
	dataDir        string
	noStore        bool
}

// runCmd is `tidemark run SCENARIO`.
func runCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, func() int) {
	cfg := &runConfig{}
	cmd := app.Command("run", runHelp)
	cmd.Arg("scenario", "Scenario file (YAML or JSON).").Required().StringVar(&cfg.file)
	cmd.Flag("testid", "Test id added to every sample as the testid tag. Default <file-stem>-<UTC yyyymmdd-hhmmss>.").StringVar(&cfg.testID)
	cmd.Flag("tag", "Tag k=v added to every sample (k6 --tag). Repeatable; wins over the file's tags. --tag testid=X sets the test id.").
		Short('t').StringsVar(&cfg.tags)
	cmd.Flag("env", "Value K=V for ${__ENV.K} in the scenario file, over the process environment. Repeatable.").
		Short('e').StringsVar(&cfg.env)
	cmd.Flag("quiet", "Print no progress (the summary is still printed).").Short('q').BoolVar(&cfg.quiet)
	cmd.Flag("summary-export", "Write the end-of-test summary as JSON in k6's --summary-export (legacy) shape to this file.").
		StringVar(&cfg.summaryExport)
	cmd.Flag("summary-file", "Write the end-of-test summary as JSON in the shape of k6's handleSummary data to this file.").
		StringVar(&cfg.summaryFile)
	cmd.Flag("no-thresholds", "Do not evaluate thresholds (the run never exits 99).").BoolVar(&cfg.noThresholds)
	cmd.Flag("execution-segment", "This instance's share of every scenario, e.g. 0:1/2 or 1/4:1/2 (k6 semantics).").
		StringVar(&cfg.segment)
	cmd.Flag("execution-segment-sequence", "All instances' segments as boundaries, e.g. 0,1/4,1/2,1. Default: 0, the segment's ends, 1.").
		StringVar(&cfg.segmentSeq)
	cmd.Flag("insecure-skip-tls-verify", "Do not verify the TLS certificates of the system under test.").BoolVar(&cfg.insecureTLS)
	cmd.Flag("user-agent", "User-Agent of requests that set none.").Default("tidemark/" + version.Version).StringVar(&cfg.userAgent)
	cmd.Flag("progress.interval", "How often progress is printed; default 500ms on a terminal, 10s otherwise.").
		Hidden().DurationVar(&cfg.progressPeriod)
	cmd.Flag("debug.cpu-profile", "Write a Go CPU profile of the run to this file.").Hidden().StringVar(&cfg.cpuProfile)
	cfg.outputs = addOutputFlags(cmd)
	cmd.Flag("storage.tsdb.path", "Without a remote-write URL the run's series go into the embedded store in this directory "+
		"(or into the `tidemark serve` holding it), for `tidemark serve` and `tidemark correlate`.").
		Default(store.DefaultConfig.Dir).StringVar(&cfg.dataDir)
	cmd.Flag("no-embedded-store", "Keep the series only in memory when no remote-write URL is set.").BoolVar(&cfg.noStore)
	return cmd, func() int { return runRun(cfg, g) }
}

// runSink is a destination that reads the run's aggregate Store while the run is
// live (remote write, the exporter). Start must not block; Stop flushes and waits.
type runSink interface {
	Start()
	Stop() error
	// Extra returns lines for the end of the summary (e.g. samples sent).
	Extra() []string
}

// sinks builds the run's sinks from the flags. Without a remote-write URL (flag, file or
// K6_PROMETHEUS_RW_SERVER_URL) the series are remote-written into the embedded store:
// a `tidemark serve` holding --storage.tsdb.path, or that directory opened in-process.
func (c *runConfig) sinks(agg *aggregate.Store, runTags map[string]string, logger *slog.Logger) ([]runSink, error) {
	rw, err := c.outputs.remoteWriteConfigs("", "")
	if err != nil {
		return nil, err
	}
	var emb *embeddedStore
	if len(rw) == 0 && !c.noStore {
		if emb, err = openEmbedded(context.Background(), c.dataDir, logger); err != nil {
			return nil, err
		}
		if err := emb.Listen(logger); err != nil {
			return nil, errors.Join(err, emb.Close())
		}
		c.outputs.rwURLs, c.outputs.set.url = []string{emb.URL + "/api/v1/write"}, true
	}
	sinks, err := c.outputs.build(agg, runTags, logger)
	if err != nil {
		if emb != nil {
			err = errors.Join(err, emb.Close())
		}
		return nil, err
	}
	if emb != nil {
		// After the remote-write sink, so its final flush lands before the store closes.
		sinks = append(sinks, &embeddedSink{emb: emb, dir: c.dataDir})
	}
	return sinks, nil
}

// embeddedSink closes the embedded store after the run and says where the data went.
type embeddedSink struct {
	emb *embeddedStore
	dir string
}

func (s *embeddedSink) Start()      {}
func (s *embeddedSink) Stop() error { return s.emb.Close() }
func (s *embeddedSink) Extra() []string {
	if s.emb.st == nil {
		return []string{"data: written to " + s.emb.Where}
	}
	return []string{fmt.Sprintf("data: written to the embedded store in %s; query it with `tidemark serve --storage.tsdb.path %s`", s.dir, s.dir)}
}

func parsePairs(kind string, pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("invalid --%s %q: expected KEY=VALUE", kind, p)
		}
		out[k] = v
	}
	return out, nil
}

func runRun(cfg *runConfig, g *globals) int {
	logger := g.logger()
	invalid := func(err error) int {
		fmt.Fprintf(g.stderr, "tidemark: %v\n", err)
		return exitInvalidConfig
	}
	tags, err := parsePairs("tag", cfg.tags)
	if err != nil {
		return invalid(err)
	}
	cliEnv, err := parsePairs("env", cfg.env)
	if err != nil {
		return invalid(err)
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for k, v := range cliEnv {
		env[k] = v
	}
	test, err := scenario.Load(cfg.file, env)
	if err != nil {
		return invalid(err)
	}
	seg, err := pacer.ParseSegment(cfg.segment, cfg.segmentSeq)
	if err != nil {
		return invalid(err)
	}
	now := time.Now()
	testID := cfg.testID
	if testID == "" {
		testID = tags["testid"]
	}
	if testID == "" {
		testID = engine.DefaultTestID(cfg.file, now)
	}
	delete(tags, "testid")

	reg := metrics.NewRegistry()
	metrics.RegisterBuiltin(reg)
	store := aggregate.New()

	var thresholds *threshold.Set
	var evaluate engine.Thresholds
	if !cfg.noThresholds && len(test.Thresholds) > 0 {
		// The engine's own metrics must exist before thresholds name them.
		for _, n := range []string{engine.RunInfoMetric, engine.ScenarioTargetMetric} {
			if _, err := reg.New(n, metrics.Gauge, metrics.Default); err != nil {
				return invalid(err)
			}
		}
		thresholds, err = threshold.NewSet(thresholdDefs(test), threshold.RegistryTypes(reg))
		if err != nil {
			return invalid(fmt.Errorf("%s: %w", cfg.file, err))
		}
		evaluate = thresholdEvaluator(thresholds, store)
	}

	var snapMu sync.Mutex
	snaps := map[time.Duration]*aggregate.Snapshot{}
	eng, err := engine.New(engine.Config{
		Test:       test,
		TestID:     testID,
		Tags:       tags,
		Segment:    seg,
		Pusher:     store,
		Registry:   reg,
		Thresholds: evaluate,
		HTTP:       request.Options{TLS: tlsConfig(cfg.insecureTLS || test.InsecureSkipTLSVerify), Proxy: proxyFromEnv()},
		UserAgent:  cfg.userAgent,
		Logger:     logger,
		OnBoundary: func(d time.Duration) {
			s := store.Snapshot()
			snapMu.Lock()
			snaps[d] = s
			snapMu.Unlock()
		},
	})
	if err != nil {
		return invalid(fmt.Errorf("%s: %w", cfg.file, err))
	}

	runTags := map[string]string{}
	for _, t := range eng.RunTags().Tags() {
		runTags[t.Key] = t.Value
	}
	sinks, err := cfg.sinks(store, runTags, logger)
	if err != nil {
		return invalid(err)
	}
	printHeader(g.stdout, cfg.file, testID, seg, eng)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		// A second signal kills the process the default way.
		stop()
	}()
	for _, s := range sinks {
		s.Start()
	}
	var prog *progress.Printer
	if !cfg.quiet {
		prog = progress.New(g.stderr, progress.IsTerminal(g.stderr), cfg.progressPeriod, eng.Status)
		prog.Start()
	}
	if cfg.cpuProfile != "" {
		if f, err := os.Create(cfg.cpuProfile); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				defer func() {
					pprof.StopCPUProfile()
					f.Close()
				}()
			}
		}
	}
	res := eng.Run(ctx)
	if prog != nil {
		prog.Stop()
	}
	if res.Interrupted {
		fmt.Fprintln(g.stderr, "tidemark: interrupted; running iterations got their gracefulStop")
	}
	var extra []string
	exit := res.ExitCode
	for _, s := range sinks {
		if err := s.Stop(); err != nil {
			logger.Error("Failed to flush a sink", "err", err)
			if exit == exitOK {
				exit = exitGeneric
			}
		}
		extra = append(extra, s.Extra()...)
	}

	final := store.Snapshot()
	in := summary.Input{
		Test:      test,
		Snapshot:  final,
		Registry:  reg,
		Start:     res.Start,
		Duration:  res.End.Sub(res.Start),
		Stages:    stageInputs(res, snaps, &snapMu, final),
		Extra:     extra,
		Color:     progress.IsTerminal(g.stdout),
		StdoutTTY: progress.IsTerminal(g.stdout),
		StderrTTY: progress.IsTerminal(g.stderr),
	}
	if thresholds != nil {
		in.Thresholds = thresholdInputs(thresholds.Last())
		if err := thresholds.Last().Err(); err != nil {
			// The final evaluation never aborts; say that abortOnFail stopped the run.
			var ce *threshold.CrossedError
			if errors.As(err, &ce) && res.Aborted {
				ce.Abort = true
			}
			defer fmt.Fprintf(g.stderr, "tidemark: %v\n", err)
		}
	}
	if err := summary.WriteText(g.stdout, in); err != nil {
		logger.Error("Failed to write the summary", "err", err)
		exit = max(exit, exitGeneric)
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer, summary.Input) error
	}{{cfg.summaryExport, summary.WriteExport}, {cfg.summaryFile, summary.WriteData}} {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, in, out.write); err != nil {
			logger.Error("Failed to write the summary file", "err", err, "file", out.path)
			if exit == exitOK {
				exit = exitGeneric
			}
		}
	}
	return exit
}

func writeFile(path string, in summary.Input, write func(io.Writer, summary.Input) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f, in); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// proxyFromEnv honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY as k6 does, and returns
// nil when none is set so that requests skip the per-request proxy lookup.
func proxyFromEnv() func(*http.Request) (*url.URL, error) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		if os.Getenv(k) != "" {
			return http.ProxyFromEnvironment
		}
	}
	return nil
}

func tlsConfig(insecure bool) *tls.Config {
	if !insecure {
		return nil
	}
	return &tls.Config{InsecureSkipVerify: true} //nolint:gosec // asked for by --insecure-skip-tls-verify
}

func thresholdDefs(test *scenario.Test) []threshold.Def {
	keys := make([]string, 0, len(test.Thresholds))
	for k := range test.Thresholds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var defs []threshold.Def
	for _, k := range keys {
		for _, th := range test.Thresholds[k] {
			defs = append(defs, threshold.Def{Key: k, Expr: th.Expr, AbortOnFail: th.AbortOnFail, DelayAbortEval: th.DelayAbortEval})
		}
	}
	return defs
}

// thresholdEvaluator evaluates the set against a fresh snapshot of the store.
func thresholdEvaluator(set *threshold.Set, store *aggregate.Store) engine.ThresholdsFunc {
	return func(elapsed time.Duration, final bool) (bool, bool) {
		snap := store.Snapshot()
		r := set.Evaluate(elapsed, final, func(k *threshold.Key) threshold.Source {
			se, ok := snap.Submetric(k.Metric, k.Tags)
			if !ok {
				return nil
			}
			return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
				v, err := se.Values.Threshold(m.String(), elapsed)
				return v, err == nil
			})
		})
		return len(r.Crossed) > 0, r.Abort
	}
}

func thresholdInputs(r *threshold.Result) map[string][]summary.Threshold {
	if r == nil {
		return nil
	}
	out := map[string][]summary.Threshold{}
	for _, o := range r.Outcomes {
		k := o.Threshold.Key.Name
		out[k] = append(out[k], summary.Threshold{Expr: o.Threshold.Expr.Source, OK: o.Passed, Value: o.Value})
	}
	return out
}

// stageInputs pairs every stage window with the snapshots taken at its boundaries.
func stageInputs(res engine.Result, snaps map[time.Duration]*aggregate.Snapshot, mu *sync.Mutex, final *aggregate.Snapshot) []summary.Stage {
	mu.Lock()
	defer mu.Unlock()
	var out []summary.Stage
	for _, w := range res.Stages {
		st := summary.Stage{Scenario: w.Scenario, Index: w.Index, Start: w.Start, End: w.End, Target: w.Target}
		if w.Unit == "iterations_per_second" {
			st.TimeUnit = time.Second
		}
		if d := w.Start.Sub(res.Start); d > 0 {
			st.From = snaps[d]
			if st.From == nil {
				continue // the run ended before this window's start was snapshotted
			}
		}
		st.To = snaps[w.End.Sub(res.Start)]
		if st.To == nil || !w.End.Before(res.End) {
			st.To = final
		}
		out = append(out, st)
	}
	return out
}

func printHeader(w io.Writer, file, testID string, seg pacer.Segment, eng *engine.Engine) {
	st := eng.Status()
	names := make([]string, 0, len(st))
	for _, s := range st {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	fmt.Fprintf(w, "\n  tidemark %s\n\n", version.Version)
	fmt.Fprintf(w, "     script: %s\n", file)
	fmt.Fprintf(w, "     testid: %s\n", testID)
	if !seg.IsFull() {
		fmt.Fprintf(w, "    segment: %s of %s\n", seg, seg.Sequence())
	}
	fmt.Fprintf(w, "  scenarios: %d scenario(s), %s max duration (incl. graceful stop): %s\n\n",
		len(st), eng.MaxDuration(), strings.Join(names, ", "))
}
