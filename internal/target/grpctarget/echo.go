package grpctarget

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

func addEcho(h map[string]any) {
	h["tidemark.echo.Echo/Echo"] = unaryFunc(echo)
	h["tidemark.echo.Echo/Chat"] = streamFunc(chat)
}

// echo answers the request: after its delay, with its status code, or with its
// text, count, payload and kind, the request's metadata, a header x-echo-header and
// a trailer x-echo-trailer.
func echo(ctx context.Context, in, out *dynamicpb.Message) error {
	_ = grpc.SetHeader(ctx, metadata.Pairs("x-echo-header", in.Get(field(in, "text")).String()))
	_ = grpc.SetTrailer(ctx, metadata.Pairs("x-echo-trailer", "done"))
	return answer(ctx, in, out)
}

// answer waits the request's delay, returns its status, or fills out with its echo.
func answer(ctx context.Context, in, out *dynamicpb.Message) error {
	if d := in.Get(field(in, "delay")).Message(); d.IsValid() {
		wait := time.Duration(d.Get(field(d, "seconds")).Int())*time.Second + time.Duration(d.Get(field(d, "nanos")).Int())
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	text := in.Get(field(in, "text")).String()
	if code := codes.Code(in.Get(field(in, "code")).Int()); code != codes.OK {
		return statusError(code, text, in.Get(field(in, "details")).List())
	}
	out.Set(field(out, "text"), protoreflect.ValueOfString(text))
	out.Set(field(out, "count"), in.Get(field(in, "count")))
	out.Set(field(out, "payload"), in.Get(field(in, "payload")))
	out.Set(field(out, "kind"), in.Get(field(in, "kind")))
	md, _ := metadata.FromIncomingContext(ctx)
	got := out.Mutable(field(out, "metadata")).Map()
	for k, vs := range md {
		v := strings.Join(vs, ",")
		if strings.HasSuffix(k, "-bin") {
			for i, b := range vs {
				vs[i] = base64.StdEncoding.EncodeToString([]byte(b))
			}
			v = strings.Join(vs, ",")
		}
		got.Set(protoreflect.ValueOfString(k).MapKey(), protoreflect.ValueOfString(v))
	}
	return nil
}

// statusError is the status code with message text and, when there are details, an
// ErrorInfo detail whose reason is each of them.
func statusError(code codes.Code, text string, details protoreflect.List) error {
	st := status.New(code, text)
	for i := range details.Len() {
		if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: details.Get(i).String(), Domain: "tidemark.echo"}); err == nil {
			st = d
		}
	}
	return st.Err()
}

// chat echoes every request of the stream until the client ends it.
func chat(st grpc.ServerStream, md protoreflect.MethodDescriptor) error {
	for {
		in := dynamicpb.NewMessage(md.Input())
		err := st.RecvMsg(in)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		out := dynamicpb.NewMessage(md.Output())
		if err := answer(st.Context(), in, out); err != nil {
			return err
		}
		if err := st.SendMsg(out); err != nil {
			return err
		}
	}
}
