package netgrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/grafana/sobek"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// descriptors are the services and message types a client knows.
type descriptors struct {
	files   *protoregistry.Files
	types   *dynamicpb.Types
	methods map[string]protoreflect.MethodDescriptor // "pkg.Service/Method"
}

func newDescriptors() *descriptors {
	files := &protoregistry.Files{}
	return &descriptors{files: files, types: dynamicpb.NewTypes(files), methods: map[string]protoreflect.MethodDescriptor{}}
}

// add registers files and their imports (a path already known is kept) and their
// services' methods.
func (d *descriptors) add(files []protoreflect.FileDescriptor) {
	for _, f := range withImports(files) {
		if _, err := d.files.FindFileByPath(f.Path()); err == nil {
			continue
		}
		if err := d.files.RegisterFile(f); err != nil {
			continue // a name another file defined: the first definition stays
		}
		svcs := f.Services()
		for i := range svcs.Len() {
			sd := svcs.Get(i)
			ms := sd.Methods()
			for j := range ms.Len() {
				d.methods[string(sd.FullName())+"/"+string(ms.Get(j).Name())] = ms.Get(j)
			}
		}
	}
	d.types = dynamicpb.NewTypes(d.files)
}

// withImports returns files and, first, everything they import.
func withImports(files []protoreflect.FileDescriptor) []protoreflect.FileDescriptor {
	var out []protoreflect.FileDescriptor
	seen := map[string]bool{}
	var visit func(f protoreflect.FileDescriptor)
	visit = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := range imps.Len() {
			visit(imps.Get(i).FileDescriptor)
		}
		out = append(out, f)
	}
	for _, f := range files {
		visit(f)
	}
	return out
}

// method finds the method of url ("pkg.Service/Method", an optional leading slash).
func (d *descriptors) method(url string) (protoreflect.MethodDescriptor, error) {
	key := strings.TrimPrefix(url, "/")
	if md, ok := d.methods[key]; ok {
		return md, nil
	}
	return nil, fmt.Errorf("method %q not found in file descriptors", "/"+key)
}

// FindMessageByName and the other three make descriptors a protojson resolver: the
// loaded types first, then those linked into the program (well-known types, errors).
func (d *descriptors) FindMessageByName(n protoreflect.FullName) (protoreflect.MessageType, error) {
	if t, err := d.types.FindMessageByName(n); err == nil {
		return t, nil
	}
	return protoregistry.GlobalTypes.FindMessageByName(n)
}

// FindMessageByURL finds a message type by its Any type URL.
func (d *descriptors) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	if t, err := d.types.FindMessageByURL(url); err == nil {
		return t, nil
	}
	return protoregistry.GlobalTypes.FindMessageByURL(url)
}

// FindExtensionByName finds an extension field by name.
func (d *descriptors) FindExtensionByName(n protoreflect.FullName) (protoreflect.ExtensionType, error) {
	if t, err := d.types.FindExtensionByName(n); err == nil {
		return t, nil
	}
	return protoregistry.GlobalTypes.FindExtensionByName(n)
}

// FindExtensionByNumber finds an extension field of message by number.
func (d *descriptors) FindExtensionByNumber(m protoreflect.FullName, n protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	if t, err := d.types.FindExtensionByNumber(m, n); err == nil {
		return t, nil
	}
	return protoregistry.GlobalTypes.FindExtensionByNumber(m, n)
}

// fileRequest asks the VU's goroutine for a file's content.
type fileRequest struct {
	path  string
	reply chan fileReply
}

type fileReply struct {
	data []byte
	err  error
}

// compileProtos compiles the .proto files with the import paths. Files are read with
// the runtime's open() (relative to the script, and from an archive), on the VU's
// goroutine: the compiler runs on its own goroutines and asks for them.
func compileProtos(rt *sobek.Runtime, importPaths, names []string) ([]protoreflect.FileDescriptor, error) {
	reqs := make(chan fileRequest)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: importPaths,
			Accessor: func(p string) (io.ReadCloser, error) {
				r := fileRequest{path: p, reply: make(chan fileReply, 1)}
				reqs <- r
				got := <-r.reply
				if got.err != nil {
					return nil, got.err
				}
				return io.NopCloser(strings.NewReader(string(got.data))), nil
			},
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	type result struct {
		files []protoreflect.FileDescriptor
		err   error
	}
	done := make(chan result, 1)
	go func() {
		linked, err := c.Compile(context.Background(), names...)
		var out []protoreflect.FileDescriptor
		for _, f := range linked {
			out = append(out, f)
		}
		done <- result{out, err}
	}()
	for {
		select {
		case r := <-reqs:
			data, err := openFile(rt, r.path, false)
			r.reply <- fileReply{data, err}
		case res := <-done:
			return res.files, res.err
		}
	}
}

// openFile reads path with the runtime's open(), as text or binary.
func openFile(rt *sobek.Runtime, path string, binary bool) (data []byte, err error) {
	open, ok := sobek.AssertFunction(rt.Get("open"))
	if !ok {
		return nil, errors.New("open() is not available")
	}
	args := []sobek.Value{rt.ToValue(path)}
	if binary {
		args = append(args, rt.ToValue("b"))
	}
	v, jsErr := open(sobek.Undefined(), args...)
	if jsErr != nil {
		// The resolver tries the next import path only for a missing file.
		return nil, fmt.Errorf("%w: %s", fs.ErrNotExist, strings.TrimPrefix(jsErr.Error(), "GoError: "))
	}
	if ab, ok := v.Export().(sobek.ArrayBuffer); ok {
		return ab.Bytes(), nil
	}
	return []byte(v.String()), nil
}

// parseProtoset reads a serialized FileDescriptorSet.
func parseProtoset(data []byte) ([]protoreflect.FileDescriptor, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("not a protoset (a serialized FileDescriptorSet): %w", err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("protoset: %w", err)
	}
	var out []protoreflect.FileDescriptor
	files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		out = append(out, f)
		return true
	})
	return out, nil
}
