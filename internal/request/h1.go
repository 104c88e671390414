package request

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tidemark/tidemark/internal/scenario"
)

// The plain-HTTP path. A VU runs one request at a time, so its HTTP/1.1 connections
// are written and read on the VU's own goroutine: no read and write loops per
// connection, no channel hand-offs, no httptrace callbacks. net/http's transport
// costs three goroutine switches per request, which on a load generator's one core
// is most of the cost of a small request (docs/benchmarks.md). HTTPS (for HTTP/2
// negotiation and TLS) and proxied requests go through net/http.

const (
	// maxResponseHeaderBytes bounds a response head, as net/http's default
	// MaxResponseHeaderBytes does.
	maxResponseHeaderBytes = 10 << 20
	// maxIdlePerHost is how many idle connections a VU keeps per host.
	maxIdlePerHost = 4
)

var (
	errHeaderTooLarge = errors.New("http: response header too large")
	errMalformed      = errors.New("malformed HTTP response")
)

// h1Conn is one HTTP/1.1 connection of a VU.
type h1Conn struct {
	addr string
	conn net.Conn
	br   *bufio.Reader
}

// connPool holds a VU's idle plain-HTTP connections. The VU's client and its
// batch workers share it, as k6's VU shares one transport between its requests
// and its batches: a batch after a GET reuses the GET's connection.
type connPool struct {
	mu   sync.Mutex
	idle []*h1Conn
}

// h1State is the plain-HTTP side of a Client.
type h1State struct {
	pool   *connPool
	dialer net.Dialer
	// dial, when set, replaces dialer (tests wrap the connection).
	dial    func(ctx context.Context, addr string) (net.Conn, error)
	rbuf    int
	wbuf    []byte
	line    []byte // a header line longer than the read buffer
	scratch []byte // reads of bodies larger than the read buffer
	resp    http.Response
	req     http.Request
	header  http.Header

	// mu guards active and interrupted against the context's AfterFunc, which
	// interrupts the request in flight when the request context ends.
	mu          sync.Mutex
	gen         uint64 // of the current request context
	active      net.Conn
	interrupted bool
}

// h1Target is a parsed plain-HTTP request target.
type h1Target struct {
	u    *url.URL
	addr string // host:port to dial
	host string // Host header
	uri  string // request-target
}

func parseH1Target(u *url.URL) h1Target {
	host := u.Host
	addr := host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return h1Target{u: u, addr: addr, host: host, uri: u.RequestURI()}
}

// take returns an idle connection to addr, or nil.
func (h *h1State) take(addr string) *h1Conn {
	p := h.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range slices.Backward(p.idle) {
		if c.addr == addr {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			return c
		}
	}
	return nil
}

// put keeps c for the next request, closing the oldest connection to its host
// beyond maxIdlePerHost.
func (h *h1State) put(c *h1Conn) {
	p := h.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, o := range p.idle {
		if o.addr == c.addr {
			n++
		}
	}
	if n >= maxIdlePerHost {
		for i, o := range p.idle {
			if o.addr == c.addr {
				_ = o.conn.Close()
				p.idle = append(p.idle[:i], p.idle[i+1:]...)
				break
			}
		}
	}
	p.idle = append(p.idle, c)
}

func (h *h1State) closeIdle() {
	p := h.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle {
		_ = c.conn.Close()
	}
	p.idle = p.idle[:0]
}

// setActive marks conn as the connection of the request in flight; the
// interrupt from a canceled context unblocks it.
func (h *h1State) setActive(conn net.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.active = conn
	return !h.interrupted
}

// clearActive ends the request in flight and reports whether it was interrupted.
func (h *h1State) clearActive() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.active = nil
	in := h.interrupted
	h.interrupted = false
	return in
}

// watch makes the end of ctx, the client's new request context, interrupt the
// request in flight. The end of an earlier request context does nothing.
func (h *h1State) watch(ctx context.Context) {
	h.mu.Lock()
	h.gen++
	gen := h.gen
	h.interrupted = false
	h.mu.Unlock()
	context.AfterFunc(ctx, func() { h.interrupt(gen) })
}

// interrupt unblocks the request in flight of request context gen: its reads and
// writes fail at once.
func (h *h1State) interrupt(gen uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen {
		return
	}
	h.interrupted = true
	if h.active != nil {
		_ = h.active.SetDeadline(time.Unix(1, 0))
	}
}

