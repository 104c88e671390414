// Package browser is the native `k6/browser` module (k6 v2's asynchronous API) on
// Chromium through the DevTools protocol (package internal/browser).
//
// The module's objects (Browser, BrowserContext, Page, Frame, Locator,
// ElementHandle, JSHandle, Keyboard, Mouse, …) are written in JavaScript (shim.js)
// over a small native bridge (bridge): navigation, calls of functions in the page,
// protocol commands and screenshots, each a promise settled on the VU's event loop.
// Selectors are resolved and elements acted on by functions run in the page, so one
// implementation serves Page, Frame, Locator and ElementHandle.
//
// Each VU of a scenario with `options.browser.type: 'chromium'` launches one browser
// process on first use and has at most one browser context at a time, closed at the
// end of each iteration; the process is killed when the VU closes.
package browser

import (
	_ "embed"
	"fmt"
	"os"
	"sync"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/browser"
	"github.com/tidemark/tidemark/internal/js/modules"
)

//go:embed shim.js
var shimSource string

// Options are the module's injectables.
type Options struct {
	// Lookup reads the K6_BROWSER_* variables; nil is os.LookupEnv.
	Lookup func(string) (string, bool)
	// Watch, when not nil, runs for every new page (Web Vitals).
	Watch browser.Watch
}

// Module is k6/browser.
type Module struct {
	opts Options

	once    sync.Once
	program *sobek.Program
	err     error
}

var _ modules.Module = (*Module)(nil)

// New returns the module with the process environment and no Watch.
func New() *Module { return NewWith(Options{}) }

// NewWith returns the module with opts.
func NewWith(opts Options) *Module {
	if opts.Lookup == nil {
		opts.Lookup = os.LookupEnv
	}
	return &Module{opts: opts}
}

// NewInstance makes the module's objects in one VU's runtime.
func (m *Module) NewInstance(vu modules.VU) (modules.Instance, error) {
	m.once.Do(func() {
		m.program, m.err = sobek.Compile("k6/browser", shimSource, true)
	})
	if m.err != nil {
		return nil, fmt.Errorf("k6/browser: %w", m.err)
	}
	metrics, err := registerMetrics(vu)
	if err != nil {
		return nil, fmt.Errorf("k6/browser: %w", err)
	}
	b := newBridge(vu, m.opts, metrics)
	rt := vu.Runtime()
	factory, err := rt.RunProgram(m.program)
	if err != nil {
		return nil, fmt.Errorf("k6/browser: %w", err)
	}
	fn, ok := sobek.AssertFunction(factory)
	if !ok {
		return nil, fmt.Errorf("k6/browser: the shim is not a function")
	}
	exp, err := fn(sobek.Undefined(), b.object(), rt.ToValue(devices()))
	if err != nil {
		return nil, fmt.Errorf("k6/browser: %w", err)
	}
	obj := exp.ToObject(rt)
	named := map[string]any{}
	for _, k := range obj.Keys() {
		named[k] = obj.Get(k)
	}
	return &instance{bridge: b, exports: modules.Exports{Named: named}}, nil
}

// instance is the module in one VU.
type instance struct {
	*bridge
	exports modules.Exports
}

// Exports returns browser, chromium, devices and networkProfiles.
func (i *instance) Exports() modules.Exports { return i.exports }
