package target

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/require"
)

// serve runs s.Serve on a loopback listener until the test ends and returns its
// address and a function that stops it and returns Serve's error.
func serve(t *testing.T, s *Server, grace time.Duration) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(s))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), grace) }()
	var once sync.Once
	var serr error
	stop := func() error {
		once.Do(func() { cancel(); serr = <-errc })
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return ln.Addr().String(), stop
}

func TestServeWithNetHTTPClient(t *testing.T) {
	t.Parallel()
	s, err := New(Config{BodySize: 10})
	require.NoError(t, err)
	addr, _ := serve(t, s, time.Second)
	base := "http://" + addr
	client := &http.Client{Transport: &http.Transport{}}
	do := func(method, path string, body io.Reader) (*http.Response, string) {
		req, err := http.NewRequest(method, base+path, body)
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}

	resp, body := do(http.MethodGet, "/", nil)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "abcdefghi\n", body)
	require.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	require.NotEmpty(t, resp.Header.Get("Date"))

	resp, _ = do(http.MethodGet, "/x?status=503", nil)
	require.Equal(t, 503, resp.StatusCode)
	resp, body = do(http.MethodGet, "/x?status=204", nil)
	require.Equal(t, 204, resp.StatusCode)
	require.Empty(t, body)
	resp, body = do(http.MethodHead, "/", nil)
	require.Equal(t, 200, resp.StatusCode)
	require.Empty(t, body)
	require.Equal(t, int64(10), resp.ContentLength)

	start := time.Now()
	_, body = do(http.MethodGet, "/y?delay=50ms&size=2", nil)
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	require.Equal(t, "a\n", body)

	// Bodies of every framing are drained, and the connection keeps serving.
	resp, _ = do(http.MethodPost, "/p", strings.NewReader(strings.Repeat("x", 100_000)))
	require.Equal(t, 200, resp.StatusCode)
	resp, _ = do(http.MethodPost, "/p", io.MultiReader(strings.NewReader("chunked "), strings.NewReader("body"))) // unknown length: chunked
	require.Equal(t, 200, resp.StatusCode)

	_, body = do(http.MethodGet, "/healthz", nil)
	require.Equal(t, "ok\n", body)
	resp, body = do(http.MethodGet, "/stats", nil)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var st Stats
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	require.Equal(t, int64(7), st.Requests, "/stats and /healthz are not counted")
	require.Equal(t, map[string]int64{"200": 5, "503": 1, "204": 1}, st.ByStatus)
	require.Equal(t, int64(1), st.Errors)
	require.Equal(t, int64(10+10+2+10+10), st.Bytes, "HEAD and 204 send no body")

	// /metrics keeps the handler's own headers (gzip here).
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", "gzip")
	mresp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	require.NoError(t, err)
	defer mresp.Body.Close()
	require.Equal(t, "gzip", mresp.Header.Get("Content-Encoding"))
	zr, err := gzip.NewReader(mresp.Body)
	require.NoError(t, err)
	m, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.Contains(t, string(m), `tidemark_target_requests_total{code="200"} 5`)
}

// rawExchange writes raw to a new connection and reads until the server closes it.
func rawExchange(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = io.WriteString(c, raw)
	require.NoError(t, err)
	b, err := io.ReadAll(c)
	require.NoError(t, err)
	return string(b)
}

