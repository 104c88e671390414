package netgrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/grafana/sobek"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
)

// rpc is one prepared unary call.
type rpc struct {
	conn *grpc.ClientConn
	ctx  context.Context
	url  string // "/pkg.Service/Method"
	req  proto.Message
	out  protoreflect.MessageDescriptor
	p    callParams
	tags *metrics.TagSet // without status
}

// result is how a call ended.
type result struct {
	resp            proto.Message
	err             error
	header, trailer metadata.MD
	end             time.Time
	took            time.Duration
	discard         bool
	tags            *metrics.TagSet
}

// invoke is invoke(url, request, params): a unary call; the Response tells its status.
func (c *client) invoke(call sobek.FunctionCall) sobek.Value {
	r := c.prepare(call, "invoke")
	res := r.do(dynamicpb.NewMessage(r.out))
	c.in.pushCall(res)
	return c.in.response(res, c.desc)
}

// asyncInvoke is asyncInvoke(url, request, params): invoke on the event loop; the
// promise resolves with the Response.
func (c *client) asyncInvoke(call sobek.FunctionCall) sobek.Value {
	r := c.prepare(call, "asyncInvoke")
	rt := c.in.rt
	promise, resolve, _ := rt.NewPromise()
	done := c.in.vu.State().Loop.RegisterCallback()
	go func() {
		res := r.do(dynamicpb.NewMessage(r.out))
		done(func() error {
			c.in.pushCall(res)
			return resolve(c.in.response(res, c.desc))
		})
	}()
	return rt.ToValue(promise)
}

// prepare reads a call's arguments: the method, the request as JSON and the params.
func (c *client) prepare(call sobek.FunctionCall, what string) *rpc {
	if err := modules.VUOnly(c.in.vu, what); err != nil {
		c.throw(what, err)
	}
	if c.conn == nil {
		c.throw(what, errNotConnected)
	}
	url := call.Argument(0).String()
	md, err := c.desc.method(url)
	if err != nil {
		c.throw(what, err)
	}
	if md.IsStreamingClient() || md.IsStreamingServer() {
		c.throw(what, fmt.Errorf("method %q is a streaming method: use a Stream", url))
	}
	req, err := c.in.request(call.Argument(1), md.Input(), c.desc)
	if err != nil {
		c.throw(what, err)
	}
	p, err := parseCallParams(c.in.rt, call.Argument(2))
	if err != nil {
		c.throw(what, err)
	}
	return c.prepared(md, req, p)
}

// prepared is the call of md with req and p on the client's connection.
func (c *client) prepared(md protoreflect.MethodDescriptor, req proto.Message, p callParams) *rpc {
	svc := string(md.Parent().FullName())
	return &rpc{
		conn: c.conn, ctx: c.in.vu.State().Context(), url: "/" + svc + "/" + string(md.Name()),
		req: req, out: md.Output(), p: p, tags: c.in.callTags(c.addr, md, p.tags),
	}
}

// request converts a JavaScript object to a message of type t (protobuf's JSON mapping).
func (in *instance) request(v sobek.Value, t protoreflect.MessageDescriptor, res *descriptors) (*dynamicpb.Message, error) {
	msg := dynamicpb.NewMessage(t)
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return msg, nil
	}
	s, err := in.json.marshal(v)
	if err != nil {
		return nil, err
	}
	if err := (protojson.UnmarshalOptions{Resolver: res}).Unmarshal([]byte(s), msg); err != nil {
		return nil, fmt.Errorf("unable to serialise request object to protocol buffer: %w", err)
	}
	return msg, nil
}

// do makes the call; it may run on any goroutine.
func (r *rpc) do(resp proto.Message) *result {
	ctx, cancel := context.WithTimeout(r.ctx, r.p.timeout)
	defer cancel()
	if len(r.p.md) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, r.p.md)
	}
	res := &result{resp: resp, discard: r.p.discard, tags: r.tags}
	opts := []grpc.CallOption{grpc.Header(&res.header), grpc.Trailer(&res.trailer)}
	if r.p.authority != "" {
		opts = append(opts, grpc.CallAuthority(r.p.authority))
	}
	start := time.Now()
	res.err = r.conn.Invoke(ctx, r.url, r.req, resp, opts...)
	res.end = time.Now()
	res.took = res.end.Sub(start)
	return res
}

