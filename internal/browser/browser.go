package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// Emit receives one metric sample: a k6/browser metric's name, its value (seconds for
// times, bytes for data, 0 or 1 for rates), its tags and when it was measured. It is
// called from the browser's event goroutines and must not block.
type Emit = func(metric string, value float64, tags map[string]string, at time.Time)

// Watch is a hook run for each new page once its target exists and before any
// navigation (Web Vitals measurement): ctx is the page's chromedp target context,
// emit pushes samples to the VU's metrics with the VU's tags merged in. The returned
// flush is called before the page closes.
type Watch func(ctx context.Context, emit func(metric string, value float64, tags map[string]string, at time.Time)) (flush func(context.Context) error, err error)

// Options are a Browser's injectables.
type Options struct {
	// Logger receives the browser's debug output; nil discards it.
	Logger *slog.Logger
	// Emit receives the network metrics of every page; nil drops them.
	Emit Emit
	// Watch, when not nil, runs for every new page.
	Watch Watch
	// Notify, when not nil, is called (from the browser's event goroutines, without
	// blocking) each time a page that listens (Page.Listen) or routes has a new event
	// for the script: a console message, a network event, a worker, a routed request.
	Notify func()
}

// Browser is one running browser process.
type Browser struct {
	cfg  Config
	opts Options

	ctx         context.Context // the browser's chromedp context
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	pid         int
	remote      bool // attached by Connect: Close disconnects
	version     cdpbrowser.GetVersionResult

	mu       sync.Mutex
	closed   bool
	contexts []*Context
	closeErr error
	once     sync.Once
}

// Launch starts a browser as cfg says. ctx bounds the launch only (an iteration's
// context: the browser outlives it); the browser runs until Close, which the owner
// must call.
func Launch(ctx context.Context, cfg Config, opts Options) (*Browser, error) {
	exe, err := cfg.Executable(nil)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	aopts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(1280, 720),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			// Its own process group, so that Close kills every child with it; and
			// killed by the kernel if this process dies.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		}),
	)
	if !cfg.Headless {
		aopts = append(aopts, chromedp.Flag("headless", false), chromedp.Flag("hide-scrollbars", false), chromedp.Flag("mute-audio", false))
	}
	for _, name := range cfg.IgnoreDefaultArgs {
		aopts = append(aopts, chromedp.Flag(name, false))
	}
	for _, a := range cfg.Args {
		name, value, ok := strings.Cut(a, "=")
		if ok {
			aopts = append(aopts, chromedp.Flag(name, value))
		} else {
			aopts = append(aopts, chromedp.Flag(name, true))
		}
	}
	// The process's life is the browser's, not ctx's: Close ends it.
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), aopts...)
	b, err := start(ctx, allocCtx, allocCancel, cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("launch browser %s: %w", exe, err)
	}
	if c := chromedp.FromContext(b.ctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			b.pid = p.Pid
		}
	}
	return b, nil
}

// Connect attaches to a running browser at wsURL (its DevTools WebSocket URL, or
// http://host:port). Close disconnects and disposes of the contexts opened through
// the connection; the browser keeps running.
func Connect(ctx context.Context, wsURL string, cfg Config, opts Options) (*Browser, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	allocCtx, allocCancel := remote.NewAllocator(context.Background(), wsURL)
	b, err := start(ctx, allocCtx, allocCancel, cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("connect to browser %s: %w", wsURL, err)
	}
	b.remote = true
	return b, nil
}

// start opens the browser's root context on allocCtx and asks its version, within
// cfg.Timeout and ctx.
func start(ctx, allocCtx context.Context, allocCancel context.CancelFunc, cfg Config, opts Options) (*Browser, error) {
	bctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(func(string, ...any) {}),
		chromedp.WithErrorf(func(f string, a ...any) { opts.Logger.Debug("Browser protocol error", "err", fmt.Sprintf(f, a...)) }))
	b := &Browser{cfg: cfg, opts: opts, ctx: bctx, cancel: cancel, allocCancel: allocCancel}
	tctx, tcancel := context.WithTimeout(ctx, cfg.Timeout)
	defer tcancel()
	type res struct {
		v   cdpbrowser.GetVersionResult
		err error
	}
	done := make(chan res, 1)
	go func() {
		// The first call starts the process; its context must be the browser's own.
		v, err := chromedp.CallBrowser(bctx, cdpbrowser.GetVersion, cdp.Empty{})
		done <- res{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			b.kill()
			return nil, r.err
		}
		b.version = r.v
	case <-tctx.Done():
		b.kill()
		return nil, fmt.Errorf("timed out after %s", cfg.Timeout)
	}
	return b, nil
}