// h1Timings are the instants of one plain-HTTP request, as nanoseconds of the
// client's tracer clock.
type h1Timings struct {
	getConn, gotConn, connectStart, connectDone, wrote, firstByte int64
}

func (t h1Timings) timings(end int64) Timings {
	return Timings{
		Blocked:    span(t.getConn, t.gotConn),
		Connecting: span(t.connectStart, t.connectDone),
		Sending:    span(max(t.gotConn, t.connectDone), t.wrote),
		Waiting:    span(t.wrote, t.firstByte),
		Receiving:  span(t.firstByte, end),
	}
}

// errNothingWritten is a failure before any byte of the request went out; the
// request may be retried on a new connection whatever its method.
type errNothingWritten struct{ err error }

func (e errNothingWritten) Error() string { return e.err.Error() }
func (e errNothingWritten) Unwrap() error { return e.err }

// roundTripH1 sends one request over a reused or new connection and reads the
// response head. On success the body is still to be read (readBody).
func (c *Client) roundTripH1(ctx context.Context, t h1Target, method string, head, body []byte, tm *h1Timings) (*h1Conn, error) {
	h := &c.h1
	tm.getConn = c.tr.now()
	conn := h.take(t.addr)
	for conn != nil && !retryableMethod(method) && !alive(conn.conn) {
		_ = conn.conn.Close()
		conn = h.take(t.addr)
	}
	for attempt := 0; ; attempt++ {
		reused := conn != nil
		if !reused {
			nc, err := c.dialH1(ctx, t.addr, tm)
			if err != nil {
				return nil, err
			}
			cc := &countingConn{Conn: nc, w: c.wire}
			conn = &h1Conn{addr: t.addr, conn: cc, br: bufio.NewReaderSize(cc, h.rbuf)}
		}
		tm.gotConn = c.tr.now()
		if !h.setActive(conn.conn) {
			h.clearActive()
			_ = conn.conn.Close()
			return nil, interruptErr(ctx)
		}
		err := c.exchange(conn, method, head, body, tm)
		if err == nil {
			return conn, nil
		}
		interrupted := h.clearActive()
		_ = conn.conn.Close()
		if interrupted {
			return nil, interruptErr(ctx)
		}
		if !reused || attempt > 0 || !retryable(method, err) {
			if nw, ok := errors.AsType[errNothingWritten](err); ok {
				err = nw.err
			}
			return nil, err
		}
		// The server closed an idle connection: net/http retries such requests on a
		// new connection, and so do we.
		conn = nil
		tm.connectStart, tm.connectDone, tm.wrote, tm.firstByte = 0, 0, 0, 0
	}
}

// dialH1 connects to addr. A host name is resolved first, so that the lookup
// counts as blocked time and only the TCP handshake as connecting (k6's
// definitions); the addresses are tried in order.
func (c *Client) dialH1(ctx context.Context, addr string, tm *h1Timings) (net.Conn, error) {
	d := &c.h1.dialer
	if c.h1.dial != nil {
		tm.connectStart = c.tr.now()
		conn, err := c.h1.dial(ctx, addr)
		tm.connectDone = c.tr.now()
		return conn, err
	}
	return c.dialResolved(ctx, "tcp", addr, func(ctx context.Context, a string) (net.Conn, error) {
		tm.connectStart = c.tr.now()
		conn, err := d.DialContext(ctx, "tcp", a)
		tm.connectDone = c.tr.now()
		return conn, err
	})
}

// interruptErr is the error of a request interrupted by its context: the
// watchdog's timeout or the scenario's end.
func interruptErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return context.Canceled
}

// retryable reports whether a request that failed on a reused connection may be
// sent again: when nothing was written, or, for idempotent methods, when the
// server closed the connection before answering (net/http's rules).
func retryable(method string, err error) bool {
	if _, ok := errors.AsType[errNothingWritten](err); ok {
		return true
	}
	var re errNoResponse
	return retryableMethod(method) && errors.As(err, &re)
}

// retryableMethod reports whether method is idempotent (RFC 9110 §9.2.2).
func retryableMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// errNoResponse is a connection that ended before the first byte of the response.
type errNoResponse struct{ err error }

