package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Page is one tab of a browser context.
type Page struct {
	c      *Context
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc
	flush  func(context.Context) error

	mu        sync.Mutex
	closed    bool
	mainFrame cdp.FrameID
	loader    cdp.LoaderID                     // the main frame's current document
	lifecycle map[cdp.LoaderID]map[string]bool // lifecycle events reached, by document
	navSeq    int                              // main-frame navigations so far
	url       string
	changed   chan struct{} // closed and replaced when the above change
	responses map[cdp.LoaderID]*Response
	requests  map[network.RequestID]*request
	console   []ConsoleMessage // since the last TakeConsole, at most maxConsole
	net       []NetEvent       // the last maxNet requests and responses
	netNext   int              // Seq of the next NetEvent
	tagger    Tagger
	named     map[string]string // the Tagger's names by URL
	// routes are page.route's URL patterns; routed the requests paused for the
	// handlers.
	routes []*regexp.Regexp
	routed []Routed
	// auth answers HTTP authentication challenges (httpCredentials): the Fetch
	// domain stays on whatever the routes.
	auth      bool
	authTried map[fetch.RequestID]bool
	// listening: the script has event handlers, Notify is called for new events.
	listening bool
	frames    []*FrameInfo                  // the frame tree, the main frame first
	workers   []Worker                      // the page's dedicated workers
	sentHdr   map[network.RequestID]float64 // bytes of the headers as sent, by request
}

// FrameInfo is one frame of the page's frame tree.
type FrameInfo struct {
	ID       string `json:"id"`
	ParentID string `json:"parentId,omitempty"`
	Name     string `json:"name"`
	URL      string `json:"url"`
}

// Worker is a dedicated worker the page runs.
type Worker struct {
	ID  string `json:"id"` // its protocol session
	URL string `json:"url"`
}

// Listen turns on Notify for the page's events (the script registered a handler).
func (p *Page) Listen() {
	p.mu.Lock()
	p.listening = true
	p.mu.Unlock()
}

// tell calls the browser's Notify if the page listens or routes.
func (p *Page) tell() {
	p.mu.Lock()
	on := p.listening || len(p.routes) > 0
	p.mu.Unlock()
	if n := p.c.b.opts.Notify; on && n != nil {
		n()
	}
}

// Frames returns the page's frames, the main frame first, each after its parent.
func (p *Page) Frames() []FrameInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]FrameInfo, 0, len(p.frames))
	for _, f := range p.frames {
		out = append(out, *f)
	}
	return out
}

// Workers returns the page's running dedicated workers.
func (p *Page) Workers() []Worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Worker(nil), p.workers...)
}

