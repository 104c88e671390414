package js

import (
	"reflect"
	"unsafe"

	"github.com/grafana/sobek"
)

// unwindInterrupted empties what an interrupt left on the runtime's stacks, between
// iterations (no JavaScript is running). sobek does not unwind an async function whose
// synchronous part (before its first await) an interrupt ended: one call frame, one try
// frame and two stack slots stay, so the runtime never sees its stack empty again and
// runs no promise jobs after a resolve from Go: every later await of a native promise
// (http.asyncRequest, timers) in that VU stays pending. sobek exports no way to reset
// them, so their lengths are set to zero through reflection; a sobek whose fields differ
// is left as it is (TestInterruptInsideAsyncFunction then fails).
func unwindInterrupted(rt *sobek.Runtime) {
	vm := reflect.ValueOf(rt).Elem().FieldByName("vm")
	if !vm.IsValid() || vm.Kind() != reflect.Pointer || vm.IsNil() {
		return
	}
	vm = vm.Elem()
	for _, name := range []string{"callStack", "tryStack", "iterStack", "refStack"} {
		if f := vm.FieldByName(name); f.IsValid() && f.Kind() == reflect.Slice {
			reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetLen(0)
		}
	}
	if f := vm.FieldByName("sp"); f.IsValid() && f.Kind() == reflect.Int {
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetInt(0)
	}
}