func (e errNoResponse) Error() string { return e.err.Error() }
func (e errNoResponse) Unwrap() error { return e.err }

// netHTTPWriteBuffer is net/http's default Transport.WriteBufferSize, the
// buffer k6's requests are written into.
const netHTTPWriteBuffer = 4 << 10

// exchange writes the request and reads the response head into c.h1.resp.
//
// The request is written when k6's (net/http's) WroteRequest says so: once it
// is in the connection's write buffer. A request that fits the buffer is
// written to the socket after that, so the write's system call (on loopback,
// the kernel delivering the bytes and waking the server: tens of µs) counts as
// waiting, not sending; a larger one is sent as it is written.
func (c *Client) exchange(conn *h1Conn, method string, head, body []byte, tm *h1Timings) error {
	h := &c.h1
	var err error
	var n int
	if len(head)+len(body) <= netHTTPWriteBuffer {
		// One write for the head and a small body.
		p := head
		if len(body) > 0 {
			h.wbuf = append(append(h.wbuf[:0], head...), body...)
			p = h.wbuf
		}
		tm.wrote = c.tr.now()
		n, err = conn.conn.Write(p)
	} else {
		n, err = conn.conn.Write(head)
		if err == nil && len(body) > 0 {
			_, err = conn.conn.Write(body)
		}
		tm.wrote = c.tr.now()
	}
	if err != nil {
		if n == 0 {
			return errNothingWritten{err}
		}
		return err
	}
	for {
		first, err := conn.br.Peek(1)
		if len(first) == 0 {
			if err == io.EOF || errors.Is(err, syscall.ECONNRESET) {
				return errNoResponse{err}
			}
			return err
		}
		if tm.firstByte == 0 {
			tm.firstByte = c.tr.now()
		}
		if err := c.readHead(conn.br, method); err != nil {
			return err
		}
		// 1xx responses other than 101 precede the final response.
		if s := h.resp.StatusCode; s >= 100 && s < 200 && s != http.StatusSwitchingProtocols {
			continue
		}
		return nil
	}
}

// readLine returns the next line of the head without its CRLF (or bare LF, as
// net/http accepts in heads). The slice is valid until the next read.
func (h *h1State) readLine(br *bufio.Reader, total *int) ([]byte, error) {
	return h.readLineStrict(br, total, false)
}

// readLineStrict is readLine that, with crlf, requires the line to end in CRLF
// (chunk framing lines).
func (h *h1State) readLineStrict(br *bufio.Reader, total *int, crlf bool) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		h.line = append(h.line[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(h.line) > maxResponseHeaderBytes {
				return nil, errHeaderTooLarge
			}
			line, err = br.ReadSlice('\n')
			h.line = append(h.line, line...)
		}
		line = h.line
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	*total += len(line)
	if *total > maxResponseHeaderBytes {
		return nil, errHeaderTooLarge
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	} else if crlf {
		return nil, fmt.Errorf("%w: chunked line ends with bare LF", errMalformed)
	}
	return line, nil
}

// readHead parses a status line and header block into h.resp.
func (c *Client) readHead(br *bufio.Reader, method string) error {
	h := &c.h1
	total := 0
	line, err := h.readLine(br, &total)
	if err != nil {
		return err
	}
	proto, rest, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return fmt.Errorf("%w: %q", errMalformed, line)
	}
	var minor int
	switch string(proto) {
	case "HTTP/1.1":
		h.resp.Proto, minor = "HTTP/1.1", 1
	case "HTTP/1.0":
		h.resp.Proto, minor = "HTTP/1.0", 0
	default:
		return fmt.Errorf("%w: malformed HTTP version %q", errMalformed, proto)
	}
	code, _, _ := bytes.Cut(rest, []byte{' '})
	if len(code) != 3 || code[0] < '1' || code[0] > '9' || !isDigits(code) {
		return fmt.Errorf("%w: malformed HTTP status code %q", errMalformed, code)
	}
	h.resp.StatusCode = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	h.resp.ProtoMajor, h.resp.ProtoMinor = 1, minor
	h.resp.ContentLength = -1
	h.resp.Close = minor == 0
	h.resp.TransferEncoding = nil
	h.resp.Uncompressed = false
	if h.header == nil {
		h.header = make(http.Header, 8)
	}
	clear(h.header)
	h.resp.Header = h.header
	var lastKey string
	for {
		line, err := h.readLine(br, &total)
		if err != nil {
			return err
		}
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			// An obsolete folded continuation of the previous field.
			if lastKey == "" {
				return fmt.Errorf("%w: header continuation without a field: %q", errMalformed, line)
			}
			line = trimOWS(line)
			if !scenario.ValidHeaderValue(line) {
				return fmt.Errorf("%w: invalid header value %q", errMalformed, line)
			}
			vs := h.header[lastKey]
			vs[len(vs)-1] += " " + string(line)
			continue
		}
		k, v, err := splitField(line)
		if err != nil {
			return err
		}
		key := canonicalKey(k)
		h.header[key] = append(h.header[key], string(v))
		lastKey = key
	}
	return c.frame(method)
}

