package grpctarget

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// unaryFunc answers one request of a unary method.
type unaryFunc func(ctx context.Context, in *dynamicpb.Message, out *dynamicpb.Message) error

// streamFunc serves one call of a streaming method md.
type streamFunc func(st grpc.ServerStream, md protoreflect.MethodDescriptor) error

// serviceDesc builds the grpc.ServiceDesc of sd from handlers ("pkg.Service/Method" →
// unaryFunc or streamFunc).
func serviceDesc(sd protoreflect.ServiceDescriptor, handlers map[string]any) (*grpc.ServiceDesc, error) {
	desc := &grpc.ServiceDesc{ServiceName: string(sd.FullName()), HandlerType: (*any)(nil), Metadata: sd.ParentFile().Path()}
	methods := sd.Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		key := string(sd.FullName()) + "/" + string(md.Name())
		switch h := handlers[key].(type) {
		case unaryFunc:
			desc.Methods = append(desc.Methods, grpc.MethodDesc{MethodName: string(md.Name()), Handler: unaryHandler(md, h)})
		case streamFunc:
			desc.Streams = append(desc.Streams, grpc.StreamDesc{
				StreamName: string(md.Name()), ServerStreams: md.IsStreamingServer(), ClientStreams: md.IsStreamingClient(),
				Handler: func(_ any, st grpc.ServerStream) error { return h(st, md) },
			})
		default:
			return nil, fmt.Errorf("grpc target: no handler for %s", key)
		}
	}
	return desc, nil
}

func unaryHandler(md protoreflect.MethodDescriptor, h unaryFunc) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		in := dynamicpb.NewMessage(md.Input())
		if err := dec(in); err != nil {
			return nil, err
		}
		out := dynamicpb.NewMessage(md.Output())
		if err := h(ctx, in, out); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// field returns the field called name of m's type (it must exist: the embedded protos
// define it).
func field(m protoreflect.Message, name string) protoreflect.FieldDescriptor {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic(fmt.Sprintf("grpc target: %s has no field %s", m.Descriptor().FullName(), name))
	}
	return fd
}
