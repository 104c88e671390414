package request

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// Env is what every VU's client shares: where samples go and how tag sets are
// interned. It is read-only after construction.
type Env struct {
	Pusher  metrics.Pusher
	Metrics *metrics.Builtin
	Pool    *metrics.TagPool
	// UserAgent is sent unless a step sets its own; empty sends none.
	UserAgent string
}

// Options configure the transport of one client.
type Options struct {
	// TLS is the client TLS configuration (InsecureSkipVerify, MinVersion,
	// certificates); nil uses Go's defaults.
	TLS *tls.Config
	// DialTimeout bounds connecting; default 30 s.
	DialTimeout time.Duration
	// ReadBufferSize and WriteBufferSize size the connection's bufio buffers; default
	// 2 KiB and 1 KiB (net/http's are 4 KiB each). With thousands of VUs they are a
	// large part of each VU's memory; bodies larger than the buffer are read and
	// written past it, and header lines longer than it are still accepted.
	ReadBufferSize, WriteBufferSize int
	// DisableHTTP2 keeps HTTPS on HTTP/1.1.
	DisableHTTP2 bool
	// Proxy selects a proxy per request (http.ProxyFromEnvironment honours
	// HTTP_PROXY, HTTPS_PROXY and NO_PROXY as k6 does); nil connects directly, which
	// saves work on every request when no proxy is configured.
	Proxy func(*http.Request) (*url.URL, error)
	// Debug logs every request and response (k6's --http-debug); nil logs none.
	Debug *Debug
	// Net are k6's test-wide transport options (rps, blacklistIPs, dns, …); nil for
	// k6's defaults.
	Net *Net
}

// Client is one VU's HTTP client. It is not safe for concurrent use: a VU runs one
// request at a time.
type Client struct {
	env  *Env
	opts Options
	h1   h1State // plain HTTP without a proxy
	// transport and client serve HTTPS and proxied requests; made on first use.
	transport *http.Transport
	client    *http.Client

	wire           *wireBytes // bytes on the wire, all connections (and batch workers')
	takenS, takenR int64
	remote         net.Addr // the peer of the last request
	workers        *batchWorkers
	async          *asyncWorkers // made by the first SendAsync
	dyn            *dynamicState // made by the first dynamic request

	tr        tracer
	trace     *httptrace.ClientTrace
	lastCtx   context.Context // the caller's context of the current request
	reqParent context.Context // the parent of reqCtx
	reqCtx    context.Context // cancelable by the watchdog, with the tracer
	reqCancel context.CancelFunc

	watchdog *time.Timer
	wdMu     sync.Mutex
	wdCancel context.CancelFunc
	timedOut atomic.Bool

	samples   []metrics.Sample
	tags      map[tagKey]*metrics.TagSet
	scratch   []metrics.Tag
	body      bytes.Buffer
	reqBody   bodyReader
	renderBuf []byte

	// dbgBody keeps every response body for Options.Debug's dumps; dbgVars are the
	// variables of the step Do runs, for the dumps' vu and iter.
	dbgBody bool
	dbgVars *scenario.Vars
}

// NewClient returns a client with its own transport.
func NewClient(env *Env, opts Options) *Client {
	// Nine samples per request plus checks: sized once, reused.
	c := &Client{env: env, wire: &wireBytes{}, tags: map[tagKey]*metrics.TagSet{}, samples: make([]metrics.Sample, 0, 16)}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 30 * time.Second
	}
	if opts.ReadBufferSize <= 0 {
		opts.ReadBufferSize = 2 << 10
	}
	if opts.WriteBufferSize <= 0 {
		opts.WriteBufferSize = 1 << 10
	}
	if opts.Debug != nil && opts.Debug.Logger == nil {
		opts.Debug = nil
	}
	c.dbgBody = opts.Debug != nil && opts.Debug.Full
	c.opts = opts
	c.h1.dialer = net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second}
	if opts.Net != nil && opts.Net.LocalIPs != nil {
		c.h1.dialer.LocalAddr = &net.TCPAddr{IP: opts.Net.LocalIPs.Next().AsSlice()}
	}
	c.h1.rbuf = opts.ReadBufferSize
	c.h1.pool = &connPool{}
	c.trace = c.tr.clientTrace()
	return c
}

