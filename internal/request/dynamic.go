package request

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// ResponseType says what a dynamic request keeps of its response body (k6's
// params.responseType).
type ResponseType uint8

// The response types.
const (
	// ResponseText keeps the body (k6 gives it to the script as a string).
	ResponseText ResponseType = iota
	// ResponseBinary keeps the body (k6 gives it as an ArrayBuffer).
	ResponseBinary
	// ResponseNone reads the body off the wire, counting its bytes, and drops it
	// (k6's default under discardResponseBodies).
	ResponseNone
)

// ParseResponseType returns the type named s: "text", "binary" or "none".
func ParseResponseType(s string) (ResponseType, error) {
	switch s {
	case "text":
		return ResponseText, nil
	case "binary":
		return ResponseBinary, nil
	case "none":
		return ResponseNone, nil
	}
	return 0, fmt.Errorf("parse response type %q: want text, binary or none", s)
}

// String returns the k6 name of the type.
func (t ResponseType) String() string {
	switch t {
	case ResponseBinary:
		return "binary"
	case ResponseNone:
		return "none"
	}
	return "text"
}

// Request is an HTTP request described at run time, the way k6/http's functions
// describe one. Send measures it exactly as a compiled step's request: the same
// samples, tags, timings, error codes and redirect hops.
type Request struct {
	// Method is sent as given (k6 wants it upper case); "" is GET.
	Method string
	// URL is absolute, http or https; its user:password@ is sent as Auth says
	// and never appears in tags.
	URL string
	// Header is sent as given, with Env.UserAgent when it has no User-Agent. Send
	// does not modify it.
	Header http.Header
	// Body is sent as given; nil sends none.
	Body []byte
	// VUTags are the tags of every sample of the VU at this point: run tags,
	// scenario tags, scenario and group. The set comes from the Env's Pool.
	VUTags *metrics.TagSet
	// Tags are the request's own (k6's params.tags). They win over the others,
	// and "name" is the url tag too (k6). Tags are kept low-cardinality with name.
	Tags []metrics.Tag
	// Timeout bounds every hop; ≤ 0 is k6's default, 60 s.
	Timeout time.Duration
	// Redirects is the most redirects followed; 0 follows none (k6's
	// redirects: 0). Callers pass k6's maxRedirects (default 10) unless the
	// request sets its own.
	Redirects int
	// ResponseType says whether the body is kept.
	ResponseType ResponseType
	// Expected are the statuses that count as expected (k6's responseCallback
	// made by http.expectedStatuses); nil is k6's default, 200–399. Every hop is
	// judged.
	Expected []scenario.StatusRange
	// Unjudged drops the judgement: no expected_response tag and no
	// http_req_failed sample (k6's setResponseCallback(null)).
	Unjudged bool
	// Auth is how the URL's credentials are sent: basic (the default) or digest.
	Auth Auth
	// Jar sends its cookies and stores the ones responses set; nil does neither.
	Jar *CookieJar
	// Cookies are this request's own (k6's params.cookies).
	Cookies []Cookie
	// Metadata goes on every sample of the request (k6's sample metadata); nil
	// for none.
	Metadata map[string]string
}

// Response is what a dynamic request got; after redirects every field is the
// last hop's (k6).
type Response struct {
	// Status is 0 after a transport error.
	Status int
	// Proto is HTTP/1.0, HTTP/1.1 or HTTP/2.0; "" after a transport error.
	Proto string
	// Header holds the response's header, names in Go's canonical form (as k6
	// shows them).
	Header http.Header
	// Cookies are the cookies the response set.
	Cookies []*http.Cookie
	// Body is the body, decoded as its Content-Encoding says (gzip, deflate);
	// nil with ResponseNone or after a transport error.
	Body []byte
	// URL is the last hop's URL.
	URL string
	// Timings are the last hop's k6 timings.
	Timings Timings
	// Err is the transport error, or the body's decoding error, if any.
	Err error
	// ErrorCode is k6's error code: of the transport error, 1701 for a body
	// that does not decode, or 1000+status for a status of 400 or more; 0
	// otherwise.
	ErrorCode int
	// Error is k6's error message: the error tag of a transport error; "" for a
	// status error.
	Error string
	// RemoteIP and RemotePort are the server's address; empty and 0 when no
	// connection was made.
	RemoteIP   string
	RemotePort int
	// TLSVersion ("tls1.3") and TLSCipherSuite are empty over plain HTTP.
	TLSVersion, TLSCipherSuite string
	// TLS is the connection's TLS state (its stapled OCSP response, its
	// certificates); nil over plain HTTP.
	TLS *tls.ConnectionState
	// Request is the last hop as sent.
	Request SentRequest
}

// SentRequest is a hop of a dynamic request as sent.
type SentRequest struct {
	Method, URL string
	// Header is the header sent, with the cookies; it may be the Request's own
	// Header, which the caller must not modify while it uses this.
	Header http.Header
	Body   []byte
	// Cookies are the cookies sent: the jar's (Replace false) and the
	// request's own.
	Cookies []Cookie
}

// dynamicState is a client's reusable state for dynamic requests.
type dynamicState struct {
	// plain serves requests without tags of their own, tagged the others: a
	// tag cache entry of one is never taken for the other's.
	plain, tagged spec
	// digest are the specs of the first requests of digest authentication (of
	// plain and tagged requests), expecting only401.
	digest  [2]spec
	only401 [1]scenario.StatusRange
	ck      cookies
	agent   http.Header // the header of requests without one
}

