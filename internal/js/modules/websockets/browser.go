package websockets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gws "github.com/gorilla/websocket"
	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/js/modules/jsbytes"
)

// The ready states of a WebSocket.
const (
	connecting = iota
	open
	closing
	closed
)

// Experimental returns k6/experimental/websockets: k6/websockets, with a warning
// (once per run) that k6 deprecated the path in v1.6.
func Experimental() modules.Module {
	m := New()
	var once sync.Once
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		once.Do(func() {
			vu.Logger().Warn("k6/experimental/websockets is deprecated, import k6/websockets instead")
		})
		return m.NewInstance(vu)
	})
}

// New returns k6/websockets.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m, err := registerMetrics(vu)
		if err != nil {
			return nil, err
		}
		w := &browser{vu: vu, m: m, hidden: sobek.NewSymbol("k6/websockets")}
		rt := vu.Runtime()
		ctor := rt.ToValue(w.construct).ToObject(rt)
		for i, name := range []string{"CONNECTING", "OPEN", "CLOSING", "CLOSED"} {
			_ = ctor.DefineDataProperty(name, rt.ToValue(i), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_TRUE)
		}
		w.blobCtor = rt.ToValue(w.newBlob).ToObject(rt)
		w.blobProto = w.blobCtor.Get("prototype").ToObject(rt)
		return modules.Exports{Named: map[string]any{"WebSocket": ctor, "Blob": w.blobCtor}}, nil
	})
}

// browser is k6/websockets in one VU's runtime.
type browser struct {
	vu        modules.VU
	m         *wsMetrics
	hidden    *sobek.Symbol // keys a Blob's Go value
	blobCtor  *sobek.Object
	blobProto *sobek.Object
}

// webSocket is one WebSocket. Its fields are the VU goroutine's, but for
// bufferedAmount and the writer's channel.
type webSocket struct {
	b          *browser
	rt         *sobek.Runtime
	obj        *sobek.Object
	url        string
	bridge     *bridge
	s          *session
	state      int
	protocol   string
	extensions string
	binaryType string
	buffered   atomic.Int64
	out        chan outgoing
	handlers   map[string]sobek.Value   // onopen, onmessage, ...
	listeners  map[string][]sobek.Value // addEventListener
	closeCode  int
	reason     string
	pings      map[string]time.Time
	nextPing   int
	stop       chan struct{} // closed when the session ends: the context watcher returns
	endOnce    sync.Once
}

// outgoing is a message for the writer goroutine; close sends a close frame.
type outgoing struct {
	typ   int
	data  []byte
	close bool
}

// construct is new WebSocket(url, protocols, params).
func (b *browser) construct(call sobek.ConstructorCall) *sobek.Object {
	rt := b.vu.Runtime()
	if err := modules.VUOnly(b.vu, "new WebSocket"); err != nil {
		modules.Throw(rt, err)
	}
	st := b.vu.State()
	u, err := parseURL(call.Argument(0).String())
	if err != nil {
		panic(rt.NewGoError(fmt.Errorf("SyntaxError: WebSocket: %w", err)))
	}
	p, err := parseParams(rt, call.Argument(2))
	if err == nil {
		p.protocols, err = protocols(rt, call.Argument(1))
	}
	if err == nil {
		err = p.cookies(rt, u)
	}
	if err != nil {
		modules.Throw(rt, fmt.Errorf("WebSocket: %w", err))
	}
	w := &webSocket{b: b, rt: rt, obj: call.This, url: u.String(), binaryType: "blob", state: connecting,
		handlers: map[string]sobek.Value{}, listeners: map[string][]sobek.Value{}, pings: map[string]time.Time{},
		stop: make(chan struct{}), bridge: newBridge(st.Loop)}
	w.define()
	ctx, env, base := st.Context(), st.Env, st.Tags()
	go func() {
		r := dial(ctx, env, base, b.m, u, p)
		w.bridge.post(func() error { return w.opened(ctx, r) })
	}()
	return call.This
}

