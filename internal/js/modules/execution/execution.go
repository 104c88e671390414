// Package execution is the native `k6/execution` module: vu, scenario, instance and
// test.abort (reference/k6-js.md §2.5). Properties Tidemark does not have throw
// naming themselves rather than reading as undefined.
package execution

import (
	"errors"
	"fmt"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m := &instance{vu: vu}
		rt := vu.Runtime()
		named := map[string]any{}
		for name, props := range map[string][]prop{
			"vu": {
				{"idInInstance", m.vuID}, {"idInTest", m.vuID},
				{"iterationInInstance", m.iter}, {"iterationInScenario", m.iter},
				{"metrics", m.unsupported("vu.metrics")}, {"tags", m.unsupported("vu.tags")},
			},
			"scenario": {
				{"name", m.scenarioName}, {"executor", m.executor}, {"startTime", m.startTime},
				{"progress", m.unsupported("scenario.progress")},
				{"iterationInInstance", m.scenarioIter},
				{"iterationInTest", m.unsupported("scenario.iterationInTest")},
			},
			"instance": {
				{"iterationsCompleted", m.counts(0)}, {"iterationsInterrupted", m.counts(1)},
				{"vusInitialized", m.counts(2)}, {"currentTestRunDuration", m.runDuration},
				{"vusActive", m.unsupported("instance.vusActive")},
			},
			"test": {
				{"options", m.unsupported("test.options")},
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
	vu modules.VU
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
		c, in, v := st.Exec.Counts()
		return m.vu.Runtime().ToValue([]int64{c, in, v}[i])
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

func (m *instance) unsupported(what string) func(sobek.FunctionCall) sobek.Value {
	return func(sobek.FunctionCall) sobek.Value {
		modules.Throw(m.vu.Runtime(), fmt.Errorf("k6/execution %s is not supported by Tidemark", what))
		return nil
	}
}

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

func (m *instance) testFail(sobek.FunctionCall) sobek.Value {
	modules.Throw(m.vu.Runtime(), errors.New("k6/execution test.fail is not supported by Tidemark"))
	return nil
}