// splitField splits a field line into its name and trimmed value.
func splitField(line []byte) (name, value []byte, err error) {
	k, v, ok := bytes.Cut(line, []byte{':'})
	if !ok || !scenario.ValidHeaderName(k) {
		return nil, nil, fmt.Errorf("%w: malformed header line %q", errMalformed, line)
	}
	v = trimOWS(v)
	if !scenario.ValidHeaderValue(v) {
		return nil, nil, fmt.Errorf("%w: invalid header value %q", errMalformed, line)
	}
	return k, v, nil
}

// frame reads the framing of the response body from its header (RFC 9112 §6).
func (c *Client) frame(method string) error {
	h := &c.h1
	r := &h.resp
	for _, v := range h.header["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			switch strings.ToLower(strings.TrimSpace(tok)) {
			case "close":
				r.Close = true
			case "keep-alive":
				if r.ProtoMinor == 0 {
					r.Close = false
				}
			}
		}
	}
	// A Content-Length is checked even where the status has no body.
	length := int64(-1)
	if cl := h.header["Content-Length"]; len(cl) > 0 {
		for _, v := range cl[1:] {
			if v != cl[0] {
				return fmt.Errorf("%w: message cannot contain multiple Content-Length headers; got %q", errMalformed, cl)
			}
		}
		n, err := strconv.ParseUint(cl[0], 10, 63)
		if err != nil || !isDigits([]byte(cl[0])) {
			return fmt.Errorf("%w: bad Content-Length %q", errMalformed, cl[0])
		}
		length = int64(n)
	}
	if noBody(method, r.StatusCode) {
		r.ContentLength = 0
		// After 101 the connection speaks another protocol.
		r.Close = r.Close || r.StatusCode == http.StatusSwitchingProtocols
		return nil
	}
	// HTTP/1.0 has no transfer codings (RFC 9112 §6.1): the field is ignored.
	if te := h.header["Transfer-Encoding"]; len(te) > 0 && r.ProtoMinor > 0 {
		if len(te) != 1 || !strings.EqualFold(strings.TrimSpace(te[0]), "chunked") {
			return fmt.Errorf("%w: unsupported transfer encoding %q", errMalformed, te)
		}
		r.TransferEncoding = []string{"chunked"}
		return nil
	}
	if length >= 0 {
		r.ContentLength = length
		return nil
	}
	// Delimited by the end of the connection.
	r.Close = true
	return nil
}

func noBody(method string, status int) bool {
	return method == http.MethodHead || status/100 == 1 || status == http.StatusNoContent || status == http.StatusNotModified
}

// readBody reads the body of h.resp from conn into dst (nil discards it).
func (c *Client) readBody(conn *h1Conn, dst *bytes.Buffer) error {
	r := &c.h1.resp
	switch {
	case r.TransferEncoding != nil:
		return c.readChunked(conn.br, dst)
	case r.ContentLength >= 0:
		return c.copyN(conn.br, dst, r.ContentLength)
	default:
		return c.copyN(conn.br, dst, -1)
	}
}

