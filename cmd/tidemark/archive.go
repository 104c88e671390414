package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/testrun"
)

const archiveHelp = `Pack a k6 script, the modules it imports and the files it opens into a k6 archive: k6 archive's job.

The archive is k6's format (metadata.json with the options and __ENV, the main script
as data, local files under file/<path>, remote modules under https/<host>/<path>), so
k6 run and tidemark run both run it, and tidemark inspect --execution-requirements
reads it as k6-operator's initializer does. The options recorded are the script's
resolved as tidemark run resolves them, with -u/-d/-i/-s, K6_* variables, --tag and
the other flags applied. Running the archive reads them in place of the script's
exported options, as k6 does.

__ENV: the archive records -e values, and the process environment only with
--include-system-env-vars (k6's default for archives); --exclude-env-vars records none.

YAML and JSON scenario files have no k6 archive form: run them with tidemark run.

Examples:
  tidemark archive -O test.tar script.js
  tidemark archive -u 10 -d 1m -e BASE_URL=http://svc script.js -O /tmp/test.tar
  tidemark run test.tar`

type archiveConfig struct {
	file        string
	out         string
	env         []string
	tags        []string
	modulesDir  string
	excludeEnv  bool
	k6          k6Flags
	noThreshold bool
	quiet       bool
	address     string
	httpDebug   httpDebugFlag
	userAgent   string
	insecureTLS bool
	maxRedirect string
	summaryExp  string
	// run holds k6's option flags (recorded in the archive's options, as K6_*
	// variables are) and logging flags.
	run testrun.Options
}

// archiveCmd is `tidemark archive SCRIPT`.
func archiveCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &archiveConfig{}
	cmd := app.Command("archive", archiveHelp)
	cmd.Arg("script", "k6 script (.js, .mjs, .cjs, .ts), or a k6 archive to pack again.").Required().StringVar(&cfg.file)
	cmd.Flag("archive-out", "The archive's file name; - writes it to stdout.").Short('O').Default("archive.tar").StringVar(&cfg.out)
	cmd.Flag("env", "Value K=V of __ENV.K, recorded in the archive. Repeatable.").Short('e').StringsVar(&cfg.env)
	cmd.Flag("include-system-env-vars", "Record the process environment in the archive's __ENV too.").BoolVar(&cfg.k6.systemEnv)
	cmd.Flag("exclude-env-vars", "Record no __ENV at all, neither -e values nor the process environment.").BoolVar(&cfg.excludeEnv)
	cmd.Flag("modules.dir", "Directory of vendored remote modules, as for tidemark run; they are packed under https/.").StringVar(&cfg.modulesDir)
	cmd.Flag("tag", "Tag k=v of every sample, recorded as the options' tags (replacing the script's, as k6). Repeatable.").
		StringsVar(&cfg.tags)
	cmd.Flag("vus", "As tidemark run's --vus, recorded in the options.").Short('u').StringVar(&cfg.k6.vus)
	cmd.Flag("duration", "As tidemark run's --duration, recorded in the options.").Short('d').StringVar(&cfg.k6.duration)
	cmd.Flag("iterations", "As tidemark run's --iterations, recorded in the options.").Short('i').StringVar(&cfg.k6.iterations)
	cmd.Flag("stage", "As tidemark run's --stage, recorded in the options. Repeatable.").Short('s').StringsVar(&cfg.k6.stages)
	cmd.Flag("summary-trend-stats", "As tidemark run's, recorded in the options.").StringVar(&cfg.k6.trendStats)
	cmd.Flag("summary-time-unit", "As tidemark run's, recorded in the options.").StringVar(&cfg.k6.timeUnit)
	cmd.Flag("throw", "As tidemark run's --throw, recorded in the options.").Short('w').BoolVar(&cfg.k6.throw)
	cmd.Flag("no-setup", "As tidemark run's --no-setup, recorded in the options.").BoolVar(&cfg.k6.noSetup)
	cmd.Flag("no-teardown", "As tidemark run's --no-teardown, recorded in the options.").BoolVar(&cfg.k6.noTeardown)
	cmd.Flag("user-agent", "As tidemark run's --user-agent, recorded in the options.").StringVar(&cfg.userAgent)
	cmd.Flag("insecure-skip-tls-verify", "As tidemark run's, recorded in the options.").BoolVar(&cfg.insecureTLS)
	cmd.Flag("max-redirects", "Follow at most N redirects, recorded in the options.").StringVar(&cfg.maxRedirect)
	// k6 archive accepts these run-time flags and records nothing of them; so does
	// Tidemark, so that k6-operator's initializer, which passes a TestRun's arguments
	// to `k6 archive`, gets through. The runners get them on their own command line.
	cmd.Flag("no-thresholds", "Accepted as k6 archive does; a run-time flag, not recorded.").BoolVar(&cfg.noThreshold)
	cmd.Flag("summary-export", "Accepted as k6 archive does; a run-time flag, not recorded.").StringVar(&cfg.summaryExp)
	cmd.Flag("summary-mode", "Accepted as k6 archive does; a run-time flag, not recorded.").StringVar(&cfg.k6.summaryMode)
	cmd.Flag("quiet", "Accepted as k6 archive does; it prints no progress anyway.").Short('q').BoolVar(&cfg.quiet)
	cmd.Flag("address", "Accepted as k6 archive does (k6's global REST API flag); no API is served.").Short('a').StringVar(&cfg.address)
	cmd.Flag("http-debug", "Accepted as k6 archive does; a run-time flag, not recorded.").SetValue(&cfg.httpDebug)
	cmd.Flag("http-debug.value", "The value of --http-debug=VALUE.").Hidden().SetValue(httpDebugValue{&cfg.httpDebug})
	addK6Flags(cmd, cfg.run.LogFlags())
	addK6Flags(cmd, cfg.run.Flags.Flags())
	return cmd, func(context.Context) error { return runArchive(cfg, g) }
}

