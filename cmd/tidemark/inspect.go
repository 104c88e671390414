package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/scenario"
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
	if err := cfg.k6.validate(); err != nil {
		return exitcode.Invalid(err)
	}
	cliEnv, err := parsePairs("env", cfg.env)
	if err != nil {
		return exitcode.Invalid(err)
	}
	proc := processEnv()
	var (
		opts map[string]any
		test *scenario.Test
	)
	if js.IsScript(cfg.file) {
		r, err := js.New(js.Config{Script: cfg.file, ModulesDir: cfg.modulesDir, Env: cfg.k6.scriptEnv(proc, cliEnv),
			Environ: cfg.k6.environ(proc), Logger: g.logger()})
		if err != nil {
			return err
		}
		if err := json.Unmarshal(r.Options(), &opts); err != nil {
			return fmt.Errorf("inspect %s: %w", cfg.file, err)
		}
		test = r.Test()
		// The resolved model's test-wide options, over the script's own.
		for k, v := range test.K6Options(nil) {
			if k != "scenarios" {
				opts[k] = v
			}
		}
	} else {
		t, _, err := scenario.LoadK6(cfg.file, cfg.k6.scriptEnv(proc, cliEnv), cfg.k6.environ(proc))
		if err != nil {
			return exitcode.Invalid(err)
		}
		opts, test = t.K6Options(nil), t
	}
	if cfg.execReqs {
		maxVUs, total := executionRequirements(test)
		opts["maxVUs"], opts["totalDuration"] = maxVUs, total.String()
	}
	b, err := json.MarshalIndent(opts, "", "  ")
	if err != nil {
		return fmt.Errorf("inspect %s: %w", cfg.file, err)
	}
	_, err = fmt.Fprintf(g.stdout, "%s\n", b)
	return err
}

// executionRequirements is k6's maxVUs and totalDuration of a test (`k6 inspect
// --execution-requirements`). totalDuration is the latest scenario end: startTime +
// duration (the stages' sum, or maxDuration for the iteration executors) +
// gracefulStop; externally-controlled has no gracefulStop. maxVUs is the most VUs the
// scenarios plan at any one moment, overlapping in time: each holds its VUs from its
// start until its end with gracefulStop, arrival-rate executors max(maxVUs,
// preAllocatedVUs), externally-controlled maxVUs (for ever when its duration is 0),
// ramping-vus its stage targets with gracefulRampDown (rampingPlan). As in k6, the
// changes at one moment apply scenario by scenario, in the order of their startTime
// and then name, and the count between them counts too: a ramp's VU added at the
// moment a later scenario ends overlaps it, a scenario ending when a later one starts
// does not. The numbers were checked against k6 v1.8.1
// (testdata/execreqs/k6.json).
func executionRequirements(t *scenario.Test) (uint64, time.Duration) {
	scens := slices.Clone(t.Scenarios)
	slices.SortStableFunc(scens, func(a, b *scenario.Scenario) int {
		return cmp.Or(cmp.Compare(a.StartTime, b.StartTime), cmp.Compare(a.Name, b.Name))
	})
	var (
		total  time.Duration
		events []vuEvent
	)
	for i, sc := range scens {
		start, gs := sc.StartTime, max(sc.GracefulStop, 0)
		hold := func(vus int, dur time.Duration) {
			events = append(events, vuEvent{at: start, ord: i, delta: int64(vus)}, vuEvent{at: start + dur, ord: i, delta: -int64(vus)})
		}
		var end time.Duration
		switch sc.Executor {
		case scenario.SharedIterations, scenario.PerVUIterations:
			end = sc.MaxDuration + gs
			hold(max(sc.VUs, 1), end)
		case scenario.ConstantVUs:
			end = sc.Duration + gs
			hold(max(sc.VUs, 1), end)
		case scenario.ConstantArrivalRate, scenario.RampingArrivalRate:
			d := sc.Duration
			if sc.Executor == scenario.RampingArrivalRate {
				d = 0
				for _, st := range sc.Stages {
					d += max(st.Duration, 0)
				}
			}
			end = d + gs
			hold(max(sc.MaxVUs, sc.PreAllocatedVUs), end)
		case scenario.ExternallyControlled:
			end = sc.Duration
			if sc.Duration == 0 {
				// Runs until stopped: its VUs overlap every other scenario.
				events = append(events, vuEvent{at: start, ord: i, delta: int64(sc.MaxVUs)})
			} else {
				hold(sc.MaxVUs, end)
			}
		case scenario.RampingVUs:
			steps, d := rampingPlan(sc)
			end = d + gs
			var prev int64
			for _, st := range steps {
				events = append(events, vuEvent{at: start + st.At, ord: i, delta: st.Target - prev})
				prev = st.Target
			}
			events = append(events, vuEvent{at: start + end, ord: i, delta: -prev})
		}
		total = max(total, start+end)
	}
	slices.SortStableFunc(events, func(a, b vuEvent) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.ord, b.ord))
	})
	var cur, peak int64
	for _, e := range events {
		cur += e.delta
		peak = max(peak, cur)
	}
	return uint64(max(peak, 0)), total
}

// vuEvent is a change of the VUs scenario ord (its rank by startTime and name) plans,
// at offset at from the test start.
type vuEvent struct {
	at    time.Duration
	ord   int
	delta int64
}

// rampingPlan is the VUs a ramping-vus scenario plans over time: its stage targets
// one VU at a time, as the run changes them (pacer.NewVUSchedule: ramping 0→10 over
// 10 s adds VU v at v s), a VU that goes held gracefulRampDown longer (the plan at t
// is the most planned over [t-gracefulRampDown, t]), and the last target until the
// end with gracefulStop. It returns the changes, first at 0, and the sum of the
// stages.
func rampingPlan(sc *scenario.Scenario) ([]pacer.VUStep, time.Duration) {
	stages := make([]pacer.Stage, 0, len(sc.Stages))
	for _, st := range sc.Stages {
		stages = append(stages, pacer.Stage{Duration: st.Duration, Target: st.Target})
	}
	sched := pacer.NewVUSchedule(int64(sc.StartVUs), stages)
	raw := sched.Steps()
	end := sched.Duration() + max(sc.GracefulStop, 0)
	grd := max(sc.GracefulRampDown, 0)
	// The plan changes only where raw does, or gracefulRampDown after it does.
	var times []time.Duration
	for _, s := range raw {
		times = append(times, s.At, s.At+grd)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var out []pacer.VUStep
	for _, t := range times {
		if t >= end {
			break
		}
		// The most raw plans over [t-grd, t]: the target in force at t-grd, and every
		// change after it up to t.
		v := sched.Target(max(t-grd, 0))
		for _, s := range raw {
			if s.At > t-grd && s.At <= t {
				v = max(v, s.Target)
			}
		}
		if n := len(out); n > 0 && out[n-1].Target == v {
			continue
		}
		out = append(out, pacer.VUStep{At: t, Target: v})
	}
	return out, sched.Duration()
}
