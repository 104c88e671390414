package netgrpc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/grafana/sobek"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// client is one Client object.
type client struct {
	in   *instance
	desc *descriptors
	conn *grpc.ClientConn
	addr string
}

// clientConstructor is Client: new Client() takes no arguments.
func (in *instance) clientConstructor() *sobek.Object {
	rt := in.rt
	return rt.ToValue(func(call sobek.ConstructorCall) *sobek.Object {
		c := &client{in: in, desc: newDescriptors()}
		setMethods(rt, call.This, map[string]func(sobek.FunctionCall) sobek.Value{
			"load": c.load, "loadProtoset": c.loadProtoset, "connect": c.connect,
			"invoke": c.invoke, "asyncInvoke": c.asyncInvoke, "close": c.close, "healthCheck": c.healthCheck,
		})
		if err := call.This.DefineDataProperty("__client", rt.ToValue(c), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE); err != nil {
			modules.Throw(rt, err)
		}
		return nil
	}).(*sobek.Object)
}

// clientOf returns the client behind a Client object.
func (in *instance) clientOf(v sobek.Value) (*client, error) {
	if o, ok := v.(*sobek.Object); ok {
		if c, ok := o.Get("__client").Export().(*client); ok {
			return c, nil
		}
	}
	return nil, errors.New("expected a Client as the first argument")
}

func (c *client) throw(what string, err error) {
	modules.Throw(c.in.rt, fmt.Errorf("%s: %w", what, err))
}

// load is load(importPaths, ...protoFiles): init context only.
func (c *client) load(call sobek.FunctionCall) sobek.Value {
	rt := c.in.rt
	if err := modules.InitOnly(c.in.vu, "load"); err != nil {
		c.throw("load", err)
	}
	var importPaths, names []string
	if a := call.Argument(0); !sobek.IsUndefined(a) && !sobek.IsNull(a) {
		if err := rt.ExportTo(a, &importPaths); err != nil {
			c.throw("load", fmt.Errorf("importPaths must be an array of strings: %w", err))
		}
	}
	for _, a := range call.Arguments[min(1, len(call.Arguments)):] {
		names = append(names, a.String())
	}
	if len(names) == 0 {
		c.throw("load", errors.New("expected one or more .proto files after the import paths"))
	}
	files, err := compileProtos(rt, importPaths, names)
	if err != nil {
		c.throw("load", err)
	}
	c.desc.add(files)
	return sobek.Undefined()
}

// loadProtoset is loadProtoset(path): init context only.
func (c *client) loadProtoset(call sobek.FunctionCall) sobek.Value {
	if err := modules.InitOnly(c.in.vu, "loadProtoset"); err != nil {
		c.throw("loadProtoset", err)
	}
	path := call.Argument(0).String()
	data, err := openFile(c.in.rt, path, true)
	if err != nil {
		c.throw("loadProtoset", err)
	}
	files, err := parseProtoset(data)
	if err != nil {
		c.throw("loadProtoset "+path, err)
	}
	c.desc.add(files)
	return sobek.Undefined()
}

// connect is connect(address, params): it waits until the connection is ready, fails,
// or the timeout passes, then loads the server's services when reflect is set.
func (c *client) connect(call sobek.FunctionCall) sobek.Value {
	if err := modules.VUOnly(c.in.vu, "connect"); err != nil {
		c.throw("connect", err)
	}
	addr := call.Argument(0).String()
	p, err := parseConnectParams(c.in.rt, call.Argument(1))
	if err != nil {
		c.throw("connect", err)
	}
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
	st := c.in.vu.State()
	ctx, cancel := context.WithTimeout(st.Context(), p.timeout)
	defer cancel()
	conn, err := dial(ctx, addr, p, st.Env.UserAgent)
	if err != nil {
		c.throw("connect", err)
	}
	if p.reflect {
		files, err := reflectFiles(ctx, conn, p.reflectMD)
		if err != nil {
			_ = conn.Close()
			c.throw("connect", fmt.Errorf("reflection on %s: %w", addr, err))
		}
		c.desc.add(files)
	}
	c.conn, c.addr = conn, addr
	return sobek.Undefined()
}

