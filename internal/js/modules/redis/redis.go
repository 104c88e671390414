// Package redis is the native `k6/x/redis` module (k6 v1's `k6/experimental/redis`):
// new redis.Client(url or options) with the methods k6 documents, each returning a
// Promise that settles on the VU's event loop (modules.State.Loop), so an iteration
// ends only when its Redis calls are done. It talks to Redis with go-redis: a single
// server, a cluster (cluster.nodes) or a sentinel (masterName), over TCP or TLS
// (rediss:// or socket.tls with ca, cert and key).
//
// The client is made in the init context and connects on its first command; commands
// are not available in the init context, as k6's protocol calls are not.
package redis

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/grafana/sobek"
	goredis "github.com/redis/go-redis/v9"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// New returns the module as k6/x/redis.
func New() modules.Module { return newModule(false) }

// Experimental returns the module as k6/experimental/redis, which k6 v2 removed for
// k6/x/redis: the first runtime that imports it logs a warning saying so.
func Experimental() modules.Module { return newModule(true) }

func newModule(warn bool) modules.Module {
	var once sync.Once
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		if warn {
			once.Do(func() {
				vu.Logger().Warn("k6/experimental/redis was removed in k6 v2; import k6/x/redis (the same Client)")
			})
		}
		m := &module{vu: vu}
		return modules.Exports{Named: map[string]any{"Client": m.newClient}}, nil
	})
}

type module struct{ vu modules.VU }

// newClient is `new Client(urlOrOptions)`.
func (m *module) newClient(call sobek.ConstructorCall) *sobek.Object {
	rt := m.vu.Runtime()
	c, err := newClient(call.Argument(0))
	if err != nil {
		panic(rt.NewTypeError("redis.Client: " + err.Error()))
	}
	cl := &client{vu: m.vu, c: c}
	o := call.This
	for name, f := range cl.methods() {
		if err := o.Set(name, f); err != nil {
			modules.Throw(rt, err)
		}
	}
	return o
}

// client is one redis.Client.
type client struct {
	vu modules.VU
	c  goredis.UniversalClient
}

// result converts a command's reply to JavaScript on the VU's goroutine.
type result func(rt *sobek.Runtime) sobek.Value

// async runs do off the VU's goroutine and returns a Promise settled with its
// result on the VU's event loop.
func (cl *client) async(what string, do func(ctx context.Context) (result, error)) sobek.Value {
	rt := cl.vu.Runtime()
	if err := modules.VUOnly(cl.vu, "redis.Client."+what); err != nil {
		modules.Throw(rt, err)
	}
	st := cl.vu.State()
	p, resolve, reject := rt.NewPromise()
	done := st.Loop.RegisterCallback()
	ctx := st.Context()
	go func() {
		res, err := do(ctx)
		done(func() error {
			if err != nil {
				if errors.Is(err, goredis.Nil) {
					err = fmt.Errorf("redis.Client.%s: %w (no such key or element)", what, err)
				} else {
					err = fmt.Errorf("redis.Client.%s: %w", what, err)
				}
				return reject(rt.NewGoError(err))
			}
			return resolve(res(rt))
		})
	}()
	return rt.ToValue(p)
}
