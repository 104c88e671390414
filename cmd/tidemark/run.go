package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/version"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/output"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/progress"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/restapi"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/store"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/webdash"
)

const runHelp = `Run a load test described by a k6 script (.js, .mjs, .cjs, .ts: k6's JavaScript
API, run unchanged) or a k6-style scenario file (YAML or JSON).

The file holds k6's options: scenarios with their executor (shared-iterations,
per-vu-iterations, constant-vus, ramping-vus, constant-arrival-rate,
ramping-arrival-rate, externally-controlled) or the shortcuts vus/duration/iterations/stages, thresholds,
tags, and a flow of HTTP steps per scenario. Every sample carries the tag testid
(--testid, or --tag testid=..., default <file-stem>-<UTC yyyymmdd-hhmmss>), printed at
the start.

Examples:
  tidemark target &                        # a local server to aim at (127.0.0.1:8099)
  tidemark run examples/quick.js
  tidemark run examples/quick.yaml
  tidemark run -u 50 -d 5m examples/quick.js   # k6's shortcuts replace the file's scenarios
  tidemark run --testid=spike-1 --tag env=staging --env TARGET_URL=http://127.0.0.1:8099 examples/spike.yaml
  tidemark run --remote-write.url=http://prometheus:9090/api/v1/write examples/load-steps.yaml
  tidemark run --instances 3 --instance-index 0 --summarize-at-end \
    --remote-write.url=http://prometheus:9090/api/v1/write test.js   # pod 0 of 3: a synchronized start, one summary
  tidemark run --paused --address 0.0.0.0:6565 test.js   # wait for k6's REST API, as k6-operator's runners do
  K6_WEB_DASHBOARD=true tidemark run test.js            # the live page on localhost:5665
  tidemark run --out json=results.json --out csv=results.csv test.js

Without --remote-write.url (or K6_PROMETHEUS_RW_SERVER_URL) the series go into the
embedded store in --storage.tsdb.path, for tidemark serve and tidemark correlate.

A script's https:// imports are read from --modules.dir (DIR/host/path); Tidemark
never downloads modules.

Exit codes (k6's): 0 passed, 99 thresholds crossed (or abortOnFail), 100/101
setup/teardown timed out, 102 the instances' start barrier timed out, 103 stopped over
the REST API, 104 invalid scenario, options or flags, 105 interrupted by SIGINT/SIGTERM
(running iterations get gracefulStop; the summary is still printed), 106 the REST API
could not listen, 107 script error (syntax, exception in the init context, setup or
teardown, unknown module), 108 test.abort(), 255 other errors.`

type runConfig struct {
	printing
	file         string
	testID       string
	tags         []string
	env          []string
	noThresholds bool
	segment      string
	segmentSeq   string
	insecureTLS  bool
	userAgent    string
	cpuProfile   string
	outputs      *outputFlags
	dist         *distributedFlags // --instances, --instance-index, --start-at (distributed.go)
	atEnd        *atEndFlags       // --summarize-at-end (summarize_at_end.go)
	dataDir      string
	noStore      bool
	modulesDir   string
	k6           k6Flags
	httpDebug    httpDebugFlag
	replacedBy   []string // the K6_* variables or flags that replaced the file's scenarios
}

// httpDebugFlag is k6's --http-debug[=full] (K6_HTTP_DEBUG): "" unset, "off"
// (--no-http-debug), "headers" or "full". k6 turns it on for any value; only full
// logs the bodies.
type httpDebugFlag string

// Set implements kingpin.Value: the bare flag is "true", --no-http-debug "false".
func (f *httpDebugFlag) Set(v string) error {
	if v == "false" {
		*f = "off" // over K6_HTTP_DEBUG
		return nil
	}
	*f = httpDebugFlag(httpDebugMode(v))
	return nil
}

func (f *httpDebugFlag) String() string { return string(*f) }

// IsBoolFlag lets --http-debug stand alone, so that it does not take the script as
// its value; --http-debug=VALUE reaches the flag through httpDebugArgs.
func (*httpDebugFlag) IsBoolFlag() bool { return true }

// httpDebugValue is the hidden --http-debug.value that --http-debug=VALUE becomes.
type httpDebugValue struct{ *httpDebugFlag }

// IsBoolFlag makes --http-debug.value take its value.
func (httpDebugValue) IsBoolFlag() bool { return false }

