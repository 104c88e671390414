package modules

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// Module is a native module: one value per process, shared by every VU. It must be
// safe for concurrent use by the VUs' goroutines.
type Module interface {
	// NewInstance returns the module's state for one VU's runtime. It is called on
	// that VU's goroutine, in the init context (vu.State() is nil), the first time the
	// runtime imports the module. An error fails the VU's init (exit code 107).
	NewInstance(vu VU) (Instance, error)
}

// ModuleFunc adapts a function to the Module interface.
type ModuleFunc func(vu VU) (Instance, error)

// NewInstance calls f(vu).
func (f ModuleFunc) NewInstance(vu VU) (Instance, error) { return f(vu) }

// Instance is a module's state in one VU's runtime.
type Instance interface {
	// Exports returns what the module exports. It is called once per instance.
	Exports() Exports
}

// Closer is an optional capability of an Instance: Close releases what the instance
// holds for its VU's life (a browser process). The runtime calls it once the VU will
// run no more, on any goroutine.
type Closer interface {
	Close()
}

// Exports is what a module exports. Exports is itself an Instance, for modules with
// no per-VU state.
type Exports struct {
	// Default is the value of `import x from "mod"`; nil makes it an object of the
	// named exports, as k6's modules do (`import http from "k6/http"`).
	Default any
	// Named are the named exports (`import { check } from "k6"`) and the properties
	// of require("mod"). Values are converted with sobek's Runtime.ToValue: Go
	// functions of the form func(sobek.FunctionCall) sobek.Value are called as they
	// are; other Go funcs are wrapped by sobek's reflection.
	Named map[string]any
}

// Exports returns e.
func (e Exports) Exports() Exports { return e }

// VU is what a module instance sees of the VU whose runtime imported it. Every method
// must be called on the VU's goroutine (the one running its JavaScript).
type VU interface {
	// Runtime is the VU's JavaScript runtime.
	Runtime() *sobek.Runtime
	// State is nil in the init context (top-level code of the script and its modules)
	// and the VU's state in setup, iterations, teardown and handleSummary.
	State() *State
	// Registry is the run's metrics registry. Custom metrics are registered in the init
	// context; the options-reading init run registers them before thresholds are
	// decoded, so that thresholds may name them.
	Registry() *metrics.Registry
	// Logger is the run's logger.
	Logger() *slog.Logger
}

// State is a VU outside its init context. The runtime owns it; modules read its
// fields, and change the group and the VU's tags only through SetGroup and SetVUTag
// (the k6 and k6/execution modules do).
type State struct {
	ctx context.Context

	// Env is what the engine gives the VUs of the VU's scenario: pusher, built-in
	// metrics, tag pool and the scenario's tags. In setup, teardown and handleSummary
	// its Tags are the run's tags without a scenario.
	Env *engine.VUEnv
	// VU is __VU: 1-based and unique within the instance; 0 in setup, teardown and
	// handleSummary.
	VU int64
	// Iteration is __ITER: the VU's iterations before the current one.
	Iteration int64
	// ScenarioIteration is the current iteration's 0-based number among all the
	// iterations its scenario started on this instance.
	ScenarioIteration int64
	// Scenario is the VU's scenario; nil in setup, teardown and handleSummary.
	Scenario *scenario.Scenario
	// Exec reads the run's execution state (k6/execution).
	Exec Execution
	// Loop is the VU's event loop, for asynchronous APIs: the iteration (or setup,
	// teardown) ends once every callback reserved on it has run.
	Loop Loop
	// Options are the script's test-wide options that modules read (k6/http's).
	Options *Options

	atEnd  []func(complete bool)
	group  string
	vuTags map[string]string
	meta   map[string]string // replaced, never modified: samples keep it
	tags   *metrics.TagSet
	byPath map[string]*metrics.TagSet
}

// NewState returns the state of a VU with the given environment. Only the runtime
// creates states; tests of modules may too.
func NewState(env *engine.VUEnv, vu int64, sc *scenario.Scenario, exec Execution) *State {
	return &State{ctx: context.Background(), Env: env, VU: vu, Scenario: sc, Exec: exec, tags: env.Tags}
}

// Context is the context of the current iteration (or of setup, teardown,
// handleSummary): canceled when it must stop (gracefulStop, gracefulRampDown, the end
// of the run). Blocking calls (sleep, HTTP) must honour it.
func (s *State) Context() context.Context { return s.ctx }

// SetContext sets the current iteration's context; the runtime calls it.
func (s *State) SetContext(ctx context.Context) { s.ctx = ctx }

// OnIterationEnd registers f to run at the end of each of the VU's iterations (and of
// setup and teardown), complete or interrupted, on the VU's goroutine, before the
// iteration's own samples: for what k6 emits per iteration, such as data_sent and
// data_received. f stays registered for the VU's life.
func (s *State) OnIterationEnd(f func(complete bool)) { s.atEnd = append(s.atEnd, f) }

