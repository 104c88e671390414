package testrun

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/browser"
	"github.com/tidemark/tidemark/internal/k6log"
	"github.com/tidemark/tidemark/internal/output"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/progress"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/secretsource"
	"github.com/tidemark/tidemark/internal/verdict"
	"github.com/tidemark/tidemark/internal/webdash"
)

// Env is the process environment, the one shape in which it travels: the K6_*
// variables, __ENV, and the proxy and Job variables are read from it.
type Env map[string]string

// Get returns the value of k, or "" (the getenv shape some packages take).
func (e Env) Get(k string) string { return e[k] }

// ProcessEnv is os.Environ as an Env.
func ProcessEnv() Env {
	out := Env{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// Shortcuts are k6 run's shortcut and summary options. Each is set as its K6_*
// variable over the environment (Environ): k6's precedence, the file's options <
// K6_* environment < flags, applied with the same code for a script and a scenario
// file.
type Shortcuts struct {
	VUs, Duration, Iterations string
	Stages                    []string
	TrendStats, TimeUnit      string
	// Breakdown and BreakdownLimit are --summary-breakdown (tag keys separated by
	// commas) and --summary-breakdown-limit, over the file's summaryBreakdown and
	// summaryBreakdownLimit; "" leaves the file's.
	Breakdown, BreakdownLimit string
	NoSummary                 bool
	SummaryMode               string
	// SystemEnv passes the process environment to __ENV.
	SystemEnv           bool
	Throw               bool
	NoSetup, NoTeardown bool
}

// Validate checks the shortcuts before they become K6_* variables, so that a bad
// value is named by its flag rather than by a line of the file it replaces.
func (f Shortcuts) Validate() error {
	var errs []error
	for _, c := range []struct{ flag, v string }{{"--vus", f.VUs}, {"--iterations", f.Iterations}} {
		if n, err := strconv.Atoi(c.v); c.v != "" && (err != nil || n < 0) {
			errs = append(errs, fmt.Errorf("%s %q: expected a whole number of at least 0", c.flag, c.v))
		}
	}
	if f.Duration != "" {
		if _, err := model.ParseDuration(f.Duration); err != nil {
			errs = append(errs, fmt.Errorf("--duration %q: expected a duration such as 30s or 5m", f.Duration))
		}
	}
	for _, st := range f.Stages {
		for part := range strings.SplitSeq(st, ",") {
			d, target, ok := strings.Cut(strings.TrimSpace(part), ":")
			_, derr := model.ParseDuration(d)
			_, terr := strconv.ParseFloat(target, 64)
			if !ok || derr != nil || terr != nil {
				errs = append(errs, fmt.Errorf("--stage %q: expected DURATION:TARGET, e.g. --stage 30s:10", part))
			}
		}
	}
	errs = append(errs, f.validateBreakdown()...)
	return errors.Join(errs...)
}

// validateBreakdown checks --summary-breakdown and --summary-breakdown-limit: no empty
// tag key, a limit of at least 1. An unknown tag key is fine: its rows do not split.
func (f Shortcuts) validateBreakdown() []error {
	var errs []error
	if f.Breakdown != "" {
		keys := strings.Split(f.Breakdown, ",")
		for i, k := range keys {
			keys[i] = strings.TrimSpace(k)
			switch {
			case keys[i] == "":
				errs = append(errs, fmt.Errorf("--summary-breakdown %q: tag key %d is empty; expected tag keys separated by commas, e.g. name,method,status", f.Breakdown, i+1))
			case slices.Contains(keys[:i], keys[i]):
				errs = append(errs, fmt.Errorf("--summary-breakdown %q: tag key %q is given twice", f.Breakdown, keys[i]))
			}
		}
	}
	if f.BreakdownLimit != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(f.BreakdownLimit)); err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("--summary-breakdown-limit %q: expected a whole number of at least 1", f.BreakdownLimit))
		}
	}
	return errs
}