// failures keeps the last dial or handshake error of a connection.
type failures struct {
	mu   sync.Mutex
	last error
}

func (f *failures) set(err error) {
	f.mu.Lock()
	f.last = err
	f.mu.Unlock()
}

func (f *failures) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// recordingCreds records the TLS handshake's error.
type recordingCreds struct {
	credentials.TransportCredentials
	f *failures
}

func (r recordingCreds) ClientHandshake(ctx context.Context, authority string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	c, info, err := r.TransportCredentials.ClientHandshake(ctx, authority, conn)
	if err != nil {
		r.f.set(err)
	}
	return c, info, err
}

// dial connects to addr and waits for the connection to be ready.
func dial(ctx context.Context, addr string, p connectParams, userAgent string) (*grpc.ClientConn, error) {
	f := &failures{}
	creds := insecure.NewCredentials()
	if !p.plaintext {
		cfg := p.tls
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		creds = credentials.NewTLS(cfg.Clone())
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(recordingCreds{creds, f}),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) {
			conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", a)
			if err != nil {
				f.set(err)
			}
			return conn, err
		}),
	}
	if userAgent != "" {
		opts = append(opts, grpc.WithUserAgent(userAgent))
	}
	var callOpts []grpc.CallOption
	if p.maxRecv > 0 {
		callOpts = append(callOpts, grpc.MaxCallRecvMsgSize(p.maxRecv))
	}
	if p.maxSend > 0 {
		callOpts = append(callOpts, grpc.MaxCallSendMsgSize(p.maxSend))
	}
	opts = append(opts, grpc.WithDefaultCallOptions(callOpts...))
	conn, err := grpc.NewClient("passthrough:///"+addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	if err := waitReady(ctx, conn, f); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("failed to connect to %s: %w", addr, err)
	}
	return conn, nil
}

// waitReady waits until conn is ready; a failed attempt ends the wait with its error.
func waitReady(ctx context.Context, conn *grpc.ClientConn, f *failures) error {
	conn.Connect()
	for {
		s := conn.GetState()
		switch s {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			if err := f.get(); err != nil {
				return err
			}
			return errors.New("the connection failed")
		}
		if !conn.WaitForStateChange(ctx, s) {
			if err := f.get(); err != nil {
				return fmt.Errorf("%w: %w", ctx.Err(), err)
			}
			return ctx.Err()
		}
	}
}

// close is close(): the connection closes; the client can connect again.
func (c *client) close(sobek.FunctionCall) sobek.Value {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
	return sobek.Undefined()
}

// healthCheck is healthCheck([service]): a grpc.health.v1.Health/Check call whose
// Response's message.status (and Status) is SERVING, NOT_SERVING or UNKNOWN; an
// unknown service answers StatusNotFound, with Status SERVICE_UNKNOWN.
func (c *client) healthCheck(call sobek.FunctionCall) sobek.Value {
	if err := modules.VUOnly(c.in.vu, "healthCheck"); err != nil {
		c.throw("healthCheck", err)
	}
	if c.conn == nil {
		c.throw("healthCheck", errNotConnected)
	}
	var service string
	if a := call.Argument(0); !sobek.IsUndefined(a) && !sobek.IsNull(a) {
		service = a.String()
	}
	md := healthpb.File_grpc_health_v1_health_proto.Services().Get(0).Methods().ByName("Check")
	req := &healthpb.HealthCheckRequest{Service: service}
	r := c.prepared(md, req, callParams{timeout: defaultTimeout})
	resp := &healthpb.HealthCheckResponse{}
	res := r.do(resp)
	c.in.pushCall(res)
	o := c.in.response(res, c.desc).(*sobek.Object)
	// @types/k6 declares HealthCheckResponse.Status: the health status by itself.
	health := resp.GetStatus().String()
	switch {
	case status.Code(res.err) == codes.NotFound:
		health = healthServiceUnknown
	case res.err != nil:
		health = healthUnknown
	}
	_ = o.Set("Status", health)
	return o
}
