package netgrpc

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// reflectionStream is one server reflection call: Send asks, Recv answers.
type reflectionStream interface {
	Send(*reflectionv1.ServerReflectionRequest) error
	Recv() (*reflectionv1.ServerReflectionResponse, error)
	CloseSend() error
}

// alphaStream adapts a v1alpha reflection call to the v1 messages (the same wire format).
type alphaStream struct {
	reflectionv1alpha.ServerReflection_ServerReflectionInfoClient
}

func (a alphaStream) Send(r *reflectionv1.ServerReflectionRequest) error {
	var alpha reflectionv1alpha.ServerReflectionRequest //nolint:staticcheck // v1alpha is the fallback for servers without v1, as k6 has it
	if err := convert(r, &alpha); err != nil {
		return err
	}
	return a.ServerReflection_ServerReflectionInfoClient.Send(&alpha)
}

func (a alphaStream) Recv() (*reflectionv1.ServerReflectionResponse, error) {
	alpha, err := a.ServerReflection_ServerReflectionInfoClient.Recv()
	if err != nil {
		return nil, err
	}
	var r reflectionv1.ServerReflectionResponse
	return &r, convert(alpha, &r)
}

func convert(from, to proto.Message) error {
	b, err := proto.Marshal(from)
	if err != nil {
		return fmt.Errorf("reflection: %w", err)
	}
	return proto.Unmarshal(b, to)
}

// reflectFiles asks the server for the files of every service it lists (v1, else
// v1alpha), with md as the reflection requests' metadata.
func reflectFiles(ctx context.Context, conn *grpc.ClientConn, md metadata.MD) ([]protoreflect.FileDescriptor, error) {
	ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(ctx, md))
	defer cancel()
	var st reflectionStream
	st, err := reflectionv1.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err == nil {
		var names []string
		names, err = listServices(st)
		if err == nil {
			return fetchFiles(st, names)
		}
	}
	if status.Code(err) != codes.Unimplemented {
		return nil, fmt.Errorf("can't list services: %w", err)
	}
	alpha, err := reflectionv1alpha.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("can't list services: %w", err)
	}
	st = alphaStream{alpha}
	names, err := listServices(st)
	if err != nil {
		return nil, fmt.Errorf("can't list services: %w", err)
	}
	return fetchFiles(st, names)
}

func ask(st reflectionStream, req *reflectionv1.ServerReflectionRequest) (*reflectionv1.ServerReflectionResponse, error) {
	if err := st.Send(req); err != nil {
		return nil, err
	}
	resp, err := st.Recv()
	if err != nil {
		return nil, err
	}
	if e := resp.GetErrorResponse(); e != nil {
		return nil, status.Error(codes.Code(e.GetErrorCode()), e.GetErrorMessage())
	}
	return resp, nil
}

func listServices(st reflectionStream) ([]string, error) {
	resp, err := ask(st, &reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_ListServices{}})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	return names, nil
}

// fetchFiles collects the files defining the services and everything they import.
func fetchFiles(st reflectionStream, services []string) ([]protoreflect.FileDescriptor, error) {
	set := map[string]*descriptorpb.FileDescriptorProto{}
	keep := func(resp *reflectionv1.ServerReflectionResponse) error {
		for _, raw := range resp.GetFileDescriptorResponse().GetFileDescriptorProto() {
			var fd descriptorpb.FileDescriptorProto
			if err := proto.Unmarshal(raw, &fd); err != nil {
				return fmt.Errorf("reflection: file descriptor: %w", err)
			}
			set[fd.GetName()] = &fd
		}
		return nil
	}
	for _, name := range services {
		resp, err := ask(st, &reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: name}})
		if err != nil {
			return nil, fmt.Errorf("can't get the descriptor of %s: %w", name, err)
		}
		if err := keep(resp); err != nil {
			return nil, err
		}
	}
	if err := fetchMissing(st, set, keep); err != nil {
		return nil, err
	}
	return buildFiles(set)
}

// fetchMissing asks for the imports the set lacks, until it lacks none (or the server
// does not know one: the linked program's copy then serves, as for well-known types).
func fetchMissing(st reflectionStream, set map[string]*descriptorpb.FileDescriptorProto, keep func(*reflectionv1.ServerReflectionResponse) error) error {
	tried := map[string]bool{}
	for {
		var missing []string
		for _, fd := range set {
			for _, dep := range fd.GetDependency() {
				if _, ok := set[dep]; !ok && !tried[dep] {
					missing = append(missing, dep)
				}
			}
		}
		if len(missing) == 0 {
			return nil
		}
		for _, dep := range missing {
			tried[dep] = true
			resp, err := ask(st, &reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_FileByFilename{FileByFilename: dep}})
			if err != nil {
				continue
			}
			if err := keep(resp); err != nil {
				return err
			}
		}
	}
}

// buildFiles links the collected files; imports the server did not send come from
// the program's own registry (well-known types).
func buildFiles(set map[string]*descriptorpb.FileDescriptorProto) ([]protoreflect.FileDescriptor, error) {
	files := &protoregistry.Files{}
	var build func(name string) (protoreflect.FileDescriptor, error)
	build = func(name string) (protoreflect.FileDescriptor, error) {
		if fd, err := files.FindFileByPath(name); err == nil {
			return fd, nil
		}
		fdp, ok := set[name]
		if !ok {
			if fd, err := protoregistry.GlobalFiles.FindFileByPath(name); err == nil {
				return fd, nil
			}
			return nil, fmt.Errorf("reflection: the server sent no file %q", name)
		}
		for _, dep := range fdp.GetDependency() {
			d, err := build(dep)
			if err != nil {
				return nil, err
			}
			if _, err := files.FindFileByPath(dep); err != nil {
				_ = files.RegisterFile(d)
			}
		}
		fd, err := protodesc.NewFile(fdp, files)
		if err != nil {
			return nil, fmt.Errorf("reflection: %s: %w", name, err)
		}
		if err := files.RegisterFile(fd); err != nil {
			return nil, fmt.Errorf("reflection: %s: %w", name, err)
		}
		return fd, nil
	}
	var out []protoreflect.FileDescriptor
	for name := range set {
		fd, err := build(name)
		if err != nil {
			return nil, err
		}
		out = append(out, fd)
	}
	return out, nil
}

var errNotConnected = errors.New("no gRPC connection, you must call connect first")
