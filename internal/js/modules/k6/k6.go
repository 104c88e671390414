// Package k6 is the native `k6` module: check, group, sleep, fail and randomSeed
// (reference/k6-js.md §2.1). It is the reference example of a module (see package
// modules).
package k6

import (
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
)

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m := &instance{vu: vu, checkTags: map[checkKey]*metrics.TagSet{}}
		return modules.Exports{Named: map[string]any{
			"check":      m.check,
			"group":      m.group,
			"sleep":      m.sleep,
			"fail":       m.fail,
			"randomSeed": m.randomSeed,
		}}, nil
	})
}

// instance is the module in one VU.
type instance struct {
	vu modules.VU
	// checkTags caches the tag sets of checks without extra tags.
	checkTags map[checkKey]*metrics.TagSet
}

type checkKey struct {
	base *metrics.TagSet
	name string
}

// check runs every function of sets on val; each adds one `checks` sample tagged
// check=<name>, the current group and the extra tags. It returns true only if all
// passed.
func (m *instance) check(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	st := m.vu.State()
	if err := modules.VUOnly(m.vu, "check"); err != nil {
		modules.Throw(rt, err)
	}
	val, obj, extra := modules.CheckArgs(rt, call)
	all := true
	now := time.Now()
	keys := obj.Keys()
	samples := make([]metrics.Sample, 0, len(keys))
	for _, name := range keys {
		v := obj.Get(name)
		pass := v.ToBoolean()
		if fn, ok := sobek.AssertFunction(v); ok {
			res, err := fn(sobek.Undefined(), val)
			if err != nil {
				panic(err)
			}
			pass = res.ToBoolean()
		}
		value := 0.0
		if pass {
			value = 1
		} else {
			all = false
		}
		// Each check a nanosecond after the one before: the summary lists checks in
		// the order first seen, so that those of one call keep the order the script
		// declares them in (k6's), not their names' order.
		at := now.Add(time.Duration(len(samples)))
		samples = append(samples, metrics.Sample{Metric: st.Env.Metrics.Checks, Tags: m.tagsOf(st, name, extra), Time: at, Value: value, Metadata: st.Metadata()})
	}
	if len(samples) > 0 {
		st.Env.Pusher.Push(samples)
	}
	return rt.ToValue(all)
}

func (m *instance) tagsOf(st *modules.State, name string, extra []metrics.Tag) *metrics.TagSet {
	if len(extra) > 0 {
		return st.Env.Pool.With(st.Tags(), append([]metrics.Tag{{Key: "check", Value: name}}, extra...)...)
	}
	k := checkKey{base: st.Tags(), name: name}
	if t, ok := m.checkTags[k]; ok {
		return t
	}
	t := st.Env.Pool.With(st.Tags(), metrics.Tag{Key: "check", Value: name})
	m.checkTags[k] = t
	return t
}

// group runs fn inside the group name and emits its group_duration.
func (m *instance) group(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	if err := modules.VUOnly(m.vu, "group"); err != nil {
		modules.Throw(rt, err)
	}
	st := m.vu.State()
	name := call.Argument(0).String()
	if name == "" || strings.Contains(name, "::") {
		modules.Throw(rt, errors.New("group: a group name must be non-empty and must not contain '::'"))
	}
	fn, ok := sobek.AssertFunction(call.Argument(1))
	if !ok {
		modules.Throw(rt, errors.New("group: expected a function as the second argument"))
	}
	if isAsync(rt, call.Argument(1)) {
		// k6 rejects them: the group would end before the function does.
		modules.Throw(rt, errors.New("group: async functions are not supported"))
	}
	parent := st.Group()
	st.SetGroup(parent + "::" + name)
	defer st.SetGroup(parent)
	start := time.Now()
	res, err := fn(sobek.Undefined())
	if err != nil {
		panic(err)
	}
	end := time.Now()
	st.Env.Pusher.Push([]metrics.Sample{{Metric: st.Env.Metrics.GroupDuration, Tags: st.Tags(), Time: end, Value: end.Sub(start).Seconds(), Metadata: st.Metadata()}})
	return res
}

// isAsync reports whether fn is an async function.
func isAsync(rt *sobek.Runtime, fn sobek.Value) bool {
	c := fn.ToObject(rt).Get("constructor")
	if c == nil || sobek.IsUndefined(c) {
		return false
	}
	n := c.ToObject(rt).Get("name")
	return n != nil && n.String() == "AsyncFunction"
}

// sleep waits t seconds or until the iteration's context is done.
func (m *instance) sleep(call sobek.FunctionCall) sobek.Value {
	secs := call.Argument(0).ToFloat()
	if secs <= 0 {
		return sobek.Undefined()
	}
	d := time.Duration(secs * float64(time.Second))
	t := time.NewTimer(d)
	defer t.Stop()
	var done <-chan struct{}
	if st := m.vu.State(); st != nil {
		done = st.Context().Done()
	}
	select {
	case <-done:
	case <-t.C:
	}
	return sobek.Undefined()
}

// fail throws: the current iteration ends, the test goes on.
func (m *instance) fail(call sobek.FunctionCall) sobek.Value {
	msg := "fail"
	if a := call.Argument(0); !sobek.IsUndefined(a) {
		msg = a.String()
	}
	modules.Throw(m.vu.Runtime(), errors.New(msg))
	return nil
}

// randomSeed makes Math.random of this VU repeatable.
func (m *instance) randomSeed(call sobek.FunctionCall) sobek.Value {
	seed := uint64(call.Argument(0).ToInteger())
	r := rand.New(rand.NewPCG(seed, seed))
	m.vu.Runtime().SetRandSource(r.Float64)
	return sobek.Undefined()
}
