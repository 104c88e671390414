// Package modules is the interface between Tidemark's JavaScript runtime (package js)
// and its native modules: `k6`, `k6/http`, `k6/html`, `k6/metrics`, `k6/data`,
// `k6/execution`, `k6/encoding`, `k6/crypto` and the jslib modules Tidemark ships.
//
// # How a module works
//
// A Module is one value per process. The runtime calls its NewInstance once per
// JavaScript runtime that imports it (the options-reading init run, every VU, and
// the runtime of setup, teardown and handleSummary), the first time that runtime
// imports it. The Instance holds the module's per-VU state (a cookie jar, an HTTP
// client) and returns the module's exports.
//
// NewInstance receives a VU, which gives the module:
//   - Runtime: the VU's *sobek.Runtime, to build values and throw exceptions;
//   - State: nil while the VU runs its init context (top-level code), else the VU's
//     state: engine.VUEnv (pusher, built-in metrics, tag pool, scenario tags), the
//     VU id (__VU, 0 in setup and teardown), the iteration, the scenario, the current
//     group, and Tags(), the tag set samples get now (scenario tags, the VU's
//     vu.metrics.tags, group); State().Context() is the current iteration's context,
//     canceled when the iteration must stop; State().Exec reads the run (k6/execution);
//     State().Loop is the VU's event loop, on which asynchronous APIs reserve the
//     callbacks that settle their promises (the iteration waits for them);
//     State().OnIterationEnd registers what runs at the end of every iteration (what
//     k6 emits per iteration); State().Options are the script's options modules read;
//   - Registry: the run's metrics registry, where custom metrics are registered in
//     the init context so that thresholds can name them;
//   - Logger: the run's logger.
//
// An exported function runs on the VU's goroutine; it may keep the VU and call
// State() each time: the same VU object moves from the init context to the VU
// context. k6 forbids some calls in one of the two contexts; InitOnly and VUOnly
// return the error to throw.
//
// # Adding a module
//
//  1. Create a sub-package of internal/js/modules (e.g. internal/js/modules/http)
//     with a constructor returning a Module (a ModuleFunc is enough for most).
//  2. Add one line to the map in js.DefaultModules (internal/js/registry.go):
//     "k6/http": http.New(),
//     There is no init() registration and no global registry: the map is the list.
//  3. Throw JavaScript exceptions with Throw(vu.Runtime(), err) or
//     panic(vu.Runtime().NewTypeError(...)); the runtime turns an exception in an
//     iteration into an interrupted iteration and logs it with its JS stack. An
//     unsupported part of an API throws naming itself; it is never a silent no-op.
//  4. Push samples with State().Env.Pusher, tagged State().Tags() (plus the call's
//     own tags through State().Env.Pool), timestamped when they happen.
//
// A module registered under a name ending in "/" serves every specifier with that
// prefix (Tidemark's jslib modules: "https://jslib.k6.io/k6-utils/"); a file the user
// vendored in --modules.dir for the same URL wins over it.
//
// The k6 and k6/execution modules (sub-packages k6 and execution) are the reference
// examples.
package modules
