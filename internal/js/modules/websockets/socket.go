package websockets

import (
	"context"
	"errors"
	"strconv"
	"time"

	gws "github.com/gorilla/websocket"
	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/js/modules/jsbytes"
)

// event is what happens on a k6/ws socket, handled on the VU's goroutine.
type event struct {
	kind string // message, binaryMessage, ping, pong, closed, timer
	data []byte
	at   time.Time
	err  error          // closed: the read error
	fn   sobek.Callable // timer
	tick time.Duration  // timer: the interval of setInterval, 0 for setTimeout
	id   int            // timer: its key in socket.timers
}

// socket is k6/ws's Socket: its handlers run on the VU's goroutine, inside
// ws.connect, until the connection closes.
type socket struct {
	rt       *sobek.Runtime
	s        *session
	m        *wsMetrics
	handlers map[string][]sobek.Callable
	events   chan event
	done     chan struct{} // closed when run returns: the reader and timers stop posting
	timers   map[int]*time.Timer
	timerID  int
	closing  bool // close() sent a close frame
	code     int  // the code close() sent
	pings    map[string]time.Time
	nextPing int
}

func newSocket(rt *sobek.Runtime, s *session, m *wsMetrics) *socket {
	return &socket{rt: rt, s: s, m: m, handlers: map[string][]sobek.Callable{}, events: make(chan event, 16),
		done: make(chan struct{}), timers: map[int]*time.Timer{}, pings: map[string]time.Time{}}
}

// post hands ev to the loop, unless it has ended.
func (k *socket) post(ev event) {
	select {
	case k.events <- ev:
	case <-k.done:
	}
}

// read reads the connection until it fails or closes, posting what arrives.
func (k *socket) read() {
	c := k.s.conn
	c.SetPingHandler(func(data string) error {
		k.post(event{kind: "ping"})
		err := c.WriteControl(gws.PongMessage, []byte(data), time.Now().Add(time.Second))
		if errors.Is(err, gws.ErrCloseSent) {
			return nil
		}
		return err
	})
	c.SetPongHandler(func(data string) error {
		k.post(event{kind: "pong", data: []byte(data), at: time.Now()})
		return nil
	})
	for {
		typ, data, err := c.ReadMessage()
		if err != nil {
			k.post(event{kind: "closed", err: err})
			return
		}
		kind := "message"
		if typ == gws.BinaryMessage {
			kind = "binaryMessage"
		}
		k.post(event{kind: kind, data: data})
	}
}