// frame returns the frame id; p.mu is held.
func (p *Page) frame(id string) *FrameInfo {
	for _, f := range p.frames {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// addFrames adds a frame tree; p.mu is held.
func (p *Page) addFrames(t *page.FrameTree) {
	if t == nil || t.Frame == nil {
		return
	}
	p.frames = append(p.frames, &FrameInfo{ID: string(t.Frame.ID), ParentID: string(t.Frame.ParentID), Name: t.Frame.Name,
		URL: t.Frame.URL + t.Frame.URLFragment})
	for _, c := range t.ChildFrames {
		p.addFrames(c)
	}
}

// dropFrame removes frame id and its descendants; p.mu is held.
func (p *Page) dropFrame(id string) {
	gone := map[string]bool{id: true}
	for changed := true; changed; {
		changed = false
		for _, f := range p.frames {
			if !gone[f.ID] && gone[f.ParentID] {
				gone[f.ID], changed = true, true
			}
		}
	}
	kept := p.frames[:0]
	for _, f := range p.frames {
		if !gone[f.ID] {
			kept = append(kept, f)
		}
	}
	p.frames = kept
}

// Tagger names a metric of the page (k6's page.on('metric') with metric.tag): it
// returns the name that replaces the metric's url and name tags, "" to keep them. It
// is called on a goroutine of its own and may block until the script answers.
type Tagger func(url, method string) string

// SetTagger sets the page's Tagger; nil stops tagging.
func (p *Page) SetTagger(t Tagger) {
	p.mu.Lock()
	p.tagger = t
	p.mu.Unlock()
}

// maxNamed bounds the names a page remembers for its Web Vitals.
const maxNamed = 1000

// emitNamed emits a request's samples after asking the Tagger for their name (on
// its own goroutine: the Tagger waits for the script).
func (p *Page) emitNamed(tags map[string]string, samples func(tags map[string]string)) {
	p.mu.Lock()
	t := p.tagger
	p.mu.Unlock()
	if t == nil {
		samples(tags)
		return
	}
	go func() {
		if n := t(tags["url"], tags["method"]); n != "" {
			p.mu.Lock()
			if len(p.named) >= maxNamed {
				clear(p.named)
			}
			p.named[tags["url"]] = n
			p.mu.Unlock()
			tags["url"], tags["name"] = n, n
		}
		samples(tags)
	}()
}

// group gives a sample of the Watch (Web Vitals) the name the Tagger last gave its URL.
func (p *Page) group(tags map[string]string) map[string]string {
	u, ok := tags["url"]
	if !ok {
		return tags
	}
	p.mu.Lock()
	n := p.named[u]
	p.mu.Unlock()
	if n == "" {
		return tags
	}
	out := make(map[string]string, len(tags))
	maps.Copy(out, tags)
	out["url"], out["name"] = n, n
	return out
}

// maxNet bounds the network events a page keeps for NetEvents.
const maxNet = 1000

// NetEvent is an event of the page's network for the script's handlers and for
// waitForRequest and waitForResponse: Kind is request (sent), response (received),
// requestfinished (its body loaded) or requestfailed (Failure says why).
type NetEvent struct {
	Seq          int               `json:"seq"`
	Kind         string            `json:"kind"`
	URL          string            `json:"url"`
	Method       string            `json:"method"`
	ResourceType string            `json:"resourceType"`
	Status       int64             `json:"status,omitempty"`
	StatusText   string            `json:"statusText,omitempty"`
	Headers      map[string]string `json:"headers"`
	RequestID    string            `json:"requestId"`
	// RequestHeaders are a response's request's headers.
	RequestHeaders map[string]string `json:"requestHeaders,omitempty"`
	// Failure is a failed request's error text ("net::ERR_FAILED").
	Failure string `json:"failure,omitempty"`
	// Response is a finished or failed request's response, when it had one.
	Response *NetEvent `json:"response,omitempty"`
	// Timing is a response's, or a finished request's, timing (k6's
	// ResourceTiming).
	Timing *Timing `json:"timing,omitempty"`
	// PostData is a request's body (base64, up to maxPostData bytes).
	PostData []byte `json:"postData,omitempty"`
	// Sizes are a finished request's: its headers and body as sent, its response's
	// headers and body as received.
	Sizes *Sizes `json:"sizes,omitempty"`
	ResponseDetails
}

// Sizes are the bytes of a request and of its response.
type Sizes struct {
	RequestHeaders  float64 `json:"requestHeaders"`
	RequestBody     float64 `json:"requestBody"`
	ResponseHeaders float64 `json:"responseHeaders"`
	ResponseBody    float64 `json:"responseBody"`
}

// maxPostData bounds the request body a page keeps for request.postData().
const maxPostData = 1 << 20

// Timing is k6's ResourceTiming: StartTime in milliseconds since the epoch, the
// others in milliseconds since StartTime, -1 when not known.
type Timing struct {
	StartTime             float64 `json:"startTime"`
	DomainLookupStart     float64 `json:"domainLookupStart"`
	DomainLookupEnd       float64 `json:"domainLookupEnd"`
	ConnectStart          float64 `json:"connectStart"`
	SecureConnectionStart float64 `json:"secureConnectionStart"`
	ConnectEnd            float64 `json:"connectEnd"`
	RequestStart          float64 `json:"requestStart"`
	ResponseStart         float64 `json:"responseStart"`
	ResponseEnd           float64 `json:"responseEnd"`
}

// timing reads a response's timing; r is its request.
func timing(r *request, t *network.ResourceTiming) *Timing {
	if t == nil {
		return &Timing{StartTime: (r.wallBase + r.start) * 1000, DomainLookupStart: -1, DomainLookupEnd: -1, ConnectStart: -1,
			SecureConnectionStart: -1, ConnectEnd: -1, RequestStart: -1, ResponseStart: -1, ResponseEnd: -1}
	}
	return &Timing{StartTime: (r.wallBase + t.RequestTime) * 1000, DomainLookupStart: t.DNSStart, DomainLookupEnd: t.DNSEnd,
		ConnectStart: t.ConnectStart, SecureConnectionStart: t.SslStart, ConnectEnd: t.ConnectEnd, RequestStart: t.SendStart,
		ResponseStart: t.ReceiveHeadersEnd, ResponseEnd: -1}
}

// ResponseDetails are what a response says of its connection.
type ResponseDetails struct {
	Security   *SecurityDetails `json:"securityDetails,omitempty"`
	ServerIP   string           `json:"serverIP,omitempty"`
	ServerPort int64            `json:"serverPort,omitempty"`
}

// SecurityDetails are a TLS connection's (k6's SecurityDetailsObject): validFrom and
// validTo are Unix seconds.
type SecurityDetails struct {
	Protocol    string   `json:"protocol"`
	SubjectName string   `json:"subjectName"`
	Issuer      string   `json:"issuer"`
	ValidFrom   float64  `json:"validFrom"`
	ValidTo     float64  `json:"validTo"`
	SANList     []string `json:"sanList"`
}

// details reads a response's connection details.
func details(r *network.Response) ResponseDetails {
	d := ResponseDetails{ServerIP: r.RemoteIPAddress, ServerPort: r.RemotePort}
	if s := r.SecurityDetails; s != nil {
		d.Security = &SecurityDetails{Protocol: s.Protocol, SubjectName: s.SubjectName, Issuer: s.Issuer,
			ValidFrom: float64(s.ValidFrom), ValidTo: float64(s.ValidTo), SANList: append([]string{}, s.SanList...)}
	}
	return d
}

// maxConsole bounds the console messages a page keeps for TakeConsole: a page that
// logs in a loop must not grow memory without end.
const maxConsole = 1000

// addNet records a network event and wakes the waiters; p.mu is held.
func (p *Page) addNet(e NetEvent) {
	e.Seq = p.netNext
	p.netNext++
	p.net = append(p.net, e)
	if len(p.net) > maxNet {
		p.net = append(p.net[:0:0], p.net[len(p.net)-maxNet:]...)
	}
	p.signal()
}

// NetMark is the Seq of the next network event: NetEvents(mark) returns the events
// from the time NetMark was called.
func (p *Page) NetMark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.netNext
}

// NetEvents returns the network events from Seq since on, waiting up to timeout for
// one; none when the time is up. next is the Seq to ask for next.
func (p *Page) NetEvents(ctx context.Context, since int, timeout time.Duration) (events []NetEvent, next int, err error) {
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	for {
		p.mu.Lock()
		ch := p.changed
		for _, e := range p.net {
			if e.Seq >= since {
				events = append(events, e)
			}
		}
		next = p.netNext
		p.mu.Unlock()
		if len(events) > 0 {
			return events, next, nil
		}
		select {
		case <-ch:
		case <-octx.Done():
			if ctx.Err() != nil {
				return nil, next, ctx.Err()
			}
			return nil, next, nil
		}
	}
}

// TakeNet returns the network events from Seq since on without waiting, and the Seq
// to ask for next.
func (p *Page) TakeNet(since int) ([]NetEvent, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []NetEvent
	for _, e := range p.net {
		if e.Seq >= since {
			out = append(out, e)
		}
	}
	return out, p.netNext
}

// ConsoleMessage is a call of the page's console API.
type ConsoleMessage struct {
	// Type is the call: log, debug, info, error, warning, dir, table, trace, ...
	Type string `json:"type"`
	// Text is the arguments as text, separated by spaces.
	Text string `json:"text"`
	// Args are the arguments' values as JSON (their descriptions when they have none).
	Args []json.RawMessage `json:"args"`
}

// Response is the response to a page's document request.
type Response struct {
	// RequestID identifies the document's request, for ResponseBody.
	RequestID  string            `json:"requestId"`
	URL        string            `json:"url"`
	Status     int64             `json:"status"`
	StatusText string            `json:"statusText"`
	Headers    map[string]string `json:"headers"`
	// Method and RequestHeaders are its request's.
	Method         string            `json:"method,omitempty"`
	RequestHeaders map[string]string `json:"requestHeaders,omitempty"`
	Timing         *Timing           `json:"timing,omitempty"`
	ResponseDetails
}

// request is a network request in flight, for the metrics and the events.
type request struct {
	url, method, typ string
	start            float64 // monotonic seconds
	wallBase         float64 // wall time minus monotonic time, seconds
	line, body       float64 // bytes of the request line and of the body
	hdr              float64 // bytes of the headers as the page asked for them
	headers          map[string]string
	postData         []byte
	resHdr           float64 // bytes of the response's headers
	res              *NetEvent
	status           int64
	document         bool
	loader           cdp.LoaderID
}

// NewPage opens a page in the context.
func (c *Context) NewPage(ctx context.Context) (*Page, error) {
	return c.openPage(ctx, chromedp.WithExistingBrowserContext(c.id), false)
}

// adopt makes a Page of the tab id that one of the context's pages opened (a link
// opened in a new tab, window.open), as k6 adds it to the context's pages.
func (c *Context) adopt(ctx context.Context, id target.ID) {
	// A tab closed before it could be followed is no page of the context: nothing to do.
	_, _ = c.openPage(ctx, chromedp.WithTargetID(id), true)
}

// openPage sets up the page of the tab opt names (a new one, or an opened one, which
// may have loaded already).
func (c *Context) openPage(ctx context.Context, opt chromedp.ContextOption, opened bool) (*Page, error) {
	c.mu.Lock()
	closed := c.closed
	scripts := append([]string(nil), c.initScripts...)
	c.mu.Unlock()
	if closed {
		return nil, errors.New("new page: the browser context is closed")
	}
	pctx, cancel := chromedp.NewContext(c.b.ctx, opt)
	p := &Page{c: c, ctx: pctx, cancel: cancel, lifecycle: map[cdp.LoaderID]map[string]bool{},
		changed: make(chan struct{}), responses: map[cdp.LoaderID]*Response{}, requests: map[network.RequestID]*request{},
		sentHdr: map[network.RequestID]float64{}, named: map[string]string{}}
	// Listen opens the tab with the context that owns it.
	if err := chromedp.Listen(pctx, p.onEvent); err != nil {
		cancel()
		return nil, fmt.Errorf("new page: %w", err)
	}
	fail := func(err error) (*Page, error) {
		cancel()
		return nil, fmt.Errorf("new page: %w", err)
	}
	octx, ocancel := derive(pctx, ctx, c.b.cfg.Timeout)
	defer ocancel()
	tree, err := chromedp.Call(octx, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return fail(err)
	}
	p.mu.Lock()
	p.mainFrame = tree.FrameTree.Frame.ID
	p.loader = tree.FrameTree.Frame.LoaderID
	p.url = tree.FrameTree.Frame.URL
	if len(p.frames) == 0 {
		p.addFrames(tree.FrameTree)
	}
	p.mu.Unlock()
	if _, err := chromedp.Call(octx, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return fail(err)
	}
	if opened {
		// A tab the page opened may have loaded before its lifecycle events were asked
		// for: a complete document has reached every state.
		state, err := chromedp.Run(octx, chromedp.Evaluate[string](`document.readyState`))
		if err != nil {
			return fail(err)
		}
		if state == "complete" {
			p.mu.Lock()
			m := p.lifecycle[p.loader]
			if m == nil {
				m = map[string]bool{}
				p.lifecycle[p.loader] = m
			}
			m["DOMContentLoaded"], m["load"], m["networkIdle"] = true, true, true
			p.signal()
			p.mu.Unlock()
		}
	}
	if _, err := chromedp.Call(octx, network.Enable, network.EnableParams{}); err != nil {
		return fail(err)
	}
	if _, err := chromedp.Call(octx, runtime.Enable, cdp.Empty{}); err != nil {
		return fail(err)
	}
	o := c.opts
	if o.ViewportWidth > 0 && o.ViewportHeight > 0 {
		if _, err := chromedp.Call(octx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(o.ViewportWidth), Height: int64(o.ViewportHeight), DeviceScaleFactor: 1}); err != nil {
			return fail(err)
		}
	}
	ua := o.UserAgent
	if ua == "" && c.b.UserAgent() != c.b.version.UserAgent {
		ua = c.b.UserAgent()
	}
	if ua != "" {
		if _, err := chromedp.Call(octx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua}); err != nil {
			return fail(err)
		}
	}
	if len(o.ExtraHTTPHeaders) > 0 {
		h := network.Headers{}
		for k, v := range o.ExtraHTTPHeaders {
			h[k] = v
		}
		if _, err := chromedp.Call(octx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: h}); err != nil {
			return fail(err)
		}
	}
	if o.HTTPUser != "" {
		p.auth = true
		if _, err := chromedp.Call(octx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}, HandleAuthRequests: new(true)}); err != nil {
			return fail(err)
		}
	}
	for _, s := range scripts {
		if _, err := chromedp.Call(octx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: s}); err != nil {
			return fail(err)
		}
	}
	if w := c.b.opts.Watch; w != nil {
		flush, err := w(pctx, p.emit)
		if err != nil {
			return fail(fmt.Errorf("watch page: %w", err))
		}
		p.flush = flush
	}
	c.mu.Lock()
	c.pages = append(c.pages, p)
	c.mu.Unlock()
	return p, nil
}