// copyN moves n bytes (n < 0: up to EOF) from br to dst, or drops them.
func (c *Client) copyN(br *bufio.Reader, dst *bytes.Buffer, n int64) error {
	for n != 0 {
		if br.Buffered() == 0 && (n < 0 || n > int64(br.Size())) {
			// Large bodies bypass the small read buffer.
			if c.h1.scratch == nil {
				c.h1.scratch = make([]byte, 32<<10)
			}
			p := c.h1.scratch
			if n > 0 && n < int64(len(p)) {
				p = p[:n]
			}
			k, err := br.Read(p)
			if dst != nil {
				dst.Write(p[:k])
			}
			if n > 0 {
				n -= int64(k)
			}
			if err == io.EOF && n < 0 {
				return nil
			}
			if err != nil {
				if err == io.EOF {
					return io.ErrUnexpectedEOF
				}
				return err
			}
			continue
		}
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil {
				if err == io.EOF {
					if n < 0 {
						return nil
					}
					return io.ErrUnexpectedEOF
				}
				return err
			}
		}
		k := br.Buffered()
		if n > 0 && int64(k) > n {
			k = int(n)
		}
		if dst != nil {
			p, _ := br.Peek(k)
			dst.Write(p)
		}
		_, _ = br.Discard(k)
		if n > 0 {
			n -= int64(k)
		}
	}
	return nil
}