// run calls the callback with the Socket, emits open and handles events until the
// connection closes or the iteration ends. An exception in a handler closes the
// connection and is returned.
func (k *socket) run(st *modules.State, cb sobek.Callable) (err error) {
	go k.read()
	defer k.finish()
	if _, err := cb(sobek.Undefined(), k.object()); err != nil {
		return err
	}
	if err := k.emit("open"); err != nil {
		return err
	}
	ctx := st.Context()
	for {
		select {
		case ev := <-k.events:
			end, err := k.handle(ev)
			if err != nil || end {
				return err
			}
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// finish stops the timers and the reader and emits the session's end.
func (k *socket) finish() {
	close(k.done)
	for _, t := range k.timers {
		t.Stop()
	}
	_ = k.s.conn.Close()
	k.s.end()
}

// handle runs the handlers of ev; end reports that the connection closed.
func (k *socket) handle(ev event) (end bool, err error) {
	switch ev.kind {
	case "message":
		k.s.count(k.m.msgsReceived, 1)
		return false, k.emit("message", k.rt.ToValue(string(ev.data)))
	case "binaryMessage":
		k.s.count(k.m.msgsReceived, 1)
		return false, k.emit("binaryMessage", k.rt.ToValue(k.rt.NewArrayBuffer(ev.data)))
	case "ping":
		return false, k.emit("ping")
	case "pong":
		if sent, ok := k.pings[string(ev.data)]; ok {
			delete(k.pings, string(ev.data))
			k.s.count(k.m.ping, ev.at.Sub(sent).Seconds())
		}
		return false, k.emit("pong")
	case "timer":
		return false, k.timer(ev)
	}
	return true, k.closed(ev.err)
}

// closed emits close (and error for an abnormal end) after the read failed.
func (k *socket) closed(err error) error {
	code := gws.CloseAbnormalClosure
	var ce *gws.CloseError
	switch {
	case errors.As(err, &ce):
		code = ce.Code
		if !k.closing && code != gws.CloseNormalClosure && code != gws.CloseGoingAway && code != gws.CloseNoStatusReceived {
			if e := k.emitError(err); e != nil {
				return e
			}
		}
	case k.closing:
		code = k.code
	default:
		if e := k.emitError(err); e != nil {
			return e
		}
	}
	return k.emit("close", k.rt.ToValue(code))
}

// timer runs a setTimeout or setInterval callback while the connection is open.
func (k *socket) timer(ev event) error {
	delete(k.timers, ev.id)
	if ev.tick > 0 {
		k.after(ev.tick, ev.fn, ev.tick)
	}
	_, err := ev.fn(sobek.Undefined())
	return err
}

// after posts fn's timer event after d.
func (k *socket) after(d time.Duration, fn sobek.Callable, tick time.Duration) {
	k.timerID++
	id := k.timerID
	k.timers[id] = time.AfterFunc(d, func() { k.post(event{kind: "timer", fn: fn, tick: tick, id: id}) })
}

// emit calls the handlers of name with args.
func (k *socket) emit(name string, args ...sobek.Value) error {
	for _, h := range k.handlers[name] {
		if _, err := h(sobek.Undefined(), args...); err != nil {
			return err
		}
	}
	return nil
}

// emitError calls the error handlers with a WebSocketError of err.
func (k *socket) emitError(err error) error {
	o := k.rt.NewObject()
	msg := err.Error()
	_ = o.Set("error", func() string { return msg })
	return k.emit("error", o)
}

// object is the Socket the callback receives.
func (k *socket) object() *sobek.Object {
	o := k.rt.NewObject()
	_ = o.Set("on", func(name string, fn sobek.Value) {
		h, ok := sobek.AssertFunction(fn)
		if !ok {
			panic(k.rt.NewTypeError("socket.on: expected a function as the handler of " + name))
		}
		k.handlers[name] = append(k.handlers[name], h)
	})
	_ = o.Set("send", func(data sobek.Value) { k.write(gws.TextMessage, []byte(data.String())) })
	_ = o.Set("sendBinary", func(data sobek.Value) {
		if _, ok := data.Export().(sobek.ArrayBuffer); !ok {
			panic(k.rt.NewTypeError("socket.sendBinary: expected an ArrayBuffer"))
		}
		b, _ := jsbytes.Of(k.rt, data)
		k.write(gws.BinaryMessage, b)
	})
	_ = o.Set("ping", func() {
		k.nextPing++
		id := strconv.Itoa(k.nextPing)
		k.pings[id] = time.Now()
		if err := k.s.conn.WriteControl(gws.PingMessage, []byte(id), time.Now().Add(time.Second)); err != nil {
			k.throwing(k.emitError(err))
		}
	})
	_ = o.Set("close", func(call sobek.FunctionCall) sobek.Value {
		k.close(call.Argument(0))
		return sobek.Undefined()
	})
	_ = o.Set("setTimeout", func(fn sobek.Value, ms float64) { k.schedule("setTimeout", fn, ms, false) })
	_ = o.Set("setInterval", func(fn sobek.Value, ms float64) { k.schedule("setInterval", fn, ms, true) })
	return o
}

// write sends one message; a failure is an error event (k6: "websocket: close
// sent" after close()).
func (k *socket) write(typ int, b []byte) {
	if err := k.s.conn.WriteMessage(typ, b); err != nil {
		k.throwing(k.emitError(err))
		return
	}
	k.s.count(k.m.msgsSent, 1)
}

// throwing rethrows a handler's exception.
func (k *socket) throwing(err error) {
	if err != nil {
		panic(err)
	}
}

// close sends a close frame with code (default 1001) and drops the connection if
// the peer does not answer within closeWait.
func (k *socket) close(codeV sobek.Value) {
	if k.closing {
		return
	}
	code := gws.CloseGoingAway
	if codeV != nil && !sobek.IsUndefined(codeV) && !sobek.IsNull(codeV) {
		code = int(codeV.ToInteger())
	}
	k.closing, k.code = true, code
	msg := gws.FormatCloseMessage(code, "")
	if err := k.s.conn.WriteControl(gws.CloseMessage, msg, time.Now().Add(time.Second)); err != nil {
		_ = k.s.conn.Close()
		return
	}
	k.timerID++
	k.timers[k.timerID] = time.AfterFunc(closeWait, func() { _ = k.s.conn.Close() })
}

// schedule is socket.setTimeout and socket.setInterval.
func (k *socket) schedule(what string, fn sobek.Value, ms float64, repeat bool) {
	f, ok := sobek.AssertFunction(fn)
	if !ok {
		panic(k.rt.NewTypeError("socket." + what + ": expected a function"))
	}
	d := max(time.Duration(ms*float64(time.Millisecond)), 0)
	var tick time.Duration
	if repeat {
		tick = max(d, time.Millisecond)
	}
	k.after(d, f, tick)
}
