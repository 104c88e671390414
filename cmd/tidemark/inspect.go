package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
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
// ramping-vus its stage targets with gracefulRampDown (see rampingPlan). The numbers
// were checked against k6 v1.8.1 (testdata/k6_execution_requirements.json).
func executionRequirements(t *scenario.Test) (uint64, time.Duration) {
	var (
		total  time.Duration
		events []vuEvent
	)
	for _, sc := range t.Scenarios {
		start, gs := sc.StartTime, max(sc.GracefulStop, 0)
		hold := func(vus int, dur time.Duration) {
			events = append(events, vuEvent{at: start, delta: int64(vus)}, vuEvent{at: start + dur, delta: -int64(vus)})
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
			var d time.Duration
			if sc.Executor == scenario.ConstantArrivalRate {
				d = sc.Duration
			} else {
				for _, st := range sc.Stages {
					d += st.Duration
				}
			}
			end = d + gs
			hold(max(sc.MaxVUs, sc.PreAllocatedVUs), end)
		case scenario.ExternallyControlled:
			end = sc.Duration
			if sc.Duration == 0 {
				// Runs until stopped: its VUs overlap every other scenario.
				events = append(events, vuEvent{at: start, delta: int64(sc.MaxVUs)})
			} else {
				hold(sc.MaxVUs, end)
			}
		case scenario.RampingVUs:
			steps, d := rampingPlan(sc)
			end = d + gs
			var prev int64
			for _, st := range steps {
				events = append(events, vuEvent{at: start + st.At, delta: st.Target - prev})
				prev = st.Target
			}
			events = append(events, vuEvent{at: start + end, delta: -prev})
		}
		total = max(total, start+end)
	}
	// Half-open intervals: a scenario's VUs are free at its end, when the next may start.
	slices.SortStableFunc(events, func(a, b vuEvent) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	var cur, peak int64
	for _, e := range events {
		cur += e.delta
		peak = max(peak, cur)
	}
	return uint64(max(peak, 0)), total
}

// vuEvent is a change of the VUs the scenarios plan at offset at from the test start.
type vuEvent struct {
	at    time.Duration
	delta int64
}

// rampingPlan is the VUs a ramping-vus scenario plans over time, as k6 plans them for
// its execution requirements (which round up, where the run adds VUs one by one): on
// a ramp from a up to b over d, VU v is planned from (v-a-1)/(b-a)·d on; on a ramp
// down, VU v goes at (a-v)/(a-b)·d; a VU that goes is held gracefulRampDown longer (the
// plan at t is the most planned over [t-gracefulRampDown, t]), and the last target
// until the end with gracefulStop. It returns the changes, first at 0, and the sum of
// the stages.
func rampingPlan(sc *scenario.Scenario) ([]pacer.VUStep, time.Duration) {
	raw := []pacer.VUStep{{At: 0, Target: int64(sc.StartVUs)}}
	from := int64(sc.StartVUs)
	var start time.Duration
	for _, st := range sc.Stages {
		to := int64(math.Floor(st.Target))
		d := max(st.Duration, 0)
		switch {
		case d == 0 || to == from:
			raw = append(raw, pacer.VUStep{At: start + d, Target: to})
		case to > from:
			for v := from + 1; v <= to; v++ {
				raw = append(raw, pacer.VUStep{At: start + time.Duration(float64(d)*float64(v-from-1)/float64(to-from)), Target: v})
			}
		default:
			for v := from - 1; v >= to; v-- {
				raw = append(raw, pacer.VUStep{At: start + time.Duration(float64(d)*float64(from-v)/float64(from-to)), Target: v})
			}
		}
		start += d
		from = to
	}
	end := start + max(sc.GracefulStop, 0)
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
		v := at(raw, t-grd)
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
	return out, start
}

// at is the target of raw (ordered changes, the first at 0) in force at t.
func at(raw []pacer.VUStep, t time.Duration) int64 {
	v := raw[0].Target
	for _, s := range raw {
		if s.At > t {
			break
		}
		v = s.Target
	}
	return v
}
