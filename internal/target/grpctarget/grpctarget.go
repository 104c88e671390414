// Package grpctarget is the gRPC side of `tidemark target`: the services k6's gRPC
// examples and QuickPizza's scripts call (main.FeatureExplorer, main.RouteGuide,
// quickpizza.GRPC), Tidemark's own tidemark.echo.Echo for tests and benchmarks, the
// standard health service (grpc.health.v1.Health) and server reflection (v1 and
// v1alpha), on one listener. The services are defined by the .proto files embedded
// from protos/ and served with dynamic messages, so no generated code is needed.
package grpctarget

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

//go:embed protos/*.proto
var protoFS embed.FS

// ProtoFiles are the embedded .proto files, by name (under protos/).
var ProtoFiles = []string{"route_guide.proto", "quickpizza.proto", "echo.proto"}

// Server is the gRPC target.
type Server struct {
	srv    *grpc.Server
	files  *protoregistry.Files
	health *health.Server
}

// New compiles the embedded services and returns a server for them; opts are the
// gRPC server's options (TLS credentials, message sizes).
func New(opts ...grpc.ServerOption) (*Server, error) {
	files, err := compile()
	if err != nil {
		return nil, err
	}
	s := &Server{srv: grpc.NewServer(opts...), files: files, health: health.NewServer()}
	handlers := map[string]any{}
	addRouteGuide(handlers)
	addQuickPizza(handlers)
	addEcho(handlers)
	for _, name := range ProtoFiles {
		fd, err := files.FindFileByPath(name)
		if err != nil {
			return nil, fmt.Errorf("grpc target: %w", err)
		}
		svcs := fd.Services()
		for i := range svcs.Len() {
			desc, err := serviceDesc(svcs.Get(i), handlers)
			if err != nil {
				return nil, err
			}
			s.srv.RegisterService(desc, struct{}{})
			s.health.SetServingStatus(string(svcs.Get(i).FullName()), healthpb.HealthCheckResponse_SERVING)
		}
	}
	healthpb.RegisterHealthServer(s.srv, s.health)
	ropts := reflection.ServerOptions{Services: s.srv, DescriptorResolver: resolver{files}}
	reflectionv1.RegisterServerReflectionServer(s.srv, reflection.NewServerV1(ropts))
	reflectionv1alpha.RegisterServerReflectionServer(s.srv, reflection.NewServer(ropts))
	return s, nil
}

// Serve serves on ln until Stop.
func (s *Server) Serve(ln net.Listener) error {
	if err := s.srv.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("grpc target: %w", err)
	}
	return nil
}

// Stop ends every call and connection at once.
func (s *Server) Stop() { s.srv.Stop() }

// SetServing sets the health status of service ("" is the whole server).
func (s *Server) SetServing(service string, serving bool) {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		st = healthpb.HealthCheckResponse_SERVING
	}
	s.health.SetServingStatus(service, st)
}

// ListenAndServe serves on addr until ctx ends; ready, when not nil, receives the
// address it listens on.
func ListenAndServe(ctx context.Context, addr string, ready func(net.Addr), opts ...grpc.ServerOption) error {
	s, err := New(opts...)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("grpc target: listen: %w", err)
	}
	if ready != nil {
		ready(ln.Addr())
	}
	stop := context.AfterFunc(ctx, s.Stop)
	defer stop()
	return s.Serve(ln)
}

// compile compiles the embedded .proto files.
func compile() (*protoregistry.Files, error) {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: func(p string) (io.ReadCloser, error) { return protoFS.Open("protos/" + p) },
	})}
	linked, err := c.Compile(context.Background(), ProtoFiles...)
	if err != nil {
		return nil, fmt.Errorf("grpc target: compile the services: %w", err)
	}
	files := &protoregistry.Files{}
	for _, f := range linked {
		if err := files.RegisterFile(f); err != nil {
			return nil, fmt.Errorf("grpc target: %w", err)
		}
	}
	return files, nil
}

// resolver finds descriptors in the target's files, then in the process's (health,
// reflection and the well-known types).
type resolver struct{ own *protoregistry.Files }

func (r resolver) FindFileByPath(p string) (protoreflect.FileDescriptor, error) {
	if fd, err := r.own.FindFileByPath(p); err == nil {
		return fd, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(p)
}

func (r resolver) FindDescriptorByName(n protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := r.own.FindDescriptorByName(n); err == nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(n)
}

// Descriptors returns the compiled embedded files (for protosets and tests).
func Descriptors() ([]protoreflect.FileDescriptor, error) {
	files, err := compile()
	if err != nil {
		return nil, err
	}
	var out []protoreflect.FileDescriptor
	for _, name := range ProtoFiles {
		fd, err := files.FindFileByPath(name)
		if err != nil {
			return nil, fmt.Errorf("grpc target: %w", err)
		}
		out = append(out, fd)
	}
	return out, nil
}