// Context is the page's browser context.
func (p *Page) Context() *Context { return p.c }

// TargetContext is the page's chromedp context.
func (p *Page) TargetContext() context.Context { return p.ctx }

// emit passes a sample of the Watch to the browser's Emit.
func (p *Page) emit(metric string, value float64, tags map[string]string, at time.Time) {
	if e := p.c.b.opts.Emit; e != nil {
		e(metric, value, p.group(tags), at)
	}
}

// signal wakes the waiters; p.mu is held.
func (p *Page) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// onEvent follows the page's navigations and network. It runs on chromedp's event
// goroutine and must not block.
func (p *Page) onEvent(ev any) {
	switch e := ev.(type) {
	case *page.EventLifecycleEvent:
		p.mu.Lock()
		if e.FrameID == p.mainFrame {
			if e.Name == "init" {
				p.loader = e.LoaderID
			}
			m := p.lifecycle[e.LoaderID]
			if m == nil {
				m = map[string]bool{}
				p.lifecycle[e.LoaderID] = m
			}
			m[e.Name] = true
			p.signal()
		}
		p.mu.Unlock()
	case *page.EventFrameAttached:
		p.mu.Lock()
		if p.frame(string(e.FrameID)) == nil {
			p.frames = append(p.frames, &FrameInfo{ID: string(e.FrameID), ParentID: string(e.ParentFrameID)})
		}
		p.mu.Unlock()
	case *page.EventFrameDetached:
		if e.Reason != page.FrameDetachedReasonSwap {
			p.mu.Lock()
			p.dropFrame(string(e.FrameID))
			p.mu.Unlock()
		}
	case *page.EventFrameNavigated:
		if e.Frame == nil {
			return
		}
		p.mu.Lock()
		f := p.frame(string(e.Frame.ID))
		if f == nil {
			f = &FrameInfo{ID: string(e.Frame.ID)}
			if e.Frame.ParentID == "" {
				// A new main frame (a navigation to another process) replaces the tree.
				p.frames = append([]*FrameInfo{f}, p.frames...)
			} else {
				p.frames = append(p.frames, f)
			}
		}
		f.ParentID, f.Name, f.URL = string(e.Frame.ParentID), e.Frame.Name, e.Frame.URL+e.Frame.URLFragment
		if e.Frame.ParentID != "" {
			p.mu.Unlock()
			return
		}
		if old := p.mainFrame; old != e.Frame.ID {
			p.dropFrame(string(old))
		}
		p.mainFrame = e.Frame.ID
		p.loader = e.Frame.LoaderID
		p.url = e.Frame.URL + e.Frame.URLFragment
		p.navSeq++
		p.signal()
		p.mu.Unlock()
	case *page.EventNavigatedWithinDocument:
		p.mu.Lock()
		if f := p.frame(string(e.FrameID)); f != nil {
			f.URL = e.URL
		}
		if e.FrameID == p.mainFrame {
			p.url = e.URL
			p.navSeq++
			p.signal()
		}
		p.mu.Unlock()
	case *runtime.EventConsoleAPICalled:
		p.consoleCalled(e)
		p.tell()
	case *fetch.EventRequestPaused:
		p.requestPaused(e)
	case *fetch.EventAuthRequired:
		p.authRequired(e)
	case *network.EventRequestWillBeSent:
		p.requestStarted(e)
		p.tell()
	case *network.EventRequestWillBeSentExtraInfo:
		n := 0.0
		for k, v := range e.Headers {
			n += float64(len(k) + len(fmt.Sprint(v)) + 4)
		}
		p.mu.Lock()
		if len(p.sentHdr) >= maxNet {
			clear(p.sentHdr)
		}
		p.sentHdr[e.RequestID] = n
		p.mu.Unlock()
	case *network.EventResponseReceived:
		p.mu.Lock()
		r := p.requests[e.RequestID]
		if r != nil && e.Response != nil {
			r.status = e.Response.Status
			r.resHdr = e.Response.EncodedDataLength
			res := newResponse(e.Response)
			r.res = &NetEvent{Kind: "response", URL: res.URL, Method: r.method, ResourceType: r.typ, Status: res.Status,
				StatusText: res.StatusText, Headers: res.Headers, RequestID: string(e.RequestID), RequestHeaders: r.headers,
				ResponseDetails: res.ResponseDetails, Timing: timing(r, e.Response.Timing)}
			p.addNet(*r.res)
			if r.document {
				res.RequestID, res.Method, res.RequestHeaders, res.Timing = string(e.RequestID), r.method, r.headers, r.res.Timing
				p.responses[r.loader] = res
			}
		}
		p.mu.Unlock()
		if r != nil {
			p.tell()
		}
	case *network.EventLoadingFinished:
		p.requestEnded(e.RequestID, e.Timestamp.Float64(), e.EncodedDataLength, "")
	case *network.EventLoadingFailed:
		text := e.ErrorText
		if text == "" {
			text = "net::ERR_FAILED"
		}
		p.requestEnded(e.RequestID, e.Timestamp.Float64(), 0, text)
	case *target.EventAttachedToTarget:
		if e.TargetInfo != nil && e.TargetInfo.Type == "iframe" {
			p.frameTarget(e.TargetInfo)
			return
		}
		if e.TargetInfo == nil || e.TargetInfo.Type != "worker" {
			return
		}
		w := Worker{ID: string(e.SessionID), URL: e.TargetInfo.URL}
		p.mu.Lock()
		p.workers = append(p.workers, w)
		p.mu.Unlock()
	case *target.EventTargetInfoChanged:
		if e.TargetInfo != nil && e.TargetInfo.Type == "iframe" {
			p.frameTarget(e.TargetInfo)
		}
	case *target.EventDetachedFromTarget:
		p.mu.Lock()
		p.workers = slices.DeleteFunc(p.workers, func(w Worker) bool { return w.ID == string(e.SessionID) })
		p.mu.Unlock()
	}
}

