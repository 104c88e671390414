package testrun

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/secretsource"
	"github.com/tidemark/tidemark/internal/verdict"
)

// OptionFlags are k6 run's flags of test-wide options. Each is set as its K6_*
// variable over the environment (Environ), which a script's options then take at k6's
// precedence: defaults < --config file < script options < K6_* < flags.
type OptionFlags struct {
	RPS, MaxRedirects, Batch, BatchPerHost string
	DiscardResponseBodies                  bool
	NoConnectionReuse, NoVUConnectionReuse bool
	SystemTags                             string
	BlacklistIPs, BlockHostnames           []string
	MinIterationDuration, LocalIPs, DNS    string
	ConfigFile                             string
	SecretSources, Scenarios, Features     []string
	CompatibilityMode, Type                string
}

// Environ returns env with the flags set as their K6_* variables.
func (f OptionFlags) Environ(env Env) Env {
	out := maps.Clone(env)
	if out == nil {
		out = Env{}
	}
	set := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	flag := func(k string, b bool) {
		if b {
			out[k] = "true"
		}
	}
	set("K6_RPS", f.RPS)
	set("K6_MAX_REDIRECTS", f.MaxRedirects)
	set("K6_BATCH", f.Batch)
	set("K6_BATCH_PER_HOST", f.BatchPerHost)
	flag("K6_DISCARD_RESPONSE_BODIES", f.DiscardResponseBodies)
	flag("K6_NO_CONNECTION_REUSE", f.NoConnectionReuse)
	flag("K6_NO_VU_CONNECTION_REUSE", f.NoVUConnectionReuse)
	set("K6_SYSTEM_TAGS", f.SystemTags)
	set("K6_BLACKLIST_IPS", strings.Join(f.BlacklistIPs, ","))
	set("K6_BLOCK_HOSTNAMES", strings.Join(f.BlockHostnames, ","))
	set("K6_MIN_ITERATION_DURATION", f.MinIterationDuration)
	set("K6_LOCAL_IPS", f.LocalIPs)
	set("K6_DNS", f.DNS)
	return out
}

// k6CLIEnv are the K6_* variables of the command line itself that Tidemark honours.
func k6CLIEnv() []string {
	return []string{"K6_NO_COLOR", "K6_QUIET", "K6_VERBOSE", "K6_LOG_FORMAT", "K6_LOG_OUTPUT", "K6_CONSOLE_OUTPUT",
		"K6_CONFIG", "K6_SECRET_SOURCE", "K6_COMPATIBILITY_MODE", "K6_TYPE", "K6_SCENARIO", "K6_FEATURES"}
}

// CompatibilityModes are k6 v2's --compatibility-mode values.
func CompatibilityModes() []string { return []string{"base", "extended", "experimental_enhanced"} }

// Features are k6 v2.3's feature flags (--features, K6_FEATURES).
func Features() []string {
	return []string{"async-metric-context", "freeze-env", "merge-run-tags", "native-histograms"}
}

// resolveCLI checks the flags that only select or describe the run, layered over
// their K6_* variables: --compatibility-mode, --type, --features, --scenario and
// --secret-source. Its errors are of kind verdict.ErrInvalid.
func (o *Options) resolveCLI(env Env, logger *slog.Logger) error {
	o.Show.Quiet = o.Show.Quiet || env["K6_QUIET"] == "true"
	o.Show.NoColor = o.Show.NoColor || o.Log.NoColor || env["K6_NO_COLOR"] == "true" || env["NO_COLOR"] != ""
	warnRemovedInV2(o.Shortcuts, env, logger)
	f := &o.Flags
	f.ConfigFile = cmp.Or(f.ConfigFile, env["K6_CONFIG"])
	f.CompatibilityMode = cmp.Or(f.CompatibilityMode, env["K6_COMPATIBILITY_MODE"])
	if m := f.CompatibilityMode; m != "" && !slices.Contains(CompatibilityModes(), m) {
		return verdict.Invalid(fmt.Errorf("--compatibility-mode %q: expected base, extended or experimental_enhanced", m))
	}
	f.Type = cmp.Or(f.Type, env["K6_TYPE"])
	if t := f.Type; t != "" && t != "js" && t != "archive" {
		return verdict.Invalid(fmt.Errorf("--type %q: expected js or archive", t))
	}
	if len(f.Features) == 0 && env["K6_FEATURES"] != "" {
		f.Features = []string{env["K6_FEATURES"]}
	}
	f.Features = splitAll(f.Features)
	for _, name := range f.Features {
		if !slices.Contains(Features(), name) {
			// As k6: an unknown feature is an error in the log, and the run goes on.
			logger.Error("Unknown feature flag", "feature", name, "known", strings.Join(Features(), ","))
		}
	}
	if inert := slices.DeleteFunc(slices.Clone(f.Features), func(n string) bool { return n == "native-histograms" }); len(inert) > 0 {
		logger.Warn("Feature flags are accepted but change nothing in Tidemark yet", "features", strings.Join(inert, ","))
	}
	if len(f.Scenarios) == 0 && env["K6_SCENARIO"] != "" {
		f.Scenarios = []string{env["K6_SCENARIO"]}
	}
	f.Scenarios = splitAll(f.Scenarios)
	if o.secrets == nil {
		// Loggers reads them first when it builds the log that redacts them.
		if len(f.SecretSources) == 0 && env["K6_SECRET_SOURCE"] != "" {
			f.SecretSources = []string{env["K6_SECRET_SOURCE"]}
		}
		secrets, err := secretsource.Parse(f.SecretSources)
		if err != nil {
			return verdict.Invalid(err)
		}
		o.secrets = secrets
	}
	return nil
}

