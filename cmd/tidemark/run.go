package main

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/promapi"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/testrun"
	"github.com/tidemark/tidemark/remotewrite"
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
teardown, unknown module), 108 test.abort(), 110 test.fail(), 111 (Tidemark's own) the
run passed but its series were not all delivered to the remote-write receiver, 255 other
errors.`

type runConfig struct {
	opts      testrun.Options
	httpDebug httpDebugFlag
	outputs   *outputFlags
	dist      *distributedFlags // --instances, --instance-index, --start-at (distributed.go)
	atEnd     *atEndFlags       // --summarize-at-end (summarize_at_end.go)
	slo       []string          // --slo rule files, judged against --prometheus.url (promURL) or the embedded store
	promURL   string
}

// runCmd is `tidemark run SCENARIO`.
func runCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &runConfig{}
	o := &cfg.opts
	cmd := app.Command("run", runHelp)
	cmd.Arg("scenario", "Scenario file (YAML or JSON), or a k6 script (.js, .mjs, .cjs, .ts); - reads the script from stdin.").Required().StringVar(&o.File)
	cmd.Flag("modules.dir", "Directory of vendored remote modules: a script's https://host/path imports are read from DIR/host/path.").
		StringVar(&o.ModulesDir)
	cmd.Flag("testid", "Test id added to every sample as the testid tag. Default <file-stem>-<UTC yyyymmdd-hhmmss>.").StringVar(&o.TestID)
	cmd.Flag("tag", "Tag k=v added to every sample (k6 --tag). Repeatable; wins over the file's tags. --tag testid=X sets the test id.").
		Short('t').StringsVar(&o.Tags)
	cmd.Flag("env", "Value K=V of __ENV.K in a script, or of ${__ENV.K} in a scenario file, over the process environment. Repeatable.").
		Short('e').StringsVar(&o.Env)
	cmd.Flag("quiet", "Print no progress (the summary is still printed).").Short('q').BoolVar(&o.Show.Quiet)
	addShortcutFlags(cmd, &o.Shortcuts)
	addShowFlags(cmd, &o.Show)
	addK6Flags(cmd, o.LogFlags())
	addK6Flags(cmd, o.Flags.Flags())
	cmd.Flag("http-debug", "k6's --http-debug[=full]: log every request and response head to stderr, with =full the bodies too; "+
		"credential header values are logged as [REDACTED] (K6_HTTP_DEBUG).").SetValue(&cfg.httpDebug)
	cmd.Flag("http-debug.value", "The value of --http-debug=VALUE.").Hidden().SetValue(httpDebugValue{&cfg.httpDebug})
	cmd.Flag("no-thresholds", "Do not evaluate thresholds (the run never exits 99).").BoolVar(&o.NoThresholds)
	cmd.Flag("max-series", "At most this many unique series (metric and tag set; 0: no limit). Past it, samples of new tag sets "+
		"count in their metric's totals under tidemark_overflow=\"true\" without their url, name and own tags, and the summary says how many.").
		Default(strconv.Itoa(loadtest.DefaultMaxSeries)).IntVar(&o.MaxSeries)
	cmd.Flag("execution-segment", "This instance's share of every scenario, e.g. 0:1/2 or 1/4:1/2 (k6 semantics).").
		StringVar(&o.Segment)
	cmd.Flag("execution-segment-sequence", "All instances' segments as boundaries, e.g. 0,1/4,1/2,1. Default: 0, the segment's ends, 1.").
		StringVar(&o.SegmentSequence)
	cmd.Flag("insecure-skip-tls-verify", "Do not verify the TLS certificates of the system under test.").BoolVar(&o.InsecureSkipTLSVerify)
	o.DefaultUserAgent = defaultUserAgent()
	cmd.Flag("user-agent", "User-Agent of requests that set none.").Default(o.DefaultUserAgent).StringVar(&o.UserAgent)
	cmd.Flag("debug.cpu-profile", "Write a Go CPU profile of the run to this file.").Hidden().StringVar(&o.CPUProfile)
	cfg.outputs = addOutputFlags(cmd)
	cfg.dist = addDistributedFlags(cmd)
	cfg.atEnd = addSummarizeAtEndFlags(cmd)
	cfg.outputs.addStoreFlags(cmd)
	cmd.Flag("slo", "Server-side rules: a Prometheus alerting rule file (or builtin:cluster, builtin:database), evaluated during the run and at its end against --prometheus.url, else the embedded store; severity error fails the run (99), critical aborts it, warning is reported (docs/slo.md). Repeatable.").PlaceHolder("FILE").StringsVar(&cfg.slo)
	cmd.Flag("prometheus.url", "Prometheus API that holds the run's series and the cluster's, for --slo; default: the embedded store the run writes to.").PlaceHolder("URL").StringVar(&cfg.promURL)
	return cmd, func(ctx context.Context) error { return runRun(ctx, cfg, g) }
}

// addShortcutFlags registers k6 run's shortcut and summary flags.
func addShortcutFlags(cmd *kingpin.CmdClause, f *testrun.Shortcuts) {
	cmd.Flag("vus", "k6's --vus: the number of VUs; with --duration a constant-vus scenario, with --iterations shared-iterations, "+
		"alone N VUs sharing N iterations (k6 v2.1). Replaces the file's scenarios (K6_VUS).").Short('u').StringVar(&f.VUs)
	cmd.Flag("duration", "k6's --duration, e.g. 30s or 5m: with --vus a constant-vus scenario. Replaces the file's scenarios (K6_DURATION).").
		Short('d').StringVar(&f.Duration)
	cmd.Flag("iterations", "k6's --iterations: a shared-iterations scenario of that many iterations. Replaces the file's scenarios (K6_ITERATIONS).").
		Short('i').StringVar(&f.Iterations)
	cmd.Flag("stage", "k6's --stage DURATION:TARGET, e.g. 30s:10: a ramping-vus stage. Repeatable; replaces the file's scenarios (K6_STAGES).").
		Short('s').StringsVar(&f.Stages)
	cmd.Flag("summary-trend-stats", "The trend columns of the summary, e.g. avg,p(95),p(99.9),count (K6_SUMMARY_TREND_STATS).").
		StringVar(&f.TrendStats)
	cmd.Flag("summary-time-unit", "The unit of every duration in the summary: s, ms or us (K6_SUMMARY_TIME_UNIT).").
		StringVar(&f.TimeUnit)
	cmd.Flag("summary-breakdown", "Tag keys, e.g. name,method,status: the summary and its JSON get rows of http_req_duration, http_reqs and http_req_failed per combination of their values, as sub-metrics (summaryBreakdown; not in k6).").StringVar(&f.Breakdown)
	cmd.Flag("summary-breakdown-limit", "The most rows --summary-breakdown adds per metric, the busiest kept; default 50 (summaryBreakdownLimit).").StringVar(&f.BreakdownLimit)
	cmd.Flag("no-summary", "k6 v1's --no-summary, removed in k6 v2: works as --summary-mode=disabled, with a warning (K6_NO_SUMMARY).").
		BoolVar(&f.NoSummary)
	cmd.Flag("summary-mode", "compact (the default), full (adds a section per group and per scenario, as k6's) or disabled (no text, no handleSummary, no summary files); v1's legacy is compact, with a warning (K6_SUMMARY_MODE).").
		EnumVar(&f.SummaryMode, "compact", "full", "disabled", "legacy")
	cmd.Flag("no-usage-report", "Accepted for k6 compatibility: Tidemark sends no usage report (K6_NO_USAGE_REPORT).").Bool()
	cmd.Flag("no-setup", "k6's --no-setup: the run does not call the script's setup() at its start; POST /v1/setup still can, PUT /v1/setup gives the data (K6_NO_SETUP).").
		BoolVar(&f.NoSetup)
	cmd.Flag("no-teardown", "k6's --no-teardown: the run does not call the script's teardown() at its end; POST /v1/teardown still can (K6_NO_TEARDOWN).").
		BoolVar(&f.NoTeardown)
	cmd.Flag("throw", "k6's --throw: a script's request that gets no response throws an exception (K6_THROW).").Short('w').BoolVar(&f.Throw)
	cmd.Flag("include-system-env-vars", "Pass the process environment to __ENV (and ${__ENV.K}); --no-include-system-env-vars leaves only --env's values.").
		Default("true").BoolVar(&f.SystemEnv)
}

// addShowFlags registers the flags of how a run is shown: the REST API, lingering, the
// summary files and the progress line.
func addShowFlags(cmd *kingpin.CmdClause, s *testrun.Show) {
	cmd.Flag("address", "k6's --address: serve k6's REST API (status, metrics, groups, setup, teardown) on this address, e.g. localhost:6565 (K6_ADDRESS). Off by default, as in k6 v2.").
		Short('a').StringVar(&s.Address)
	cmd.Flag("paused", "k6's --paused: hold the start until PATCH /v1/status {\"paused\": false} on the REST API (on localhost:6565 unless --address) (K6_PAUSED).").
		Short('p').BoolVar(&s.Paused)
	cmd.Flag("linger", "k6's --linger: after the run and its summary, stay up (with the REST API) until SIGINT or SIGTERM (K6_LINGER).").
		Short('l').BoolVar(&s.Linger)
	cmd.Flag("summary-export", "Write the end-of-test summary as JSON in k6's --summary-export (legacy) shape to this file.").
		StringVar(&s.SummaryExport)
	cmd.Flag("summary-file", "Write the end-of-test summary as JSON in the shape of k6's handleSummary data to this file.").
		StringVar(&s.SummaryFile)
	cmd.Flag("progress.interval", "How often progress is printed; default 500ms on a terminal, 10s otherwise.").
		Hidden().DurationVar(&s.ProgressPeriod)
}

// runRun resolves the run's options over the environment and runs it (testrun.Run)
// with the outputs, the distributed start and summarize-at-end the flags ask for.
func runRun(ctx context.Context, cfg *runConfig, g *globals) error {
	env := testrun.ProcessEnv()
	cfg.opts.Log.Verbose = cfg.opts.Log.Verbose || g.logConfig.Level.String() == "debug" // --log.level=debug as -v
	logs, err := cfg.opts.Loggers(env, testrun.IO{Stdout: g.stdout, Stderr: g.stderr})
	if err != nil {
		return err
	}
	defer func() { _ = logs.Close() }()
	logger := logs.Logger
	cleanup, err := cfg.opts.ReadStdin(stdinScript, g.stdin) // k6's `run -`
	if err != nil {
		return err
	}
	defer cleanup()
	cfg.opts.HTTPDebug, cfg.opts.Outs = string(cfg.httpDebug), cfg.outputs.outs
	opts, err := cfg.opts.Resolve(env, logger)
	if err != nil {
		return err
	}
	if fs := opts.Flags.Features; len(fs) > 0 {
		env["K6_FEATURES"] = strings.Join(fs, ",") // --features native-histograms reaches remote write as k6's variable does
	}
	cfg.outputs.env, cfg.outputs.outs = env, opts.Outs
	opts.UseLabelTestID(cfg.outputs.labelTestID())
	if err := cfg.dist.apply(&opts, cfg.outputs); err != nil {
		return exitcode.Invalid(err)
	}
	cfg.outputs.share = opts.Share()
	parts := testrun.Parts{Outputs: []loadtest.Actor{cfg.outputs.actor(logger)}, IO: testrun.IO{Stdout: g.stdout, Stderr: g.stderr}, Logger: logger}
	if cfg.dist.distributed() {
		parts.Join = func(ctx context.Context) error { return cfg.dist.wait(ctx, opts, cfg.outputs, logger) }
	}
	if parts.AtEnd, err = cfg.atEnd.build(opts, cfg.dist, cfg.outputs, g, logger); err != nil {
		return exitcode.Invalid(err)
	}
	base, _, _ := remotewrite.Compose(cfg.outputs.overrides("", "")) // its errors are reported when the outputs start
	judge, err := slo.ForRun(cfg.slo, time.Duration(base.PushInterval), func() (query.Querier, error) { return promapi.Rule(cfg.promURL, cfg.outputs.localURL) }, logger)
	if err != nil {
		return err
	}
	parts.Outputs = append(parts.Outputs, judge...)
	return testrun.Run(ctx, opts, env, parts)
}
