package browser

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp/device"
	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/browser"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
)

// ErrNoBrowserOption is k6's error for the browser module in a scenario without
// options.browser.type.
var ErrNoBrowserOption = errors.New("browser not found in registry. make sure to set browser type option in scenario definition in order to use the browser module")

// registerMetrics registers k6/browser's metrics in the VU's registry.
func registerMetrics(vu modules.VU) (map[string]*metrics.Metric, error) {
	return metrics.RegisterBrowser(vu.Registry())
}

// tagState is what samples of the browser carry: the VU's tags when it last called
// into the module.
type tagState struct {
	env  *engine.VUEnv
	tags *metrics.TagSet
	meta map[string]string
}

// bridge is the native side of the module in one VU: its browser, its contexts and
// pages by id.
type bridge struct {
	vu      modules.VU
	opts    Options
	metrics map[string]*metrics.Metric
	tags    atomic.Pointer[tagState]
	hooked  bool
	// dispatch is the shim's function that hands the pages' events (console
	// messages, network events, routed requests) to the script's handlers, on the
	// VU's goroutine: posted on the VU's event loop when they happen, and run before
	// a browser promise settles.
	dispatch sobek.Callable
	// posted: a dispatch is queued on the event loop (events coalesce into it).
	posted atomic.Bool
	// poster is the VU's event loop, for notify.
	poster atomic.Pointer[posterBox]

	mu       sync.Mutex
	br       *browser.Browser
	closed   bool
	nextID   int64
	cur      int64 // the current browser context's id, 0 for none
	contexts map[int64]*browser.Context
	pages    map[int64]*browser.Page
	files    string // temporary directory of setInputFiles's files, removed on Close
	// remotes are the browsers chromium.connectOverCDP attached to, by id, each with
	// its current context; they are disconnected at the end of the iteration.
	remotes map[int64]*remote
	// asks are the metrics waiting for the page.on('metric') handlers, by id; live
	// says an iteration runs (else a metric is not held for the handlers).
	asks    map[int64]*metricAsk
	nextAsk int64
	live    bool
}

// metricAsk is a metric of page waiting for its name from the page.on('metric')
// handlers.
type metricAsk struct {
	ID     int64  `json:"id"`
	Page   int64  `json:"page"`
	URL    string `json:"url"`
	Method string `json:"method"`
	taken  bool
	reply  chan string
}

// metricWait bounds how long a metric waits for the page.on('metric') handlers:
// a VU that runs no event loop (a synchronous sleep) sends it untagged after it.
const metricWait = 5 * time.Second

// tagger is the browser.Tagger of page pid: it hands the metric to the script's
// handlers on the event loop and waits for their name.
func (b *bridge) tagger(pid int64) browser.Tagger {
	return func(url, method string) string {
		b.mu.Lock()
		if !b.live {
			b.mu.Unlock()
			return ""
		}
		b.nextAsk++
		a := &metricAsk{ID: b.nextAsk, Page: pid, URL: url, Method: method, reply: make(chan string, 1)}
		b.asks[a.ID] = a
		b.mu.Unlock()
		b.notify()
		t := time.NewTimer(metricWait)
		defer t.Stop()
		select {
		case n := <-a.reply:
			return n
		case <-t.C:
			b.mu.Lock()
			delete(b.asks, a.ID)
			b.mu.Unlock()
			return ""
		}
	}
}

// answer settles the metric ask id with name; b.mu is held.
func (b *bridge) answer(id int64, name string) {
	if a := b.asks[id]; a != nil {
		delete(b.asks, id)
		a.reply <- name
	}
}

// posterBox holds the VU's event loop's Post.
type posterBox struct{ modules.Poster }

// notify posts a dispatch of the pages' new events on the VU's event loop: the
// handlers run as soon as the loop runs, while the script awaits anything. It is
// called from the browser's event goroutines.
func (b *bridge) notify() {
	pb := b.poster.Load()
	if pb == nil || !b.posted.CompareAndSwap(false, true) {
		return
	}
	pb.Post(func() error {
		b.posted.Store(false)
		if b.dispatch == nil {
			return nil
		}
		_, err := b.dispatch(sobek.Undefined())
		return err
	})
}

// remote is a browser chromium.connectOverCDP attached to.
type remote struct {
	br  *browser.Browser
	cur int64
}

var _ modules.Closer = (*bridge)(nil)

func newBridge(vu modules.VU, opts Options, m map[string]*metrics.Metric) *bridge {
	return &bridge{vu: vu, opts: opts, metrics: m, contexts: map[int64]*browser.Context{}, pages: map[int64]*browser.Page{},
		remotes: map[int64]*remote{}, asks: map[int64]*metricAsk{}}
}

