package js

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// loop is a VU's event loop: callbacks that asynchronous APIs (timers, and modules
// through modules.Loop) queue from any goroutine run on the VU's goroutine, after the
// iteration's function returns and until none is queued or reserved. It is reset
// after every iteration: late callbacks of an interrupted iteration are dropped.
type loop struct {
	mu       sync.Mutex
	gen      uint64 // the iteration the reservations belong to
	queue    []func() error
	reserved int
	wake     chan struct{}

	timers map[int64]*timer
	nextID int64
}

var _ modules.Loop = (*loop)(nil)

type timer struct {
	t    *time.Timer
	done func(func() error) // the reservation, released when cleared
}

func newLoop() *loop {
	return &loop{wake: make(chan struct{}, 1), timers: map[int64]*timer{}}
}

// RegisterCallback reserves a callback: the loop waits for it. The returned function
// queues cb to run on the VU's goroutine; it may be called from any goroutine, and
// only its first call counts.
func (l *loop) RegisterCallback() func(cb func() error) {
	l.mu.Lock()
	gen := l.gen
	l.reserved++
	l.mu.Unlock()
	var once sync.Once
	return func(cb func() error) {
		once.Do(func() {
			l.mu.Lock()
			if l.gen == gen {
				l.queue = append(l.queue, cb)
				l.reserved--
			}
			l.mu.Unlock()
			select {
			case l.wake <- struct{}{}:
			default:
			}
		})
	}
}

// run runs the queued callbacks until nothing is queued or reserved; it returns the
// first callback's error, or ctx's when it ends first.
func (l *loop) run(ctx context.Context) error {
	for {
		l.mu.Lock()
		q, reserved := l.queue, l.reserved
		l.queue = nil
		l.mu.Unlock()
		for _, cb := range q {
			if err := cb(); err != nil {
				return err
			}
		}
		if len(q) > 0 {
			continue
		}
		if reserved == 0 {
			return nil
		}
		select {
		case <-l.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// reset drops what the iteration left: timers, queued and reserved callbacks.
func (l *loop) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gen++
	l.queue, l.reserved = nil, 0
	for id, t := range l.timers {
		t.t.Stop()
		delete(l.timers, id)
	}
}

// timerGlobals defines setTimeout, clearTimeout, setInterval and clearInterval on
// the VU's global object (k6 has them as globals and in k6/timers).
func (v *vu) timerGlobals() map[string]any {
	l := v.loop
	add := func(call sobek.FunctionCall, repeat bool) sobek.Value {
		fn, ok := sobek.AssertFunction(call.Argument(0))
		if !ok {
			modules.Throw(v.rt, errors.New("setTimeout: expected a function as the first argument"))
		}
		d := time.Duration(call.Argument(1).ToFloat() * float64(time.Millisecond))
		d = max(d, 0)
		var args []sobek.Value
		if len(call.Arguments) > 2 {
			args = call.Arguments[2:]
		}
		l.mu.Lock()
		l.nextID++
		id := l.nextID
		l.mu.Unlock()
		var arm func()
		arm = func() {
			done := l.RegisterCallback()
			t := &timer{done: done}
			l.mu.Lock()
			l.timers[id] = t
			t.t = time.AfterFunc(d, func() {
				done(func() error {
					l.mu.Lock()
					_, live := l.timers[id]
					if live && !repeat {
						delete(l.timers, id)
					}
					l.mu.Unlock()
					if !live {
						return nil
					}
					if repeat {
						arm()
					}
					if _, err := fn(sobek.Undefined(), args...); err != nil {
						return err
					}
					return nil
				})
			})
			l.mu.Unlock()
		}
		arm()
		return v.rt.ToValue(id)
	}
	clearTimer := func(call sobek.FunctionCall) sobek.Value {
		id := call.Argument(0).ToInteger()
		l.mu.Lock()
		t, ok := l.timers[id]
		delete(l.timers, id)
		l.mu.Unlock()
		if ok && t.t.Stop() {
			t.done(func() error { return nil }) // release its reservation
		}
		return sobek.Undefined()
	}
	return map[string]any{
		"setTimeout":    func(call sobek.FunctionCall) sobek.Value { return add(call, false) },
		"setInterval":   func(call sobek.FunctionCall) sobek.Value { return add(call, true) },
		"clearTimeout":  clearTimer,
		"clearInterval": clearTimer,
	}
}

// timersModule is k6/timers: the timer globals as a module.
func timersModule() modules.Module {
	return modules.ModuleFunc(func(mv modules.VU) (modules.Instance, error) {
		v, ok := mv.(*vu)
		if !ok {
			return nil, errors.New("k6/timers: not a Tidemark VU")
		}
		return modules.Exports{Named: v.timerGlobals()}, nil
	})
}
