package testrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/verdict"
)

// Source is where a test comes from, a scenario file or a k6 script: its test model
// and its VUs.
type Source interface {
	// Test is the test model.
	Test() *scenario.Test
	// Registry holds the test's metrics (a script's custom ones); nil for a new one.
	Registry() *metrics.Registry
	// VUs makes the scenarios' VUs; nil runs each scenario's flow.
	VUs() engine.VUSource
	// Context is the context the run uses (a script ends it on test.abort()).
	Context(ctx context.Context) context.Context
	// Verdict joins the run's error with the source's own (a script error,
	// test.abort(), test.fail()).
	Verdict(err error) error
	// HTTPDebug is the test's own httpDebug option, under K6_HTTP_DEBUG and the flag.
	HTTPDebug() string
}

// Load reads the test of o.File: a k6 script (its VUs are JavaScript runtimes), a
// scenario file (with ${__ENV.K} from env and --env), or, without a file, a test with
// the summary options alone. The shortcuts apply over the file's options as K6_*
// variables over env. seg is this instance's execution segment.
func Load(ctx context.Context, o Options, env Env, seg pacer.Segment, logger *slog.Logger) (Source, error) {
	cli, err := ParsePairs("env", o.Env)
	if err != nil {
		return nil, verdict.Invalid(err)
	}
	environ := o.Flags.Environ(o.Shortcuts.Environ(env))
	config, err := o.readConfigFile()
	if err != nil {
		return nil, err
	}
	switch {
	case js.IsScript(o.File) || o.Flags.Type != "":
		r, err := js.New(js.Config{Context: ctx, Script: o.File, ModulesDir: o.ModulesDir, Env: o.Shortcuts.ScriptEnv(env, cli),
			Environ: environ, Segment: seg, Logger: logger, Console: o.Console, ConfigOptions: config, Secrets: o.secrets})
		if err != nil {
			return nil, err
		}
		return scriptSource{r}, nil
	case o.File == "":
		t := &scenario.Test{SummaryTrendStats: scenario.DefaultSummaryTrendStats()}
		if s := environ["K6_SUMMARY_TREND_STATS"]; s != "" {
			t.SummaryTrendStats = strings.Split(s, ",")
		}
		switch u := environ["K6_SUMMARY_TIME_UNIT"]; u {
		case "", "s", "ms", "us":
			t.SummaryTimeUnit = u
		default:
			return nil, verdict.Invalid(fmt.Errorf("--summary-time-unit %q: expected s, ms or us", u))
		}
		if err := (Shortcuts{Breakdown: environ[scenario.BreakdownEnv], BreakdownLimit: environ[scenario.BreakdownLimitEnv]}).Validate(); err != nil {
			return nil, verdict.Invalid(err)
		}
		if s := environ[scenario.BreakdownEnv]; s != "" {
			t.SummaryBreakdown = splitKeys(s)
		}
		t.SummaryBreakdownLimit, _ = strconv.Atoi(strings.TrimSpace(environ[scenario.BreakdownLimitEnv]))
		return &fileSource{test: t}, nil
	}
	warnScriptOnly(environ, config, logger)
	t, replaced, err := scenario.LoadK6(o.File, o.Shortcuts.ScriptEnv(env, cli), environ)
	if err != nil {
		return nil, verdict.Invalid(err)
	}
	return &fileSource{test: t, replaced: replaced}, nil
}

// fileSource is a scenario file: its VUs run each scenario's flow.
type fileSource struct {
	test *scenario.Test
	// replaced names the K6_* variables or flags that replaced the file's scenarios.
	replaced []string
}

func (s *fileSource) Test() *scenario.Test                      { return s.test }
func (*fileSource) Registry() *metrics.Registry                 { return nil }
func (*fileSource) VUs() engine.VUSource                        { return nil }
func (*fileSource) Context(ctx context.Context) context.Context { return ctx }
func (*fileSource) Verdict(err error) error                     { return err }
func (*fileSource) HTTPDebug() string                           { return "" }

// scriptSource is a k6 script: its VUs are JavaScript runtimes (internal/js).
type scriptSource struct{ r *js.Runner }

func (s scriptSource) Test() *scenario.Test                        { return s.r.Test() }
func (s scriptSource) Registry() *metrics.Registry                 { return s.r.Registry() }
func (s scriptSource) VUs() engine.VUSource                        { return s.r }
func (s scriptSource) Context(ctx context.Context) context.Context { return s.r.Context(ctx) }
func (s scriptSource) HTTPDebug() string                           { return s.r.HTTPDebug() }

// Verdict puts a script error (exit code 107) or test.abort() (108) first: it decides
// the exit code; test.fail() (110) counts when nothing else failed.
func (s scriptSource) Verdict(err error) error {
	if rerr := s.r.Err(); rerr != nil && !errors.Is(err, rerr) {
		return errors.Join(rerr, err)
	}
	if err == nil {
		return s.r.Failed()
	}
	return err
}

var (
	_ Source = (*fileSource)(nil)
	_ Source = scriptSource{}
)

// warnScriptOnly says which k6 options of the environment, the flags or the --config
// file a scenario file does not take: its flows have no k6/http module.
func warnScriptOnly(environ Env, config []byte, logger *slog.Logger) {
	var names []string
	for _, k := range []string{"K6_BATCH", "K6_BATCH_PER_HOST", "K6_DISCARD_RESPONSE_BODIES", "K6_MIN_ITERATION_DURATION", "K6_NO_COOKIES_RESET",
		"K6_NO_VU_CONNECTION_REUSE", "K6_SETUP_TIMEOUT", "K6_TEARDOWN_TIMEOUT"} {
		if environ[k] != "" {
			names = append(names, k)
		}
	}
	if len(config) > 0 {
		names = append(names, "--config")
	}
	if len(names) > 0 {
		logger.Warn("These k6 options apply to scripts only and have no effect on a scenario file", "options", strings.Join(names, ","))
	}
}

// splitKeys splits tag keys separated by commas, trimming spaces.
func splitKeys(s string) []string {
	keys := strings.Split(s, ",")
	for i, k := range keys {
		keys[i] = strings.TrimSpace(k)
	}
	return keys
}
