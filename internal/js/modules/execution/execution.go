// Package execution is the native `k6/execution` module: vu (with metrics.tags),
// scenario, instance, test.options, test.abort and test.fail (reference/k6-js.md
// §2.5). vu.metrics.metadata is the VU's sample metadata (its samples carry it). The "in test" numbers with an execution segment throw naming themselves
// rather than reading as undefined. instance.vusActive counts the VUs running an iteration now.
package execution

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/scenario"
)

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m := &instance{vu: vu}
		rt := vu.Runtime()
		named := map[string]any{}
		for name, props := range map[string][]prop{
			"vu": {
				{"idInInstance", m.vuID}, {"idInTest", m.inTest("vu.idInTest", m.vuID)},
				{"iterationInInstance", m.iter}, {"iterationInScenario", m.iter},
				{"metrics", m.vuMetrics}, {"tags", m.vuTags},
			},
			"scenario": {
				{"name", m.scenarioName}, {"executor", m.executor}, {"startTime", m.startTime},
				{"progress", m.progress},
				{"iterationInInstance", m.scenarioIter},
				{"iterationInTest", m.inTest("scenario.iterationInTest", m.scenarioIter)},
			},
			"instance": {
				{"iterationsCompleted", m.counts(0)}, {"iterationsInterrupted", m.counts(1)},
				{"vusInitialized", m.counts(2)}, {"vusActive", m.counts(3)},
				{"currentTestRunDuration", m.runDuration},
			},
			"test": {
				{"options", m.options},
			},
		} {
			o := rt.NewObject()
			for _, p := range props {
				if err := o.DefineAccessorProperty(p.name, rt.ToValue(p.get), nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE); err != nil {
					return nil, fmt.Errorf("k6/execution: %w", err)
				}
			}
			named[name] = o
		}
		test := named["test"].(*sobek.Object)
		if err := test.Set("abort", m.abort); err != nil {
			return nil, fmt.Errorf("k6/execution: %w", err)
		}
		if err := test.Set("fail", m.testFail); err != nil {
			return nil, fmt.Errorf("k6/execution: %w", err)
		}
		return modules.Exports{Named: named}, nil
	})
}

type prop struct {
	name string
	get  func(sobek.FunctionCall) sobek.Value
}

type instance struct {
	vu      modules.VU
	tagsObj *sobek.Object // vu.metrics.tags, made on first use
	metaObj *sobek.Object // vu.metrics.metadata, made on first use
	metrics *sobek.Object // vu.metrics
}

// state returns the VU's state or throws in the init context, as k6 does for VU
// information.
func (m *instance) state(what string) *modules.State {
	st := m.vu.State()
	if st == nil {
		modules.Throw(m.vu.Runtime(), fmt.Errorf("k6/execution %s: %w", what, modules.ErrVUContext))
	}
	return st
}

func (m *instance) vuID(sobek.FunctionCall) sobek.Value {
	return m.vu.Runtime().ToValue(m.state("vu").VU)
}

func (m *instance) iter(sobek.FunctionCall) sobek.Value {
	return m.vu.Runtime().ToValue(m.state("vu").Iteration)
}

func (m *instance) scenarioName(sobek.FunctionCall) sobek.Value {
	st := m.state("scenario")
	if st.Scenario == nil {
		modules.Throw(m.vu.Runtime(), errors.New("k6/execution scenario: no scenario in setup, teardown and handleSummary"))
	}
	return m.vu.Runtime().ToValue(st.Scenario.Name)
}

func (m *instance) executor(sobek.FunctionCall) sobek.Value {
	st := m.state("scenario")
	if st.Scenario == nil {
		modules.Throw(m.vu.Runtime(), errors.New("k6/execution scenario: no scenario in setup, teardown and handleSummary"))
	}
	return m.vu.Runtime().ToValue(string(st.Scenario.Executor))
}

func (m *instance) scenarioIter(sobek.FunctionCall) sobek.Value {
	st := m.state("scenario")
	if st.Scenario == nil {
		modules.Throw(m.vu.Runtime(), errors.New("k6/execution scenario: no scenario in setup, teardown and handleSummary"))
	}
	return m.vu.Runtime().ToValue(st.ScenarioIteration)
}