// protocols reads the protocols argument: undefined, null, a string or an array of
// strings.
func protocols(rt *sobek.Runtime, v sobek.Value) ([]string, error) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return nil, nil
	}
	if s, ok := v.Export().(string); ok {
		return []string{s}, nil
	}
	var out []string
	if err := rt.ExportTo(v, &out); err != nil {
		return nil, fmt.Errorf("protocols: expected a string or an array of strings: %w", err)
	}
	return out, nil
}

// opened runs on the VU's goroutine when the dial ended: open, or error and close.
func (w *webSocket) opened(ctx context.Context, r dialResult) error {
	if r.err != nil {
		w.state = closed
		w.closeCode = gws.CloseAbnormalClosure
		if err := w.dispatchError(r.err, true); err != nil {
			w.bridge.finish()
			return err
		}
		err := w.dispatch("close", w.closeEvent(false))
		w.bridge.finish()
		return err
	}
	w.s = r.s
	w.protocol = r.res.Header.Get("Sec-WebSocket-Protocol")
	w.extensions = r.res.Header.Get("Sec-WebSocket-Extensions")
	w.out = make(chan outgoing, 64)
	go w.write()
	go w.read()
	go func() {
		select {
		case <-ctx.Done():
			_ = w.s.conn.Close()
		case <-w.stop:
		}
	}()
	if w.state == closing { // close() before the connection opened
		w.queue(outgoing{close: true, data: gws.FormatCloseMessage(w.closeCode, w.reason)})
		return nil
	}
	w.state = open
	return w.dispatch("open", w.event("open"))
}

// read reads the connection until it ends, posting its events.
func (w *webSocket) read() {
	c := w.s.conn
	c.SetPingHandler(func(data string) error {
		w.bridge.post(func() error { return w.dispatch("ping", w.event("ping")) })
		err := c.WriteControl(gws.PongMessage, []byte(data), time.Now().Add(time.Second))
		if errors.Is(err, gws.ErrCloseSent) {
			return nil
		}
		return err
	})
	c.SetPongHandler(func(data string) error {
		at := time.Now()
		w.bridge.post(func() error { return w.pong(data, at) })
		return nil
	})
	for {
		typ, data, err := c.ReadMessage()
		if err != nil {
			w.end()
			w.bridge.post(func() error { return w.closed(err) })
			return
		}
		w.s.count(w.b.m.msgsReceived, 1)
		w.bridge.post(func() error { return w.message(typ, data) })
	}
}

// end closes the session once: the writer and the watcher stop, the metrics of its
// end are pushed.
func (w *webSocket) end() {
	w.endOnce.Do(func() {
		close(w.stop)
		_ = w.s.conn.Close()
		w.s.end()
	})
}

// write sends the queued messages in order.
func (w *webSocket) write() {
	for {
		select {
		case m := <-w.out:
			if m.close {
				_ = w.s.conn.WriteControl(gws.CloseMessage, m.data, time.Now().Add(time.Second))
				t := time.AfterFunc(closeWait, func() { _ = w.s.conn.Close() })
				<-w.stop
				t.Stop()
				return
			}
			err := w.s.conn.WriteMessage(m.typ, m.data)
			w.buffered.Add(-int64(len(m.data)))
			if err != nil {
				w.bridge.post(func() error { return w.dispatchError(err, false) })
				continue
			}
			w.s.count(w.b.m.msgsSent, 1)
		case <-w.stop:
			return
		}
	}
}

// message dispatches a received message as binaryType asks.
func (w *webSocket) message(typ int, data []byte) error {
	ev := w.event("message")
	var v sobek.Value
	switch {
	case typ == gws.TextMessage:
		v = w.rt.ToValue(string(data))
	case w.binaryType == "arraybuffer":
		v = w.rt.ToValue(w.rt.NewArrayBuffer(data))
	default:
		v = w.b.blobObject(&blob{data: data})
	}
	_ = ev.Set("data", v)
	_ = ev.Set("origin", w.url)
	return w.dispatch("message", ev)
}

