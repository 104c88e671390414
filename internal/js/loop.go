package js

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
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

	// rejected are the promises rejected with no handler yet (sobek's rejection
	// tracker), in the order they were rejected: k6 reports them as uncaught.
	rejected []*sobek.Promise
}

var _ modules.Loop = (*loop)(nil)

type timer struct {
	t    *time.Timer
	done func(func() error) // the reservation, released when cleared
	due  time.Time
	fire func() error // runs the timer's function (and re-arms an interval)
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

var _ modules.Poster = (*loop)(nil)

// Post queues cb without a reservation: it runs if the loop runs before the
// iteration ends, and is dropped otherwise.
func (l *loop) Post(cb func() error) {
	l.mu.Lock()
	l.queue = append(l.queue, cb)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// run runs the queued callbacks until nothing is queued or reserved; it returns the
// first callback's error (a rejected promise no handler took is one, k6's
// "Uncaught (in promise)"), or ctx's when it ends first.
func (l *loop) run(ctx context.Context) error {
	return l.runUntil(ctx, func() bool { return false })
}

// runUntil is run that also returns once done() holds, checked after every callback.
func (l *loop) runUntil(ctx context.Context, done func() bool) error {
	if err := l.uncaught(); err != nil {
		return err
	}
	for !done() {
		l.mu.Lock()
		q, reserved := l.queue, l.reserved
		l.queue = nil
		l.mu.Unlock()
		for i, cb := range q {
			err := cb()
			if err == nil {
				err = l.uncaught()
			}
			if err != nil {
				return err
			}
			if done() {
				l.requeue(q[i+1:])
				return nil
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
	return nil
}

// requeue puts callbacks runUntil did not run back at the head of the queue.
func (l *loop) requeue(q []func() error) {
	if len(q) == 0 {
		return
	}
	l.mu.Lock()
	l.queue = append(q, l.queue...)
	l.mu.Unlock()
}

// track is the runtime's promise rejection tracker: a promise rejected with no
// handler is uncaught until a handler is added.
func (l *loop) track(p *sobek.Promise, op sobek.PromiseRejectionOperation) {
	if op == sobek.PromiseRejectionReject {
		l.rejected = append(l.rejected, p)
		return
	}
	l.forget(p)
}

// forget stops tracking p's rejection: the runtime reads it itself.
func (l *loop) forget(p *sobek.Promise) {
	l.rejected = slices.DeleteFunc(l.rejected, func(q *sobek.Promise) bool { return q == p })
}

// uncaught returns the first rejection no handler took since the last call, as k6
// reports it ("Uncaught (in promise) Error: ..."), and forgets them all.
func (l *loop) uncaught() error {
	if len(l.rejected) == 0 {
		return nil
	}
	p := l.rejected[0]
	l.rejected = l.rejected[:0]
	return newRejection(p.Result())
}

// reset drops what the iteration left: timers, queued and reserved callbacks.
func (l *loop) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gen++
	l.queue, l.reserved = nil, 0
	l.rejected = nil
	for id, t := range l.timers {
		t.t.Stop()
		delete(l.timers, id)
	}
}

// timerGlobals defines setTimeout, clearTimeout, setInterval and clearInterval on
// the VU's global object (k6 has them as globals and in k6/timers).
func (v *vu) timerGlobals() map[string]any {
	l := v.loop
	add := func(call sobek.FunctionCall, name string, repeat bool) sobek.Value {
		fn, ok := sobek.AssertFunction(call.Argument(0))
		if !ok {
			modules.Throw(v.rt, fmt.Errorf("%s: expected a function as the first argument", name))
		}
		d := max(time.Duration(call.Argument(1).ToFloat()*float64(time.Millisecond)), 0)
		var args []sobek.Value
		if len(call.Arguments) > 2 {
			args = call.Arguments[2:]
		}
		l.mu.Lock()
		l.nextID++
		id := l.nextID
		l.mu.Unlock()
		t := &timer{}
		t.fire = func() error {
			if repeat {
				l.arm(id, t, d)
			}
			_, err := fn(sobek.Undefined(), args...)
			return err
		}
		l.arm(id, t, d)
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
		"setTimeout":    func(call sobek.FunctionCall) sobek.Value { return add(call, "setTimeout", false) },
		"setInterval":   func(call sobek.FunctionCall) sobek.Value { return add(call, "setInterval", true) },
		"clearTimeout":  clearTimer,
		"clearInterval": clearTimer,
	}
}

// arm schedules timer id to fire in d: the loop waits for it until it fires or is
// cleared.
func (l *loop) arm(id int64, t *timer, d time.Duration) {
	done := l.RegisterCallback()
	l.mu.Lock()
	defer l.mu.Unlock()
	t.done, t.due = done, time.Now().Add(d)
	l.timers[id] = t
	t.t = time.AfterFunc(d, func() { done(l.fireDue) })
}

// fireDue runs the timers due now, earliest first and, at the same time, in the order
// they were set, whichever of their Go timers fired first.
func (l *loop) fireDue() error {
	type dueTimer struct {
		id  int64
		t   *timer
		due time.Time
	}
	l.mu.Lock()
	now := time.Now()
	var due []dueTimer
	for id, t := range l.timers {
		if !t.due.After(now) {
			due = append(due, dueTimer{id, t, t.due})
		}
	}
	l.mu.Unlock()
	slices.SortFunc(due, func(a, b dueTimer) int {
		return cmp.Or(a.due.Compare(b.due), cmp.Compare(a.id, b.id))
	})
	for _, d := range due {
		l.mu.Lock()
		t, live := l.timers[d.id]
		live = live && t == d.t && t.due.Equal(d.due)
		if live {
			delete(l.timers, d.id)
		}
		l.mu.Unlock()
		if !live {
			continue
		}
		if err := t.fire(); err != nil {
			return err
		}
	}
	return nil
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