// frameTarget follows a cross-origin frame, which runs in a target of its own whose
// id is the frame's: its URL is the target's.
func (p *Page) frameTarget(t *target.Info) {
	p.mu.Lock()
	if f := p.frame(string(t.TargetID)); f != nil && t.URL != "" {
		f.URL = t.URL
	}
	p.mu.Unlock()
}

// consoleCalled keeps a console message for TakeConsole.
func (p *Page) consoleCalled(e *runtime.EventConsoleAPICalled) {
	m := ConsoleMessage{Type: string(e.Type)}
	texts := make([]string, 0, len(e.Args))
	for _, a := range e.Args {
		var text string
		raw := json.RawMessage(a.Value)
		switch {
		case len(a.Value) > 0:
			var str string
			if json.Unmarshal(a.Value, &str) == nil {
				text = str
			} else {
				text = string(a.Value)
			}
		case a.UnserializableValue != "":
			text = string(a.UnserializableValue)
		case a.Type == runtime.RemoteObjectTypeUndefined:
			text = "undefined"
		default:
			text = a.Description
		}
		if len(raw) == 0 {
			raw, _ = json.Marshal(text)
		}
		texts = append(texts, text)
		m.Args = append(m.Args, raw)
	}
	m.Text = strings.Join(texts, " ")
	p.mu.Lock()
	if len(p.console) < maxConsole {
		p.console = append(p.console, m)
	}
	p.mu.Unlock()
}