// EndIteration runs the OnIterationEnd functions; the runtime calls it.
func (s *State) EndIteration(complete bool) {
	for _, f := range s.atEnd {
		f(complete)
	}
}

// Group is the current group path (`::outer::inner`; "" at the root).
func (s *State) Group() string { return s.group }

// Tags is the tag set of samples emitted now: the scenario's tags, the VU's tags
// (k6/execution vu.metrics.tags) and `group` when not at the root.
func (s *State) Tags() *metrics.TagSet { return s.tags }

// SetGroup enters the group path (k6's group()): Tags gains `group`. Without VU tags
// the tag sets are interned once per path and VU.
func (s *State) SetGroup(path string) {
	s.group = path
	s.retag()
}

// VUTag returns the VU's tag key (vu.metrics.tags).
func (s *State) VUTag(key string) (string, bool) {
	v, ok := s.vuTags[key]
	return v, ok
}

// VUTagKeys returns the keys of the VU's tags, sorted.
func (s *State) VUTagKeys() []string { return slices.Sorted(maps.Keys(s.vuTags)) }

// SetVUTag sets (or, with del, deletes) one of the VU's tags: every sample the VU
// emits from now on carries it, across iterations.
func (s *State) SetVUTag(key, value string, del bool) {
	if del {
		delete(s.vuTags, key)
	} else {
		if s.vuTags == nil {
			s.vuTags = map[string]string{}
		}
		s.vuTags[key] = value
	}
	s.retag()
}

// Metadata is the VU's metadata (vu.metrics.metadata) that samples emitted now
// carry; nil when it has none. It must not be modified.
func (s *State) Metadata() map[string]string { return s.meta }

// SetMetadata sets (or, with del, deletes) one of the VU's metadata: every sample
// the VU emits from now on carries it, across iterations. Unlike a tag it makes no
// series of its own.
func (s *State) SetMetadata(key, value string, del bool) {
	if _, ok := s.meta[key]; del && !ok {
		return
	}
	m := make(map[string]string, len(s.meta)+1)
	maps.Copy(m, s.meta)
	if del {
		delete(m, key)
	} else {
		m[key] = value
	}
	if len(m) == 0 {
		m = nil
	}
	s.meta = m
}

// retag recomputes Tags.
func (s *State) retag() {
	if len(s.vuTags) > 0 {
		extra := make([]metrics.Tag, 0, len(s.vuTags)+1)
		for _, k := range s.VUTagKeys() {
			extra = append(extra, metrics.Tag{Key: k, Value: s.vuTags[k]})
		}
		if s.group != "" {
			extra = append(extra, metrics.Tag{Key: "group", Value: s.group})
		}
		s.tags = s.Env.Pool.With(s.Env.Tags, extra...)
		return
	}
	if s.group == "" {
		s.tags = s.Env.Tags
		return
	}
	if t, ok := s.byPath[s.group]; ok {
		s.tags = t
		return
	}
	if s.byPath == nil {
		s.byPath = map[string]*metrics.TagSet{}
	}
	t := s.Env.Pool.With(s.Env.Tags, metrics.Tag{Key: "group", Value: s.group})
	s.byPath[s.group] = t
	s.tags = t
}

// Options are the script's test-wide options that modules read; the runtime fills
// them from `export const options` (and K6_* variables) with k6's defaults. A module
// that honours some says so as an OptionReader.
type Options struct {
	// MaxRedirects is maxRedirects (default 10).
	MaxRedirects int
	// DiscardResponseBodies, Batch, BatchPerHost, NoCookiesReset and Throw are
	// k6/http's options (defaults false, 20, 6, false, false).
	DiscardResponseBodies bool
	Batch, BatchPerHost   int
	NoCookiesReset        bool
	Throw                 bool
	// Hosts is the hosts option (scenario.Network.Hosts), which k6/browser gives
	// Chromium; k6/http's connections honour it through the run's transport options.
	Hosts map[string]netip.AddrPort
}

// OptionReader is an optional capability of a Module: the script options of Options
// it honours, by k6 name ("discardResponseBodies", "batch", ...). A script that sets
// an option no registered module honours is rejected (exit code 104) rather than run
// as if it had not set it.
type OptionReader interface {
	ReadsOptions() []string
}

// Execution is the run's execution state as k6/execution shows it. The runtime
// implements it.
type Execution interface {
	// TestStart is when the first iteration of the run started (zero before).
	TestStart() time.Time
	// Counts returns the instance's completed and interrupted iterations, its
	// initialized VUs and its active VUs (those running an iteration now).
	Counts() (completed, interrupted, vusInitialized, vusActive int64)
	// SingleInstance reports whether this instance runs the whole test (no execution
	// segment): ids and iteration numbers in the test are then those in the instance.
	SingleInstance() bool
	// Options returns the test's options as JSON, k6's test.options: the script's
	// options with scenarios as the run resolved them.
	Options() []byte
	// MarkFailed is test.fail(reason): the run goes on and exits 110.
	MarkFailed(reason string)
}

