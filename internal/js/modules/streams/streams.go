// Package streams is the native `k6/experimental/streams` module: ReadableStream with
// its default controller and reader, CountQueuingStrategy and
// ByteLengthQueuingStrategy, as @types/k6 declares them and k6 documents them, and
// WritableStream with its default writer and controller, as k6's example
// writable-streams.js uses it (the WHATWG Streams standard).
//
// The module is JavaScript (streams.js, written for Tidemark from the standard's
// algorithms), compiled once per process and evaluated in each runtime that imports
// it: streams are promise machinery, and their promises settle as promise jobs of the
// VU's runtime; what an underlying source waits on (timers, other modules' I/O) holds
// the VU's event loop, so an iteration ends once its stream is drained.
package streams

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

//go:embed streams.js
var source string

// New returns the module.
func New() modules.Module {
	// The named exports, properties of the object streams.js's function returns.
	exports := []string{
		"ReadableStream", "ReadableStreamDefaultReader", "ReadableStreamDefaultController",
		"CountQueuingStrategy", "ByteLengthQueuingStrategy",
		"WritableStream", "WritableStreamDefaultWriter", "WritableStreamDefaultController",
	}
	compile := sync.OnceValues(func() (*sobek.Program, error) {
		return sobek.Compile("k6/experimental/streams", source, true)
	})
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		prg, err := compile()
		if err != nil {
			return nil, fmt.Errorf("k6/experimental/streams: %w", err)
		}
		rt := vu.Runtime()
		factory, err := rt.RunProgram(prg)
		if err != nil {
			return nil, fmt.Errorf("k6/experimental/streams: %w", err)
		}
		fn, ok := sobek.AssertFunction(factory)
		if !ok {
			return nil, fmt.Errorf("k6/experimental/streams: the module's source is not a function")
		}
		obj, err := fn(sobek.Undefined())
		if err != nil {
			return nil, fmt.Errorf("k6/experimental/streams: %w", err)
		}
		o := obj.ToObject(rt)
		named := make(map[string]any, len(exports))
		for _, name := range exports {
			named[name] = o.Get(name)
		}
		return modules.Exports{Named: named}, nil
	})
}