// startTime is the scenario's start in Unix milliseconds.
func (m *instance) startTime(sobek.FunctionCall) sobek.Value {
	st := m.state("scenario")
	if st.Scenario == nil || st.Exec == nil || st.Exec.TestStart().IsZero() {
		modules.Throw(m.vu.Runtime(), errors.New("k6/execution scenario.startTime: the scenario has not started"))
	}
	return m.vu.Runtime().ToValue(st.Exec.TestStart().Add(st.Scenario.StartTime).UnixMilli())
}

func (m *instance) counts(i int) func(sobek.FunctionCall) sobek.Value {
	return func(sobek.FunctionCall) sobek.Value {
		st := m.state("instance")
		c, in, v, a := st.Exec.Counts()
		return m.vu.Runtime().ToValue([]int64{c, in, v, a}[i])
	}
}

// runDuration is the time since the run started, in float milliseconds.
func (m *instance) runDuration(sobek.FunctionCall) sobek.Value {
	st := m.state("instance")
	start := st.Exec.TestStart()
	if start.IsZero() {
		return m.vu.Runtime().ToValue(0)
	}
	return m.vu.Runtime().ToValue(float64(time.Since(start)) / float64(time.Millisecond))
}

// inTest is a property "in the test": the instance's own value when this instance
// runs the whole test; with an execution segment Tidemark does not compute it.
func (m *instance) inTest(what string, get func(sobek.FunctionCall) sobek.Value) func(sobek.FunctionCall) sobek.Value {
	return func(call sobek.FunctionCall) sobek.Value {
		st := m.state(what)
		if st.Exec != nil && !st.Exec.SingleInstance() {
			modules.Throw(m.vu.Runtime(), fmt.Errorf("k6/execution %s is not supported by Tidemark with an execution segment", what))
		}
		return get(call)
	}
}

// progress is the scenario's progress, 0 to 1: elapsed time over its duration, or
// for the iteration executors, the iterations started over the iterations to run.
func (m *instance) progress(sobek.FunctionCall) sobek.Value {
	st := m.state("scenario")
	sc := st.Scenario
	if sc == nil {
		modules.Throw(m.vu.Runtime(), errors.New("k6/execution scenario: no scenario in setup, teardown and handleSummary"))
	}
	var p float64
	switch sc.Executor {
	case scenario.SharedIterations:
		p = float64(st.ScenarioIteration) / float64(max(sc.Iterations, 1))
	case scenario.PerVUIterations:
		p = float64(st.ScenarioIteration) / float64(max(sc.Iterations*sc.VUs, 1))
	default:
		total := sc.Duration
		for _, s := range sc.Stages {
			total += s.Duration
		}
		if start := st.Exec.TestStart(); !start.IsZero() && total > 0 {
			p = float64(time.Since(start.Add(sc.StartTime))) / float64(total)
		}
	}
	return m.vu.Runtime().ToValue(min(max(p, 0), 1))
}

// options is test.options, the resolved options as an object, with every option
// k6 has that the test does not set as null (k6's docs: "It returns null for
// properties where the relative option hasn't been defined").
func (m *instance) options(sobek.FunctionCall) sobek.Value {
	st := m.state("test.options")
	rt := m.vu.Runtime()
	parse, _ := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
	v, err := parse(sobek.Undefined(), rt.ToValue(string(st.Exec.Options())))
	if err != nil {
		panic(err)
	}
	if o, ok := v.(*sobek.Object); ok {
		for _, k := range k6OptionKeys() {
			if o.Get(k) == nil {
				_ = o.Set(k, sobek.Null())
			}
		}
	}
	return v
}

// k6OptionKeys are the options k6's test.options shows: those of @types/k6's
// Options, and the ones k6 takes beyond them.
func k6OptionKeys() []string {
	return []string{
		"batch", "batchPerHost", "blacklistIPs", "blockHostnames", "cloud", "discardResponseBodies", "dns",
		"duration", "executionSegment", "executionSegmentSequence", "ext", "handleSummaryTimeout", "hosts",
		"httpDebug", "insecureSkipTLSVerify", "iterations", "linger", "localIPs", "maxRedirects",
		"minIterationDuration", "noConnectionReuse", "noCookiesReset", "noSetup", "noTeardown", "noUsageReport",
		"noVUConnectionReuse", "paused", "rps", "scenarios", "setupTimeout", "stages", "summaryTimeUnit",
		"summaryTrendStats", "systemTags", "tags", "teardownTimeout", "thresholds", "throw", "tlsAIAFetch",
		"tlsAuth", "tlsCipherSuites", "tlsVersion", "userAgent", "vus", "vusMax",
	}
}