// warnRemovedInV2 names the v2 replacement of the k6 v1 summary flags a v1 CI job may
// pass; they keep working.
func warnRemovedInV2(s Shortcuts, env Env, logger *slog.Logger) {
	if s.NoSummary || env["K6_NO_SUMMARY"] == "true" {
		logger.Warn("--no-summary and K6_NO_SUMMARY were removed in k6 v2; use --summary-mode=disabled (K6_SUMMARY_MODE=disabled)")
	}
	if cmp.Or(s.SummaryMode, env["K6_SUMMARY_MODE"]) == "legacy" {
		logger.Warn("--summary-mode=legacy was removed in k6 v2; the compact summary is printed (use --summary-mode=compact or full)")
	}
}

// splitAll splits comma-separated values of a repeatable flag.
func splitAll(vals []string) []string {
	var out []string
	for _, v := range vals {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" && !slices.Contains(out, item) {
				out = append(out, item)
			}
		}
	}
	return out
}

// ConfigFile reads the JSON of the --config file (or K6_CONFIG's); nil without one.
// A file that cannot be read is of kind verdict.ErrInvalid.
func (o Options) ConfigFile(env Env) ([]byte, error) {
	o.Flags.ConfigFile = cmp.Or(o.Flags.ConfigFile, env["K6_CONFIG"])
	return o.readConfigFile()
}

// readConfigFile reads the --config file's JSON; nil without one.
func (o Options) readConfigFile() ([]byte, error) {
	if o.Flags.ConfigFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(o.Flags.ConfigFile)
	if err != nil {
		return nil, verdict.Invalid(fmt.Errorf("--config: %w", err))
	}
	return b, nil
}

// selectScenarios keeps the scenarios --scenario names (k6 v2.3), in the test's
// order. A name the test lacks is an error naming the ones it has.
func selectScenarios(t *scenario.Test, names []string) error {
	if len(names) == 0 {
		return nil
	}
	var have []string
	var kept []*scenario.Scenario
	for _, sc := range t.Scenarios {
		have = append(have, sc.Name)
		if slices.Contains(names, sc.Name) {
			kept = append(kept, sc)
		}
	}
	var errs []error
	for _, n := range names {
		if !slices.Contains(have, n) {
			errs = append(errs, fmt.Errorf("--scenario %q: the test has no such scenario; it has %s", n, strings.Join(have, ", ")))
		}
	}
	if len(errs) > 0 {
		return verdict.Invalid(errors.Join(errs...))
	}
	t.Scenarios = kept
	return nil
}

// ReadStdin makes File the script of k6's `run -` when it is name (how the command
// line passes -): ScriptFromStdin's file. The returned function removes it.
func (o *Options) ReadStdin(name string, r io.Reader) (func(), error) {
	if o.File != name {
		return func() {}, nil
	}
	path, cleanup, err := ScriptFromStdin(r, o.Flags.Type)
	if err != nil {
		return nil, err
	}
	o.File = path
	return cleanup, nil
}

// ScriptFromStdin writes the script of k6's `run -` from r to a temporary file and
// returns its path and a function that removes it. typ (--type) archive makes it a
// .tar; an archive is also recognised by its content.
func ScriptFromStdin(r io.Reader, typ string) (string, func(), error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return "", nil, verdict.Invalid(fmt.Errorf("read the script from stdin: %w", err))
	}
	ext := ".js"
	if typ == "archive" || bytes.HasPrefix(b, []byte("metadata.json")) || len(b) > 262 && string(b[257:262]) == "ustar" {
		ext = ".tar"
	}
	f, err := os.CreateTemp("", "tidemark-stdin-*"+ext)
	if err != nil {
		return "", nil, fmt.Errorf("read the script from stdin: %w", err)
	}
	cleanup := func() { _ = os.Remove(f.Name()) }
	_, werr := f.Write(b)
	if err := errors.Join(werr, f.Close()); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("read the script from stdin: %w", err)
	}
	return f.Name(), cleanup, nil
}