// pong dispatches a pong and measures ws_ping for a ping of ours.
func (w *webSocket) pong(data string, at time.Time) error {
	if sent, ok := w.pings[data]; ok {
		delete(w.pings, data)
		w.s.count(w.b.m.ping, at.Sub(sent).Seconds())
	}
	return w.dispatch("pong", w.event("pong"))
}

// closed dispatches the end of the connection: error for an abnormal one, then close.
func (w *webSocket) closed(err error) error {
	defer w.bridge.finish()
	wasClosing := w.state == closing
	w.state = closed
	var ce *gws.CloseError
	// gorilla reports a connection lost without a close frame as code 1006.
	clean := errors.As(err, &ce) && ce.Code != gws.CloseAbnormalClosure
	switch {
	case clean:
		w.closeCode, w.reason = ce.Code, ce.Text
	case wasClosing:
		clean = true
	default:
		w.closeCode = gws.CloseAbnormalClosure
		if e := w.dispatchError(err, false); e != nil {
			return e
		}
	}
	return w.dispatch("close", w.closeEvent(clean))
}

// event returns an event object of type name.
func (w *webSocket) event(name string) *sobek.Object {
	ev := w.rt.NewObject()
	_ = ev.Set("type", name)
	_ = ev.Set("timestamp", float64(time.Now().UnixNano())/1e6)
	_ = ev.Set("target", w.obj)
	return ev
}

// closeEvent is the close event: code, reason and wasClean.
func (w *webSocket) closeEvent(clean bool) *sobek.Object {
	ev := w.event("close")
	_ = ev.Set("code", w.closeCode)
	_ = ev.Set("reason", w.reason)
	_ = ev.Set("wasClean", clean)
	return ev
}

// dispatchError dispatches an ErrorEvent of err. Without an error handler, an error
// that ends the connection (fatal) fails the iteration.
func (w *webSocket) dispatchError(err error, fatal bool) error {
	if fatal && w.handlers["error"] == nil && len(w.listeners["error"]) == 0 {
		return fmt.Errorf("WebSocket %s: %w", w.url, err)
	}
	ev := w.event("error")
	_ = ev.Set("error", err.Error())
	return w.dispatch("error", ev)
}

// dispatch calls the on<name> handler, then the listeners of name.
func (w *webSocket) dispatch(name string, ev *sobek.Object) error {
	call := func(v sobek.Value) error {
		if fn, ok := sobek.AssertFunction(v); ok {
			_, err := fn(w.obj, ev)
			return err
		}
		return nil
	}
	if err := call(w.handlers[name]); err != nil {
		return err
	}
	for _, l := range w.listeners[name] {
		if err := call(l); err != nil {
			return err
		}
	}
	return nil
}

// send is WebSocket.send(data): a string as text, an ArrayBuffer, a view of one or
// a Blob as binary.
func (w *webSocket) send(data sobek.Value) {
	if w.state == connecting {
		panic(w.rt.NewGoError(errors.New("InvalidStateError: WebSocket.send: the connection is not open yet")))
	}
	typ, b := gws.TextMessage, []byte(nil)
	if s, ok := data.Export().(string); ok {
		b = []byte(s)
	} else if bl := w.b.blobOf(data); bl != nil {
		typ, b = gws.BinaryMessage, bl.data
	} else {
		raw, err := jsbytes.Of(w.rt, data)
		if err != nil {
			b = []byte(data.String())
		} else {
			typ, b = gws.BinaryMessage, append([]byte(nil), raw...)
		}
	}
	if w.state != open {
		return // closing or closed: discarded, as the standard says
	}
	w.buffered.Add(int64(len(b)))
	w.queue(outgoing{typ: typ, data: b})
}