// Close kills the VU's browser.
func (b *bridge) Close() {
	b.mu.Lock()
	br := b.br
	b.closed = true
	files := b.files
	remotes := b.remotes
	b.remotes = map[int64]*remote{}
	b.live = false
	for id := range b.asks {
		b.answer(id, "")
	}
	b.mu.Unlock()
	for _, r := range remotes {
		_ = r.br.Close()
	}
	if br != nil {
		_ = br.Close()
	}
	if files != "" {
		_ = os.RemoveAll(files)
	}
}

// writeFiles writes setInputFiles's files ({name, buffer} objects) to the VU's
// temporary directory and returns their paths.
func (b *bridge) writeFiles(v sobek.Value) ([]string, error) {
	rt := b.vu.Runtime()
	obj := v.ToObject(rt)
	n := int(obj.Get("length").ToInteger())
	b.mu.Lock()
	if b.files == "" {
		dir, err := os.MkdirTemp("", "tidemark-browser-files-")
		if err != nil {
			b.mu.Unlock()
			return nil, fmt.Errorf("setInputFiles: %w", err)
		}
		b.files = dir
	}
	root := b.files
	b.mu.Unlock()
	var out []string
	for i := range n {
		f := obj.Get(strconv.Itoa(i)).ToObject(rt)
		name := filepath.Base(f.Get("name").String())
		if name == "" || name == "." || name == "/" {
			return nil, fmt.Errorf("setInputFiles: file %d has no name", i)
		}
		ab, ok := f.Get("buffer").Export().(sobek.ArrayBuffer)
		if !ok {
			return nil, fmt.Errorf("setInputFiles: file %q: expected an ArrayBuffer as its buffer", name)
		}
		dir, err := os.MkdirTemp(root, "f")
		if err != nil {
			return nil, fmt.Errorf("setInputFiles: %w", err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, ab.Bytes(), 0o600); err != nil {
			return nil, fmt.Errorf("setInputFiles: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// emit pushes one sample with the VU's tags; it may run on any goroutine.
func (b *bridge) emit(metric string, value float64, tags map[string]string, at time.Time) {
	ts := b.tags.Load()
	m := b.metrics[metric]
	if ts == nil || m == nil {
		return
	}
	extra := make([]metrics.Tag, 0, len(tags))
	for k, v := range tags {
		extra = append(extra, metrics.Tag{Key: k, Value: v})
	}
	set := ts.tags
	if len(extra) > 0 {
		set = ts.env.Pool.With(ts.tags, extra...)
	}
	ts.env.Pusher.Push([]metrics.Sample{{Metric: m, Tags: set, Time: at, Value: value, Metadata: ts.meta}})
}

// state returns the VU's state after checking the scenario may use the browser; it
// keeps the VU's tags for emit and closes the browser context at the end of each
// iteration.
func (b *bridge) state() (*modules.State, error) {
	st := b.vu.State()
	if st == nil {
		return nil, fmt.Errorf("k6/browser: %w", modules.ErrVUContext)
	}
	if st.Scenario == nil || st.Scenario.Browser == "" {
		return nil, ErrNoBrowserOption
	}
	b.tags.Store(&tagState{env: st.Env, tags: st.Tags(), meta: st.Metadata()})
	if p, ok := st.Loop.(modules.Poster); ok && b.poster.Load() == nil {
		b.poster.Store(&posterBox{p})
	}
	b.mu.Lock()
	b.live = true
	b.mu.Unlock()
	if !b.hooked {
		b.hooked = true
		st.OnIterationEnd(func(bool) { b.endIteration() })
	}
	return st, nil
}

// endIteration closes the VU's browser context, as k6 does at the end of an
// iteration.
func (b *bridge) endIteration() {
	b.mu.Lock()
	ctxs, remotes := b.contexts, b.remotes
	b.contexts, b.pages, b.cur, b.remotes = map[int64]*browser.Context{}, map[int64]*browser.Page{}, 0, map[int64]*remote{}
	// The metrics still waiting for the handlers go untagged.
	b.live = false
	for id := range b.asks {
		b.answer(id, "")
	}
	b.mu.Unlock()
	// A dispatch posted late in the iteration was dropped with it.
	b.posted.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range ctxs {
		_ = c.Close(ctx)
	}
	for _, r := range remotes {
		_ = r.br.Close()
	}
}

// browser returns the VU's browser, launching it the first time.
func (b *bridge) browser(ctx context.Context) (*browser.Browser, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("the browser is closed")
	}
	if b.br != nil && b.br.Connected() {
		return b.br, nil
	}
	cfg, err := browser.ConfigFromEnv(b.opts.Lookup)
	if err != nil {
		return nil, err
	}
	// The hosts option reaches the browser as Chromium's host resolver rules.
	if st := b.vu.State(); st != nil && st.Options != nil {
		rules, skipped := browser.HostResolverRules(st.Options.Hosts)
		if rules != "" {
			cfg.Args = append(cfg.Args, rules)
		}
		if len(skipped) > 0 {
			b.vu.Logger().Warn("The browser maps host names, not a name on one port: these hosts entries do not apply to it", "hosts", strings.Join(skipped, ","))
		}
	}
	br, err := browser.Launch(ctx, cfg, browser.Options{Logger: b.vu.Logger(), Emit: b.emit, Watch: b.opts.Watch, Notify: b.notify})
	if err != nil {
		return nil, err
	}
	b.br = br
	b.vu.Logger().Debug("Browser launched", "pid", br.PID(), "version", br.Version())
	return br, nil
}

// promise runs work on its own goroutine with the iteration's context and settles
// the returned promise with its result on the VU's event loop; conv, when not nil,
// makes the JavaScript value on the VU's goroutine.
func (b *bridge) promise(work func(ctx context.Context) (any, error), conv func(any) sobek.Value) sobek.Value {
	rt := b.vu.Runtime()
	p, resolve, reject := rt.NewPromise()
	st, err := b.state()
	if err != nil {
		_ = reject(b.errValue(err))
		return rt.ToValue(p)
	}
	ctx := st.Context()
	done := st.Loop.RegisterCallback()
	go func() {
		v, err := work(ctx)
		done(func() error {
			if b.dispatch != nil {
				if _, derr := b.dispatch(sobek.Undefined()); derr != nil {
					return derr
				}
			}
			if err != nil {
				return reject(b.errValue(err))
			}
			if conv != nil {
				return resolve(conv(v))
			}
			if v == nil {
				return resolve(sobek.Undefined())
			}
			return resolve(rt.ToValue(v))
		})
	}()
	return rt.ToValue(p)
}

// errValue is err as a JavaScript error: an exception of the page keeps its class
// (TypeError, ...), every other error is an Error with err's text.
func (b *bridge) errValue(err error) sobek.Value {
	rt := b.vu.Runtime()
	name, msg := "Error", err.Error()
	if ev, ok := errors.AsType[*browser.EvalError](err); ok {
		msg = ev.Message
		if n, rest, ok := strings.Cut(ev.Message, ": "); ok {
			switch n {
			case "Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError":
				name, msg = n, rest
			}
		}
	}
	ctor, ok := sobek.AssertConstructor(rt.Get(name))
	if !ok {
		return rt.NewGoError(err)
	}
	obj, cerr := ctor(nil, rt.ToValue(msg))
	if cerr != nil {
		return rt.NewGoError(err)
	}
	return obj
}

// throw panics with err as a JavaScript exception.
func (b *bridge) throw(err error) {
	panic(b.errValue(err))
}

// context returns the browser context id.
func (b *bridge) context(id int64) (*browser.Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.contexts[id]
	if c == nil {
		return nil, errors.New("the browser context is closed")
	}
	return c, nil
}

// page returns the page id.
func (b *bridge) page(id int64) (*browser.Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pages[id]
	if p == nil {
		return nil, errors.New("the page is closed")
	}
	return p, nil
}

// contextOptions decodes newContext's options.
func contextOptions(raw string) (browser.ContextOptions, error) {
	var o struct {
		UserAgent         string            `json:"userAgent"`
		ExtraHTTPHeaders  map[string]string `json:"extraHTTPHeaders"`
		IgnoreHTTPSErrors bool              `json:"ignoreHTTPSErrors"`
		Viewport          *struct {
			Width  int `json:"width"`
			Height int `json:"height"`
		} `json:"viewport"`
		HTTPCredentials *struct {
			Username string `json:"username"`
			Password string `json:"password"`
		} `json:"httpCredentials"`
	}
	if raw != "" && raw != "undefined" && raw != "null" {
		if err := json.Unmarshal([]byte(raw), &o); err != nil {
			return browser.ContextOptions{}, fmt.Errorf("newContext options: %w", err)
		}
	}
	co := browser.ContextOptions{UserAgent: o.UserAgent, ExtraHTTPHeaders: o.ExtraHTTPHeaders, IgnoreHTTPSErrors: o.IgnoreHTTPSErrors}
	if o.Viewport != nil {
		co.ViewportWidth, co.ViewportHeight = o.Viewport.Width, o.Viewport.Height
	}
	if c := o.HTTPCredentials; c != nil {
		if c.Username == "" {
			return browser.ContextOptions{}, errors.New("newContext options: httpCredentials: expected a username")
		}
		co.HTTPUser, co.HTTPPassword = c.Username, c.Password
	}
	return co, nil
}

// cur returns the current context id of the browser rid (0: the VU's own, else a
// connected one); b.mu is held.
func (b *bridge) curOf(rid int64) *int64 {
	if rid == 0 {
		return &b.cur
	}
	if r := b.remotes[rid]; r != nil {
		return &r.cur
	}
	return nil
}

// newContext opens a browser context in the browser rid (0: the VU's own): one at a
// time, as k6 allows.
func (b *bridge) newContext(ctx context.Context, raw string, rid int64) (int64, error) {
	o, err := contextOptions(raw)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	cur := b.curOf(rid)
	busy := cur != nil && *cur != 0
	var br *browser.Browser
	if r := b.remotes[rid]; r != nil {
		br = r.br
	}
	b.mu.Unlock()
	if cur == nil {
		return 0, errors.New("the browser is disconnected")
	}
	if busy {
		return 0, errors.New("existing browser context must be closed before creating a new one")
	}
	if rid == 0 {
		if br, err = b.browser(ctx); err != nil {
			return 0, err
		}
	}
	c, err := br.NewContext(ctx, o)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	b.contexts[b.nextID] = c
	if cur := b.curOf(rid); cur != nil {
		*cur = b.nextID
	}
	return b.nextID, nil
}

// connect attaches to the browser at url.
func (b *bridge) connect(ctx context.Context, url string) (int64, error) {
	cfg, err := browser.ConfigFromEnv(b.opts.Lookup)
	if err != nil {
		return 0, err
	}
	br, err := browser.Connect(ctx, url, cfg, browser.Options{Logger: b.vu.Logger(), Emit: b.emit, Watch: b.opts.Watch, Notify: b.notify})
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	b.remotes[b.nextID] = &remote{br: br}
	return b.nextID, nil
}

// disconnect closes the connection rid and the contexts opened through it.
func (b *bridge) disconnect(rid int64) error {
	b.mu.Lock()
	r := b.remotes[rid]
	delete(b.remotes, rid)
	if r != nil && r.cur != 0 {
		delete(b.contexts, r.cur)
	}
	b.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.br.Close()
}

// newPage opens a page in the browser context id.
func (b *bridge) newPage(ctx context.Context, id int64) (int64, error) {
	c, err := b.context(id)
	if err != nil {
		return 0, err
	}
	p, err := c.NewPage(ctx)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	b.pages[b.nextID] = p
	return b.nextID, nil
}

// closeContext closes the browser context id.
func (b *bridge) closeContext(ctx context.Context, id int64) error {
	b.mu.Lock()
	c := b.contexts[id]
	delete(b.contexts, id)
	if b.cur == id {
		b.cur = 0
	}
	for _, r := range b.remotes {
		if r.cur == id {
			r.cur = 0
		}
	}
	for pid, p := range b.pages {
		if p.Context() == c {
			delete(b.pages, pid)
		}
	}
	b.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close(ctx)
}

// ms is a number of milliseconds as a duration (0 for none).
func ms(v sobek.Value) time.Duration {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return 0
	}
	return time.Duration(v.ToFloat() * float64(time.Millisecond))
}

// str is v as a string, "" for undefined or null.
func str(v sobek.Value) string {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return ""
	}
	return v.String()
}

// jsonValue is a JSON string result as a JavaScript string, null for none.
func (b *bridge) jsonValue(v any) sobek.Value {
	rt := b.vu.Runtime()
	switch x := v.(type) {
	case nil:
		return sobek.Null()
	case []byte:
		if x == nil {
			return sobek.Undefined()
		}
		return rt.ToValue(string(x))
	case *browser.Response:
		if x == nil {
			return sobek.Null()
		}
		out, _ := json.Marshal(x)
		return rt.ToValue(string(out))
	}
	return rt.ToValue(v)
}

// object is the bridge's JavaScript face, which shim.js builds the module on.
func (b *bridge) object() *sobek.Object {
	rt := b.vu.Runtime()
	o := rt.NewObject()
	set := func(name string, f func(sobek.FunctionCall) sobek.Value) {
		_ = o.Set(name, f)
	}
	arg := func(c sobek.FunctionCall, i int) sobek.Value { return c.Argument(i) }
	id := func(c sobek.FunctionCall, i int) int64 { return c.Argument(i).ToInteger() }

	set("check", func(sobek.FunctionCall) sobek.Value {
		if _, err := b.state(); err != nil {
			b.throw(err)
		}
		return sobek.Undefined()
	})
	syncBrowser := func() *browser.Browser {
		st, err := b.state()
		if err != nil {
			b.throw(err)
		}
		br, err := b.browser(st.Context())
		if err != nil {
			b.throw(err)
		}
		return br
	}
	// which is the browser rid (0: the VU's own, launched on demand), nil when
	// disconnected.
	which := func(rid int64) *browser.Browser {
		if rid == 0 {
			return syncBrowser()
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if r := b.remotes[rid]; r != nil {
			return r.br
		}
		return nil
	}
	set("version", func(c sobek.FunctionCall) sobek.Value {
		if br := which(id(c, 0)); br != nil {
			return rt.ToValue(br.Version())
		}
		return rt.ToValue("")
	})
	set("userAgent", func(c sobek.FunctionCall) sobek.Value {
		if br := which(id(c, 0)); br != nil {
			return rt.ToValue(br.UserAgent())
		}
		return rt.ToValue("")
	})
	set("isConnected", func(c sobek.FunctionCall) sobek.Value {
		br := which(id(c, 0))
		return rt.ToValue(br != nil && br.Connected())
	})
	set("currentContext", func(c sobek.FunctionCall) sobek.Value {
		b.mu.Lock()
		defer b.mu.Unlock()
		cur := b.curOf(id(c, 0))
		if cur == nil || *cur == 0 {
			return sobek.Null()
		}
		return rt.ToValue(*cur)
	})
	set("newContext", func(c sobek.FunctionCall) sobek.Value {
		raw, rid := str(arg(c, 0)), id(c, 1)
		return b.promise(func(ctx context.Context) (any, error) { return b.newContext(ctx, raw, rid) }, nil)
	})
	set("connect", func(c sobek.FunctionCall) sobek.Value {
		url := str(arg(c, 0))
		return b.promise(func(ctx context.Context) (any, error) { return b.connect(ctx, url) }, nil)
	})
	set("disconnect", func(c sobek.FunctionCall) sobek.Value {
		rid := id(c, 0)
		return b.promise(func(context.Context) (any, error) { return nil, b.disconnect(rid) }, nil)
	})
	set("ctxClose", func(c sobek.FunctionCall) sobek.Value {
		cid := id(c, 0)
		return b.promise(func(ctx context.Context) (any, error) { return nil, b.closeContext(ctx, cid) }, nil)
	})
	set("ctxNewPage", func(c sobek.FunctionCall) sobek.Value {
		cid := id(c, 0)
		return b.promise(func(ctx context.Context) (any, error) { return b.newPage(ctx, cid) }, nil)
	})
	set("ctxPages", func(c sobek.FunctionCall) sobek.Value {
		cx, err := b.context(id(c, 0))
		if err != nil {
			return rt.ToValue([]int64{})
		}
		var out []int64
		b.mu.Lock()
		for _, p := range cx.Pages() {
			known := false
			for pid, q := range b.pages {
				if q == p {
					out, known = append(out, pid), true
				}
			}
			if !known { // a tab one of its pages opened
				b.nextID++
				b.pages[b.nextID] = p
				out = append(out, b.nextID)
			}
		}
		b.mu.Unlock()
		return rt.ToValue(out)
	})
	set("ctxCookies", func(c sobek.FunctionCall) sobek.Value {
		cid := id(c, 0)
		var urls []string
		_ = json.Unmarshal([]byte(str(arg(c, 1))), &urls)
		return b.promise(func(ctx context.Context) (any, error) {
			cx, err := b.context(cid)
			if err != nil {
				return nil, err
			}
			cks, err := cx.Cookies(ctx, urls...)
			if err != nil {
				return nil, err
			}
			return json.Marshal(cookiesOut(cks))
		}, b.jsonValue)
	})
	set("ctxAddCookies", func(c sobek.FunctionCall) sobek.Value {
		cid := id(c, 0)
		raw := str(arg(c, 1))
		return b.promise(func(ctx context.Context) (any, error) {
			cx, err := b.context(cid)
			if err != nil {
				return nil, err
			}
			cks, err := cookiesIn(raw)
			if err != nil {
				return nil, err
			}
			return nil, cx.AddCookies(ctx, cks)
		}, nil)
	})
	set("ctxClearCookies", func(c sobek.FunctionCall) sobek.Value {
		cid := id(c, 0)
		return b.promise(func(ctx context.Context) (any, error) {
			cx, err := b.context(cid)
			if err != nil {
				return nil, err
			}
			return nil, cx.ClearCookies(ctx)
		}, nil)
	})
	ctxDo := func(name string, f func(cx *browser.Context, c sobek.FunctionCall)) {
		set(name, func(c sobek.FunctionCall) sobek.Value {
			cx, err := b.context(id(c, 0))
			if err != nil {
				b.throw(err)
			}
			f(cx, c)
			return sobek.Undefined()
		})
	}
	ctxDo("ctxSetTimeout", func(cx *browser.Context, c sobek.FunctionCall) { cx.SetDefaultTimeout(ms(arg(c, 1))) })
	ctxDo("ctxSetNavTimeout", func(cx *browser.Context, c sobek.FunctionCall) { cx.SetDefaultNavigationTimeout(ms(arg(c, 1))) })
	ctxDo("ctxAddInitScript", func(cx *browser.Context, c sobek.FunctionCall) { cx.AddInitScript(str(arg(c, 1))) })
	set("ctxTimeout", func(c sobek.FunctionCall) sobek.Value {
		cx, err := b.context(id(c, 0))
		if err != nil {
			return rt.ToValue(30000)
		}
		a, _ := cx.Timeouts()
		return rt.ToValue(a.Milliseconds())
	})

	// pageOp registers an asynchronous operation on a page: prep reads the call's
	// arguments on the VU's goroutine and returns the work to run off it.
	pageOp := func(name string, prep func(c sobek.FunctionCall) func(ctx context.Context, p *browser.Page) (any, error), conv func(any) sobek.Value) {
		set(name, func(c sobek.FunctionCall) sobek.Value {
			p, perr := b.page(id(c, 0))
			work := prep(c)
			return b.promise(func(ctx context.Context) (any, error) {
				if perr != nil {
					return nil, perr
				}
				return work(ctx, p)
			}, conv)
		})
	}
	pageOp("pageGoto", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		url, until, d := str(arg(c, 1)), str(arg(c, 2)), ms(arg(c, 3))
		return func(ctx context.Context, p *browser.Page) (any, error) { return p.Goto(ctx, url, until, d) }
	}, b.jsonValue)
	set("pageMark", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue(0)
		}
		return rt.ToValue(p.NavigationMark())
	})
	pageOp("pageWaitNav", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		mark, until, d := int(arg(c, 1).ToInteger()), str(arg(c, 2)), ms(arg(c, 3))
		return func(ctx context.Context, p *browser.Page) (any, error) {
			return p.WaitForNavigation(ctx, mark, until, d)
		}
	}, b.jsonValue)
	pageOp("pageWaitLoad", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		state, d := str(arg(c, 1)), ms(arg(c, 2))
		return func(ctx context.Context, p *browser.Page) (any, error) { return nil, p.WaitForLoadState(ctx, state, d) }
	}, nil)
	pageOp("pageReload", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		until, d := str(arg(c, 1)), ms(arg(c, 2))
		return func(ctx context.Context, p *browser.Page) (any, error) { return p.Reload(ctx, until, d) }
	}, b.jsonValue)
	pageOp("pageCall", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		fn, rawArgs, byHandle, d := str(arg(c, 1)), str(arg(c, 2)), arg(c, 3).ToBoolean(), ms(arg(c, 4))
		return func(ctx context.Context, p *browser.Page) (any, error) {
			args, err := callArgs(rawArgs)
			if err != nil {
				return nil, err
			}
			out, h, err := p.Call(ctx, fn, args, byHandle, d)
			if err != nil {
				return nil, err
			}
			if byHandle {
				return json.Marshal(h)
			}
			if out == nil {
				return []byte(nil), nil
			}
			return out, nil
		}
	}, b.jsonValue)
	set("pageRelease", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err == nil {
			st := b.vu.State()
			ctx := context.Background()
			if st != nil {
				ctx = st.Context()
			}
			p.Release(ctx, str(arg(c, 1)))
		}
		return sobek.Undefined()
	})
	pageOp("pageCmd", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		method, params := str(arg(c, 1)), []byte(str(arg(c, 2)))
		return func(ctx context.Context, p *browser.Page) (any, error) { return p.Command(ctx, method, params) }
	}, b.jsonValue)
	pageOp("pageScreenshot", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		raw := str(arg(c, 1))
		return func(ctx context.Context, p *browser.Page) (any, error) {
			var o struct {
				Path     string `json:"path"`
				FullPage bool   `json:"fullPage"`
				Type     string `json:"type"`
				Quality  int    `json:"quality"`
			}
			if raw != "" {
				if err := json.Unmarshal([]byte(raw), &o); err != nil {
					return nil, fmt.Errorf("screenshot options: %w", err)
				}
			}
			return p.Screenshot(ctx, browser.ScreenshotOptions{Path: o.Path, FullPage: o.FullPage, Type: o.Type, Quality: o.Quality})
		}
	}, func(v any) sobek.Value { return rt.ToValue(rt.NewArrayBuffer(v.([]byte))) })
	pageOp("pageBody", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		reqID := str(arg(c, 1))
		return func(ctx context.Context, p *browser.Page) (any, error) { return p.ResponseBody(ctx, reqID) }
	}, func(v any) sobek.Value { return rt.ToValue(rt.NewArrayBuffer(v.([]byte))) })
	set("ctxCmd", func(c sobek.FunctionCall) sobek.Value {
		cid, method, params := id(c, 0), str(arg(c, 1)), []byte(str(arg(c, 2)))
		return b.promise(func(ctx context.Context) (any, error) {
			cx, err := b.context(cid)
			if err != nil {
				return nil, err
			}
			return cx.Command(ctx, method, params)
		}, b.jsonValue)
	})
	set("pageClose", func(c sobek.FunctionCall) sobek.Value {
		pid := id(c, 0)
		return b.promise(func(ctx context.Context) (any, error) {
			b.mu.Lock()
			p := b.pages[pid]
			delete(b.pages, pid)
			b.mu.Unlock()
			if p == nil {
				return nil, nil
			}
			return nil, p.Close(ctx)
		}, nil)
	})
	set("pageURL", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue("")
		}
		return rt.ToValue(p.URL())
	})
	set("pageClosed", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		return rt.ToValue(err != nil || p.Closed())
	})
	set("pageNetMark", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue(0)
		}
		return rt.ToValue(p.NetMark())
	})
	pageOp("pageNetEvents", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		since, d := int(arg(c, 1).ToInteger()), ms(arg(c, 2))
		return func(ctx context.Context, p *browser.Page) (any, error) {
			events, next, err := p.NetEvents(ctx, since, d)
			if err != nil {
				return nil, err
			}
			if events == nil {
				events = []browser.NetEvent{}
			}
			return json.Marshal(map[string]any{"events": events, "next": next})
		}
	}, b.jsonValue)
	pageOp("pageSetRoutes", func(c sobek.FunctionCall) func(context.Context, *browser.Page) (any, error) {
		raw := str(arg(c, 1))
		return func(ctx context.Context, p *browser.Page) (any, error) {
			var sources []string
			if err := json.Unmarshal([]byte(raw), &sources); err != nil {
				return nil, fmt.Errorf("route: %w", err)
			}
			res := make([]*regexp.Regexp, 0, len(sources))
			for _, src := range sources {
				re, err := regexp.Compile(src)
				if err != nil {
					return nil, fmt.Errorf("route: url %s: %w", src, err)
				}
				res = append(res, re)
			}
			return nil, p.SetRoutes(ctx, res)
		}
	}, nil)
	set("pageRouted", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue("[]")
		}
		routed := p.TakeRouted()
		if routed == nil {
			routed = []browser.Routed{}
		}
		out, err := json.Marshal(routed)
		if err != nil {
			b.throw(err)
		}
		return rt.ToValue(string(out))
	})
	set("pageRouteAct", func(c sobek.FunctionCall) sobek.Value {
		pid, reqID, action, raw := id(c, 0), str(arg(c, 1)), str(arg(c, 2)), str(arg(c, 3))
		var body []byte
		if ab, ok := arg(c, 4).Export().(sobek.ArrayBuffer); ok {
			body = ab.Bytes()
		}
		return b.promise(func(ctx context.Context) (any, error) {
			p, err := b.page(pid)
			if err != nil {
				return nil, err
			}
			switch action {
			case "abort":
				return nil, p.AbortRequest(ctx, reqID, raw)
			case "continue":
				var o browser.ContinueOverrides
				if raw != "" {
					if err := json.Unmarshal([]byte(raw), &o); err != nil {
						return nil, fmt.Errorf("route.continue: %w", err)
					}
				}
				return nil, p.ContinueRequest(ctx, reqID, o)
			default:
				var o struct {
					Status  int64             `json:"status"`
					Headers map[string]string `json:"headers"`
					Body    string            `json:"body"`
				}
				if raw != "" {
					if err := json.Unmarshal([]byte(raw), &o); err != nil {
						return nil, fmt.Errorf("route.fulfill: %w", err)
					}
				}
				if body == nil {
					body = []byte(o.Body)
				}
				return nil, p.FulfillRequest(ctx, reqID, o.Status, o.Headers, body)
			}
		}, nil)
	})
	set("pageNetTake", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue(`{"events":[],"next":0}`)
		}
		events, next := p.TakeNet(int(arg(c, 1).ToInteger()))
		if events == nil {
			events = []browser.NetEvent{}
		}
		out, err := json.Marshal(map[string]any{"events": events, "next": next})
		if err != nil {
			b.throw(err)
		}
		return rt.ToValue(string(out))
	})
	set("pageTagMetrics", func(c sobek.FunctionCall) sobek.Value {
		pid := id(c, 0)
		p, err := b.page(pid)
		if err != nil {
			b.throw(err)
		}
		p.SetTagger(b.tagger(pid))
		return sobek.Undefined()
	})
	// metricAsks are the metrics waiting for the handlers (each once), as JSON.
	set("metricAsks", func(sobek.FunctionCall) sobek.Value {
		b.mu.Lock()
		out := []*metricAsk{}
		for _, a := range b.asks {
			if !a.taken {
				a.taken = true
				out = append(out, a)
			}
		}
		slices.SortFunc(out, func(x, y *metricAsk) int { return cmp.Compare(x.ID, y.ID) })
		raw, err := json.Marshal(out)
		b.mu.Unlock()
		if err != nil {
			b.throw(err)
		}
		return rt.ToValue(string(raw))
	})
	set("metricAnswer", func(c sobek.FunctionCall) sobek.Value {
		b.mu.Lock()
		b.answer(id(c, 0), str(arg(c, 1)))
		b.mu.Unlock()
		return sobek.Undefined()
	})
	set("writeFiles", func(c sobek.FunctionCall) sobek.Value {
		paths, err := b.writeFiles(arg(c, 0))
		if err != nil {
			b.throw(err)
		}
		return rt.ToValue(paths)
	})
	set("setDispatch", func(c sobek.FunctionCall) sobek.Value {
		if f, ok := sobek.AssertFunction(arg(c, 0)); ok {
			b.dispatch = f
		}
		return sobek.Undefined()
	})
	set("pageConsole", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue("[]")
		}
		msgs := p.TakeConsole()
		if len(msgs) == 0 {
			return rt.ToValue("[]")
		}
		out, err := json.Marshal(msgs)
		if err != nil {
			b.throw(err)
		}
		return rt.ToValue(string(out))
	})
	set("pageListen", func(c sobek.FunctionCall) sobek.Value {
		if p, err := b.page(id(c, 0)); err == nil {
			p.Listen()
		}
		return sobek.Undefined()
	})
	// pageFrames and pageWorkers are JSON arrays of the page's frames and workers.
	set("pageFrames", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue("[]")
		}
		out, err := json.Marshal(p.Frames())
		if err != nil {
			b.throw(err)
		}
		return rt.ToValue(string(out))
	})
	set("pageWorkers", func(c sobek.FunctionCall) sobek.Value {
		p, err := b.page(id(c, 0))
		if err != nil {
			return rt.ToValue("[]")
		}
		w := p.Workers()
		if w == nil {
			w = []browser.Worker{}
		}
		out, err := json.Marshal(w)
		if err != nil {
			b.throw(err)
		}
		return rt.ToValue(string(out))
	})
	// b64 decodes base64 (a request body) into an ArrayBuffer.
	set("b64", func(c sobek.FunctionCall) sobek.Value {
		raw, err := base64.StdEncoding.DecodeString(str(arg(c, 0)))
		if err != nil {
			b.throw(fmt.Errorf("postData: %w", err))
		}
		return rt.ToValue(rt.NewArrayBuffer(raw))
	})
	set("sleep", func(c sobek.FunctionCall) sobek.Value {
		d := ms(arg(c, 0))
		return b.promise(func(ctx context.Context) (any, error) {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}, nil)
	})
	return o
}