// netHTTP returns the client's net/http client, making it on first use.
func (c *Client) netHTTP() *http.Client {
	if c.client != nil {
		return c.client
	}
	opts := c.opts
	c.transport = &http.Transport{
		Proxy: opts.Proxy,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := c.dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: conn, w: c.wire}, nil
		},
		TLSClientConfig:     opts.TLS,
		ForceAttemptHTTP2:   !opts.DisableHTTP2,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: maxIdlePerHost,
		// No idle timeout: with one, net/http resets a timer every time a
		// connection goes back to the pool, on every request.
		TLSHandshakeTimeout: 0, // bounded by the request timeout
		DisableCompression:  true,
		DisableKeepAlives:   opts.Net != nil && opts.Net.NoConnectionReuse,
		ReadBufferSize:      opts.ReadBufferSize,
		WriteBufferSize:     opts.WriteBufferSize,
	}
	if opts.DisableHTTP2 {
		c.transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	c.client = &http.Client{
		Transport: c.transport,
		// Every redirect hop is its own request with its own samples (k6).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c.client
}

// arm starts the watchdog: cancel runs if the request outlives timeout.
func (c *Client) arm(cancel context.CancelFunc, timeout time.Duration) {
	c.wdMu.Lock()
	c.wdCancel = cancel
	c.wdMu.Unlock()
	if c.watchdog == nil {
		c.watchdog = time.AfterFunc(timeout, c.fire)
		return
	}
	c.watchdog.Reset(timeout)
}

func (c *Client) disarm() {
	c.watchdog.Stop()
	c.wdMu.Lock()
	c.wdCancel = nil
	c.wdMu.Unlock()
}

func (c *Client) fire() {
	c.wdMu.Lock()
	cancel := c.wdCancel
	c.wdMu.Unlock()
	if cancel != nil {
		c.timedOut.Store(true)
		cancel()
	}
}

// CloseIdle closes the client's idle connections (k6's noVUConnectionReuse, between
// iterations).
func (c *Client) CloseIdle() {
	c.h1.closeIdle()
	if c.transport != nil {
		c.transport.CloseIdleConnections()
	}
}

// Close drops the client's idle connections.
func (c *Client) Close() {
	if c.reqCancel != nil {
		c.reqCancel()
	}
	c.h1.closeIdle()
	if c.transport != nil {
		c.transport.CloseIdleConnections()
	}
	c.workers.close()
	c.async.close()
}

// TakeBytes returns the bytes sent and received on the wire since the last call
// (k6 emits data_sent/data_received once per iteration).
func (c *Client) TakeBytes() (sent, received int64) {
	s, r := c.wire.sent.Load(), c.wire.received.Load()
	sent, received = s-c.takenS, r-c.takenR
	c.takenS, c.takenR = s, r
	return sent, received
}

// wireBytes counts the bytes on the wire of a client's connections. With
// net/http, Read and Write run on the transport's goroutines, and a batch's
// workers count into their client's, hence the atomics.
type wireBytes struct{ sent, received atomic.Int64 }

// countingConn counts bytes on the wire.
type countingConn struct {
	net.Conn
	w *wireBytes
}

// Read reads from the connection and counts the bytes.
func (cc *countingConn) Read(p []byte) (int, error) {
	n, err := cc.Conn.Read(p)
	cc.w.received.Add(int64(n))
	return n, err
}

// Write writes to the connection and counts the bytes.
func (cc *countingConn) Write(p []byte) (int, error) {
	n, err := cc.Conn.Write(p)
	cc.w.sent.Add(int64(n))
	return n, err
}

// tracer records httptrace events as nanoseconds since epoch. Events arrive on the
// transport's goroutines, hence the atomics.
type tracer struct {
	epoch                     time.Time
	getConn, gotConn          atomic.Int64
	connectStart, connectDone atomic.Int64
	tlsStart, tlsDone         atomic.Int64
	wroteRequest, firstByte   atomic.Int64

	mu     sync.Mutex
	remote net.Addr // of the connection got
}

func (t *tracer) gotConnInfo(info httptrace.GotConnInfo) {
	t.gotConn.Store(t.now())
	t.mu.Lock()
	t.remote = info.Conn.RemoteAddr()
	t.mu.Unlock()
}

// peer returns the remote address of the last connection got, and forgets it.
func (t *tracer) peer() net.Addr {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.remote
	t.remote = nil
	return a
}

func (t *tracer) now() int64 { return int64(time.Since(t.epoch)) }

func (t *tracer) reset() {
	for _, a := range []*atomic.Int64{&t.getConn, &t.gotConn, &t.connectStart, &t.connectDone, &t.tlsStart, &t.tlsDone, &t.wroteRequest, &t.firstByte} {
		a.Store(0)
	}
}

func (t *tracer) clientTrace() *httptrace.ClientTrace {
	t.epoch = time.Now()
	set := func(a *atomic.Int64) { a.Store(t.now()) }
	setFirst := func(a *atomic.Int64) { a.CompareAndSwap(0, t.now()) }
	return &httptrace.ClientTrace{
		GetConn:              func(string) { set(&t.getConn) },
		GotConn:              t.gotConnInfo,
		ConnectStart:         func(string, string) { setFirst(&t.connectStart) },
		ConnectDone:          func(string, string, error) { set(&t.connectDone) },
		TLSHandshakeStart:    func() { set(&t.tlsStart) },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { set(&t.tlsDone) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { set(&t.wroteRequest) },
		GotFirstResponseByte: func() { set(&t.firstByte) },
	}
}

// Timings are one request's k6 timings (reference/k6.md §3.1).
type Timings struct {
	Blocked, Connecting, TLSHandshaking, Sending, Waiting, Receiving time.Duration
}

// Duration is k6's http_req_duration: sending + waiting + receiving.
func (t Timings) Duration() time.Duration { return t.Sending + t.Waiting + t.Receiving }

func span(from, to int64) time.Duration {
	if from == 0 || to < from {
		return 0
	}
	return time.Duration(to - from)
}

// timings derives k6's timings; end is when the body was read.
func (t *tracer) timings(end int64) Timings {
	getConn, gotConn := t.getConn.Load(), t.gotConn.Load()
	cs, cd := t.connectStart.Load(), t.connectDone.Load()
	ts, td := t.tlsStart.Load(), t.tlsDone.Load()
	wrote, first := t.wroteRequest.Load(), t.firstByte.Load()
	// Sending starts at the last of connect done, TLS done and got conn.
	sendStart := max(gotConn, cd, td)
	tm := Timings{
		Blocked:        span(getConn, gotConn),
		Connecting:     span(cs, cd),
		TLSHandshaking: span(ts, td),
		Sending:        span(sendStart, wrote),
		Waiting:        span(wrote, first),
		Receiving:      span(first, end),
	}
	return tm
}

// bodyReader is a reusable request body.
type bodyReader struct{ bytes.Reader }

// Close does nothing: the reader is reused.
func (*bodyReader) Close() error { return nil }

// maxCachedTagSets bounds a client's tag cache. A flow's steps, or a script's
// named requests, need a few entries each; URLs without a name (one entry per
// URL) are what reaches the bound, and for them the pool is the cache.
const maxCachedTagSets = 4096

// tagKey identifies a request's tag set within one client.
type tagKey struct {
	spec *spec
	// id is a dynamic request's tags: all of them share the client's spec.
	id       *metrics.TagSet
	method   string
	url      string
	status   int
	proto    string
	code     int
	err      string
	tls      uint16
	expected bool
	unjudged bool
}

// TimeoutError is a request that outlived its step's timeout (k6 error code 1050).
type TimeoutError struct {
	After time.Duration
	Err   error
}

// Error describes the timeout and the transport's error.
func (e *TimeoutError) Error() string {
	return "request timeout after " + e.After.String() + ": " + e.Err.Error()
}

// Unwrap returns the transport's error.
func (e *TimeoutError) Unwrap() error { return e.Err }

// Timeout reports true.
func (e *TimeoutError) Timeout() bool { return true }

// Outcome is what a request step did.
type Outcome struct {
	// Status is the final status, 0 on a transport error.
	Status int
	// Err is the transport error, if any.
	Err error
	// ChecksFailed counts failed checks.
	ChecksFailed int
	// Timings of the final request.
	Timings Timings
}

// Do runs step for one VU: the request, its redirects (each its own request with
// its own samples), and the checks on the final response. It pushes every sample of
// the step in one Push.
func (c *Client) Do(ctx context.Context, st *Step, vars *scenario.Vars) Outcome {
	c.samples = c.samples[:0]
	method := st.method
	target := st.url
	if !st.staticURL {
		target = c.render(st.src.URL, vars)
	}
	var body []byte
	if st.src.Body != nil {
		if st.staticBody {
			body = st.body
		} else {
			body = []byte(c.render(st.src.Body, vars))
		}
	}
	var hdr http.Header
	if st.staticHeaders {
		hdr = st.headers
	} else {
		hdr = make(http.Header, len(st.src.Headers)+1)
		for k, v := range st.src.Headers {
			hdr.Set(k, c.render(v, vars))
		}
		if c.env.UserAgent != "" && hdr.Get("User-Agent") == "" {
			hdr.Set("User-Agent", c.env.UserAgent)
		}
	}
	c.lastCtx = ctx
	if c.opts.Debug != nil {
		c.dbgVars = vars
	}
	// The first hop of a step without variables is the same request every time.
	static := st.staticURL && st.staticHeaders && st.staticBody
	h := hop{method: method, target: target, header: hdr, body: body}
	resp, out := c.hops(&st.spec, &h, static, nil)
	if len(st.src.Checks) > 0 {
		if out.Err != nil {
			resp = nil
		}
		out.ChecksFailed = c.check(st, resp, out.Status)
	}
	c.env.Pusher.Push(c.samples)
	return out
}

// redirectHeader returns the header of a redirect hop to next, from a step whose
// first request went to first, as net/http's client builds it: credentials and
// cookies do not follow to another domain, a Host header does not follow an
// absolute Location, and the body's fields do not follow a dropped body. hdr is
// never modified (it may be the step's shared header).
func redirectHeader(hdr http.Header, first, next *url.URL, loc string, dropBody bool) http.Header {
	var drop []string
	if first.Host != next.Host && !isDomainOrSubdomain(strings.ToLower(next.Hostname()), strings.ToLower(first.Hostname())) {
		drop = append(drop, "Authorization", "Www-Authenticate", "Cookie", "Cookie2", "Proxy-Authorization", "Proxy-Authenticate")
	}
	if l, err := url.Parse(loc); err == nil && l.IsAbs() {
		drop = append(drop, "Host")
	}
	if dropBody {
		drop = append(drop, "Content-Encoding", "Content-Language", "Content-Location", "Content-Type")
	}
	out, cloned := hdr, false
	for _, k := range drop {
		if _, ok := out[k]; !ok {
			continue
		}
		if !cloned {
			out, cloned = hdr.Clone(), true
		}
		delete(out, k)
	}
	return out
}

// isDomainOrSubdomain reports whether sub is parent or one of its subdomains; an
// IP address is only itself.
func isDomainOrSubdomain(sub, parent string) bool {
	if sub == parent {
		return true
	}
	if strings.ContainsAny(sub, ":%") || !strings.HasSuffix(sub, parent) || len(sub) == len(parent) {
		return false
	}
	return sub[len(sub)-len(parent)-1] == '.'
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func (c *Client) render(t *scenario.Template, v *scenario.Vars) string {
	if t == nil {
		return ""
	}
	if t.Static() {
		return t.String()
	}
	c.renderBuf = t.Render(c.renderBuf[:0], v)
	return string(c.renderBuf)
}

// once performs one HTTP request and appends its samples, logging it when
// Options.Debug says so.
func (c *Client) once(st *spec, method, target string, hdr http.Header, body []byte, static bool) (*http.Response, Outcome) {
	if n := c.opts.Net; n != nil {
		// k6's rps paces every request, redirects included; a blocked host fails
		// before any lookup.
		err := n.checkHost(target)
		if err == nil && c.lastCtx != nil {
			err = n.Limiter.Wait(c.lastCtx)
		}
		if err != nil {
			return nil, c.record(st, method, target, nil, Timings{}, time.Now(), err)
		}
	}
	if c.opts.Debug != nil {
		return c.debugOnce(st, method, target, hdr, body, static)
	}
	return c.send(st, method, target, hdr, body, static)
}

// send performs one HTTP request and appends its samples. The response body is
// drained and closed; when the step's checks need it (or the debug dumps), it is
// kept in c.body.
func (c *Client) send(st *spec, method, target string, hdr http.Header, body []byte, static bool) (*http.Response, Outcome) {
	// The timeout is the client's reusable watchdog cancelling the request context,
	// rather than http.Client.Timeout (a goroutine and a timer per request, which
	// halved throughput on one core) or context.WithTimeout (a timer and a context
	// per request). The cancelable context is reused across requests until it is
	// canceled or the caller's context changes.
	if c.reqCtx == nil || c.reqParent != c.lastCtx || c.reqCtx.Err() != nil {
		if c.reqCancel != nil {
			c.reqCancel()
		}
		c.reqParent = c.lastCtx
		var rc context.Context
		rc, c.reqCancel = context.WithCancel(c.lastCtx)
		c.h1.watch(rc)
		c.reqCtx = httptrace.WithClientTrace(rc, c.trace)
	}
	ctx := c.reqCtx
	c.timedOut.Store(false)
	c.remote = nil
	c.arm(c.reqCancel, st.timeout)
	defer c.disarm()
	if t, ok := c.plainTarget(st, target); ok {
		return c.onceH1(ctx, st, t, method, target, hdr, body, static)
	}
	var rd io.Reader
	if body != nil {
		c.reqBody.Reset(body)
		rd = &c.reqBody
	}
	req, err := http.NewRequestWithContext(withHost(ctx, c.opts.TLS, target), method, target, rd)
	if err != nil {
		return nil, c.record(st, method, target, nil, Timings{}, time.Now(), err)
	}
	if body != nil {
		b := body
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	req.Header = hdr
	if h := hdr["Host"]; len(h) > 0 {
		req.Host = h[0] // k6 sends a Host header as the request's host
	}
	c.tr.reset()
	resp, err := c.netHTTP().Do(req)
	c.remote = c.tr.peer()
	if err != nil && c.timedOut.Load() {
		err = &TimeoutError{After: st.timeout, Err: err}
	}
	if err != nil {
		end := c.tr.now()
		return nil, c.record(st, method, target, nil, c.tr.timings(end), time.Now(), err)
	}
	if st.needBody || c.dbgBody {
		c.body.Reset()
		_, err = c.body.ReadFrom(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	end := c.tr.now() // receiving ends with the body's last byte
	resp.Body.Close()
	if err != nil && c.timedOut.Load() {
		err = &TimeoutError{After: st.timeout, Err: err}
	}
	now := time.Now()
	tm := c.tr.timings(end)
	if err != nil {
		return resp, c.record(st, method, target, nil, tm, now, err)
	}
	return resp, c.record(st, method, target, resp, tm, now, nil)
}

// record appends one request's samples (k6's measureAndEmitMetrics).
func (c *Client) record(st *spec, method, target string, resp *http.Response, tm Timings, now time.Time, err error) Outcome {
	out := Outcome{Err: err, Timings: tm}
	// method is the hop's: a redirect may turn a POST into a GET (k6 tags the hop's).
	k := tagKey{spec: st, id: st.id, method: method}
	// With a name the url tag is the name, so the URL must not split the cache (a
	// dynamic URL would grow it without bound).
	if st.name == "" && (!st.staticURL || target != st.url) {
		k.url = target
	}
	if resp != nil {
		out.Status = resp.StatusCode
		k.status = resp.StatusCode
		k.proto = resp.Proto
		if resp.TLS != nil {
			k.tls = resp.TLS.Version
		}
		k.code = StatusCode(resp.StatusCode)
	}
	if err != nil {
		k.code, k.err = Classify(err)
	}
	k.expected = err == nil && st.expects(k.status)
	k.unjudged = st.unjudged
	ts, ok := c.tags[k]
	if !ok {
		ts = c.internTags(st, target, k)
		if len(c.tags) >= maxCachedTagSets {
			clear(c.tags) // unnamed dynamic URLs would grow it without bound
		}
		c.tags[k] = ts
	}
	m := c.env.Metrics
	failed := 1.0
	if k.expected {
		failed = 0
	}
	c.samples = append(c.samples,
		metrics.Sample{Metric: m.HTTPReqs, Tags: ts, Time: now, Value: 1},
		metrics.Sample{Metric: m.HTTPReqFailed, Tags: ts, Time: now, Value: failed},
		metrics.Sample{Metric: m.HTTPReqDuration, Tags: ts, Time: now, Value: tm.Duration().Seconds()},
		metrics.Sample{Metric: m.HTTPReqBlocked, Tags: ts, Time: now, Value: tm.Blocked.Seconds()},
		metrics.Sample{Metric: m.HTTPReqConnecting, Tags: ts, Time: now, Value: tm.Connecting.Seconds()},
		metrics.Sample{Metric: m.HTTPReqTLSHandshaking, Tags: ts, Time: now, Value: tm.TLSHandshaking.Seconds()},
		metrics.Sample{Metric: m.HTTPReqSending, Tags: ts, Time: now, Value: tm.Sending.Seconds()},
		metrics.Sample{Metric: m.HTTPReqWaiting, Tags: ts, Time: now, Value: tm.Waiting.Seconds()},
		metrics.Sample{Metric: m.HTTPReqReceiving, Tags: ts, Time: now, Value: tm.Receiving.Seconds()},
	)
	if st.unjudged {
		// Without a response callback there is no http_req_failed (k6).
		i := len(c.samples) - 8
		c.samples = append(c.samples[:i], c.samples[i+1:]...)
	}
	return out
}

func (c *Client) internTags(st *spec, target string, k tagKey) *metrics.TagSet {
	tags := append(c.scratch[:0], st.base...)
	url := withoutUserinfo(target)
	if st.name != "" {
		url = st.name
	}
	expected := strconv.FormatBool(k.expected)
	if k.unjudged {
		expected = "" // an empty tag is dropped
	}
	tags = append(tags,
		metrics.Tag{Key: "method", Value: k.method},
		metrics.Tag{Key: "url", Value: url},
		metrics.Tag{Key: "name", Value: url},
		metrics.Tag{Key: "status", Value: strconv.Itoa(k.status)},
		metrics.Tag{Key: "proto", Value: k.proto},
		metrics.Tag{Key: "expected_response", Value: expected},
		metrics.Tag{Key: "error", Value: k.err},
		metrics.Tag{Key: "tls_version", Value: tlsVersion(k.tls)},
	)
	if k.code != 0 {
		tags = append(tags, metrics.Tag{Key: "error_code", Value: strconv.Itoa(k.code)})
	}
	tags = append(tags, st.reqTags...)
	c.scratch = tags[:0]
	return c.env.Pool.Intern(tags)
}

// withoutUserinfo drops credentials from a URL: they never go into tags.
func withoutUserinfo(target string) string {
	if !strings.Contains(target, "@") {
		return target
	}
	u, err := url.Parse(target)
	if err != nil || u.User == nil {
		return target
	}
	u.User = nil
	return u.String()
}

// redact hides a URL's password, as net/http's errors do.
func redact(target string) string {
	if !strings.Contains(target, "@") {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	return u.Redacted()
}

func tlsVersion(v uint16) string {
	switch v {
	case 0:
		return ""
	case tls.VersionTLS10:
		return "tls1.0"
	case tls.VersionTLS11:
		return "tls1.1"
	case tls.VersionTLS12:
		return "tls1.2"
	case tls.VersionTLS13:
		return "tls1.3"
	}
	return "unknown"
}
