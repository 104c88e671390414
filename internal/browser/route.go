package browser

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Routed is a request paused for the script's route handlers (page.route).
type Routed struct {
	ID           string            `json:"id"`
	URL          string            `json:"url"`
	Method       string            `json:"method"`
	ResourceType string            `json:"resourceType"`
	Headers      map[string]string `json:"headers"`
}

// SetRoutes pauses the page's requests whose URL matches one of patterns until
// ContinueRequest, AbortRequest or FulfillRequest decides them (Notify says when
// some wait, TakeRouted returns them); the others go on at once. No patterns stops
// pausing.
func (p *Page) SetRoutes(ctx context.Context, patterns []*regexp.Regexp) error {
	p.mu.Lock()
	was := len(p.routes) > 0
	p.routes = patterns
	p.mu.Unlock()
	timeout, _ := p.c.Timeouts()
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	switch {
	case p.auth:
		// The Fetch domain is on for the HTTP credentials, for every request.
	case len(patterns) > 0 && !was:
		if _, err := chromedp.Call(octx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
			return fmt.Errorf("route: %w", err)
		}
	case len(patterns) == 0 && was:
		if _, err := chromedp.Call(octx, fetch.Disable, cdp.Empty{}); err != nil {
			return fmt.Errorf("unroute: %w", err)
		}
	}
	return nil
}

// TakeRouted returns the requests paused for the route handlers since the last call.
func (p *Page) TakeRouted() []Routed {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.routed
	p.routed = nil
	return out
}

// requestPaused queues a paused request for the handlers, or lets it go on when no
// route matches. It runs on the event goroutine: commands go from another.
func (p *Page) requestPaused(e *fetch.EventRequestPaused) {
	if e.Request == nil {
		return
	}
	url := e.Request.URL + e.Request.URLFragment
	p.mu.Lock()
	matched := false
	for _, re := range p.routes {
		if re.MatchString(url) {
			matched = true
			break
		}
	}
	if matched {
		h := map[string]string{}
		for k, v := range e.Request.Headers {
			h[strings.ToLower(k)] = fmt.Sprint(v)
		}
		p.routed = append(p.routed, Routed{ID: string(e.RequestID), URL: url, Method: e.Request.Method, ResourceType: string(e.ResourceType), Headers: h})
	}
	p.mu.Unlock()
	if !matched {
		go func() { _ = p.ContinueRequest(context.Background(), string(e.RequestID), ContinueOverrides{}) }()
		return
	}
	p.tell()
}

// authRequired answers an HTTP authentication challenge with the context's
// credentials (httpCredentials), once per request: a second challenge (wrong
// credentials) is cancelled and the page gets the server's 401.
func (p *Page) authRequired(e *fetch.EventAuthRequired) {
	o := p.c.opts
	p.mu.Lock()
	if p.authTried == nil {
		p.authTried = map[fetch.RequestID]bool{}
	}
	resp := fetch.AuthChallengeResponseResponseProvideCredentials
	if p.authTried[e.RequestID] || o.HTTPUser == "" {
		resp = fetch.AuthChallengeResponseResponseCancelAuth
	}
	p.authTried[e.RequestID] = true
	if len(p.authTried) > maxNet {
		clear(p.authTried)
	}
	p.mu.Unlock()
	go func() {
		_ = p.fetchCall(context.Background(), "auth", func(ctx context.Context) error {
			_, err := chromedp.Call(ctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: e.RequestID,
				AuthChallengeResponse: &fetch.AuthChallengeResponse{Response: resp, Username: o.HTTPUser, Password: o.HTTPPassword}})
			return err
		})
	}()
}

// ContinueOverrides change a routed request as it goes on.
type ContinueOverrides struct {
	URL      string            `json:"url"`
	Method   string            `json:"method"`
	PostData string            `json:"postData"`
	Headers  map[string]string `json:"headers"`
}

// ContinueRequest lets a routed request go on, changed by o.
func (p *Page) ContinueRequest(ctx context.Context, id string, o ContinueOverrides) error {
	params := fetch.ContinueRequestParams{RequestID: fetch.RequestID(id), URL: o.URL, Method: o.Method}
	if o.PostData != "" {
		params.PostData = []byte(o.PostData)
	}
	params.Headers = headerEntries(o.Headers)
	return p.fetchCall(ctx, "continue", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, fetch.ContinueRequest, params)
		return err
	})
}

// AbortRequest fails a routed request with reason (k6's error codes: failed, aborted,
// timedout, accessdenied, connectionclosed, connectionreset, connectionrefused,
// connectionaborted, connectionfailed, namenotresolved, internetdisconnected,
// addressunreachable, blockedbyclient, blockedbyresponse).
func (p *Page) AbortRequest(ctx context.Context, id, reason string) error {
	r, ok := abortReasons[reason]
	if !ok {
		return fmt.Errorf("route.abort: unknown error code %q", reason)
	}
	return p.fetchCall(ctx, "abort", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: fetch.RequestID(id), ErrorReason: r})
		return err
	})
}

var abortReasons = map[string]network.ErrorReason{
	"": network.ErrorReasonFailed, "failed": network.ErrorReasonFailed, "aborted": network.ErrorReasonAborted,
	"timedout": network.ErrorReasonTimedOut, "accessdenied": network.ErrorReasonAccessDenied,
	"connectionclosed": network.ErrorReasonConnectionClosed, "connectionreset": network.ErrorReasonConnectionReset,
	"connectionrefused": network.ErrorReasonConnectionRefused, "connectionaborted": network.ErrorReasonConnectionAborted,
	"connectionfailed": network.ErrorReasonConnectionFailed, "namenotresolved": network.ErrorReasonNameNotResolved,
	"internetdisconnected": network.ErrorReasonInternetDisconnected, "addressunreachable": network.ErrorReasonAddressUnreachable,
	"blockedbyclient": network.ErrorReasonBlockedByClient, "blockedbyresponse": network.ErrorReasonBlockedByResponse,
}

// FulfillRequest answers a routed request with status, headers and body.
func (p *Page) FulfillRequest(ctx context.Context, id string, status int64, headers map[string]string, body []byte) error {
	if status == 0 {
		status = 200
	}
	return p.fetchCall(ctx, "fulfill", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
			RequestID: fetch.RequestID(id), ResponseCode: status, ResponseHeaders: headerEntries(headers), Body: body})
		return err
	})
}

// fetchCall runs a Fetch command with the page's timeout.
func (p *Page) fetchCall(ctx context.Context, what string, f func(context.Context) error) error {
	timeout, _ := p.c.Timeouts()
	octx, cancel := derive(p.ctx, ctx, timeout)
	defer cancel()
	if err := f(octx); err != nil {
		return fmt.Errorf("route.%s: %w", what, p.opError(ctx, octx, err, timeout))
	}
	return nil
}

func headerEntries(h map[string]string) []*fetch.HeaderEntry {
	var out []*fetch.HeaderEntry
	for k, v := range h {
		out = append(out, &fetch.HeaderEntry{Name: k, Value: v})
	}
	return out
}