func TestServeRawProtocol(t *testing.T) {
	t.Parallel()
	s, err := New(Config{})
	require.NoError(t, err)
	addr, _ := serve(t, s, time.Second)

	// Pipelined requests are answered in order; the last one closes.
	out := rawExchange(t, addr, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b?status=404 HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.Equal(t, 3, strings.Count(out, "HTTP/1.1 "), out)
	i404, iLast := strings.Index(out, "404 Not Found"), strings.LastIndex(out, "200 OK")
	require.True(t, i404 > 0 && iLast > i404, out)
	require.Contains(t, out, "Connection: close\r\n")

	// HTTP/1.0 closes unless asked to keep alive.
	out = rawExchange(t, addr, "GET / HTTP/1.0\r\n\r\n")
	require.True(t, strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n"), out)
	require.True(t, strings.HasSuffix(out, "\r\n\r\nok\n"), out)

	// HTTP/1.0 keep-alive is confirmed, or the client waits for the close, and
	// the connection serves the next request.
	out = rawExchange(t, addr, "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\n\r\n")
	first, second, ok := strings.Cut(out, "ok\n")
	require.True(t, ok, out)
	require.Contains(t, first, "Connection: keep-alive\r\n")
	require.True(t, strings.HasPrefix(second, "HTTP/1.1 200 OK\r\n"), out)
	require.Contains(t, second, "Connection: close\r\n")

	// Expect: 100-continue gets its interim response before the final one.
	out = rawExchange(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
	require.True(t, strings.HasPrefix(out, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"), out)
	out = rawExchange(t, addr, "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi")
	require.True(t, strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n"), "no interim response to HTTP/1.0: %s", out)

	// A malformed request is answered 400 and the connection closed.
	out = rawExchange(t, addr, "NOT A REQUEST\r\n\r\n")
	require.True(t, strings.HasPrefix(out, "HTTP/1.1 400 Bad Request\r\n"), out)
	require.Contains(t, out, "Connection: close\r\n")

	// An interim status is no answer: the request is answered 200.
	out = rawExchange(t, addr, "GET /?status=100 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.True(t, strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n"), out)

	// Unknown status codes have a reason phrase.
	out = rawExchange(t, addr, "GET /?status=599 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.True(t, strings.HasPrefix(out, "HTTP/1.1 599 status code 599\r\n"), out)

	st := s.Stats()
	require.Equal(t, int64(10), st.Requests, "the malformed request is not counted")
	require.Equal(t, int64(2), st.Errors)
}

// Stopping the server lets a request in flight finish and closes idle connections.
func TestServeShutdown(t *testing.T) {
	t.Parallel()
	s, err := New(Config{})
	require.NoError(t, err)
	addr, stop := serve(t, s, 2*time.Second)

	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	busy, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer busy.Close()
	_, err = io.WriteString(busy, "GET /?delay=300ms HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond) // the request is being served

	start := time.Now()
	require.NoError(t, stop())
	require.Less(t, time.Since(start), 2*time.Second)

	// The delayed request was cut short by the shutdown but answered, with close.
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.True(t, resp.Close)

	require.NoError(t, idle.SetReadDeadline(time.Now().Add(time.Second)))
	n, err := idle.Read(make([]byte, 1))
	require.Zero(t, n)
	require.ErrorIs(t, err, io.EOF, "the idle connection was closed")

	_, err = net.DialTimeout("tcp", addr, 200*time.Millisecond)
	require.Error(t, err, "the listener is closed")
}

// faultyListener fails its Accepts with errs, in turn, before it accepts from the
// listener it wraps; after errs, a nil entry accepts and a non-nil one fails.
type faultyListener struct {
	net.Listener
	mu   sync.Mutex
	errs []error
}

func (l *faultyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	var err error
	if len(l.errs) > 0 {
		err, l.errs = l.errs[0], l.errs[1:]
	}
	l.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return l.Listener.Accept()
}

func TestServeAcceptErrors(t *testing.T) {
	t.Parallel()
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}

	t.Run("out of descriptors is waited out", func(t *testing.T) {
		t.Parallel()
		s, err := New(Config{})
		require.NoError(t, err)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			errc <- s.Serve(ctx, &faultyListener{Listener: ln, errs: []error{emfile, emfile}}, nil, time.Second)
		}()

		out := rawExchange(t, ln.Addr().String(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		require.True(t, strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n"), out)
		cancel()
		require.NoError(t, <-errc)
	})

	t.Run("a failed listener closes its connections", func(t *testing.T) {
		t.Parallel()
		s, err := New(Config{})
		require.NoError(t, err)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		fl := &faultyListener{Listener: ln, errs: []error{nil}}
		errc := make(chan error, 1)
		go func() { errc <- s.Serve(context.Background(), fl, nil, time.Second) }()

		// The first connection is accepted and served; then the listener fails.
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
		_, err = io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)

		boom := errors.New("boom")
		fl.mu.Lock()
		fl.errs = []error{boom}
		fl.mu.Unlock()
		// Wake the Accept that is waiting on the real listener.
		w, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer w.Close()
		// That Accept returns w; the next one fails.
		select {
		case err := <-errc:
			require.ErrorIs(t, err, boom)
		case <-time.After(5 * time.Second):
			t.Fatal("Serve did not return after the listener failed")
		}
		n, err := br.Read(make([]byte, 1))
		require.Zero(t, n)
		require.ErrorIs(t, err, io.EOF, "the idle keep-alive connection was closed")
	})
}

// A request head beyond net/http's bound ends the connection instead of growing
// the server's memory.
func TestServeRequestHeadTooLarge(t *testing.T) {
	t.Parallel()
	s, err := New(Config{})
	require.NoError(t, err)
	addr, _ := serve(t, s, time.Second)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	// The writes fail once the server has closed; the read tells what it did.
	go func() {
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Huge: ")
		chunk := strings.Repeat("h", 64<<10)
		for range 64 { // 4 MiB, never ending the line
			if _, err := io.WriteString(c, chunk); err != nil {
				return
			}
		}
	}()
	b, err := io.ReadAll(c)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server kept reading the head: %v", err)
	if len(b) > 0 {
		require.True(t, strings.HasPrefix(string(b), "HTTP/1.1 431 Request Header Fields Too Large\r\n"), string(b))
	}
	require.Zero(t, s.Stats().Requests)
}