// callTags are the tags of a call's samples: the VU's, name, method, service and url
// (address and method path, as k6 tags gRPC), then the params' tags.
func (in *instance) callTags(addr string, md protoreflect.MethodDescriptor, user map[string]string) *metrics.TagSet {
	st := in.vu.State()
	svc := string(md.Parent().FullName())
	url := addr + "/" + svc + "/" + string(md.Name())
	extra := make([]metrics.Tag, 0, 4+len(user))
	extra = append(extra, metrics.Tag{Key: "name", Value: url}, metrics.Tag{Key: "method", Value: string(md.Name())},
		metrics.Tag{Key: "service", Value: svc}, metrics.Tag{Key: "url", Value: url})
	for k, v := range user {
		extra = append(extra, metrics.Tag{Key: k, Value: v})
	}
	return st.Env.Pool.With(st.Tags(), extra...)
}

// pushCall emits grpc_req_duration, tagged with the status code.
func (in *instance) pushCall(res *result) {
	env := in.vu.State().Env
	tags := env.Pool.With(res.tags, metrics.Tag{Key: "status", Value: strconv.Itoa(int(status.Code(res.err)))})
	env.Pusher.Push([]metrics.Sample{{Metric: in.m.duration, Tags: tags, Time: res.end, Value: res.took.Seconds()}})
}

// response is the Response object of a call.
func (in *instance) response(res *result, desc *descriptors) sobek.Value {
	rt := in.rt
	o := rt.NewObject()
	st := status.Convert(res.err)
	_ = o.Set("status", int(st.Code()))
	msg, errObj := sobek.Null(), sobek.Null()
	if st.Code() == codes.OK && !res.discard {
		msg = in.messageValue(res.resp, desc)
	}
	if st.Code() != codes.OK {
		errObj = in.errorValue(st, desc)
	}
	_ = o.Set("message", msg)
	_ = o.Set("headers", in.metadataValue(res.header))
	_ = o.Set("trailers", in.metadataValue(res.trailer))
	_ = o.Set("error", errObj)
	return o
}

// marshalOptions is protojson as k6 maps messages: every field, zero values too.
func marshalOptions(desc *descriptors) protojson.MarshalOptions {
	return protojson.MarshalOptions{EmitUnpopulated: true, Resolver: desc}
}

// messageValue is m as a JavaScript object.
func (in *instance) messageValue(m proto.Message, desc *descriptors) sobek.Value {
	b, err := marshalOptions(desc).Marshal(m)
	if err != nil {
		modules.Throw(in.rt, fmt.Errorf("unable to convert the response to JSON: %w", err))
	}
	v, err := in.json.unmarshal(in.rt, b)
	if err != nil {
		modules.Throw(in.rt, err)
	}
	return v
}

// errorValue is a status as k6's error object: code, message and details (each
// detail in protobuf's JSON mapping with its @type).
func (in *instance) errorValue(st *status.Status, desc *descriptors) sobek.Value {
	details := []json.RawMessage{}
	for _, a := range st.Proto().GetDetails() {
		b, err := marshalOptions(desc).Marshal(a)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"@type": a.GetTypeUrl()})
		}
		details = append(details, b)
	}
	b, err := json.Marshal(map[string]any{"code": int(st.Code()), "message": st.Message(), "details": details})
	if err != nil {
		modules.Throw(in.rt, errors.New("unable to convert the status to JSON"))
	}
	v, err := in.json.unmarshal(in.rt, b)
	if err != nil {
		modules.Throw(in.rt, err)
	}
	return v
}

// metadataValue is metadata as an object of arrays of strings.
func (in *instance) metadataValue(md metadata.MD) sobek.Value {
	o := in.rt.NewObject()
	for k, vs := range md {
		arr := make([]any, len(vs))
		for i, v := range vs {
			arr[i] = v
		}
		_ = o.Set(k, in.rt.NewArray(arr...))
	}
	return o
}
