package scenario

import "time"

// K6Options returns the test in k6's option names, as `k6 inspect
// --execution-requirements` and a script's test.options show it: every scenario with
// the options its executor takes (exec gives the function each runs; nil leaves it
// out), the thresholds, tags and summary options. Durations are Go duration strings
// (30s, 1m0s), which k6 accepts.
func (t *Test) K6Options(exec func(scenario string) string) map[string]any {
	scens := map[string]any{}
	for _, sc := range t.Scenarios {
		e := ""
		if exec != nil {
			e = exec(sc.Name)
		}
		scens[sc.Name] = sc.K6Options(e)
	}
	out := map[string]any{"scenarios": scens}
	if len(t.Thresholds) > 0 {
		ths := map[string]any{}
		for k, list := range t.Thresholds {
			var items []any
			for _, th := range list {
				if !th.AbortOnFail && th.DelayAbortEval == 0 && th.Window == 0 {
					items = append(items, th.Expr)
					continue
				}
				o := map[string]any{"threshold": th.Expr, "abortOnFail": th.AbortOnFail}
				if th.DelayAbortEval > 0 {
					o["delayAbortEval"] = th.DelayAbortEval.String()
				}
				if th.Window > 0 {
					o["window"] = th.Window.String() // Tidemark's; k6 rejects it
				}
				items = append(items, o)
			}
			ths[k] = items
		}
		out["thresholds"] = ths
	}
	if len(t.Tags) > 0 {
		out["tags"] = t.Tags
	}
	if len(t.SummaryTrendStats) > 0 {
		out["summaryTrendStats"] = t.SummaryTrendStats
	}
	if t.SummaryTimeUnit != "" {
		out["summaryTimeUnit"] = t.SummaryTimeUnit
	}
	if len(t.SummaryBreakdown) > 0 {
		out["summaryBreakdown"] = t.SummaryBreakdown
		out["summaryBreakdownLimit"] = t.BreakdownLimit()
	}
	if len(t.SystemTags) > 0 {
		out["systemTags"] = t.SystemTags
	}
	if t.MaxRedirects > 0 {
		out["maxRedirects"] = t.MaxRedirects
	}
	if t.UserAgent != "" {
		out["userAgent"] = t.UserAgent
	}
	if t.InsecureSkipTLSVerify {
		out["insecureSkipTLSVerify"] = true
	}
	return out
}

// K6Options is one scenario in k6's option names, with the options its executor takes;
// exec is the function it runs ("" leaves it out).
func (sc *Scenario) K6Options(exec string) map[string]any {
	d := func(v time.Duration) string { return v.String() }
	m := map[string]any{"executor": string(sc.Executor), "startTime": d(sc.StartTime), "gracefulStop": d(sc.GracefulStop)}
	if exec != "" {
		m["exec"] = exec
	}
	if len(sc.Tags) > 0 {
		m["tags"] = sc.Tags
	}
	if len(sc.Env) > 0 {
		m["env"] = sc.Env
	}
	if sc.Browser != "" {
		m["options"] = map[string]any{"browser": map[string]any{"type": sc.Browser}}
	}
	stages := func() []map[string]any {
		out := make([]map[string]any, 0, len(sc.Stages))
		for _, st := range sc.Stages {
			out = append(out, map[string]any{"duration": d(st.Duration), "target": st.Target})
		}
		return out
	}
	switch sc.Executor {
	case SharedIterations, PerVUIterations:
		m["vus"], m["iterations"], m["maxDuration"] = sc.VUs, sc.Iterations, d(sc.MaxDuration)
	case ConstantVUs:
		m["vus"], m["duration"] = sc.VUs, d(sc.Duration)
	case ExternallyControlled:
		m["vus"], m["maxVUs"], m["duration"] = sc.VUs, sc.MaxVUs, d(sc.Duration)
	case RampingVUs:
		m["startVUs"], m["stages"], m["gracefulRampDown"] = sc.StartVUs, stages(), d(sc.GracefulRampDown)
	case ConstantArrivalRate:
		m["rate"], m["timeUnit"], m["duration"] = sc.Rate, d(sc.TimeUnit), d(sc.Duration)
		m["preAllocatedVUs"], m["maxVUs"] = sc.PreAllocatedVUs, sc.MaxVUs
	case RampingArrivalRate:
		m["startRate"], m["timeUnit"], m["stages"] = sc.StartRate, d(sc.TimeUnit), stages()
		m["preAllocatedVUs"], m["maxVUs"] = sc.PreAllocatedVUs, sc.MaxVUs
	}
	return m
}

// BreakdownLimit is SummaryBreakdownLimit, or its default when unset.
func (t *Test) BreakdownLimit() int {
	if t.SummaryBreakdownLimit > 0 {
		return t.SummaryBreakdownLimit
	}
	return DefaultSummaryBreakdownLimit
}