// vuMetrics is vu.metrics: tags and metadata.
func (m *instance) vuMetrics(sobek.FunctionCall) sobek.Value {
	m.state("vu.metrics")
	if m.metrics == nil {
		rt := m.vu.Runtime()
		o := rt.NewObject()
		if err := o.DefineAccessorProperty("tags", rt.ToValue(m.vuTags), nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE); err != nil {
			panic(err)
		}
		if err := o.DefineAccessorProperty("metadata", rt.ToValue(m.vuMetadata), nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE); err != nil {
			panic(err)
		}
		m.metrics = o
	}
	return m.metrics
}

// vuTags is vu.metrics.tags (and the deprecated vu.tags): the VU's tags, read and
// written as strings.
func (m *instance) vuTags(sobek.FunctionCall) sobek.Value {
	m.state("vu.metrics.tags")
	if m.tagsObj == nil {
		m.tagsObj = m.vu.Runtime().NewDynamicObject(&vuMap{m: m, name: "vu.metrics.tags",
			get:  func(st *modules.State, k string) (string, bool) { return st.VUTag(k) },
			set:  func(st *modules.State, k, v string, del bool) { st.SetVUTag(k, v, del) },
			keys: func(st *modules.State) []string { return st.VUTagKeys() },
		})
	}
	return m.tagsObj
}

// vuMetadata is vu.metrics.metadata: the VU's sample metadata (a trace_id), read
// and written as strings like the tags, but never a tag: it splits no series and
// thresholds cannot select it.
func (m *instance) vuMetadata(sobek.FunctionCall) sobek.Value {
	m.state("vu.metrics.metadata")
	if m.metaObj == nil {
		m.metaObj = m.vu.Runtime().NewDynamicObject(&vuMap{m: m, name: "vu.metrics.metadata",
			get: func(st *modules.State, k string) (string, bool) {
				v, ok := st.Metadata()[k]
				return v, ok
			},
			set:  func(st *modules.State, k, v string, del bool) { st.SetMetadata(k, v, del) },
			keys: func(st *modules.State) []string { return slices.Sorted(maps.Keys(st.Metadata())) },
		})
	}
	return m.metaObj
}

// vuMap is the dynamic object of vu.metrics.tags or vu.metrics.metadata: string
// values kept in the VU's state.
type vuMap struct {
	m    *instance
	name string
	get  func(st *modules.State, key string) (string, bool)
	set  func(st *modules.State, key, val string, del bool)
	keys func(st *modules.State) []string
}

func (v *vuMap) st() *modules.State { return v.m.state(v.name) }

func (v *vuMap) Get(key string) sobek.Value {
	if val, ok := v.get(v.st(), key); ok {
		return v.m.vu.Runtime().ToValue(val)
	}
	return nil
}

// Set keeps strings, numbers and booleans as strings; an object or array is dropped
// with a warning, as k6 does without --throw.
func (v *vuMap) Set(key string, val sobek.Value) bool {
	if _, isObj := val.(*sobek.Object); isObj {
		v.m.vu.Logger().Warn("Dropped a value that is not a string, number or boolean", "object", v.name, "key", key)
		return true
	}
	v.set(v.st(), key, val.String(), false)
	return true
}

func (v *vuMap) Has(key string) bool {
	_, ok := v.get(v.st(), key)
	return ok
}

func (v *vuMap) Delete(key string) bool {
	v.set(v.st(), key, "", true)
	return true
}

func (v *vuMap) Keys() []string { return v.keys(v.st()) }

// abort stops the run (exit code 108); teardown still runs. The script cannot catch
// it: the runtime is interrupted.
func (m *instance) abort(call sobek.FunctionCall) sobek.Value {
	reason := ""
	if a := call.Argument(0); !sobek.IsUndefined(a) {
		reason = a.String()
	}
	m.vu.Runtime().Interrupt(&modules.AbortError{Reason: reason})
	return sobek.Undefined()
}

// testFail marks the run as failed (exit code 110); the run and the iteration go on.
func (m *instance) testFail(call sobek.FunctionCall) sobek.Value {
	st := m.state("test.fail")
	reason := ""
	if a := call.Argument(0); !sobek.IsUndefined(a) {
		reason = a.String()
	}
	st.Exec.MarkFailed(reason)
	return sobek.Undefined()
}