// Send runs req for one VU on the client's connections: the request and the
// redirects it follows, each its own request with its own samples, pushed in
// one Push. It is the path of Do without the checks (the script makes its own).
func (c *Client) Send(ctx context.Context, req *Request) *Response {
	c.samples = c.samples[:0]
	sp := c.dynamicSpec(req)
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	hdr := req.Header
	switch {
	case c.env.UserAgent == "" || hdr.Get("User-Agent") != "":
	case hdr == nil:
		// The hops never modify a header they are given, so one serves all.
		if c.dyn.agent == nil {
			c.dyn.agent = http.Header{"User-Agent": {c.env.UserAgent}}
		}
		hdr = c.dyn.agent
	default:
		hdr = hdr.Clone()
		hdr.Set("User-Agent", c.env.UserAgent)
	}
	c.lastCtx = ctx
	h := hop{method: method, target: req.URL, header: hdr, sent: hdr, body: req.Body}
	var resp *http.Response
	var out Outcome
	var ck *cookies
	if !scenario.ValidHeaderName(method) {
		// A method is a token (RFC 9110 §9.1); anything else would break the
		// request line. It fails as net/http fails it, before any byte is sent.
		err := &url.Error{Op: urlOp(method), URL: redact(req.URL), Err: fmt.Errorf("net/http: invalid method %q", method)}
		out = c.record(sp, method, req.URL, nil, Timings{}, time.Now(), err)
	} else {
		if req.Jar != nil || len(req.Cookies) > 0 {
			ck = &c.dyn.ck
			ck.reset(req.Jar, req.Cookies)
		}
		if req.Auth == AuthDigest {
			resp, out = c.digest(sp, &h, ck)
		} else {
			resp, out = c.hops(sp, &h, false, ck)
		}
	}
	res := c.response(sp, &h, resp, out, ck)
	if req.Metadata != nil {
		for i := range c.samples {
			c.samples[i].Metadata = req.Metadata
		}
	}
	c.env.Pusher.Push(c.samples)
	return res
}

// dynamicSpec returns the client's spec filled for req.
func (c *Client) dynamicSpec(req *Request) *spec {
	if c.dyn == nil {
		c.dyn = &dynamicState{only401: [1]scenario.StatusRange{{Min: http.StatusUnauthorized, Max: http.StatusUnauthorized}}}
	}
	sp := &c.dyn.plain
	if len(req.Tags) > 0 {
		sp = &c.dyn.tagged
	}
	*sp = spec{
		timeout:   req.Timeout,
		redirects: max(req.Redirects, 0),
		needBody:  req.ResponseType != ResponseNone,
		expected:  req.Expected,
		unjudged:  req.Unjudged,
		base:      req.VUTags.Tags(),
		reqTags:   req.Tags,
		id:        req.VUTags,
	}
	if sp.timeout <= 0 {
		sp.timeout = scenario.DefaultTimeout
	}
	if len(req.Tags) > 0 {
		// The request's tags split the tag cache: the set of all of them names it.
		sp.id = c.env.Pool.With(req.VUTags, req.Tags...)
		for _, t := range req.Tags {
			if t.Key == "name" {
				sp.name = t.Value // the last wins, as in the pool
			}
		}
	}
	return sp
}

// response describes the last hop of a dynamic request.
func (c *Client) response(sp *spec, h *hop, resp *http.Response, out Outcome, ck *cookies) *Response {
	r := &Response{
		Status:  out.Status,
		URL:     h.target,
		Timings: out.Timings,
		Err:     out.Err,
		Request: SentRequest{Method: h.method, URL: h.target, Header: h.sent, Body: h.body},
	}
	if ck != nil && len(ck.sent) > 0 {
		r.Request.Cookies = append([]Cookie(nil), ck.sent...)
	}
	if a, ok := c.remote.(*net.TCPAddr); ok {
		r.RemoteIP, r.RemotePort = a.IP.String(), a.Port
	}
	if out.Err != nil {
		r.ErrorCode, r.Error = Classify(out.Err)
		return r
	}
	r.ErrorCode = StatusCode(resp.StatusCode)
	r.Proto = resp.Proto
	r.Header = resp.Header
	if resp == &c.h1.resp {
		r.Header = resp.Header.Clone() // the plain-HTTP path reuses its map
	}
	if len(r.Header["Set-Cookie"]) > 0 {
		r.Cookies = resp.Cookies()
	}
	if resp.TLS != nil {
		r.TLSVersion = tlsVersion(resp.TLS.Version)
		r.TLSCipherSuite = tls.CipherSuiteName(resp.TLS.CipherSuite)
		r.TLS = resp.TLS
	}
	if sp.needBody {
		r.Body = bytes.Clone(c.body.Bytes())
		if r.Body == nil {
			r.Body = []byte{}
		}
		if ce := resp.Header.Get("Content-Encoding"); ce != "" && len(r.Body) > 0 {
			// The samples counted the bytes on the wire; the script gets the
			// body decoded. A body that does not decode is k6's 1701, on the
			// response only: its samples were taken.
			b, err := decodeBody(r.Body, ce)
			if err != nil {
				r.Err, r.ErrorCode, r.Error = err, CodeDecompression, "decompression error"
			} else {
				r.Body = b
			}
		}
	}
	return r
}