// Loop is a VU's event loop. An asynchronous API reserves a callback when it starts
// (RegisterCallback, on the VU's goroutine) and, when its result is ready, passes the
// returned function the code to run on the VU's goroutine (resolving a promise,
// calling the script's callback), from any goroutine. The iteration waits for every
// reservation; callbacks of an interrupted iteration are dropped.
type Loop interface {
	RegisterCallback() func(cb func() error)
}

// Poster is an optional capability of a Loop: Post queues cb to run on the VU's
// goroutine, from any goroutine, without a reservation. It runs while the loop runs
// for something else (an awaited promise, a timer) or when it next runs in the same
// iteration; the loop does not wait for it, and the end of the iteration drops it.
// Event handlers (k6/browser's page.on) are posted: they run when their event
// happens, as long as the script awaits something.
type Poster interface {
	Post(cb func() error)
}

// FileLoader is a capability of the runtime's VUs, for modules that read the
// script's files (k6/experimental/fs): the file loading of open(). A path is relative
// to the main script (a file:// URL or an absolute path as it is); each file is read
// once per process, its content shared by every VU, and recorded for archives. Assert
// it on the VU: vu.(modules.FileLoader).
type FileLoader interface {
	// LoadFile returns the absolute path and the content of the file name. The caller
	// must not modify the content.
	LoadFile(name string) (path string, data []byte, err error)
}

// LoopVU is an optional capability of a VU: its event loop, also in the init context,
// where State is nil. The runtime's VUs have it.
type LoopVU interface {
	EventLoop() Loop
}

// LoopOf returns vu's event loop: State().Loop outside the init context, and in it
// (where a top-level await waits on the loop until the promise it awaits settles) the
// VU's own loop; nil if the VU has none. An asynchronous API callable in the init
// context (a file opened with await at the top level) reserves its callback on it.
func LoopOf(vu VU) Loop {
	if s := vu.State(); s != nil && s.Loop != nil {
		return s.Loop
	}
	if lv, ok := vu.(LoopVU); ok {
		return lv.EventLoop()
	}
	return nil
}

// AbortError is what test.abort() interrupts the runtime with: the run stops (exit
// code 108), teardown still runs. The k6/execution module passes it to
// sobek.Runtime.Interrupt so that scripts cannot catch it.
type AbortError struct {
	Reason string
}

// Error returns the abort's message.
func (e *AbortError) Error() string {
	if e.Reason == "" {
		return "test aborted"
	}
	return "test aborted: " + e.Reason
}

// ErrInitContext and ErrVUContext say where a call is not allowed.
var (
	ErrInitContext = errors.New("only available in the init context")
	ErrVUContext   = errors.New("not available in the init context")
)

// InitOnly returns nil in the init context, else the error to throw for what (e.g.
// "open") outside it.
func InitOnly(vu VU, what string) error {
	if vu.State() == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, ErrInitContext)
}

// VUOnly returns nil outside the init context, else the error to throw for what
// (e.g. "http.get") inside it, as k6 forbids protocol calls in init code.
func VUOnly(vu VU, what string) error {
	if vu.State() != nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, ErrVUContext)
}

// Throw panics with err as a JavaScript exception of rt (a GoError the script can
// catch). Call it from exported functions only.
func Throw(rt *sobek.Runtime, err error) {
	panic(rt.NewGoError(err))
}

// Registry maps import specifiers to native modules. Names are exact (`k6/http`) or,
// ending in "/", prefixes (`https://jslib.k6.io/k6-utils/` serves every version of
// that jslib module). It is built once by the command and read by every VU.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]Module
}

// NewRegistry returns a registry of the given modules.
func NewRegistry(mods map[string]Module) *Registry {
	r := &Registry{byName: map[string]Module{}}
	maps.Copy(r.byName, mods)
	return r
}

// Register adds a module; a name registered twice is an error.
func (r *Registry) Register(name string, m Module) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byName[name]; ok {
		return fmt.Errorf("register module %q: already registered", name)
	}
	r.byName[name] = m
	return nil
}

// Replace registers m as name, replacing the module registered under that name if
// any: for wiring a module's optional parts (k6/browser's Web Vitals) and for tests.
func (r *Registry) Replace(name string, m Module) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byName[name] = m
}

// Lookup returns the module for specifier: an exact name, else the longest prefix name.
func (r *Registry) Lookup(specifier string) (Module, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if m, ok := r.byName[specifier]; ok {
		return m, true
	}
	best := ""
	for name := range r.byName {
		if strings.HasSuffix(name, "/") && strings.HasPrefix(specifier, name) && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return nil, false
	}
	return r.byName[best], true
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.byName))
}