// TakeConsole returns the console messages since the last call.
func (p *Page) TakeConsole() []ConsoleMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.console
	p.console = nil
	return out
}

func newResponse(r *network.Response) *Response {
	h := map[string]string{}
	for k, v := range r.Headers {
		h[strings.ToLower(k)] = fmt.Sprint(v)
	}
	return &Response{URL: r.URL, Status: r.Status, StatusText: r.StatusText, Headers: h, ResponseDetails: details(r)}
}

// requestStarted records a request; a redirect ends the request it follows.
func (p *Page) requestStarted(e *network.EventRequestWillBeSent) {
	if e.Request == nil || strings.HasPrefix(e.Request.URL, "data:") {
		return
	}
	if e.RedirectResponse != nil {
		p.mu.Lock()
		if r := p.requests[e.RequestID]; r != nil {
			r.status = e.RedirectResponse.Status
		}
		p.mu.Unlock()
		p.mu.Lock()
		if r := p.requests[e.RequestID]; r != nil {
			res := newResponse(e.RedirectResponse)
			r.res = &NetEvent{Kind: "response", URL: res.URL, Method: r.method, ResourceType: r.typ, Status: res.Status,
				StatusText: res.StatusText, Headers: res.Headers, RequestID: string(e.RequestID), RequestHeaders: r.headers,
				ResponseDetails: res.ResponseDetails}
		}
		p.mu.Unlock()
		p.requestEnded(e.RequestID, e.Timestamp.Float64(), e.RedirectResponse.EncodedDataLength, "")
	}
	// The request as HTTP/1.1 puts it: its line, its headers (those it was sent
	// with when the browser says, Network.requestWillBeSentExtraInfo) and its body.
	path := e.Request.URL
	if u, err := url.Parse(e.Request.URL); err == nil {
		path = u.RequestURI()
	}
	line := len(e.Request.Method) + 1 + len(path) + len(" HTTP/1.1\r\n\r\n")
	hdr := 0
	for k, v := range e.Request.Headers {
		hdr += len(k) + len(fmt.Sprint(v)) + 4
	}
	body := 0
	var postData []byte
	for _, d := range e.Request.PostDataEntries {
		body += len(d.Bytes)
		if len(postData)+len(d.Bytes) <= maxPostData {
			postData = append(postData, d.Bytes...)
		}
	}
	headers := map[string]string{}
	for k, v := range e.Request.Headers {
		headers[strings.ToLower(k)] = fmt.Sprint(v)
	}
	r := &request{
		url: e.Request.URL + e.Request.URLFragment, method: e.Request.Method, typ: string(e.Type),
		start: e.Timestamp.Float64(), wallBase: float64(e.WallTime) - e.Timestamp.Float64(),
		line: float64(line), hdr: float64(hdr), body: float64(body), headers: headers, postData: postData,
		document: e.Type == network.ResourceTypeDocument && e.LoaderID == cdp.LoaderID(e.RequestID), loader: e.LoaderID,
	}
	p.mu.Lock()
	p.requests[e.RequestID] = r
	p.addNet(NetEvent{Kind: "request", URL: r.url, Method: r.method, ResourceType: r.typ, Headers: headers, RequestID: string(e.RequestID), PostData: postData})
	p.mu.Unlock()
}