// Set implements kingpin.Value: as in k6, any value turns the dumps on.
func (v httpDebugValue) Set(s string) error {
	*v.httpDebugFlag = httpDebugFlag(httpDebugMode(s))
	return nil
}

// httpDebugMode is k6's reading of an --http-debug value or K6_HTTP_DEBUG: off when
// empty, the bodies too with full, the heads otherwise.
func httpDebugMode(v string) string {
	switch v {
	case "":
		return ""
	case "full":
		return "full"
	}
	return "headers"
}

// httpDebugArgs rewrites --http-debug=VALUE (before a --) as --http-debug.value=VALUE:
// kingpin has no flag with an optional value, and its boolean --http-debug would
// leave VALUE as a positional argument.
func httpDebugArgs(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--http-debug="); ok {
			out[i] = "--http-debug.value=" + v
		}
	}
	return out
}

// debug is the request debug hook of --http-debug, or nil.
func (f httpDebugFlag) debug(logger *slog.Logger) *request.Debug {
	if f == "" || f == "off" {
		return nil
	}
	return &request.Debug{Logger: logger, Full: f == "full"}
}

// k6Flags are k6 run's shortcut and summary flags. Each is set as its K6_* variable over
// the process environment (k6's precedence: the file's options < K6_* environment <
// flags), so a script and a scenario file apply them with the same code.
type k6Flags struct {
	vus, duration, iterations string
	stages                    []string
	trendStats, timeUnit      string
	noSummary                 bool
	summaryMode               string
	noUsageReport             bool
	systemEnv                 bool
	throw                     bool
	noSetup, noTeardown       bool // k6's --no-setup, --no-teardown (K6_NO_SETUP, K6_NO_TEARDOWN)
}

// validate checks the shortcut flags before they become K6_* variables, so that a bad
// value is named by its flag rather than by a line of the file it replaces.
func (f k6Flags) validate() error {
	var errs []error
	for _, c := range []struct{ flag, v string }{{"--vus", f.vus}, {"--iterations", f.iterations}} {
		if n, err := strconv.Atoi(c.v); c.v != "" && (err != nil || n < 0) {
			errs = append(errs, fmt.Errorf("%s %q: expected a whole number of at least 0", c.flag, c.v))
		}
	}
	if f.duration != "" {
		if _, err := model.ParseDuration(f.duration); err != nil {
			errs = append(errs, fmt.Errorf("--duration %q: expected a duration such as 30s or 5m", f.duration))
		}
	}
	for _, st := range f.stages {
		for part := range strings.SplitSeq(st, ",") {
			d, target, ok := strings.Cut(strings.TrimSpace(part), ":")
			_, derr := model.ParseDuration(d)
			_, terr := strconv.ParseFloat(target, 64)
			if !ok || derr != nil || terr != nil {
				errs = append(errs, fmt.Errorf("--stage %q: expected DURATION:TARGET, e.g. --stage 30s:10", part))
			}
		}
	}
	return errors.Join(errs...)
}