// queue hands m to the writer, unless the session ended (the writer is gone).
func (w *webSocket) queue(m outgoing) {
	select {
	case w.out <- m:
	case <-w.stop:
		if !m.close {
			w.buffered.Add(-int64(len(m.data)))
		}
	}
}

// ping is WebSocket.ping().
func (w *webSocket) ping() {
	if w.state != open {
		return
	}
	w.nextPing++
	id := fmt.Sprint(w.nextPing)
	w.pings[id] = time.Now()
	if err := w.s.conn.WriteControl(gws.PingMessage, []byte(id), time.Now().Add(time.Second)); err != nil {
		if e := w.dispatchError(err, false); e != nil {
			panic(e)
		}
	}
}

// close is WebSocket.close(code, reason).
func (w *webSocket) close(codeV, reasonV sobek.Value) {
	code := gws.CloseNormalClosure
	if codeV != nil && !sobek.IsUndefined(codeV) {
		code = int(codeV.ToInteger())
		if code != gws.CloseNormalClosure && (code < 3000 || code > 4999) {
			panic(w.rt.NewGoError(fmt.Errorf("InvalidAccessError: WebSocket.close: code %d is neither 1000 nor in 3000-4999", code)))
		}
	}
	reason := ""
	if reasonV != nil && !sobek.IsUndefined(reasonV) {
		reason = reasonV.String()
	}
	if w.state == closing || w.state == closed {
		return
	}
	prev := w.state
	w.state, w.closeCode, w.reason = closing, code, reason
	if prev == open {
		w.queue(outgoing{close: true, data: gws.FormatCloseMessage(code, reason)})
	}
}

// define defines the WebSocket's properties and methods on its object.
func (w *webSocket) define() {
	rt, o := w.rt, w.obj
	getter := func(name string, get func() any) {
		_ = o.DefineAccessorProperty(name, rt.ToValue(func() any { return get() }), nil, sobek.FLAG_TRUE, sobek.FLAG_TRUE)
	}
	getter("url", func() any { return w.url })
	getter("readyState", func() any { return w.state })
	getter("protocol", func() any { return w.protocol })
	getter("extensions", func() any { return w.extensions })
	getter("bufferedAmount", func() any { return w.buffered.Load() })
	_ = o.DefineAccessorProperty("binaryType", rt.ToValue(func() string { return w.binaryType }),
		rt.ToValue(func(v string) {
			if v != "blob" && v != "arraybuffer" {
				panic(rt.NewGoError(fmt.Errorf("SyntaxError: binaryType %q is not blob or arraybuffer", v)))
			}
			w.binaryType = v
		}), sobek.FLAG_TRUE, sobek.FLAG_TRUE)
	for _, name := range []string{"open", "message", "error", "close", "ping", "pong"} {
		_ = o.DefineAccessorProperty("on"+name, rt.ToValue(func() sobek.Value {
			if v, ok := w.handlers[name]; ok {
				return v
			}
			return sobek.Null()
		}), rt.ToValue(func(v sobek.Value) { w.handlers[name] = v }), sobek.FLAG_TRUE, sobek.FLAG_TRUE)
	}
	for i, name := range []string{"CONNECTING", "OPEN", "CLOSING", "CLOSED"} {
		_ = o.DefineDataProperty(name, rt.ToValue(i), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_TRUE)
	}
	_ = o.Set("send", func(data sobek.Value) { w.send(data) })
	_ = o.Set("ping", func() { w.ping() })
	_ = o.Set("close", func(call sobek.FunctionCall) sobek.Value {
		w.close(call.Argument(0), call.Argument(1))
		return sobek.Undefined()
	})
	_ = o.Set("addEventListener", func(name string, fn sobek.Value) {
		if _, ok := sobek.AssertFunction(fn); !ok {
			panic(rt.NewTypeError("addEventListener: expected a function as the listener of " + name))
		}
		w.listeners[strings.ToLower(name)] = append(w.listeners[strings.ToLower(name)], fn)
	})
}
