package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Context is an incognito browser context: its own cookies and storage, and its pages.
type Context struct {
	b    *Browser
	id   cdp.BrowserContextID
	opts ContextOptions

	mu          sync.Mutex
	pages       []*Page
	closed      bool
	timeout     time.Duration
	navTimeout  time.Duration
	initScripts []string
	unlisten    context.CancelFunc // ends the following of the tabs its pages open
}

// Browser is the context's browser.
func (c *Context) Browser() *Browser { return c.b }

// Timeouts returns the default timeout of actions and of navigations.
func (c *Context) Timeouts() (action, navigation time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timeout, c.navTimeout
}

// SetDefaultTimeout sets the default timeout of actions and navigations.
func (c *Context) SetDefaultTimeout(d time.Duration) {
	c.mu.Lock()
	c.timeout, c.navTimeout = d, d
	c.mu.Unlock()
}

// SetDefaultNavigationTimeout sets the default timeout of navigations.
func (c *Context) SetDefaultNavigationTimeout(d time.Duration) {
	c.mu.Lock()
	c.navTimeout = d
	c.mu.Unlock()
}

// AddInitScript adds a script run in every page opened afterwards, before its own.
func (c *Context) AddInitScript(src string) {
	c.mu.Lock()
	c.initScripts = append(c.initScripts, src)
	c.mu.Unlock()
}

// Pages returns the context's open pages.
func (c *Context) Pages() []*Page {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Page(nil), c.pages...)
}

// Closed reports whether the context was closed.
func (c *Context) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Cookies returns the context's cookies, only those sent to one of urls when given.
func (c *Context) Cookies(ctx context.Context, urls ...string) ([]*network.Cookie, error) {
	octx, cancel := derive(c.b.ctx, ctx, c.b.cfg.Timeout)
	defer cancel()
	res, err := chromedp.CallBrowser(octx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: c.id})
	if err != nil {
		return nil, fmt.Errorf("cookies: %w", err)
	}
	if len(urls) == 0 {
		return res.Cookies, nil
	}
	var out []*network.Cookie
	for _, ck := range res.Cookies {
		for _, raw := range urls {
			if cookieMatches(ck, raw) {
				out = append(out, ck)
				break
			}
		}
	}
	return out, nil
}

// cookieMatches reports whether ck would be sent to the URL raw.
func cookieMatches(ck *network.Cookie, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	dom := strings.TrimPrefix(ck.Domain, ".")
	if host != dom && (!strings.HasPrefix(ck.Domain, ".") || !strings.HasSuffix(host, "."+dom)) {
		return false
	}
	if ck.Secure && u.Scheme != "https" {
		return false
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	return strings.HasPrefix(p, ck.Path)
}

// AddCookies sets cookies in the context.
func (c *Context) AddCookies(ctx context.Context, cookies []*network.CookieParam) error {
	octx, cancel := derive(c.b.ctx, ctx, c.b.cfg.Timeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(octx, storage.SetCookies, storage.SetCookiesParams{Cookies: cookies, BrowserContextID: c.id}); err != nil {
		return fmt.Errorf("add cookies: %w", err)
	}
	return nil
}

// ClearCookies deletes the context's cookies.
func (c *Context) ClearCookies(ctx context.Context) error {
	octx, cancel := derive(c.b.ctx, ctx, c.b.cfg.Timeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(octx, storage.ClearCookies, storage.ClearCookiesParams{BrowserContextID: c.id}); err != nil {
		return fmt.Errorf("clear cookies: %w", err)
	}
	return nil
}

// Close closes the context's pages and the context. It is safe to call more than once.
func (c *Context) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	if c.unlisten != nil {
		c.unlisten()
	}
	c.closePages(ctx)
	c.b.forget(c)
	if !c.b.Connected() {
		return nil
	}
	octx, cancel := derive(c.b.ctx, ctx, c.b.cfg.Timeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(octx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: c.id}); err != nil {
		return fmt.Errorf("close context: %w", err)
	}
	return nil
}

// closePages closes every page of the context.
func (c *Context) closePages(ctx context.Context) {
	for _, p := range c.Pages() {
		_ = p.Close(ctx)
	}
}

// forget removes p from the context's pages.
func (c *Context) forget(p *Page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.pages {
		if x == p {
			c.pages = append(c.pages[:i], c.pages[i+1:]...)
			return
		}
	}
}

// Command sends the browser-level protocol command method with params (a JSON
// object), adding the context's browserContextId, and returns its result as JSON.
func (c *Context) Command(ctx context.Context, method string, params []byte) ([]byte, error) {
	m := map[string]any{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
	}
	m["browserContextId"] = c.id
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	octx, cancel := derive(c.b.ctx, ctx, c.b.cfg.Timeout)
	defer cancel()
	res, err := chromedp.CallBrowser(octx, cdp.Command[jsonv2.Value, jsonv2.Value]{Method: method}, jsonv2.Value(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return []byte(res), nil
}