// environ returns the process environment with the flags given as their K6_* variables.
func (f k6Flags) environ(proc map[string]string) map[string]string {
	out := maps.Clone(proc)
	if f.duration != "" || f.iterations != "" || len(f.stages) > 0 {
		// The flags are the layer over the environment: as in k6, their duration,
		// iterations or stages clear the environment's other two.
		for _, k := range []string{"K6_DURATION", "K6_ITERATIONS", "K6_STAGES"} {
			delete(out, k)
		}
	}
	for k, v := range map[string]string{"K6_VUS": f.vus, "K6_DURATION": f.duration, "K6_ITERATIONS": f.iterations,
		"K6_STAGES": strings.Join(f.stages, ","), "K6_SUMMARY_TREND_STATS": f.trendStats, "K6_SUMMARY_TIME_UNIT": f.timeUnit,
		"K6_THROW": map[bool]string{true: "true"}[f.throw], "K6_NO_SETUP": map[bool]string{true: "true"}[f.noSetup],
		"K6_NO_TEARDOWN": map[bool]string{true: "true"}[f.noTeardown]} {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// scriptEnv is __ENV (or a scenario file's ${__ENV.K}): the process environment unless
// --include-system-env-vars=false, then --env's values.
func (f k6Flags) scriptEnv(proc, cli map[string]string) map[string]string {
	env := map[string]string{}
	if f.systemEnv {
		maps.Copy(env, proc)
	}
	maps.Copy(env, cli)
	return env
}

// noSummaryOf reports whether the summary is off: --no-summary, --summary-mode=disabled
// or their K6_* variables. A full summary, which Tidemark does not have, is warned of.
func (f k6Flags) noSummaryOf(proc map[string]string, logger *slog.Logger) bool {
	mode := cmp.Or(f.summaryMode, proc["K6_SUMMARY_MODE"])
	if mode == "full" {
		logger.Warn("The full summary mode is not supported; the compact summary is printed", "summary_mode", mode)
	}
	return f.noSummary || proc["K6_NO_SUMMARY"] == "true" || mode == "disabled"
}

// supportedK6Env are the K6_* variables `tidemark run` honours (K6_PROMETHEUS_RW_* are
// the remote-write output's, remotewrite.Config.ApplyK6Env).
func supportedK6Env() []string {
	return []string{"K6_VUS", "K6_DURATION", "K6_ITERATIONS", "K6_STAGES", "K6_TAGS", "K6_SUMMARY_TREND_STATS",
		"K6_SUMMARY_TIME_UNIT", "K6_SYSTEM_TAGS", "K6_MAX_REDIRECTS", "K6_USER_AGENT", "K6_INSECURE_SKIP_TLS_VERIFY",
		"K6_NO_THRESHOLDS", "K6_NO_SUMMARY", "K6_SUMMARY_MODE", "K6_SUMMARY_EXPORT", "K6_NO_USAGE_REPORT", "K6_FEATURES", "K6_THROW", "K6_PAUSED", "K6_ADDRESS", "K6_LINGER", "K6_NO_SETUP", "K6_NO_TEARDOWN",
		"K6_OUT", "K6_CSV_FILENAME", "K6_CSV_TIME_FORMAT", "K6_CSV_SAVE_INTERVAL",
		"K6_HTTP_DEBUG", "K6_WEB_DASHBOARD", "K6_WEB_DASHBOARD_HOST", "K6_WEB_DASHBOARD_PORT", "K6_WEB_DASHBOARD_PERIOD",
		"K6_WEB_DASHBOARD_OPEN", "K6_WEB_DASHBOARD_EXPORT"}
}

// warnUnsupportedK6Env logs one warning naming the K6_* variables that are set but
// that Tidemark does not honour, so that none is ignored without a word.
func warnUnsupportedK6Env(logger *slog.Logger, proc map[string]string) {
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(proc)) {
		if strings.HasPrefix(k, "K6_") && !strings.HasPrefix(k, "K6_PROMETHEUS_RW_") && !slices.Contains(supportedK6Env(), k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		logger.Warn("These k6 environment variables are not supported by Tidemark and have no effect", "variables", strings.Join(unknown, ","))
	}
}

// processEnv is os.Environ as a map.
func processEnv() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// runCmd is `tidemark run SCENARIO`.
func runCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &runConfig{}
	cmd := app.Command("run", runHelp)
	cmd.Arg("scenario", "Scenario file (YAML or JSON), or a k6 script (.js, .mjs, .cjs, .ts).").Required().StringVar(&cfg.file)
	cmd.Flag("modules.dir", "Directory of vendored remote modules: a script's https://host/path imports are read from DIR/host/path.").
		StringVar(&cfg.modulesDir)
	cmd.Flag("testid", "Test id added to every sample as the testid tag. Default <file-stem>-<UTC yyyymmdd-hhmmss>.").StringVar(&cfg.testID)
	cmd.Flag("tag", "Tag k=v added to every sample (k6 --tag). Repeatable; wins over the file's tags. --tag testid=X sets the test id.").
		Short('t').StringsVar(&cfg.tags)
	cmd.Flag("env", "Value K=V of __ENV.K in a script, or of ${__ENV.K} in a scenario file, over the process environment. Repeatable.").
		Short('e').StringsVar(&cfg.env)
	cmd.Flag("quiet", "Print no progress (the summary is still printed).").Short('q').BoolVar(&cfg.quiet)
	cmd.Flag("vus", "k6's --vus: the number of VUs; with --duration a constant-vus scenario, with --iterations shared-iterations. "+
		"Replaces the file's scenarios (K6_VUS).").Short('u').StringVar(&cfg.k6.vus)
	cmd.Flag("duration", "k6's --duration, e.g. 30s or 5m: with --vus a constant-vus scenario. Replaces the file's scenarios (K6_DURATION).").
		Short('d').StringVar(&cfg.k6.duration)
	cmd.Flag("iterations", "k6's --iterations: a shared-iterations scenario of that many iterations. Replaces the file's scenarios (K6_ITERATIONS).").
		Short('i').StringVar(&cfg.k6.iterations)
	cmd.Flag("stage", "k6's --stage DURATION:TARGET, e.g. 30s:10: a ramping-vus stage. Repeatable; replaces the file's scenarios (K6_STAGES).").
		Short('s').StringsVar(&cfg.k6.stages)
	cmd.Flag("summary-trend-stats", "The trend columns of the summary, e.g. avg,p(95),p(99.9),count (K6_SUMMARY_TREND_STATS).").
		StringVar(&cfg.k6.trendStats)
	cmd.Flag("summary-time-unit", "The unit of every duration in the summary: s, ms or us (K6_SUMMARY_TIME_UNIT).").
		StringVar(&cfg.k6.timeUnit)
	cmd.Flag("no-summary", "No end-of-test summary: no text, no handleSummary, no summary files, as k6's (K6_NO_SUMMARY).").
		BoolVar(&cfg.k6.noSummary)
	cmd.Flag("summary-mode", "compact (the default) or disabled (as --no-summary); full is not supported: the compact summary is printed, with a warning (K6_SUMMARY_MODE).").
		EnumVar(&cfg.k6.summaryMode, "compact", "full", "disabled")
	cmd.Flag("no-usage-report", "Accepted for k6 compatibility: Tidemark sends no usage report (K6_NO_USAGE_REPORT).").
		BoolVar(&cfg.k6.noUsageReport)
	cmd.Flag("address", "k6's --address: serve k6's REST API (status, metrics, groups, setup, teardown) on this address, e.g. localhost:6565 (K6_ADDRESS). Off by default, as in k6 v2.").
		Short('a').StringVar(&cfg.address)
	cmd.Flag("paused", "k6's --paused: hold the start until PATCH /v1/status {\"paused\": false} on the REST API (on localhost:6565 unless --address) (K6_PAUSED).").
		Short('p').BoolVar(&cfg.paused)
	cmd.Flag("linger", "k6's --linger: after the run and its summary, stay up (with the REST API) until SIGINT or SIGTERM (K6_LINGER).").
		Short('l').BoolVar(&cfg.linger)
	cmd.Flag("http-debug", "k6's --http-debug[=full]: log every request and response head to stderr, with =full the bodies too; "+
		"credential header values are logged as [REDACTED] (K6_HTTP_DEBUG).").SetValue(&cfg.httpDebug)
	cmd.Flag("http-debug.value", "The value of --http-debug=VALUE.").Hidden().SetValue(httpDebugValue{&cfg.httpDebug})
	cmd.Flag("no-setup", "k6's --no-setup: the run does not call the script's setup() at its start; POST /v1/setup still can, PUT /v1/setup gives the data (K6_NO_SETUP).").
		BoolVar(&cfg.k6.noSetup)
	cmd.Flag("no-teardown", "k6's --no-teardown: the run does not call the script's teardown() at its end; POST /v1/teardown still can (K6_NO_TEARDOWN).").
		BoolVar(&cfg.k6.noTeardown)
	cmd.Flag("throw", "k6's --throw: a script's request that gets no response throws an exception (K6_THROW).").Short('w').BoolVar(&cfg.k6.throw)
	cmd.Flag("include-system-env-vars", "Pass the process environment to __ENV (and ${__ENV.K}); --no-include-system-env-vars leaves only --env's values.").
		Default("true").BoolVar(&cfg.k6.systemEnv)
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
	cmd.Flag("user-agent", "User-Agent of requests that set none.").Default(defaultUserAgent()).StringVar(&cfg.userAgent)
	cmd.Flag("progress.interval", "How often progress is printed; default 500ms on a terminal, 10s otherwise.").
		Hidden().DurationVar(&cfg.progressPeriod)
	cmd.Flag("debug.cpu-profile", "Write a Go CPU profile of the run to this file.").Hidden().StringVar(&cfg.cpuProfile)
	cfg.outputs = addOutputFlags(cmd)
	cfg.dist = addDistributedFlags(cmd)
	cfg.atEnd = addSummarizeAtEndFlags(cmd)
	cmd.Flag("storage.tsdb.path", "Without a remote-write URL the run's series go into the embedded store in this directory "+
		"(or into the `tidemark serve` holding it), for `tidemark serve` and `tidemark correlate`.").
		Default(store.DefaultConfig.Dir).StringVar(&cfg.dataDir)
	cmd.Flag("no-embedded-store", "Keep the series only in memory when no remote-write URL is set.").BoolVar(&cfg.noStore)
	return cmd, func(ctx context.Context) error { return runRun(ctx, cfg, g) }
}

// sinks builds the run's sinks from the flags. Without a remote-write URL (flag, file or
// K6_PROMETHEUS_RW_SERVER_URL) the series are remote-written into the embedded store:
// a `tidemark serve` holding --storage.tsdb.path, or that directory opened in-process.
func (c *runConfig) sinks(agg *aggregate.Store, runTags map[string]string, logger *slog.Logger) ([]loadtest.Sink, error) {
	rw, err := c.outputs.remoteWriteConfigs("", "")
	if err != nil {
		return nil, err
	}
	var local *store.Local
	if len(rw) == 0 && !c.noStore {
		if local, err = store.OpenLocal(context.Background(), c.dataDir, logger); err != nil {
			return nil, err
		}
		if err := local.Listen("", logger); err != nil {
			return nil, errors.Join(err, local.Close())
		}
		c.outputs.rwURLs, c.outputs.set.url = []string{local.URL + "/api/v1/write"}, true
		if !c.outputs.set.native && !slices.ContainsFunc(c.outputs.environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=")
		}) {
			// The embedded store reads native histograms, so trends go as histograms too:
			// per-stage percentiles, and thresholds judged per stage, are exact.
			c.outputs.rwNative, c.outputs.set.native = true, true
		}
	}
	sinks, err := c.outputs.build(agg, runTags, logger)
	if err != nil {
		if local != nil {
			err = errors.Join(err, local.Close())
		}
		return nil, err
	}
	if local != nil {
		// After the remote-write sink, so its final flush lands before the store closes.
		sinks = append(sinks, &localSink{local: local, dir: c.dataDir})
	}
	return sinks, nil
}

