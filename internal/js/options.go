package js

import (
	gojson "encoding/json"
	"time"

	"github.com/tidemark/tidemark/internal/scenario"
)

// resolvedOptions is k6's test.options: the script's options (JSON) with its
// scenarios as the run resolved them (shortcuts and K6_* variables turned into
// scenarios, defaults applied), and the shortcuts they replaced removed.
func resolvedOptions(script []byte, s *scenario.Script) ([]byte, error) {
	opts := map[string]any{}
	if err := gojson.Unmarshal(script, &opts); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = map[string]any{}
	}
	for _, k := range []string{"vus", "iterations", "duration", "stages"} {
		delete(opts, k)
	}
	scens := map[string]any{}
	for _, sc := range s.Test.Scenarios {
		scens[sc.Name] = scenarioOptions(sc, s.ExecOf(sc.Name))
	}
	opts["scenarios"] = scens
	return gojson.Marshal(opts)
}

// scenarioOptions is one scenario in k6's option names, with the options its executor
// takes.
func scenarioOptions(sc *scenario.Scenario, exec string) map[string]any {
	d := func(v time.Duration) string { return v.String() }
	m := map[string]any{"executor": string(sc.Executor), "exec": exec, "startTime": d(sc.StartTime), "gracefulStop": d(sc.GracefulStop)}
	if len(sc.Tags) > 0 {
		m["tags"] = sc.Tags
	}
	if len(sc.Env) > 0 {
		m["env"] = sc.Env
	}
	stages := func() []map[string]any {
		out := make([]map[string]any, 0, len(sc.Stages))
		for _, st := range sc.Stages {
			out = append(out, map[string]any{"duration": d(st.Duration), "target": st.Target})
		}
		return out
	}
	switch sc.Executor {
	case scenario.SharedIterations, scenario.PerVUIterations:
		m["vus"], m["iterations"], m["maxDuration"] = sc.VUs, sc.Iterations, d(sc.MaxDuration)
	case scenario.ConstantVUs:
		m["vus"], m["duration"] = sc.VUs, d(sc.Duration)
	case scenario.RampingVUs:
		m["startVUs"], m["stages"], m["gracefulRampDown"] = sc.StartVUs, stages(), d(sc.GracefulRampDown)
	case scenario.ConstantArrivalRate:
		m["rate"], m["timeUnit"], m["duration"] = sc.Rate, d(sc.TimeUnit), d(sc.Duration)
		m["preAllocatedVUs"], m["maxVUs"] = sc.PreAllocatedVUs, sc.MaxVUs
	case scenario.RampingArrivalRate:
		m["startRate"], m["timeUnit"], m["stages"] = sc.StartRate, d(sc.TimeUnit), stages()
		m["preAllocatedVUs"], m["maxVUs"] = sc.PreAllocatedVUs, sc.MaxVUs
	}
	return m
}