// Environ returns proc with the shortcuts set as their K6_* variables.
func (f Shortcuts) Environ(proc Env) Env {
	out := maps.Clone(proc)
	if out == nil {
		out = Env{}
	}
	if f.Duration != "" || f.Iterations != "" || len(f.Stages) > 0 {
		// The flags are the layer over the environment: as in k6, their duration,
		// iterations or stages clear the environment's other two.
		for _, k := range []string{"K6_DURATION", "K6_ITERATIONS", "K6_STAGES"} {
			delete(out, k)
		}
	}
	for k, v := range map[string]string{"K6_VUS": f.VUs, "K6_DURATION": f.Duration, "K6_ITERATIONS": f.Iterations,
		"K6_STAGES": strings.Join(f.Stages, ","), "K6_SUMMARY_TREND_STATS": f.TrendStats, "K6_SUMMARY_TIME_UNIT": f.TimeUnit,
		"K6_THROW": map[bool]string{true: "true"}[f.Throw], "K6_NO_SETUP": map[bool]string{true: "true"}[f.NoSetup],
		"K6_NO_TEARDOWN":      map[bool]string{true: "true"}[f.NoTeardown],
		scenario.BreakdownEnv: f.Breakdown, scenario.BreakdownLimitEnv: strings.TrimSpace(f.BreakdownLimit)} {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// ScriptEnv is __ENV (or a scenario file's ${__ENV.K}): the process environment unless
// SystemEnv is off, then cli's values (--env).
func (f Shortcuts) ScriptEnv(proc, cli map[string]string) map[string]string {
	env := map[string]string{}
	if f.SystemEnv {
		maps.Copy(env, proc)
	}
	maps.Copy(env, cli)
	return env
}

// noSummary reports whether the summary is off: NoSummary, SummaryMode disabled or
// their K6_* variables.
func (f Shortcuts) noSummary(proc Env) bool {
	return f.NoSummary || proc["K6_NO_SUMMARY"] == "true" || f.summaryMode(proc) == "disabled"
}

// summaryMode is --summary-mode, else K6_SUMMARY_MODE: compact, full or disabled ("" is
// compact).
func (f Shortcuts) summaryMode(proc Env) string {
	return cmp.Or(f.SummaryMode, proc["K6_SUMMARY_MODE"])
}

// SupportedK6Env are the K6_* variables `tidemark run` honours (K6_PROMETHEUS_RW_* are
// the remote-write output's).
func SupportedK6Env() []string {
	return append([]string{"K6_VUS", "K6_DURATION", "K6_ITERATIONS", "K6_STAGES", "K6_TAGS", "K6_SUMMARY_TREND_STATS",
		"K6_SUMMARY_TIME_UNIT", "K6_SYSTEM_TAGS", "K6_MAX_REDIRECTS", "K6_USER_AGENT", "K6_INSECURE_SKIP_TLS_VERIFY",
		"K6_NO_THRESHOLDS", "K6_NO_SUMMARY", "K6_SUMMARY_MODE", "K6_SUMMARY_EXPORT", "K6_NO_USAGE_REPORT", "K6_FEATURES", "K6_THROW", "K6_PAUSED", "K6_ADDRESS", "K6_LINGER", "K6_NO_SETUP", "K6_NO_TEARDOWN",
		"K6_OUT", "K6_CSV_FILENAME", "K6_CSV_TIME_FORMAT", "K6_CSV_SAVE_INTERVAL",
		"K6_HTTP_DEBUG", "K6_WEB_DASHBOARD", "K6_WEB_DASHBOARD_HOST", "K6_WEB_DASHBOARD_PORT", "K6_WEB_DASHBOARD_PERIOD",
		"K6_WEB_DASHBOARD_OPEN", "K6_WEB_DASHBOARD_EXPORT"}, slices.Concat(scenario.ScriptOptionEnv(), k6CLIEnv(), browser.EnvNames())...)
}

// WarnUnsupportedK6Env logs one warning naming the K6_* variables that are set but
// that Tidemark does not honour, so that none is ignored without a word.
func WarnUnsupportedK6Env(logger *slog.Logger, proc Env) {
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(proc)) {
		if strings.HasPrefix(k, "K6_") && !strings.HasPrefix(k, "K6_PROMETHEUS_RW_") && !slices.Contains(SupportedK6Env(), k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		logger.Warn("These k6 environment variables are not supported by Tidemark and have no effect", "variables", strings.Join(unknown, ","))
	}
}

// ParsePairs parses KEY=VALUE pairs of the flag kind (tag, env).
func ParsePairs(kind string, pairs []string) (map[string]string, error) {
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

// HTTPDebugMode is k6's reading of an --http-debug value or K6_HTTP_DEBUG: off when
// empty, the bodies too with full, the heads otherwise.
func HTTPDebugMode(v string) string {
	switch v {
	case "":
		return ""
	case "full":
		return "full"
	}
	return "headers"
}

// Options are the options of one `tidemark run`, as plain data filled from flags.
// Resolve layers the K6_* environment under them.
type Options struct {
	// File is the scenario file or script.
	File string
	// TestID, Tags (k=v) and Env (--env k=v) are the run's test id, tags and __ENV.
	TestID     string
	Tags, Env  []string
	ModulesDir string
	Shortcuts  Shortcuts
	// Segment and SegmentSequence are this instance's execution segment.
	Segment, SegmentSequence string
	NoThresholds             bool
	InsecureSkipTLSVerify    bool
	// MaxSeries is --max-series (loadtest.Config.MaxSeries).
	MaxSeries int
	// UserAgent is --user-agent; DefaultUserAgent is its default, which a script's
	// userAgent option replaces.
	UserAgent, DefaultUserAgent string
	// HTTPDebug is --http-debug: "" unset, "off", "headers" or "full".
	HTTPDebug string
	// Outs are the --out values.
	Outs []string
	// CPUProfile is a file for a Go CPU profile of the run.
	CPUProfile string
	Show       Show
	// Flags are k6's flags of test-wide options and of the run's selection (--rps,
	// --config, --scenario, …).
	Flags OptionFlags
	// Log are k6's logging flags (--log-format, --log-output, --console-output,
	// --no-color, -v).
	Log k6log.Settings
	// Console is the logger of the script's console.* (--console-output); nil is the
	// run's logger.
	Console *slog.Logger
	// secrets are the --secret-source sources, which the k6/secrets module reads and
	// the log redacts.
	secrets *secretsource.Set
}

// Loggers resolves the logging flags over the environment (K6_LOG_FORMAT,
// K6_LOG_OUTPUT, K6_CONSOLE_OUTPUT, K6_NO_COLOR, NO_COLOR) and makes the run's logger
// and console logger in k6's format on out, with the secret sources' values redacted.
// A bad value is of kind verdict.ErrInvalid.
func (o *Options) Loggers(env Env, out IO) (*k6log.Loggers, error) {
	o.Log = o.Log.Resolve(env.Get)
	sources := o.Flags.SecretSources
	if len(sources) == 0 && env["K6_SECRET_SOURCE"] != "" {
		sources = []string{env["K6_SECRET_SOURCE"]}
	}
	secrets, err := secretsource.Parse(sources)
	if err != nil {
		return nil, verdict.Invalid(err)
	}
	o.secrets = secrets
	o.Log.Redact = secrets.Redact
	l, err := o.Log.Build(out.Stdout, out.Stderr, progress.IsTerminal)
	if err != nil {
		return nil, verdict.Invalid(err)
	}
	o.Console = l.Console
	o.Show.NoColor = o.Show.NoColor || o.Log.NoColor
	return l, nil
}

// UseLabelTestID makes id the run's test id when neither --testid nor a testid tag gives
// one. A testid among k6's static labels (K6_PROMETHEUS_RW_LABELS=testid=…) labels every
// series in k6; it names the run here too (its series, summary and correlation) instead
// of a generated id that would replace it.
func (o *Options) UseLabelTestID(id string) {
	if id == "" || o.TestID != "" {
		return
	}
	if tags, err := ParsePairs("tag", o.Tags); err != nil || tags["testid"] != "" {
		return
	}
	o.TestID = id
}

// Share tells whether the run is one share of a run split over several instances: its
// execution segment is less than the whole test. Its series then carry an instance_id.
func (o Options) Share() bool {
	seg, err := pacer.ParseSegment(o.Segment, o.SegmentSequence)
	return err == nil && seg.Fraction() < 1
}

// Resolve layers the environment under the flags (K6_NO_THRESHOLDS, K6_PAUSED,
// K6_LINGER, K6_ADDRESS, K6_HTTP_DEBUG, K6_SUMMARY_EXPORT, K6_NO_SUMMARY, K6_OUT and
// the web dashboard's K6_WEB_DASHBOARD*), checks the options, and warns of the K6_*
// variables Tidemark does not honour. Its errors are of kind verdict.ErrInvalid.
func (o Options) Resolve(env Env, logger *slog.Logger) (Options, error) {
	if err := o.Shortcuts.Validate(); err != nil {
		return o, verdict.Invalid(err)
	}
	WarnUnsupportedK6Env(logger, env)
	if err := o.resolveCLI(env, logger); err != nil {
		return o, err
	}
	s := &o.Show
	s.NoSummary = o.Shortcuts.noSummary(env)
	if mode := o.Shortcuts.summaryMode(env); mode != "disabled" {
		s.SummaryMode = mode
	}
	o.NoThresholds = o.NoThresholds || env["K6_NO_THRESHOLDS"] == "true"
	s.Paused = s.Paused || env["K6_PAUSED"] == "true"
	s.Linger = s.Linger || env["K6_LINGER"] == "true"
	s.Address = cmp.Or(s.Address, env["K6_ADDRESS"])
	o.HTTPDebug = cmp.Or(o.HTTPDebug, HTTPDebugMode(env["K6_HTTP_DEBUG"]))
	s.SummaryExport = cmp.Or(s.SummaryExport, env["K6_SUMMARY_EXPORT"])
	if len(o.Outs) == 0 && env["K6_OUT"] != "" {
		o.Outs = []string{env["K6_OUT"]}
	}
	if _, err := o.files(env); err != nil {
		return o, verdict.Invalid(err)
	}
	dash, err := DashboardConfig(o.Outs, env)
	if err != nil {
		return o, err
	}
	s.Dashboard = dash
	return o, nil
}

// files are the --out file outputs (json, csv).
func (o Options) files(env Env) ([]output.Spec, error) {
	specs, err := output.ParseSpecs(o.Outs, env.Get)
	if err != nil {
		return nil, err
	}
	var files []output.Spec
	for _, s := range specs {
		if s.Kind != output.PrometheusRW && s.Kind != output.WebDashboard {
			files = append(files, s)
		}
	}
	return files, nil
}

// RemoteWriteOuts are the --out values of remote write (experimental-prometheus-rw).
// A bad value is an error naming the supported outputs.
func (o Options) RemoteWriteOuts(env Env) ([]string, error) {
	specs, err := output.ParseSpecs(o.Outs, env.Get)
	var rw []string
	for _, s := range specs {
		if s.Kind == output.PrometheusRW {
			rw = append(rw, s.String())
		}
	}
	return rw, err
}

// DashboardConfig is the web dashboard's configuration when it is on: an `--out
// web-dashboard[=ARG]` (at most one) or K6_WEB_DASHBOARD=true, with k6's
// K6_WEB_DASHBOARD_* variables under ARG's parameters. It is nil when the dashboard is
// off. A bad value is of kind verdict.ErrInvalid.
func DashboardConfig(outs []string, env Env) (*webdash.Config, error) {
	specs, err := output.ParseSpecs(outs, nil)
	if err != nil {
		return nil, err
	}
	var args []string
	for _, s := range specs {
		if s.Kind == output.WebDashboard {
			args = append(args, s.Arg)
		}
	}
	if len(args) > 1 {
		return nil, verdict.Invalid(fmt.Errorf("--out web-dashboard is given %d times: a run has one web dashboard", len(args)))
	}
	on, err := webdash.Enabled(len(args) == 1, env.Get)
	if err != nil || !on {
		return nil, verdict.Invalid(err)
	}
	cfg, err := webdash.ParseConfig(strings.Join(args, ""), env.Get)
	if err != nil {
		return nil, verdict.Invalid(err)
	}
	return &cfg, nil
}

// RequestDebug is the request debug hook of an HTTPDebug mode, or nil when it is off.
func RequestDebug(mode string, logger *slog.Logger) *request.Debug {
	if mode == "" || mode == "off" {
		return nil
	}
	return &request.Debug{Logger: logger, Full: mode == "full"}
}

// Show says how a run is shown: header and progress while it runs, the REST API and
// the web dashboard, the summary and its files after.
type Show struct {
	Quiet bool
	// NoColor is k6's --no-color (K6_NO_COLOR, NO_COLOR): no colours in the summary
	// and the log even on a terminal.
	NoColor bool
	// Address and Paused are k6's --address and --paused: the REST API listens on
	// Address (on localhost:6565 when only Paused is set), and a paused run waits for
	// PATCH /v1/status {"paused": false}.
	Address string
	Paused  bool
	// Linger is k6's --linger: after the run and its summary, the process (and the
	// REST API) stays up until SIGINT/SIGTERM (PATCH /v1/status {"stopped": true} does
	// not end it, as in k6).
	Linger bool
	// NoSummary is k6's --no-summary (--summary-mode=disabled): no text summary, no
	// handleSummary, no summary files.
	NoSummary bool
	// SummaryMode is k6's --summary-mode when the summary is on: "compact" (or "") or
	// "full" (summary.ModeFull).
	SummaryMode string
	// Dashboard is the web dashboard's configuration; nil when it is off.
	Dashboard      *webdash.Config
	ProgressPeriod time.Duration
	SummaryExport  string
	SummaryFile    string
}