// readChunked reads a chunked body and its trailer section.
func (c *Client) readChunked(br *bufio.Reader, dst *bytes.Buffer) error {
	total := 0
	for {
		line, err := c.h1.readLineStrict(br, &total, true)
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(line, []byte{';'})
		size = bytes.TrimRight(size, " \t")
		if len(size) == 0 || len(size) > 15 {
			return fmt.Errorf("%w: bad chunk size %q", errMalformed, line)
		}
		n, err := strconv.ParseUint(string(size), 16, 63)
		if err != nil {
			return fmt.Errorf("%w: bad chunk size %q", errMalformed, line)
		}
		if n == 0 {
			break
		}
		if err := c.copyN(br, dst, int64(n)); err != nil {
			return err
		}
		crlf, err := c.h1.readLineStrict(br, &total, true)
		if err != nil {
			return err
		}
		if len(crlf) != 0 {
			return fmt.Errorf("%w: chunk not followed by CRLF", errMalformed)
		}
		// A chunk's data does not count against the head limit.
		total = 0
	}
	// Trailer fields are read and dropped; an empty trailer section is a CRLF.
	p, err := br.Peek(2)
	if len(p) == 2 && p[0] == '\r' && p[1] == '\n' {
		_, _ = br.Discard(2)
		return nil
	}
	if len(p) < 2 {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	// Like net/http, a trailer section must end within the read buffer.
	if !upcomingBlankLine(br) {
		return fmt.Errorf("%w: suspiciously long trailer after chunked body", errMalformed)
	}
	for {
		line, err := c.h1.readLine(br, &total)
		if err != nil {
			return err
		}
		if len(line) == 0 {
			return nil
		}
		if _, _, err := splitField(line); err != nil {
			return err
		}
	}
}

// upcomingBlankLine reports whether the read buffer holds the end of a header
// section ("\n\n" or "\r\n\r\n"), filling it as far as it goes.
func upcomingBlankLine(br *bufio.Reader) bool {
	for {
		p, _ := br.Peek(br.Buffered())
		if bytes.Contains(p, []byte("\r\n\r\n")) || bytes.Contains(p, []byte("\n\n")) {
			return true
		}
		if len(p) >= br.Size() {
			return false
		}
		// Wait for at least one more byte; none means the stream ended.
		if _, err := br.Peek(len(p) + 1); err != nil {
			return false
		}
	}
}

// appendH1Head appends the request line and header block of a request.
func appendH1Head(b []byte, method string, t h1Target, hdr http.Header, bodyLen int, hasBody bool) ([]byte, error) {
	host := t.host
	if v := hdr["Host"]; len(v) > 0 && v[0] != "" {
		host = v[0]
	}
	if !scenario.ValidHeaderValue(host) || strings.ContainsAny(t.uri, " \r\n") {
		return b, fmt.Errorf("invalid request target %q", t.u.Redacted())
	}
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, t.uri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	for k, vs := range hdr {
		switch k {
		case "Host", "Content-Length", "Transfer-Encoding":
			continue
		}
		if !scenario.ValidHeaderName(k) {
			return b, fmt.Errorf("net/http: invalid header field name %q", k)
		}
		for _, v := range vs {
			if !scenario.ValidHeaderValue(v) {
				return b, fmt.Errorf("net/http: invalid header field value for %q", k)
			}
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	// Credentials in the URL are sent as basic authentication, as net/http does,
	// unless the step sets its own Authorization.
	if u := t.u.User; u != nil && len(hdr["Authorization"]) == 0 {
		pass, _ := u.Password()
		b = append(b, "Authorization: Basic "...)
		b = base64.StdEncoding.AppendEncode(b, []byte(u.Username()+":"+pass))
		b = append(b, "\r\n"...)
	}
	if hasBody || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(bodyLen), 10)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...), nil
}

// trimOWS trims optional whitespace: spaces and horizontal tabs (RFC 9110 §5.6.3).
func trimOWS(b []byte) []byte {
	return bytes.Trim(b, " \t")
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// canonicalKey returns the canonical form of a header name, without allocating
// for the names servers commonly send.
func canonicalKey(k []byte) string {
	switch string(k) {
	case "Content-Length", "content-length":
		return "Content-Length"
	case "Content-Type", "content-type":
		return "Content-Type"
	case "Date", "date":
		return "Date"
	case "Connection", "connection":
		return "Connection"
	case "Server", "server":
		return "Server"
	case "Transfer-Encoding", "transfer-encoding":
		return "Transfer-Encoding"
	case "Location", "location":
		return "Location"
	case "Keep-Alive", "keep-alive":
		return "Keep-Alive"
	case "Cache-Control", "cache-control":
		return "Cache-Control"
	}
	return textproto.CanonicalMIMEHeaderKey(string(k))
}

// plainTarget returns the plain-HTTP target of a request, when the lean path
// serves it: an http:// URL without a proxy.
func (c *Client) plainTarget(st *spec, target string) (h1Target, bool) {
	if c.opts.Proxy != nil {
		return h1Target{}, false
	}
	if st.h1 != nil && target == st.url {
		return *st.h1, true
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return h1Target{}, false // net/http reports the error or serves the scheme
	}
	return parseH1Target(u), true
}

// onceH1 is once for a plain-HTTP request.
// static says the request is the step's own, unchanged by variables or redirects,
// so the head built at compile time serves.
func (c *Client) onceH1(ctx context.Context, st *spec, t h1Target, method, target string, hdr http.Header, body []byte, static bool) (*http.Response, Outcome) {
	var head []byte
	if static && st.h1Head != nil {
		head = st.h1Head
	} else {
		var err error
		c.h1.wbuf, err = appendH1Head(c.h1.wbuf[:0], method, t, hdr, len(body), len(body) > 0)
		if err != nil {
			return nil, c.record(st, method, target, nil, Timings{}, time.Now(), &url.Error{Op: urlOp(method), URL: redact(target), Err: err})
		}
		head = c.h1.wbuf
	}
	var tm h1Timings
	conn, err := c.roundTripH1(ctx, t, method, head, body, &tm)
	if err == nil {
		c.remote = conn.conn.RemoteAddr()
		var dst *bytes.Buffer
		if st.needBody || c.dbgBody {
			c.body.Reset()
			dst = &c.body
		}
		err = c.readBody(conn, dst)
		interrupted := c.h1.clearActive()
		switch {
		case err == nil && !interrupted && !c.h1.resp.Close && (c.opts.Net == nil || !c.opts.Net.NoConnectionReuse):
			c.h1.put(conn)
		case err == nil && interrupted:
			// The body was read, but the connection's deadline is spent.
			_ = conn.conn.Close()
		default:
			_ = conn.conn.Close()
			if interrupted {
				err = interruptErr(ctx)
			}
		}
	}
	end := c.tr.now()
	now := time.Now()
	if err != nil {
		err = &url.Error{Op: urlOp(method), URL: redact(target), Err: err}
		if c.timedOut.Load() {
			err = &TimeoutError{After: st.timeout, Err: err}
		}
		return nil, c.record(st, method, target, nil, tm.timings(end), now, err)
	}
	resp := &c.h1.resp
	c.h1.req.Method, c.h1.req.URL = method, t.u
	resp.Request = &c.h1.req
	return resp, c.record(st, method, target, resp, tm.timings(end), now, nil)
}

// urlOp is net/http's Op of a url.Error: "Get", "Post", ….
func urlOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}