// callArgs decodes pageCall's arguments: [{v: value} or {h: objectId}, ...].
func callArgs(raw string) ([]browser.Arg, error) {
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	args := make([]browser.Arg, 0, len(list))
	for _, r := range list {
		var a struct {
			H string          `json:"h"`
			V json.RawMessage `json:"v"`
		}
		if err := json.Unmarshal(r, &a); err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		args = append(args, browser.Arg{JSON: a.V, Handle: a.H})
	}
	return args, nil
}

// cookie is a cookie as k6 shows it.
type cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain,omitempty"`
	Path     string  `json:"path,omitempty"`
	URL      string  `json:"url,omitempty"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite,omitempty"`
}

func cookiesOut(in []*network.Cookie) []cookie {
	out := make([]cookie, 0, len(in))
	for _, c := range in {
		exp := c.Expires
		if c.Session {
			exp = -1
		}
		out = append(out, cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: exp,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: string(c.SameSite)})
	}
	return out
}

func cookiesIn(raw string) ([]*network.CookieParam, error) {
	// A value may be a number (k6 turns it into text).
	var loose []map[string]any
	if err := json.Unmarshal([]byte(raw), &loose); err != nil {
		return nil, fmt.Errorf("addCookies: expected an array of cookies: %w", err)
	}
	for _, c := range loose {
		if v, ok := c["value"]; ok {
			if _, isText := v.(string); !isText && v != nil {
				c["value"] = fmt.Sprint(v)
			}
		}
	}
	fixed, err := json.Marshal(loose)
	if err != nil {
		return nil, err
	}
	var in []cookie
	if err := json.Unmarshal(fixed, &in); err != nil {
		return nil, fmt.Errorf("addCookies: expected an array of cookies: %w", err)
	}
	out := make([]*network.CookieParam, 0, len(in))
	for i, c := range in {
		if c.Name == "" {
			return nil, fmt.Errorf("addCookies: cookie %d has no name", i)
		}
		if c.URL == "" && (c.Domain == "" || c.Path == "") {
			return nil, fmt.Errorf("addCookies: cookie %q: set url, or domain and path", c.Name)
		}
		p := &network.CookieParam{Name: c.Name, Value: c.Value, URL: c.URL, Domain: c.Domain, Path: c.Path,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: network.CookieSameSite(c.SameSite)}
		if c.Expires > 0 {
			p.Expires = cdp.TimeSinceEpoch(c.Expires)
		}
		out = append(out, p)
	}
	return out, nil
}

// devices is k6's devices: chromedp's device descriptors by name.
func devices() map[string]any {
	out := map[string]any{}
	for d := device.BlackberryPlayBook; d <= device.MotoG4landscape; d++ {
		i := d.Device()
		out[i.Name] = map[string]any{
			"name": i.Name, "userAgent": i.UserAgent, "viewport": map[string]any{"width": i.Width, "height": i.Height},
			"deviceScaleFactor": i.Scale, "isMobile": i.Mobile, "hasTouch": i.Touch,
		}
	}
	return out
}
