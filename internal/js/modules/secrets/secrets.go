// Package secrets is the native `k6/secrets` module: get(key) reads a secret from the
// default secret source of the run (--secret-source, K6_SECRET_SOURCE) and
// source(name).get(key) from a named one, each as a Promise of a string. The values
// are redacted from the log (package secretsource); a secret that is not found rejects
// the promise with an error naming the source and the key, never a value.
package secrets

import (
	"context"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/secretsource"
)

// Provider is what a VU must implement to give the module the run's sources. A VU
// without it has none: every get rejects.
type Provider interface {
	Secrets() *secretsource.Set
}

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m := &instance{vu: vu}
		if p, ok := vu.(Provider); ok {
			m.set = p.Secrets()
		}
		return modules.Exports{Named: map[string]any{
			"get":    m.getter(""),
			"source": m.source,
		}}, nil
	})
}

type instance struct {
	vu  modules.VU
	set *secretsource.Set
}

// source is source(name): an object whose get(key) reads from the named source. An
// unknown name rejects its gets, naming the sources there are.
func (m *instance) source(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	name := call.Argument(0)
	if sobek.IsUndefined(name) || sobek.IsNull(name) || name.String() == "" {
		panic(rt.NewTypeError("secrets.source: expected the name of a secret source"))
	}
	o := rt.NewObject()
	if err := o.Set("get", m.getter(name.String())); err != nil {
		modules.Throw(rt, err)
	}
	return o
}

// getter returns get(key) on the named source ("" the default one).
func (m *instance) getter(source string) func(sobek.FunctionCall) sobek.Value {
	return func(call sobek.FunctionCall) sobek.Value {
		rt := m.vu.Runtime()
		key := call.Argument(0)
		if sobek.IsUndefined(key) || sobek.IsNull(key) {
			panic(rt.NewTypeError("secrets.get: expected the key of a secret"))
		}
		ctx := context.Background()
		if st := m.vu.State(); st != nil {
			ctx = st.Context()
		}
		// The sources Tidemark has are in memory: the promise settles at once, and its
		// reactions run as the script's next microtasks.
		p, resolve, reject := rt.NewPromise()
		v, err := m.set.Get(ctx, source, key.String())
		if err != nil {
			_ = reject(rt.NewGoError(err))
		} else {
			_ = resolve(rt.ToValue(v))
		}
		return rt.ToValue(p)
	}
}
