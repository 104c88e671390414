package request

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/scenario"
)

// rawServer answers every request on a loopback listener with the bytes reply
// returns for it, closing the connection when reply says so. It records the
// requests' heads and counts connections.
type rawServer struct {
	ln    net.Listener
	conns atomic.Int64
	mu    sync.Mutex
	heads []string
	wg    sync.WaitGroup
}

func newRawServer(t *testing.T, reply func(n int, head string) (resp string, closeAfter bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &rawServer{ln: ln}
	var served atomic.Int64
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.wg.Go(func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					head, body, err := readRequest(br)
					if err != nil {
						return
					}
					s.mu.Lock()
					s.heads = append(s.heads, head+body)
					s.mu.Unlock()
					resp, closeAfter := reply(int(served.Add(1)), head)
					if _, err := io.WriteString(conn, resp); err != nil || closeAfter {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *rawServer) url(path string) string { return "http://" + s.ln.Addr().String() + path }

func (s *rawServer) head(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heads[i]
}

// readRequest reads one request head and its Content-Length body.
func readRequest(br *bufio.Reader) (head, body string, err error) {
	var b strings.Builder
	n := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return "", "", err
		}
		b.WriteString(line)
		if line == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			n = atoiOr(strings.TrimSpace(v))
		}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(br, buf); err != nil {
		return "", "", err
	}
	return b.String(), string(buf), nil
}

func atoiOr(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// doRaw runs one step against url and returns the outcome and the body the
// client kept (its checks ask for the body).
func doRaw(t *testing.T, f *fixture, c *Client, method, url, body string, timeout time.Duration) (Outcome, string) {
	t.Helper()
	st := &scenario.Step{Method: method, URL: tmpl(t, url), Timeout: timeout,
		Checks: []scenario.Check{{Name: "body", Kind: scenario.CheckBodyContains, Value: "\x00never"}}}
	if body != "" {
		st.Body = tmpl(t, body)
	}
	cs := f.compile(t, st)
	out := c.Do(context.Background(), cs, &scenario.Vars{})
	return out, c.body.String()
}

func TestH1Framing(t *testing.T) {
	big := strings.Repeat("b", 100<<10)
	longHeader := strings.Repeat("h", 5000)
	cases := []struct {
		name       string
		method     string
		resp       string
		closeAfter bool
		status     int
		body       string
		proto      string
		reuse      bool // the next request reuses the connection
	}{
		{name: "content-length", resp: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, body: "hello", reuse: true},
		{name: "chunked with extensions and trailer", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n", status: 200, body: "hello world", reuse: true},
		{name: "close-delimited HTTP/1.0", resp: "HTTP/1.0 200 OK\r\n\r\nuntil close", closeAfter: true, status: 200, body: "until close", proto: "HTTP/1.0"},
		{name: "HTTP/1.0 keep-alive", resp: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok", proto: "HTTP/1.0", reuse: true},
		{name: "connection close", resp: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", closeAfter: true, status: 200, body: "ok"},
		{name: "100 continue first", resp: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nnew", status: 201, body: "new", reuse: true},
		{name: "204 without body", resp: "HTTP/1.1 204 No Content\r\n\r\n", status: 204, reuse: true},
		{name: "304 with a length but no body", resp: "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", status: 304, reuse: true},
		{name: "HEAD with a length but no body", method: http.MethodHead, resp: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", status: 200, reuse: true},
		{name: "folded and repeated headers", resp: "HTTP/1.1 200 OK\r\nX-A: 1\r\n  continued\r\nx-a: 2\r\nContent-Length: 1\r\n\r\nz", status: 200, body: "z", reuse: true},
		{name: "header line longer than the read buffer", resp: "HTTP/1.1 200 OK\r\nX-Long: " + longHeader + "\r\nContent-Length: 1\r\n\r\nz", status: 200, body: "z", reuse: true},
		{name: "large body", resp: "HTTP/1.1 200 OK\r\nContent-Length: 102400\r\n\r\n" + big, status: 200, body: big, reuse: true},
		{name: "large chunked body", resp: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n19000\r\n" + big + "\r\n0\r\n\r\n", status: 200, body: big, reuse: true},
		{name: "status without reason", resp: "HTTP/1.1 503\r\nContent-Length: 0\r\n\r\n", status: 503, reuse: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRawServer(t, func(int, string) (string, bool) { return tc.resp, tc.closeAfter })
			f := newFixture()
			c := NewClient(f.env, Options{})
			defer c.Close()
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			for i := range 2 {
				out, body := doRaw(t, f, c, method, srv.url("/x"), "", 0)
				require.NoError(t, out.Err, "request %d", i)
				require.Equal(t, tc.status, out.Status)
				require.Equal(t, tc.body, body)
			}
			want := int64(2)
			if tc.reuse {
				want = 1
			}
			require.Equal(t, want, srv.conns.Load(), "connections")
			proto := tc.proto
			if proto == "" {
				proto = "HTTP/1.1"
			}
			for _, s := range f.col.of(f.env.Metrics.HTTPReqs) {
				require.Equal(t, proto, tag(s, "proto"))
			}
		})
	}
}

func TestH1HeaderValues(t *testing.T) {
	srv := newRawServer(t, func(int, string) (string, bool) {
		return "HTTP/1.1 200 OK\r\nX-A: 1\r\n  continued\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n", false
	})
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	st := f.compile(t, parseStep(t, srv.url("/"), `[{name: folded, header: x-a, equals: 1 continued}, {name: second, header: X-A, equals: "2"},
		{name: other, header: X-A, equals: "3"}]`))
	out := c.Do(context.Background(), st, &scenario.Vars{})
	require.NoError(t, out.Err)
	require.Equal(t, 1, out.ChecksFailed, "only other fails")
}

func TestH1RequestHead(t *testing.T) {
	srv := newRawServer(t, func(int, string) (string, bool) { return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false })
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	st := f.compile(t, &scenario.Step{Method: "post", URL: tmpl(t, srv.url("/p?q=1&r=${__VU}")), Body: tmpl(t, `{"vu":${__VU}}`),
		Headers: map[string]*scenario.Template{"Content-Type": tmpl(t, "application/json"), "Host": tmpl(t, "example.test")}})
	out := c.Do(context.Background(), st, &scenario.Vars{VU: 7})
	require.NoError(t, out.Err)
	head := srv.head(0)
	require.True(t, strings.HasPrefix(head, "POST /p?q=1&r=7 HTTP/1.1\r\nHost: example.test\r\n"), head)
	require.Contains(t, head, "Content-Type: application/json\r\n")
	require.Contains(t, head, "User-Agent: tidemark-test\r\n")
	require.Contains(t, head, "Content-Length: 8\r\n")
	require.True(t, strings.HasSuffix(head, "\r\n\r\n{\"vu\":7}"), head)
	require.Equal(t, 1, strings.Count(head, "Host:"))

	// An empty POST says so; a GET says nothing.
	out, _ = doRaw(t, f, c, http.MethodPost, srv.url("/e"), "", 0)
	require.NoError(t, out.Err)
	require.Contains(t, srv.head(1), "Content-Length: 0\r\n")
	out, _ = doRaw(t, f, c, http.MethodGet, srv.url("/g"), "", 0)
	require.NoError(t, out.Err)
	require.NotContains(t, srv.head(2), "Content-Length")

	// Credentials in the URL become basic authentication, never part of the target.
	out, _ = doRaw(t, f, c, http.MethodGet, strings.Replace(srv.url("/a"), "http://", "http://alice:s3cret@", 1), "", 0)
	require.NoError(t, out.Err)
	require.True(t, strings.HasPrefix(srv.head(3), "GET /a HTTP/1.1\r\n"), srv.head(3))
	require.Contains(t, srv.head(3), "Authorization: Basic YWxpY2U6czNjcmV0\r\n")
	for _, s := range f.col.of(f.env.Metrics.HTTPReqs) {
		require.NotContains(t, tag(s, "url"), "s3cret")
		require.NotContains(t, tag(s, "name"), "alice")
	}
}

func TestH1BadRequestHeader(t *testing.T) {
	f := newFixture()
	_, err := Compile(&scenario.Step{URL: tmpl(t, "http://127.0.0.1:1/"), Headers: map[string]*scenario.Template{"X-Bad": tmpl(t, "a\r\nInjected: 1")}},
		nil, f.pool, "")
	require.ErrorContains(t, err, `invalid header field value for "X-Bad"`)

	// A variable that renders a line break fails the request, not the run.
	srv := newRawServer(t, func(int, string) (string, bool) { return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false })
	c := NewClient(f.env, Options{})
	defer c.Close()
	st := f.compile(t, &scenario.Step{URL: tmpl(t, srv.url("/")), Headers: map[string]*scenario.Template{"X-Env": tmpl(t, "${__ENV.BAD}")}})
	out := c.Do(context.Background(), st, &scenario.Vars{Env: map[string]string{"BAD": "a\nb"}})
	require.ErrorContains(t, out.Err, "invalid header field value")
	require.Zero(t, srv.conns.Load(), "nothing was sent")
}

func TestH1MalformedResponses(t *testing.T) {
	cases := []struct{ name, resp, err string }{
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "malformed HTTP"},
		{"bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", "malformed HTTP status code"},
		{"bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"},
		{"conflicting content-lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "multiple Content-Length"},
		{"unsupported transfer encoding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "unsupported transfer encoding"},
		{"truncated body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "unexpected EOF"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"},
		{"header line without colon", "HTTP/1.1 200 OK\r\nnocolon\r\n\r\n", "malformed header line"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRawServer(t, func(int, string) (string, bool) { return tc.resp, true })
			f := newFixture()
			c := NewClient(f.env, Options{})
			defer c.Close()
			out, _ := doRaw(t, f, c, http.MethodGet, srv.url("/"), "", 0)
			require.ErrorContains(t, out.Err, tc.err)
			require.Zero(t, out.Status)
			s := f.col.of(f.env.Metrics.HTTPReqs)
			require.Len(t, s, 1)
			require.NotEmpty(t, tag(s[0], "error_code"))
		})
	}
}

func TestH1ResponseHeaderTooLarge(t *testing.T) {
	srv := newRawServer(t, func(int, string) (string, bool) {
		return "HTTP/1.1 200 OK\r\nX-Huge: " + strings.Repeat("h", maxResponseHeaderBytes) + "\r\n\r\n", true
	})
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	out, _ := doRaw(t, f, c, http.MethodGet, srv.url("/"), "", 0)
	require.ErrorContains(t, out.Err, "response header too large")
}

// A server that closes keep-alive connections after every response: requests on
// a closed idle connection go out again on a new one, as with net/http.
func TestH1ServerClosedIdleConnection(t *testing.T) {
	srv := newRawServer(t, func(int, string) (string, bool) {
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true
	})
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodGet, http.MethodPost, http.MethodPatch} {
		out, _ := doRaw(t, f, c, method, srv.url("/"), "x", 0)
		require.NoError(t, out.Err, method)
		require.Equal(t, 200, out.Status)
		// Let the server's close reach the client before the next request.
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, int64(5), srv.conns.Load())
}

func TestH1TimeoutAndReuseAfterIt(t *testing.T) {
	var calls atomic.Int64
	srv := newRawServer(t, func(_ int, head string) (string, bool) {
		if strings.HasPrefix(head, "GET /hang") {
			calls.Add(1)
			time.Sleep(300 * time.Millisecond)
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false
	})
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	start := time.Now()
	out, _ := doRaw(t, f, c, http.MethodGet, srv.url("/hang"), "", 50*time.Millisecond)
	took := time.Since(start)
	var te *TimeoutError
	require.ErrorAs(t, out.Err, &te)
	require.Less(t, took, 250*time.Millisecond)
	require.GreaterOrEqual(t, took, 50*time.Millisecond)
	code, msg := Classify(out.Err)
	require.Equal(t, CodeTimeout, code)
	require.Equal(t, "request timeout", msg)

	out, body := doRaw(t, f, c, http.MethodGet, srv.url("/next"), "", 0)
	require.NoError(t, out.Err)
	require.Equal(t, "ok", body)
	require.Equal(t, int64(1), calls.Load())
}

func TestH1ContextCancelInterrupts(t *testing.T) {
	srv := newRawServer(t, func(int, string) (string, bool) {
		time.Sleep(2 * time.Second)
		return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false
	})
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	st := f.compile(t, &scenario.Step{URL: tmpl(t, srv.url("/"))})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	out := c.Do(ctx, st, &scenario.Vars{})
	require.Less(t, time.Since(start), time.Second)
	require.ErrorIs(t, out.Err, context.Canceled, "%v", out.Err)
	code, _ := Classify(out.Err)
	require.Equal(t, CodeGeneric, code)

	// A new context serves again.
	srv2 := newRawServer(t, func(int, string) (string, bool) { return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false })
	st2 := f.compile(t, &scenario.Step{URL: tmpl(t, srv2.url("/"))})
	out = c.Do(context.Background(), st2, &scenario.Vars{})
	require.NoError(t, out.Err)
}

func TestH1DialErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	out, _ := doRaw(t, f, c, http.MethodGet, "http://"+addr+"/", "", 0)
	code, msg := Classify(out.Err)
	require.Equal(t, CodeConnRefused, code)
	require.Equal(t, "dial: connection refused", msg)
}

// FuzzH1Response reads arbitrary bytes as a response: never a panic, and what the
// client accepts net/http accepts too, with the same status and body.
func FuzzH1Response(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\nT: 1\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nbody to the end",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 1\r\n\r\nz",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nz",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := NewClient(newFixture().env, Options{})
		conn := &h1Conn{br: bufio.NewReaderSize(bytes.NewReader(raw), 2<<10)}
		var got bytes.Buffer
		status := 0
		var err error
		for {
			if err = c.readHead(conn.br, http.MethodGet); err != nil {
				break
			}
			if s := c.h1.resp.StatusCode; s >= 100 && s < 200 && s != 101 {
				continue
			}
			status = c.h1.resp.StatusCode
			err = c.readBody(conn, &got)
			break
		}
		if err != nil {
			return
		}
		br := bufio.NewReader(bytes.NewReader(raw))
		var resp *http.Response
		for {
			resp, err = http.ReadResponse(br, &http.Request{Method: http.MethodGet})
			if err != nil || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
				break
			}
		}
		if err != nil {
			t.Fatalf("accepted what net/http rejects (%v): %q", err, raw)
		}
		want, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("accepted a body net/http rejects (%v): %q", err, raw)
		}
		if resp.StatusCode != status || !bytes.Equal(want, got.Bytes()) {
			t.Fatalf("status %d body %q, net/http: status %d body %q", status, got.Bytes(), resp.StatusCode, want)
		}
	})
}

// A host name is resolved before connecting: the lookup is blocked time, the
// handshake connecting time.
func TestH1HostNameDial(t *testing.T) {
	srv := newRawServer(t, func(int, string) (string, bool) { return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false })
	_, port, err := net.SplitHostPort(srv.ln.Addr().String())
	require.NoError(t, err)
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	out, _ := doRaw(t, f, c, http.MethodGet, "http://localhost:"+port+"/", "", 0)
	require.NoError(t, out.Err)
	require.Positive(t, out.Timings.Connecting)
	require.GreaterOrEqual(t, out.Timings.Blocked, out.Timings.Connecting)
	require.Contains(t, srv.head(0), "Host: localhost:"+port+"\r\n")
}

// Redirect hops carry the step's headers as net/http's client would: credentials
// and cookies stay within the first request's domain, a Host header does not
// follow an absolute Location, and body fields go with a dropped body.
func TestRedirectHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, location string
		status                 int
		hdr                    map[string]string
		want, notWant          []string
		methods                []string // the method tag of each hop
	}{
		{
			name: "another domain gets no credentials", method: http.MethodGet, status: 302,
			location: "http://localhost:PORT/b",
			hdr:      map[string]string{"Authorization": "Bearer s3cret", "Cookie": "sid=1", "X-Keep": "yes", "Host": "custom.example"},
			want:     []string{"GET /b HTTP/1.1\r\n", "X-Keep: yes\r\n", "Host: localhost:PORT\r\n"},
			notWant:  []string{"s3cret", "sid=1", "custom.example"},
			methods:  []string{"GET", "GET"},
		},
		{
			name: "the same host on another port keeps them, and 307 the body", method: http.MethodPost, status: 307,
			location: "http://127.0.0.1:PORT/b",
			hdr:      map[string]string{"Authorization": "Bearer s3cret", "Content-Type": "application/json"},
			want:     []string{"POST /b HTTP/1.1\r\n", "Authorization: Bearer s3cret\r\n", "Content-Type: application/json\r\n", "{}"},
			methods:  []string{"POST", "POST"},
		},
		{
			name: "303 drops the body and its fields", method: http.MethodPost, status: 303,
			location: "http://127.0.0.1:PORT/b",
			hdr:      map[string]string{"Authorization": "Bearer s3cret", "Content-Type": "application/json"},
			want:     []string{"GET /b HTTP/1.1\r\n", "Authorization: Bearer s3cret\r\n"},
			notWant:  []string{"Content-Type", "{}", "Content-Length"},
			methods:  []string{"POST", "GET"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dest := newRawServer(t, func(int, string) (string, bool) {
				return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false
			})
			_, port, err := net.SplitHostPort(dest.ln.Addr().String())
			require.NoError(t, err)
			location := strings.ReplaceAll(tc.location, "PORT", port)
			src := newRawServer(t, func(int, string) (string, bool) {
				return "HTTP/1.1 " + strconv.Itoa(tc.status) + " Moved\r\nLocation: " + location + "\r\nContent-Length: 0\r\n\r\n", false
			})
			f := newFixture()
			st := &scenario.Step{Method: tc.method, URL: tmpl(t, src.url("/a")), Body: tmpl(t, "{}"), Redirects: 1,
				Headers: map[string]*scenario.Template{}}
			for k, v := range tc.hdr {
				st.Headers[k] = tmpl(t, v)
			}
			cs := f.compile(t, st)
			c := NewClient(f.env, Options{})
			defer c.Close()
			// Twice: the step's compiled header must not change.
			for range 2 {
				dest.mu.Lock()
				dest.heads = nil
				dest.mu.Unlock()
				out := c.Do(context.Background(), cs, &scenario.Vars{})
				require.NoError(t, out.Err)
				require.Equal(t, 200, out.Status)
				got := dest.head(0)
				for _, w := range tc.want {
					require.Contains(t, got, strings.ReplaceAll(w, "PORT", port))
				}
				for _, w := range tc.notWant {
					require.NotContains(t, got, w)
				}
				require.Contains(t, src.head(0), "Authorization: Bearer s3cret\r\n")
			}
			var methods []string
			for _, s := range f.col.of(f.env.Metrics.HTTPReqs) {
				methods = append(methods, tag(s, "method"))
			}
			require.Equal(t, append(tc.methods, tc.methods...), methods, "k6 tags each hop with its own method")
		})
	}
}