func runArchive(cfg *archiveConfig, g *globals) error {
	if !js.IsScript(cfg.file) {
		return exitcode.Invalid(fmt.Errorf("archive %s: a k6 archive holds a k6 script (.js, .mjs, .cjs, .ts) and what it imports; "+
			"a YAML or JSON scenario file has no archive form: run it with tidemark run, or ship the file itself", cfg.file))
	}
	if err := cfg.k6.shortcuts().Validate(); err != nil {
		return exitcode.Invalid(err)
	}
	opts := js.PackOptions{NoSetup: cfg.k6.noSetup, NoTeardown: cfg.k6.noTeardown, UserAgent: cfg.userAgent,
		InsecureSkipTLSVerify: cfg.insecureTLS, ExcludeEnv: cfg.excludeEnv}
	if cfg.maxRedirect != "" {
		n, err := strconv.Atoi(cfg.maxRedirect)
		if err != nil || n < 0 {
			return exitcode.Invalid(fmt.Errorf("--max-redirects %q: expected a whole number of at least 0", cfg.maxRedirect))
		}
		opts.MaxRedirects = &n
	}
	cliEnv, err := testrun.ParsePairs("env", cfg.env)
	if err != nil {
		return exitcode.Invalid(err)
	}
	if opts.Tags, err = testrun.ParsePairs("tag", cfg.tags); err != nil {
		return exitcode.Invalid(err)
	}
	proc := testrun.ProcessEnv()
	logs, err := cfg.run.Loggers(proc, testrun.IO{Stdout: g.stderr, Stderr: g.stderr})
	if err != nil {
		return err
	}
	defer func() { _ = logs.Close() }()
	logger := logs.Logger
	testrun.WarnUnsupportedK6Env(logger, proc)
	config, err := cfg.run.ConfigFile(proc)
	if err != nil {
		return err
	}
	opts.Env = cfg.k6.shortcuts().ScriptEnv(proc, cliEnv)
	r, err := js.New(js.Config{Script: cfg.file, ModulesDir: cfg.modulesDir, Env: opts.Env, Environ: cfg.run.Flags.Environ(cfg.k6.shortcuts().Environ(proc)),
		Logger: logger, Console: logs.Console, ConfigOptions: config})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := r.Pack(&buf, opts); err != nil {
		return fmt.Errorf("archive %s: %w", cfg.file, err)
	}
	return writeArchiveOut(cfg.out, buf.Bytes(), g.stdout)
}

// writeArchiveOut writes the archive to out, or to stdout for "-", replacing a file
// only once the whole archive is written.
func writeArchiveOut(out string, b []byte, stdout io.Writer) error {
	if out == "-" {
		_, err := stdout.Write(b)
		return err
	}
	if dir := filepath.Dir(out); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return exitcode.Invalid(fmt.Errorf("--archive-out %s: the directory %s does not exist", out, dir))
		}
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write archive %s: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write archive %s: %w", out, err)
	}
	return nil
}
