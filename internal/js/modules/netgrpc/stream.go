package netgrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/grafana/sobek"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
)

// stream is one Stream object: a streaming call whose received messages, error and
// end run the script's handlers on the VU's event loop.
type stream struct {
	in       *instance
	c        *client
	md       protoreflect.MethodDescriptor
	cs       grpc.ClientStream
	cancel   context.CancelFunc
	ctx      context.Context
	tags     *metrics.TagSet
	handlers map[string][]sobek.Callable
	sendDone bool // end() was called (or the method takes one request and had it)
	ended    bool
}

// streamEvents are the events Stream.on accepts.
var streamEvents = map[string]bool{"data": true, "error": true, "end": true}

// streamConstructor is Stream: new Stream(client, url, params) opens the stream.
func (in *instance) streamConstructor() *sobek.Object {
	rt := in.rt
	return rt.ToValue(func(call sobek.ConstructorCall) *sobek.Object {
		s := in.openStream(call.Arguments)
		setMethods(rt, call.This, map[string]func(sobek.FunctionCall) sobek.Value{
			"on": s.on, "write": s.write, "end": s.end,
		})
		return nil
	}).(*sobek.Object)
}

// openStream starts the call and the goroutine reading its messages.
func (in *instance) openStream(args []sobek.Value) *stream {
	arg := func(i int) sobek.Value {
		if i < len(args) {
			return args[i]
		}
		return sobek.Undefined()
	}
	fail := func(err error) { modules.Throw(in.rt, fmt.Errorf("new Stream: %w", err)) }
	if err := modules.VUOnly(in.vu, "new Stream"); err != nil {
		fail(err)
	}
	c, err := in.clientOf(arg(0))
	if err != nil {
		fail(err)
	}
	if c.conn == nil {
		fail(errNotConnected)
	}
	md, err := c.desc.method(arg(1).String())
	if err != nil {
		fail(err)
	}
	p, err := parseCallParams(in.rt, arg(2))
	if err != nil {
		fail(err)
	}
	s := &stream{in: in, c: c, md: md, handlers: map[string][]sobek.Callable{}, tags: in.callTags(c.addr, md, p.tags)}
	s.ctx, s.cancel = context.WithCancel(in.vu.State().Context())
	if p.timeoutSet {
		s.ctx, s.cancel = context.WithTimeout(in.vu.State().Context(), p.timeout)
	}
	ctx := s.ctx
	if len(p.md) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, p.md)
	}
	desc := &grpc.StreamDesc{StreamName: string(md.Name()), ServerStreams: md.IsStreamingServer(), ClientStreams: md.IsStreamingClient()}
	var opts []grpc.CallOption
	if p.authority != "" {
		opts = append(opts, grpc.CallAuthority(p.authority))
	}
	s.cs, err = c.conn.NewStream(ctx, desc, "/"+string(md.Parent().FullName())+"/"+string(md.Name()), opts...)
	if err != nil {
		s.cancel()
		fail(err)
	}
	in.push(in.m.streams, s.tags, time.Now())
	in.track(s)
	go s.read(in.vu.State().Loop.RegisterCallback())
	return s
}

// push emits one sample of 1.
func (in *instance) push(m *metrics.Metric, tags *metrics.TagSet, at time.Time) {
	in.vu.State().Env.Pusher.Push([]metrics.Sample{{Metric: m, Tags: tags, Time: at, Value: 1}})
}

// read receives the stream's messages. Each goes to the loop through the reservation
// the previous one's callback made on the VU's goroutine, so that the iteration waits
// for the stream and its events run in order; the last reports the stream's end.
func (s *stream) read(reserve func(func() error)) {
	for {
		msg := dynamicpb.NewMessage(s.md.Output())
		err := s.cs.RecvMsg(msg)
		at := time.Now()
		if err != nil {
			reserve(func() error { return s.finish(err) })
			return
		}
		next := make(chan func(func() error), 1)
		reserve(func() error {
			next <- s.in.vu.State().Loop.RegisterCallback()
			return s.data(msg, at)
		})
		select {
		case reserve = <-next:
		case <-s.ctx.Done():
			return
		}
	}
}

// data runs the data handlers with a received message and its metadata {ts}.
func (s *stream) data(msg *dynamicpb.Message, at time.Time) error {
	s.in.push(s.in.m.received, s.tags, at)
	v := s.in.messageValue(msg, s.c.desc)
	meta := s.in.rt.NewObject()
	_ = meta.Set("ts", at.UnixMilli())
	return s.emit("data", v, meta)
}

// finish ends the stream: io.EOF is the server's OK end, anything else an error
// event (its status as k6's error object) before the end event.
func (s *stream) finish(err error) error {
	s.ended = true
	defer s.cancel()
	s.in.untrack(s)
	if !errors.Is(err, io.EOF) {
		st := status.Convert(err)
		if len(s.handlers["error"]) == 0 {
			s.in.vu.Logger().Warn("gRPC stream error", "method", string(s.md.FullName()), "code", int(st.Code()), "error", st.Message())
		}
		if err := s.emit("error", s.in.errorValue(st, s.c.desc), sobek.Undefined()); err != nil {
			return err
		}
	}
	return s.emit("end", sobek.Undefined(), sobek.Undefined())
}

func (s *stream) emit(event string, args ...sobek.Value) error {
	for _, h := range s.handlers[event] {
		if _, err := h(sobek.Undefined(), args...); err != nil {
			return err
		}
	}
	return nil
}

// on is on(event, handler).
func (s *stream) on(call sobek.FunctionCall) sobek.Value {
	event := call.Argument(0).String()
	if !streamEvents[event] {
		modules.Throw(s.in.rt, fmt.Errorf("stream.on: unknown event %q: expected data, error or end", event))
	}
	h, ok := sobek.AssertFunction(call.Argument(1))
	if !ok {
		modules.Throw(s.in.rt, fmt.Errorf("stream.on(%q): expected a function as the handler", event))
	}
	s.handlers[event] = append(s.handlers[event], h)
	return sobek.Undefined()
}

// write is write(message): it sends one message; a method that takes one request
// closes its side after it.
func (s *stream) write(call sobek.FunctionCall) sobek.Value {
	if s.sendDone || s.ended {
		modules.Throw(s.in.rt, errors.New("stream.write: the stream is closed for writing"))
	}
	msg, err := s.in.request(call.Argument(0), s.md.Input(), s.c.desc)
	if err != nil {
		modules.Throw(s.in.rt, fmt.Errorf("stream.write: %w", err))
	}
	// io.EOF: the server ended the call; its status arrives as the error event.
	if err := s.cs.SendMsg(msg); err != nil && !errors.Is(err, io.EOF) {
		modules.Throw(s.in.rt, fmt.Errorf("stream.write: %w", err))
	}
	s.in.push(s.in.m.sent, s.tags, time.Now())
	if !s.md.IsStreamingClient() {
		s.end(sobek.FunctionCall{})
	}
	return sobek.Undefined()
}

// end is end(): the client has sent everything.
func (s *stream) end(sobek.FunctionCall) sobek.Value {
	if !s.sendDone {
		s.sendDone = true
		_ = s.cs.CloseSend()
	}
	return sobek.Undefined()
}