// localSink closes the embedded store after the run and says where the data went.
type localSink struct {
	local *store.Local
	dir   string
}

func (s *localSink) Start()      {}
func (s *localSink) Stop() error { return s.local.Close() }
func (s *localSink) SummaryLines() []string {
	if !s.local.InProcess() {
		return []string{"data: written to " + s.local.Where}
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

// loadTest reads the scenario file with ${__ENV.K} from the process environment and
// --env, and the execution segment.
func (c *runConfig) loadTest() (*scenario.Test, pacer.Segment, map[string]string, error) {
	tags, err := parsePairs("tag", c.tags)
	if err != nil {
		return nil, pacer.Segment{}, nil, err
	}
	cliEnv, err := parsePairs("env", c.env)
	if err != nil {
		return nil, pacer.Segment{}, nil, err
	}
	proc := processEnv()
	test, replaced, err := scenario.LoadK6(c.file, c.k6.scriptEnv(proc, cliEnv), c.k6.environ(proc))
	if err != nil {
		return nil, pacer.Segment{}, nil, err
	}
	if len(replaced) > 0 {
		c.replacedBy = replaced
	}
	seg, err := pacer.ParseSegment(c.segment, c.segmentSeq)
	return test, seg, tags, err
}

func runRun(ctx context.Context, cfg *runConfig, g *globals) error {
	logger := g.logger()
	if err := cfg.k6.validate(); err != nil {
		return exitcode.Invalid(err)
	}
	proc := processEnv()
	warnUnsupportedK6Env(logger, proc)
	cfg.noSummary = cfg.k6.noSummaryOf(proc, logger)
	cfg.noThresholds = cfg.noThresholds || proc["K6_NO_THRESHOLDS"] == "true"
	cfg.paused = cfg.paused || proc["K6_PAUSED"] == "true"
	cfg.linger = cfg.linger || proc["K6_LINGER"] == "true"
	cfg.address = cmp.Or(cfg.address, proc["K6_ADDRESS"])
	cfg.httpDebug = cmp.Or(cfg.httpDebug, httpDebugFlag(httpDebugMode(proc["K6_HTTP_DEBUG"])))
	if cfg.summaryExport == "" {
		cfg.summaryExport = proc["K6_SUMMARY_EXPORT"]
	}
	files, _, err := cfg.outputs.outputSpecs()
	if err != nil {
		return exitcode.Invalid(err)
	}
	if cfg.dashboard, err = webDashboardConfig(cfg.outputs.outValues(), os.Getenv); err != nil {
		return err
	}
	if err := cfg.dist.apply(cfg); err != nil {
		return exitcode.Invalid(err)
	}
	if js.IsScript(cfg.file) {
		return runScript(ctx, cfg, files, g)
	}
	test, seg, tags, err := cfg.loadTest()
	if err != nil {
		return exitcode.Invalid(err)
	}
	if len(cfg.replacedBy) > 0 {
		logger.Warn("The command line or the environment replaces the file's scenarios", "variables", strings.Join(cfg.replacedBy, ","))
	}
	if cfg.cpuProfile != "" {
		stopProfile, err := startCPUProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	if err := cfg.dist.wait(ctx, cfg, logger); err != nil {
		return err
	}
	return cfg.atEnd.run(ctx, cfg, g, func() error {
		return execute(ctx, cfg.loadtestConfig(test, tags, seg, files, g.stdout, logger), cfg.printing, g)
	})
}

// loadtestConfig is the run of test as the flags describe it: files are the --out
// file outputs (json, csv), written from the samples the engine pushes.
func (c *runConfig) loadtestConfig(test *scenario.Test, tags map[string]string, seg pacer.Segment, files []output.Spec, stdout io.Writer, logger *slog.Logger) loadtest.Config {
	var outputs func(metrics.Pusher) (loadtest.PusherSink, error)
	if len(files) > 0 {
		thresholds := map[string][]string{}
		for k, ths := range test.Thresholds {
			for _, th := range ths {
				thresholds[k] = append(thresholds[k], th.Expr)
			}
		}
		opts := output.Options{Thresholds: thresholds, NoSubmetrics: c.noThresholds && c.noSummary}
		outputs = func(next metrics.Pusher) (loadtest.PusherSink, error) {
			return output.New(next, files, output.Config{Stdout: stdout, Options: opts})
		}
	}
	return loadtest.Config{
		Outputs:               outputs,
		Test:                  test,
		Source:                c.file,
		TestID:                c.testID,
		Tags:                  tags,
		Segment:               seg,
		NoThresholds:          c.noThresholds,
		InsecureSkipTLSVerify: c.insecureTLS,
		UserAgent:             c.userAgent,
		HTTP:                  request.Options{Debug: c.httpDebug.debug(logger)},
		Sinks: func(agg *aggregate.Store, runTags map[string]string) ([]loadtest.Sink, error) {
			return c.sinks(agg, runTags, logger)
		},
		Logger: logger,
	}
}

// printing says how a run is shown: header and progress while it runs, the summary and
// its files after.
type printing struct {
	quiet bool
	// address and paused are k6's --address and --paused: the REST API listens on
	// address (on localhost:6565 when only paused is set), and a paused run waits for
	// PATCH /v1/status {"paused": false}.
	address string
	paused  bool
	// linger is k6's --linger: after the run and its summary, the process (and the REST
	// API) stays up until SIGINT/SIGTERM (PATCH /v1/status {"stopped": true} does not end
	// it, as in k6).
	linger bool
	// noSummary is k6's --no-summary (--summary-mode=disabled): no text summary, no
	// handleSummary, no summary files.
	noSummary bool
	// dashboard is the web dashboard's configuration (--out web-dashboard,
	// K6_WEB_DASHBOARD); nil when it is off.
	dashboard      *webdash.Config
	progressPeriod time.Duration
	summaryExport  string
	summaryFile    string
}

// execute runs a load test and prints it as `tidemark run` does: the header, a live
// progress line, then the k6 summary and the summary files. Its error is the run's
// verdict (exit codes 99, 105) or why it could not run.
func execute(ctx context.Context, cfg loadtest.Config, p printing, g *globals) error {
	signals := ctx // --linger ends on SIGINT/SIGTERM only: k6 lingers on after PATCH stopped:true
	api, ctx, err := withRESTAPI(ctx, &cfg, p, g.logger())
	if err != nil {
		return err
	}
	dash, err := withWebDashboard(&cfg, p.dashboard, g.logger())
	if err != nil {
		return err
	}
	defer dash.close() // after lingering: --linger keeps serving the final state
	defer lingerAfter(signals, p, api, g.logger())
	started := cfg.Started
	cfg.Started = func(plan loadtest.Plan) func() {
		printHeader(g.stdout, cfg.Source, plan)
		var apiEnded func()
		if started != nil {
			apiEnded = started(plan) // the REST API's gate: waits while paused
		}
		if p.quiet {
			return apiEnded
		}
		prog := progress.New(g.stderr, progress.IsTerminal(g.stderr), p.progressPeriod, plan.Engine.Status)
		prog.Start()
		return func() {
			prog.Stop()
			if apiEnded != nil {
				apiEnded()
			}
		}
	}
	res, err := loadtest.Run(ctx, cfg)
	if api != nil && api.run.Status().Stopped && errors.Is(err, loadtest.ErrInterrupted) {
		err = exitcode.With(exitcode.ScriptStoppedFromRESTAPI, errors.New("the run was stopped through the REST API"))
	}
	if res == nil {
		return err
	}
	in := res.Summary
	in.Color = progress.IsTerminal(g.stdout)
	in.StdoutTTY, in.StderrTTY = in.Color, progress.IsTerminal(g.stderr)
	errs := []error{err}
	if p.noSummary {
		return errors.Join(errs...)
	}
	handled := false
	if h, ok := cfg.VUs.(summaryHandler); ok {
		var herr error
		if handled, herr = h.HandleSummary(ctx, in, g.stdout, g.stderr); herr != nil {
			errs = append(errs, herr)
		}
	}
	if !handled {
		if werr := summary.WriteText(g.stdout, in); werr != nil {
			errs = append(errs, fmt.Errorf("write the summary: %w", werr))
		}
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer, summary.Input) error
	}{{p.summaryExport, summary.WriteExport}, {p.summaryFile, summary.WriteData}} {
		if out.path != "" {
			if werr := summary.WriteFile(out.path, in, out.write); werr != nil {
				errs = append(errs, fmt.Errorf("write the summary file %s: %w", out.path, werr))
			}
		}
	}
	return errors.Join(errs...)
}

// lingerAfter keeps the process up after the run until ctx ends (--linger: SIGINT or
// SIGTERM; as in k6 v1.8.1, PATCH /v1/status stopped:true does not end it), then stops
// the REST API's listener, which --linger keeps serving the finished run.
func lingerAfter(ctx context.Context, p printing, api *restAPI, logger *slog.Logger) {
	if p.linger {
		logger.Info("The run is over; lingering until SIGINT or SIGTERM (--linger)")
		<-ctx.Done()
	}
	if api != nil && api.srv != nil {
		_ = api.srv.Stop(context.Background())
	}
}

// withRESTAPI serves k6's REST API for the run when --address or --paused is set: the
// listener comes up with the run's sinks, a paused run waits in Config.Started for
// PATCH /v1/status {"paused": false}, and PATCH {"stopped": true} ends the run (exit
// 103). It returns the run's controller (nil without the API) and the context the run
// must use.
func withRESTAPI(ctx context.Context, cfg *loadtest.Config, p printing, logger *slog.Logger) (*restAPI, context.Context, error) {
	addr := p.address
	if addr == "" && p.paused {
		addr = restapi.DefaultAddress
	}
	if addr == "" {
		return nil, ctx, nil
	}
	ctx, stop := context.WithCancel(ctx)
	gate := restapi.NewPause(p.paused)
	var opts []restapi.RunOption
	if od, ok := cfg.VUs.(interface{ OnDemand() js.OnDemand }); ok {
		// A script's setup() and teardown() on demand: POST/PUT /v1/setup, POST /v1/teardown.
		opts = append(opts, restapi.WithSetup(od.OnDemand()), restapi.WithTeardown(od.OnDemand()))
	}
	run := restapi.NewRun(gate, stop, opts...)
	api := &restAPI{run: run}
	cfg.Sinks = appendSinks(cfg.Sinks, func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
		run.SetStore(agg)
		srv, err := restapi.Listen(addr, restapi.NewHandler(run, logger), logger)
		if err != nil {
			return nil, exitcode.With(exitcode.CannotStartRESTAPI, err)
		}
		api.srv = srv
		logger.Info("REST API listening", "address", srv.Addr().String(), "paused", p.paused)
		return nil, nil
	})
	cfg.Started = func(plan loadtest.Plan) func() {
		run.SetEngine(plan.Engine)
		if p.paused {
			logger.Info("The run is paused: resume it with PATCH /v1/status {\"data\":{\"attributes\":{\"paused\":false}}}")
		}
		if gate.Wait(ctx) == nil {
			run.Started(time.Now())
		}
		return run.Ended
	}
	return api, ctx, nil
}

// restAPI is the run's REST API: its controller, and its listener once the sinks are
// built (stopped by lingerAfter, after the summary).
type restAPI struct {
	run *restapi.Run
	srv *restapi.Server
}

// startCPUProfile writes a Go CPU profile to path until the returned function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, exitcode.Invalid(fmt.Errorf("--debug.cpu-profile: %w", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(fmt.Errorf("start the CPU profile: %w", err), f.Close())
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

func printHeader(w io.Writer, source string, plan loadtest.Plan) {
	st := plan.Engine.Status()
	names := make([]string, 0, len(st))
	for _, s := range st {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	fmt.Fprintf(w, "\n  tidemark %s\n\n", version.Version)
	fmt.Fprintf(w, "     script: %s\n", source)
	fmt.Fprintf(w, "     testid: %s\n", plan.TestID)
	if !plan.Segment.IsFull() {
		fmt.Fprintf(w, "    segment: %s of %s\n", plan.Segment, plan.Segment.Sequence())
	}
	fmt.Fprintf(w, "  scenarios: %d scenario(s), %s max duration (incl. graceful stop): %s\n\n",
		len(st), plan.Engine.MaxDuration(), strings.Join(names, ", "))
}

// defaultUserAgent is --user-agent's default.
func defaultUserAgent() string { return "tidemark/" + version.Version }

// summaryHandler is a script's handleSummary: it reports whether the script has one,
// which then replaces the text summary.
type summaryHandler interface {
	HandleSummary(ctx context.Context, in summary.Input, stdout, stderr io.Writer) (bool, error)
}

// runScript runs a k6 script: its options are the test, its VUs are JavaScript
// runtimes (internal/js). Script errors exit 107, test.abort() 108.
func runScript(ctx context.Context, cfg *runConfig, files []output.Spec, g *globals) error {
	logger := g.logger()
	tags, err := parsePairs("tag", cfg.tags)
	if err != nil {
		return exitcode.Invalid(err)
	}
	cliEnv, err := parsePairs("env", cfg.env)
	if err != nil {
		return exitcode.Invalid(err)
	}
	seg, err := pacer.ParseSegment(cfg.segment, cfg.segmentSeq)
	if err != nil {
		return exitcode.Invalid(err)
	}
	procEnv := processEnv()
	r, err := js.New(js.Config{Script: cfg.file, ModulesDir: cfg.modulesDir, Env: cfg.k6.scriptEnv(procEnv, cliEnv),
		Environ: cfg.k6.environ(procEnv), Segment: seg, Logger: logger})
	if err != nil {
		return err
	}
	if cfg.cpuProfile != "" {
		stopProfile, err := startCPUProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	// The script's httpDebug, under K6_HTTP_DEBUG and --http-debug (k6's precedence).
	cfg.httpDebug = cmp.Or(cfg.httpDebug, httpDebugFlag(httpDebugMode(r.HTTPDebug())))
	userAgent := cfg.userAgent
	if ua := r.Test().UserAgent; ua != "" && userAgent == defaultUserAgent() {
		// The script's userAgent option, unless --user-agent says otherwise.
		userAgent = ua
	}
	lc := cfg.loadtestConfig(r.Test(), tags, seg, files, g.stdout, logger)
	lc.UserAgent, lc.VUs, lc.Registry = userAgent, r, r.Registry()
	if err := cfg.dist.wait(r.Context(ctx), cfg, logger); err != nil {
		return err
	}
	err = cfg.atEnd.run(r.Context(ctx), cfg, g, func() error { return execute(r.Context(ctx), lc, cfg.printing, g) })
	if rerr := r.Err(); rerr != nil && !errors.Is(err, rerr) {
		// test.abort() (108) or a script error (107) comes first: it decides the exit code.
		return errors.Join(rerr, err)
	}
	if err == nil {
		// test.fail() (110), when nothing else failed.
		return r.Failed()
	}
	return err
}