// requestEnded emits a finished (or, with a failure text, failed) request's
// metrics, k6's browser_http_req_duration, browser_http_req_failed,
// browser_data_sent and browser_data_received, tagged url, name, method, status and
// resource_type, and its requestfinished or requestfailed event.
func (p *Page) requestEnded(id network.RequestID, ts, received float64, failure string) {
	failed := failure != ""
	p.mu.Lock()
	r := p.requests[id]
	delete(p.requests, id)
	hdr, exact := p.sentHdr[id]
	delete(p.sentHdr, id)
	if !exact && r != nil {
		hdr = r.hdr
	}
	if r != nil {
		kind := "requestfinished"
		if failed {
			kind = "requestfailed"
		}
		var tm *Timing
		if r.res != nil && r.res.Timing != nil {
			x := *r.res.Timing
			x.ResponseEnd = (r.wallBase+ts)*1000 - x.StartTime
			tm = &x
		}
		sizes := &Sizes{RequestHeaders: hdr, RequestBody: r.body, ResponseHeaders: r.resHdr, ResponseBody: math.Max(0, received-r.resHdr)}
		p.addNet(NetEvent{Kind: kind, URL: r.url, Method: r.method, ResourceType: r.typ, Headers: r.headers,
			RequestID: string(id), Failure: failure, Response: r.res, Timing: tm, PostData: r.postData, Sizes: sizes})
	}
	p.mu.Unlock()
	if r == nil {
		return
	}
	p.tell()
	at := wall(r.wallBase + ts)
	tags := map[string]string{
		"url": r.url, "name": r.url, "method": r.method, "status": strconv.FormatInt(r.status, 10), "resource_type": r.typ,
	}
	fail := 0.0
	if failed || r.status >= 400 || r.status == 0 {
		fail = 1
	}
	e := p.c.b.opts.Emit
	if e == nil {
		return
	}
	p.emitNamed(tags, func(tags map[string]string) {
		e("browser_http_req_duration", math.Max(0, ts-r.start), tags, at)
		e("browser_http_req_failed", fail, tags, at)
		e("browser_data_sent", r.line+hdr+r.body, tags, at)
		e("browser_data_received", received, tags, at)
	})
}

// wall converts seconds since the epoch.
func wall(s float64) time.Time {
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// URL is the page's current URL.
func (p *Page) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Closed reports whether the page was closed.
func (p *Page) Closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// lifecycleName is the browser's lifecycle event for k6's waitUntil.
func lifecycleName(waitUntil string) (string, error) {
	switch waitUntil {
	case "", "load":
		return "load", nil
	case "domcontentloaded":
		return "DOMContentLoaded", nil
	case "networkidle":
		return "networkIdle", nil
	}
	return "", fmt.Errorf("waitUntil %q: expected load, domcontentloaded or networkidle", waitUntil)
}

// ErrTimeout is wrapped by the errors of operations that ran out of time.
var ErrTimeout = errors.New("timed out")

// Goto navigates to url and waits for waitUntil (load, domcontentloaded,
// networkidle); it returns the document's response, nil for a same-document
// navigation. A timeout of 0 is the context's navigation timeout.
func (p *Page) Goto(ctx context.Context, url, waitUntil string, timeout time.Duration) (*Response, error) {
	name, err := lifecycleName(waitUntil)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		_, timeout = p.c.Timeouts()
	}
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	res, err := chromedp.Call(octx, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		if errors.Is(octx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("navigating to %q: %w after %s", url, ErrTimeout, timeout)
		}
		return nil, fmt.Errorf("navigating frame to %q: %w", url, err)
	}
	if res.ErrorText != "" {
		return nil, fmt.Errorf("navigating frame to %q: %s", url, res.ErrorText)
	}
	if res.LoaderID == "" {
		return nil, nil
	}
	if err := p.waitLifecycle(octx, func() (cdp.LoaderID, bool) { return res.LoaderID, true }, name); err != nil {
		if ctx.Err() == nil {
			return nil, fmt.Errorf("navigating to %q: %w after %s", url, ErrTimeout, timeout)
		}
		return nil, err
	}
	return p.response(res.LoaderID), nil
}

// response is the response to the document of loader.
func (p *Page) response(loader cdp.LoaderID) *Response {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.responses[loader]
}

