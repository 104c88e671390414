package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/testrun"
)

const inspectHelp = `Print the options a script or scenario file runs with, as JSON: k6 inspect's job.

The options are resolved as tidemark run resolves them: the shortcuts (vus, duration,
iterations, stages), K6_* variables and the -u/-d/-i/-s flags turned into scenarios with
every default applied, as k6 inspect --execution-requirements shows them; then the
thresholds, tags and summary options. A script's own options (its JSON) come along.

With --execution-requirements the JSON gains k6's maxVUs and totalDuration, computed
as k6 computes them: k6-operator's initializer runs
  k6 inspect --execution-requirements /tmp/<script>.archived.tar
and refuses a TestRun whose parallelism exceeds maxVUs. The file may be a k6 archive
(tidemark archive, k6 archive). Warnings go to stderr; stdout is the JSON alone.

Examples:
  tidemark inspect examples/quick.js
  tidemark inspect -u 10 -d 1m examples/quick.yaml | jq .scenarios`

type inspectConfig struct {
	file       string
	env        []string
	modulesDir string
	k6         k6Flags
	execReqs   bool
}

// inspectCmd is `tidemark inspect SCRIPT|SCENARIO`.
func inspectCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &inspectConfig{}
	cmd := app.Command("inspect", inspectHelp)
	cmd.Arg("file", "k6 script (.js, .mjs, .cjs, .ts) or scenario file (YAML or JSON).").Required().StringVar(&cfg.file)
	cmd.Flag("env", "Value K=V of __ENV.K, as for tidemark run. Repeatable.").Short('e').StringsVar(&cfg.env)
	cmd.Flag("modules.dir", "Directory of vendored remote modules, as for tidemark run.").StringVar(&cfg.modulesDir)
	cmd.Flag("vus", "As tidemark run's --vus.").Short('u').StringVar(&cfg.k6.vus)
	cmd.Flag("duration", "As tidemark run's --duration.").Short('d').StringVar(&cfg.k6.duration)
	cmd.Flag("iterations", "As tidemark run's --iterations.").Short('i').StringVar(&cfg.k6.iterations)
	cmd.Flag("stage", "As tidemark run's --stage. Repeatable.").Short('s').StringsVar(&cfg.k6.stages)
	cmd.Flag("include-system-env-vars", "Pass the process environment to __ENV.").Default("true").BoolVar(&cfg.k6.systemEnv)
	cmd.Flag("execution-requirements", "Add k6's maxVUs (the most VUs the scenarios need at once) and totalDuration "+
		"(the longest the run can take, gracefulStop included), as k6-operator's initializer reads them.").BoolVar(&cfg.execReqs)
	return cmd, func(context.Context) error { return runInspect(cfg, g) }
}

func runInspect(cfg *inspectConfig, g *globals) error {
	if err := cfg.k6.shortcuts().Validate(); err != nil {
		return exitcode.Invalid(err)
	}
	cliEnv, err := testrun.ParsePairs("env", cfg.env)
	if err != nil {
		return exitcode.Invalid(err)
	}
	proc := testrun.ProcessEnv()
	var (
		opts map[string]any
		test *scenario.Test
	)
	if js.IsScript(cfg.file) {
		r, err := js.New(js.Config{Script: cfg.file, ModulesDir: cfg.modulesDir, Env: cfg.k6.shortcuts().ScriptEnv(proc, cliEnv),
			Environ: cfg.k6.shortcuts().Environ(proc), Logger: g.logger()})
		if err != nil {
			return err
		}
		if opts, err = r.ResolvedOptions(); err != nil {
			return fmt.Errorf("inspect %s: %w", cfg.file, err)
		}
		test = r.Test()
	} else {
		t, _, err := scenario.LoadK6(cfg.file, cfg.k6.shortcuts().ScriptEnv(proc, cliEnv), cfg.k6.shortcuts().Environ(proc))
		if err != nil {
			return exitcode.Invalid(err)
		}
		opts, test = t.K6Options(nil), t
	}
	test.MarkTidemarkOnly(opts)
	if cfg.execReqs {
		maxVUs, total := test.ExecutionRequirements()
		opts["maxVUs"], opts["totalDuration"] = maxVUs, total.String()
	}
	b, err := json.MarshalIndent(opts, "", "  ")
	if err != nil {
		return fmt.Errorf("inspect %s: %w", cfg.file, err)
	}
	_, err = fmt.Fprintf(g.stdout, "%s\n", b)
	return err
}