// PID is the browser's main process id (its process group id).
func (b *Browser) PID() int { return b.pid }

// Version is the browser's version ("120.0.6099.224").
func (b *Browser) Version() string {
	p := b.version.Product
	if _, v, ok := strings.Cut(p, "/"); ok {
		return v
	}
	return p
}

// UserAgent is the browser's default User-Agent, without "Headless" (as k6's: sites
// must not tell a test's headless browser from a person's).
func (b *Browser) UserAgent() string {
	return strings.Replace(b.version.UserAgent, "HeadlessChrome", "Chrome", 1)
}

// Config is the configuration the browser was launched with.
func (b *Browser) Config() Config { return b.cfg }

// Connected reports whether the browser is running and not closed.
func (b *Browser) Connected() bool {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	return !closed && b.ctx.Err() == nil
}

// Close closes every context and kills the browser's process group. It is safe to
// call more than once.
func (b *Browser) Close() error {
	b.once.Do(func() {
		b.mu.Lock()
		b.closed = true
		ctxs := b.contexts
		b.contexts = nil
		b.mu.Unlock()
		if b.remote {
			for _, c := range ctxs {
				_ = c.Close(context.Background())
			}
			b.kill()
			return
		}
		for _, c := range ctxs {
			c.closePages(context.Background())
		}
		cctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		err := chromedp.Cancel(cctx)
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			b.closeErr = err
		}
		b.kill()
	})
	return b.closeErr
}

// kill ends the process group and the chromedp contexts.
func (b *Browser) kill() {
	b.cancel()
	if b.pid > 0 {
		_ = syscall.Kill(-b.pid, syscall.SIGKILL)
	}
	b.allocCancel()
}

// ContextOptions are a new browser context's options (k6's newContext options that
// Tidemark honours).
type ContextOptions struct {
	UserAgent         string
	ExtraHTTPHeaders  map[string]string
	IgnoreHTTPSErrors bool
	ViewportWidth     int
	ViewportHeight    int
	Offline           bool
	// HTTPUser and HTTPPassword, when HTTPUser is set, answer the servers' HTTP
	// authentication challenges (k6's httpCredentials).
	HTTPUser, HTTPPassword string
}

// NewContext opens an incognito browser context.
func (b *Browser) NewContext(ctx context.Context, o ContextOptions) (*Context, error) {
	if !b.Connected() {
		return nil, errors.New("new context: the browser is closed")
	}
	octx, cancel := derive(b.ctx, ctx, b.cfg.Timeout)
	defer cancel()
	res, err := chromedp.CallBrowser(octx, target.CreateBrowserContext,
		target.CreateBrowserContextParams{DisposeOnDetach: new(true)})
	if err != nil {
		return nil, fmt.Errorf("new context: %w", err)
	}
	c := &Context{b: b, id: res.BrowserContextID, opts: o, timeout: b.cfg.Timeout, navTimeout: b.cfg.Timeout}
	// The tabs its pages open (a link opened in a new tab, window.open) become its pages.
	lctx, lcancel := context.WithCancel(b.ctx)
	c.unlisten = lcancel
	if err := chromedp.ListenBrowser(lctx, func(ev any) {
		e, ok := ev.(*target.EventTargetCreated)
		// NewPage's own tabs start blank with no opener; a tab a page opens has an opener
		// (window.open) or, opened with noopener (a modifier click), its URL already.
		if !ok || e.TargetInfo.Type != "page" || e.TargetInfo.BrowserContextID != c.id ||
			(e.TargetInfo.OpenerID == "" && e.TargetInfo.URL == "about:blank") {
			return
		}
		go c.adopt(lctx, e.TargetInfo.TargetID)
	}); err != nil {
		lcancel()
		return nil, fmt.Errorf("new context: %w", err)
	}
	if _, err := chromedp.CallBrowser(octx, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		lcancel()
		return nil, fmt.Errorf("new context: %w", err)
	}
	b.mu.Lock()
	b.contexts = append(b.contexts, c)
	b.mu.Unlock()
	return c, nil
}

// forget removes c from the browser's contexts.
func (b *Browser) forget(c *Context) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.contexts {
		if x == c {
			b.contexts = append(b.contexts[:i], b.contexts[i+1:]...)
			return
		}
	}
}

// derive returns a context of base (a chromedp context) that also ends when parent
// ends and, with a positive timeout, after it.
func derive(base, parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	var ctx context.Context
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(base, timeout)
	} else {
		ctx, cancel = context.WithCancel(base)
	}
	stop := context.AfterFunc(parent, cancel)
	return ctx, func() { stop(); cancel() }
}
