// Package netgrpc is k6's k6/net/grpc module: a gRPC Client that loads service
// definitions from .proto files (compiled by protocompile), protosets or server
// reflection, connects with plaintext or TLS, invokes unary methods synchronously
// (invoke) or on the VU's event loop (asyncInvoke), checks health, and a Stream for
// client, server and bidirectional streaming whose events run on the event loop.
// Messages map to and from JavaScript objects with protobuf's JSON mapping
// (protojson), as k6 does. Every call emits grpc_req_duration; streams emit
// grpc_streams, grpc_streams_msgs_sent and grpc_streams_msgs_received.
package netgrpc

import (
	"fmt"
	"sync"

	"github.com/grafana/sobek"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails" // the common error details decode in Response.error
	"google.golang.org/grpc/codes"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
)

// The health statuses healthCheck answers, as protojson names them.
const (
	healthServing        = "SERVING"
	healthNotServing     = "NOT_SERVING"
	healthUnknown        = "UNKNOWN"
	healthServiceUnknown = "SERVICE_UNKNOWN"
)

// statusNames are the exported status constants.
var statusNames = map[string]codes.Code{
	"StatusOK": codes.OK, "StatusCanceled": codes.Canceled, "StatusUnknown": codes.Unknown,
	"StatusInvalidArgument": codes.InvalidArgument, "StatusDeadlineExceeded": codes.DeadlineExceeded,
	"StatusNotFound": codes.NotFound, "StatusAlreadyExists": codes.AlreadyExists,
	"StatusPermissionDenied": codes.PermissionDenied, "StatusResourceExhausted": codes.ResourceExhausted,
	"StatusFailedPrecondition": codes.FailedPrecondition, "StatusAborted": codes.Aborted,
	"StatusOutOfRange": codes.OutOfRange, "StatusUnimplemented": codes.Unimplemented,
	"StatusInternal": codes.Internal, "StatusUnavailable": codes.Unavailable,
	"StatusDataLoss": codes.DataLoss, "StatusUnauthenticated": codes.Unauthenticated,
}

// New returns the k6/net/grpc module.
func New() modules.Module {
	return modules.ModuleFunc(newInstance)
}

// instance is the module in one VU.
type instance struct {
	vu   modules.VU
	rt   *sobek.Runtime
	m    grpcMetrics
	json jsJSON

	mu      sync.Mutex
	streams map[*stream]struct{} // open streams, canceled at the iteration's end
	hooked  bool
}

// grpcMetrics are k6's gRPC metrics.
type grpcMetrics struct {
	duration, streams, sent, received *metrics.Metric
}

func newInstance(vu modules.VU) (modules.Instance, error) {
	var m grpcMetrics
	if err := modules.RegisterMetrics(vu.Registry(),
		modules.MetricSpec{Dst: &m.duration, Name: "grpc_req_duration", Type: metrics.Trend, Value: metrics.Time},
		modules.MetricSpec{Dst: &m.streams, Name: "grpc_streams", Type: metrics.Counter, Value: metrics.Default},
		modules.MetricSpec{Dst: &m.sent, Name: "grpc_streams_msgs_sent", Type: metrics.Counter, Value: metrics.Default},
		modules.MetricSpec{Dst: &m.received, Name: "grpc_streams_msgs_received", Type: metrics.Counter, Value: metrics.Default},
	); err != nil {
		return nil, fmt.Errorf("k6/net/grpc: %w", err)
	}
	rt := vu.Runtime()
	in := &instance{vu: vu, rt: rt, m: m, json: newJSJSON(rt), streams: map[*stream]struct{}{}}
	named := map[string]any{
		"Client":                   in.clientConstructor(),
		"Stream":                   in.streamConstructor(),
		"HealthCheckServing":       healthServing,
		"HealthCheckNotServing":    healthNotServing,
		"HealthCheckUnknown":       healthUnknown,
		"HealthCheckServiceUnkown": healthServiceUnknown,
	}
	for name, code := range statusNames {
		named[name] = int(code)
	}
	return modules.Exports{Named: named}, nil
}

// jsJSON is the runtime's JSON.stringify and JSON.parse.
type jsJSON struct {
	stringify, parse sobek.Callable
}

func newJSJSON(rt *sobek.Runtime) jsJSON {
	j := rt.Get("JSON").ToObject(rt)
	s, _ := sobek.AssertFunction(j.Get("stringify"))
	p, _ := sobek.AssertFunction(j.Get("parse"))
	return jsJSON{stringify: s, parse: p}
}

// marshal is JSON.stringify(v).
func (j jsJSON) marshal(v sobek.Value) (string, error) {
	s, err := j.stringify(sobek.Undefined(), v)
	if err != nil {
		return "", fmt.Errorf("JSON.stringify: %w", err)
	}
	if sobek.IsUndefined(s) {
		return "{}", nil
	}
	return s.String(), nil
}

// unmarshal is JSON.parse(s).
func (j jsJSON) unmarshal(rt *sobek.Runtime, s []byte) (sobek.Value, error) {
	v, err := j.parse(sobek.Undefined(), rt.ToValue(string(s)))
	if err != nil {
		return nil, fmt.Errorf("JSON.parse: %w", err)
	}
	return v, nil
}

// track keeps s until it ends; the first stream of the VU hooks the iteration's end,
// which cancels the streams an interrupted iteration left.
func (in *instance) track(s *stream) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.streams[s] = struct{}{}
	if in.hooked {
		return
	}
	in.hooked = true
	in.vu.State().OnIterationEnd(func(bool) {
		in.mu.Lock()
		open := make([]*stream, 0, len(in.streams))
		for st := range in.streams {
			open = append(open, st)
		}
		clear(in.streams)
		in.mu.Unlock()
		for _, st := range open {
			st.cancel()
		}
	})
}

// untrack forgets an ended stream.
func (in *instance) untrack(s *stream) {
	in.mu.Lock()
	delete(in.streams, s)
	in.mu.Unlock()
}

// setMethods defines fns as non-enumerable methods of o.
func setMethods(rt *sobek.Runtime, o *sobek.Object, fns map[string]func(sobek.FunctionCall) sobek.Value) {
	for name, fn := range fns {
		if err := o.DefineDataProperty(name, rt.ToValue(fn), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_TRUE); err != nil {
			modules.Throw(rt, err)
		}
	}
}