// waitLifecycle waits until the document that which names has reached the lifecycle
// event name.
func (p *Page) waitLifecycle(ctx context.Context, which func() (cdp.LoaderID, bool), name string) error {
	for {
		p.mu.Lock()
		ch := p.changed
		loader, ok := which()
		reached := ok && p.lifecycle[loader][name]
		p.mu.Unlock()
		if reached {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// NavigationMark is the page's count of main-frame navigations, for WaitForNavigation:
// take it before the action that navigates.
func (p *Page) NavigationMark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.navSeq
}

// WaitForNavigation waits for a main-frame navigation after mark (NavigationMark)
// and for its document to reach waitUntil.
func (p *Page) WaitForNavigation(ctx context.Context, mark int, waitUntil string, timeout time.Duration) (*Response, error) {
	name, err := lifecycleName(waitUntil)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		_, timeout = p.c.Timeouts()
	}
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	var loader cdp.LoaderID
	err = p.waitLifecycle(octx, func() (cdp.LoaderID, bool) {
		if p.navSeq <= mark {
			return "", false
		}
		loader = p.loader
		return loader, true
	}, name)
	if err != nil {
		if ctx.Err() == nil {
			return nil, fmt.Errorf("waiting for navigation: %w after %s", ErrTimeout, timeout)
		}
		return nil, err
	}
	return p.response(loader), nil
}

// WaitForLoadState waits until the current document reached state (load,
// domcontentloaded, networkidle).
func (p *Page) WaitForLoadState(ctx context.Context, state string, timeout time.Duration) error {
	name, err := lifecycleName(state)
	if err != nil {
		return err
	}
	if timeout <= 0 {
		_, timeout = p.c.Timeouts()
	}
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	if err := p.waitLifecycle(octx, func() (cdp.LoaderID, bool) { return p.loader, true }, name); err != nil {
		if ctx.Err() == nil {
			return fmt.Errorf("waiting for load state %q: %w after %s", state, ErrTimeout, timeout)
		}
		return err
	}
	return nil
}

// Reload reloads the page and waits for waitUntil.
func (p *Page) Reload(ctx context.Context, waitUntil string, timeout time.Duration) (*Response, error) {
	mark := p.NavigationMark()
	if timeout <= 0 {
		_, timeout = p.c.Timeouts()
	}
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	if _, err := chromedp.Call(octx, page.Reload, page.ReloadParams{}); err != nil {
		return nil, fmt.Errorf("reload: %w", err)
	}
	return p.WaitForNavigation(ctx, mark, waitUntil, timeout)
}

// Handle is a reference to an object in the page (a JSHandle).
type Handle struct {
	ObjectID    string `json:"objectId"`
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	Description string `json:"description"`
}

// Arg is an argument of Call: a JSON value, or a Handle when Handle is not empty.
type Arg struct {
	JSON   []byte
	Handle string
}

// EvalError is an exception thrown by a page's JavaScript.
type EvalError struct {
	Message string
}

// Error returns the exception's message ("Error: boom").
func (e *EvalError) Error() string { return e.Message }

// Call calls fn, the source of a JavaScript function, in the page's main frame with
// args, awaiting a returned promise. It returns the result as JSON, or with
// byHandle a Handle of it. An exception is an *EvalError.
func (p *Page) Call(ctx context.Context, fn string, args []Arg, byHandle bool, timeout time.Duration) ([]byte, *Handle, error) {
	if timeout <= 0 {
		timeout, _ = p.c.Timeouts()
	}
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	g, err := chromedp.Call(octx, runtime.Evaluate, runtime.EvaluateParams{Expression: "globalThis"})
	if err != nil {
		return nil, nil, p.opError(ctx, octx, err, timeout)
	}
	if g.Result == nil || g.Result.ObjectID == "" {
		return nil, nil, errors.New("the page has no global object")
	}
	// Every value goes as a JSON text in a string, decoded in the page: the protocol
	// client drops empty values ("", [], {}) from a call's arguments. kinds says how
	// to read each argument: v a value, h a handle, u undefined.
	kinds := []byte("k")
	var cargs []*runtime.CallArgument
	for _, a := range args {
		switch {
		case a.Handle != "":
			kinds = append(kinds, 'h')
			cargs = append(cargs, &runtime.CallArgument{ObjectID: runtime.RemoteObjectID(a.Handle)})
		case len(a.JSON) == 0 || string(a.JSON) == "undefined":
			kinds = append(kinds, 'u')
			cargs = append(cargs, &runtime.CallArgument{Value: jsonv2.Value(`"u"`)})
		default:
			kinds = append(kinds, 'v')
			text, err := json.Marshal(string(a.JSON))
			if err != nil {
				return nil, nil, err
			}
			cargs = append(cargs, &runtime.CallArgument{Value: jsonv2.Value(text)})
		}
	}
	k, _ := json.Marshal(string(kinds))
	params := runtime.CallFunctionOnParams{
		FunctionDeclaration: "function (kinds, ...a) { return (" + fn + ").apply(this, a.map((x, i) => " +
			"kinds[i + 1] === 'h' ? x : kinds[i + 1] === 'u' ? undefined : JSON.parse(x))); }",
		ObjectID: g.Result.ObjectID, AwaitPromise: new(true), ReturnByValue: new(!byHandle), UserGesture: new(true),
		Arguments: append([]*runtime.CallArgument{{Value: jsonv2.Value(k)}}, cargs...),
	}
	res, err := chromedp.Call(octx, runtime.CallFunctionOn, params)
	if err != nil {
		return nil, nil, p.opError(ctx, octx, err, timeout)
	}
	if d := res.ExceptionDetails; d != nil {
		return nil, nil, &EvalError{Message: exceptionMessage(d)}
	}
	if res.Result == nil {
		return []byte("null"), nil, nil
	}
	if byHandle {
		r := res.Result
		return nil, &Handle{ObjectID: string(r.ObjectID), Type: string(r.Type), Subtype: string(r.Subtype), Description: r.Description}, nil
	}
	if res.Result.Type == runtime.RemoteObjectTypeUndefined {
		return nil, nil, nil
	}
	if u := res.Result.UnserializableValue; u != "" {
		return json.RawMessage(strconv.Quote(string(u))), nil, nil
	}
	if len(res.Result.Value) == 0 {
		return []byte("null"), nil, nil
	}
	return []byte(res.Result.Value), nil, nil
}

// opError is err of an operation with context octx made from ctx: a timeout names it.
func (p *Page) opError(ctx, octx context.Context, err error, timeout time.Duration) error {
	if errors.Is(octx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("%w after %s", ErrTimeout, timeout)
	}
	if p.Closed() {
		return errors.New("the page is closed")
	}
	return err
}

// exceptionMessage is an exception's "Name: message".
func exceptionMessage(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		msg, _, _ := strings.Cut(d.Exception.Description, "\n    at ")
		return msg
	}
	if d.Exception != nil && len(d.Exception.Value) > 0 {
		return "Uncaught " + string(d.Exception.Value)
	}
	return d.Text
}

// Release releases a Handle.
func (p *Page) Release(ctx context.Context, h string) {
	octx, cancel := derive(p.ctx, ctx, time.Second)
	defer cancel()
	_, _ = chromedp.Call(octx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: runtime.RemoteObjectID(h)})
}

// Command sends the protocol command method with params (a JSON object) to the
// page's target and returns its result as JSON.
func (p *Page) Command(ctx context.Context, method string, params []byte) ([]byte, error) {
	timeout, _ := p.c.Timeouts()
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	if len(params) == 0 {
		params = []byte("{}")
	}
	cmd := cdp.Command[jsonv2.Value, jsonv2.Value]{Method: method}
	res, err := chromedp.Call(octx, cmd, jsonv2.Value(params))
	if err != nil {
		return nil, p.opError(ctx, octx, fmt.Errorf("%s: %w", method, err), timeout)
	}
	return []byte(res), nil
}

// ResponseBody returns the body of the response to the request id (a Response's
// RequestID), while the page keeps it.
func (p *Page) ResponseBody(ctx context.Context, id string) ([]byte, error) {
	params, err := json.Marshal(map[string]string{"requestId": id})
	if err != nil {
		return nil, err
	}
	raw, err := p.Command(ctx, "Network.getResponseBody", params)
	if err != nil {
		return nil, fmt.Errorf("response body: %w", err)
	}
	var res struct {
		Body          string `json:"body"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("response body: %w", err)
	}
	if res.Base64Encoded {
		return base64.StdEncoding.DecodeString(res.Body)
	}
	return []byte(res.Body), nil
}

// ScreenshotOptions are page.screenshot's options.
type ScreenshotOptions struct {
	Path     string
	FullPage bool
	Type     string // png (default) or jpeg
	Quality  int
}

// Screenshot captures the page (its viewport, or with FullPage all of it) and, with
// Path, writes the image there.
func (p *Page) Screenshot(ctx context.Context, o ScreenshotOptions) ([]byte, error) {
	timeout, _ := p.c.Timeouts()
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	typ := o.Type
	if typ == "" && (strings.HasSuffix(o.Path, ".jpg") || strings.HasSuffix(o.Path, ".jpeg")) {
		typ = "jpeg"
	}
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	if typ == "jpeg" {
		params.Format = page.CaptureScreenshotFormatJpeg
		if o.Quality > 0 {
			params.Quality = new(int64(o.Quality))
		}
	}
	if o.FullPage {
		m, err := chromedp.Call(octx, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, fmt.Errorf("screenshot: %w", err)
		}
		if s := m.CSSContentSize; s != nil {
			params.Clip = &page.Viewport{Width: math.Ceil(s.Width), Height: math.Ceil(s.Height), Scale: 1}
			params.CaptureBeyondViewport = new(true)
		}
	}
	// A tab in the background paints no frames: with several tabs open, the one to
	// capture comes to the front first.
	if len(p.c.Pages()) > 1 {
		if _, err := chromedp.Call(octx, page.BringToFront, cdp.Empty{}); err != nil {
			return nil, fmt.Errorf("screenshot: %w", p.opError(ctx, octx, err, timeout))
		}
	}
	res, err := chromedp.Call(octx, page.CaptureScreenshot, params)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", p.opError(ctx, octx, err, timeout))
	}
	img := res.Data
	if o.Path != "" {
		if err := os.MkdirAll(filepath.Dir(o.Path), 0o755); err != nil {
			return nil, fmt.Errorf("screenshot: %w", err)
		}
		if err := os.WriteFile(o.Path, img, 0o644); err != nil {
			return nil, fmt.Errorf("screenshot: %w", err)
		}
	}
	return img, nil
}

// Close runs the Watch's flush and closes the tab. It is safe to call more than once.
func (p *Page) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	var err error
	if p.flush != nil {
		// The page's last Web Vitals are a measurement, not the script's action: a
		// tab that cannot answer (a navigation still loading holds its evaluation)
		// loses them, and the close goes on.
		fctx, cancel := derive(p.ctx, ctx, 2*time.Second)
		if ferr := p.flush(fctx); ferr != nil {
			p.c.b.opts.Logger.Debug("Page closed without its last Web Vitals", "url", p.URL(), "err", ferr)
		}
		cancel()
	}
	cctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	if cerr := chromedp.Cancel(cctx); cerr != nil && !errors.Is(cerr, context.Canceled) && !errors.Is(cerr, context.DeadlineExceeded) {
		err = errors.Join(err, cerr)
	}
	cancel()
	p.cancel()
	p.c.forget(p)
	return err
}
