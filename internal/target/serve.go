package target

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tidemark/tidemark/internal/recorder"
)

// Serve accepts connections on ln and serves them until ctx ends. Load requests are
// answered on each connection's own goroutine, straight from the request parser to
// a buffered writer (HTTP/1.1 keep-alive and pipelining, HTTP/1.0): a load
// generator's target must not be the bottleneck of what it measures, and
// net/http's server spends about half again as much CPU per request (a
// context, a response writer and a background read per request; see
// docs/benchmarks.md). /stats and /healthz are served by ServeHTTP and /metrics by
// metrics (nil: 404), through net/http's request type. When ctx ends, Serve stops
// accepting, lets requests in flight finish for up to grace, closes every
// connection and returns nil. Accept errors from running out of descriptors are
// waited out; any other closes every connection and is returned.
func (s *Server) Serve(ctx context.Context, ln net.Listener, metrics http.Handler, grace time.Duration) error {
	var (
		mu    sync.Mutex
		conns = map[net.Conn]struct{}{}
		wg    sync.WaitGroup
	)
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-stopped:
			return
		}
		_ = ln.Close()
		// Idle connections wake from their read; busy ones finish their response.
		mu.Lock()
		for c := range conns {
			_ = c.SetReadDeadline(time.Now())
		}
		mu.Unlock()
	}()
	defer close(stopped)
	var err error
	var backoff time.Duration
	for {
		var c net.Conn
		c, err = ln.Accept()
		if err != nil {
			if ctx.Err() != nil || !acceptRetryable(err) {
				break
			}
			// Out of descriptors under load: wait and accept again, as net/http
			// does, rather than end the target.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
			continue
		}
		backoff = 0
		mu.Lock()
		conns[c] = struct{}{}
		if ctx.Err() != nil {
			// Accepted while shutting down, after the deadlines were set.
			_ = c.SetReadDeadline(time.Now())
		}
		mu.Unlock()
		wg.Go(func() {
			s.serveConn(c, ctx.Done(), metrics)
			_ = c.Close()
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		})
	}
	if ctx.Err() == nil {
		// The listener failed: close every connection and wait for its goroutine.
		_ = ln.Close()
		mu.Lock()
		for c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
		return err
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(grace):
		mu.Lock()
		for c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		<-finished
	}
	return nil
}

// acceptRetryable reports whether an accept error passes: the process or system
// is out of descriptors or buffers, or a client gave up before it was accepted.
func acceptRetryable(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// connWriter writes the responses of one connection.
type connWriter struct {
	bw       *bufio.Writer
	second   int64
	date     []byte // "Date: ...\r\n" of second
	ctype    string
	statusOK []byte
	// http10 says the request being answered is HTTP/1.0, whose client keeps the
	// connection only when the response says keep-alive.
	http10 bool
}

func (w *connWriter) dateLine() []byte {
	now := time.Now()
	if sec := now.Unix(); sec != w.second || w.date == nil {
		w.second = sec
		w.date = append(now.UTC().AppendFormat(append(w.date[:0], "Date: "...), http.TimeFormat), "\r\n"...)
	}
	return w.date
}

// head writes a status line, the common fields and extra; bodyLen < 0 sends no
// Content-Length.
func (w *connWriter) head(status int, ctype string, bodyLen int, keep bool, extra http.Header) {
	if status == http.StatusOK {
		_, _ = w.bw.Write(w.statusOK)
	} else {
		text := http.StatusText(status)
		if text == "" {
			text = "status code " + strconv.Itoa(status)
		}
		_, _ = w.bw.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + text + "\r\n")
	}
	_, _ = w.bw.Write(w.dateLine())
	if ctype != "" {
		_, _ = w.bw.WriteString("Content-Type: " + ctype + "\r\n")
	}
	if bodyLen >= 0 {
		_, _ = w.bw.WriteString("Content-Length: ")
		_, _ = w.bw.WriteString(strconv.Itoa(bodyLen))
		_, _ = w.bw.WriteString("\r\n")
	}
	if !keep {
		_, _ = w.bw.WriteString("Connection: close\r\n")
	} else if w.http10 {
		_, _ = w.bw.WriteString("Connection: keep-alive\r\n")
	}
	for k, vs := range extra {
		switch k {
		case "Content-Type", "Content-Length", "Connection", "Date", "Transfer-Encoding":
			continue
		}
		for _, v := range vs {
			_, _ = w.bw.WriteString(k + ": " + v + "\r\n")
		}
	}
	_, _ = w.bw.WriteString("\r\n")
}

// bodyAllowed reports whether a response with status may carry a body (RFC 9110).
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// maxRequestHeadBytes bounds a request head, as net/http's server does by default
// (DefaultMaxHeaderBytes plus its 4 KiB of slack).
const maxRequestHeadBytes = http.DefaultMaxHeaderBytes + 4<<10

// readLimit reads from r while n allows: the bound of the request head being read.
type readLimit struct {
	r io.Reader
	n int64
}

func (l *readLimit) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}

func (s *Server) serveConn(c net.Conn, done <-chan struct{}, metrics http.Handler) {
	lim := &readLimit{r: c}
	br := bufio.NewReaderSize(lim, 4<<10)
	w := &connWriter{bw: bufio.NewWriterSize(c, 4<<10), ctype: s.contentType[0], statusOK: []byte("HTTP/1.1 200 OK\r\n")}
	for {
		lim.n = maxRequestHeadBytes
		req, err := http.ReadRequest(br)
		if err != nil {
			var ne net.Error
			if lim.n <= 0 {
				msg := "431 Request Header Fields Too Large\n"
				w.head(http.StatusRequestHeaderFieldsTooLarge, "text/plain; charset=utf-8", len(msg), false, nil)
				_, _ = w.bw.WriteString(msg)
				_ = w.bw.Flush()
			} else if !errors.Is(err, io.EOF) && !errors.As(err, &ne) && !errors.Is(err, net.ErrClosed) {
				msg := "400 Bad Request: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n"
				w.head(http.StatusBadRequest, "text/plain; charset=utf-8", len(msg), false, nil)
				_, _ = w.bw.WriteString(msg)
				_ = w.bw.Flush()
			}
			return
		}
		lim.n = math.MaxInt64 // the body is drained whatever its size
		keep := !req.Close
		w.http10 = req.ProtoMajor == 1 && req.ProtoMinor == 0
		// HTTP/1.0 has no interim responses: its client sends the body anyway.
		if req.ContentLength != 0 && !w.http10 && strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
			_, _ = w.bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
			if w.bw.Flush() != nil {
				return
			}
		}
		switch req.URL.Path {
		case "/ws", "/ws/broadcast":
			s.serveWebSocket(c, br, w.bw, req)
			return
		case "/stats", "/healthz":
			keep = s.handle(w, req, s, keep)
		case PagePath, PageImagePath:
			keep = s.handle(w, req, s.lcp, keep)
		case "/metrics":
			h := metrics
			if h == nil {
				h = http.NotFoundHandler()
			}
			keep = s.handle(w, req, h, keep)
		default:
			if isTestK6Path(req.URL.Path) {
				keep = s.handle(w, req, s.testK6, keep)
				break
			}
			keep = s.load(w, req, done, keep)
		}
		if !keep || br.Buffered() == 0 {
			if w.bw.Flush() != nil || !keep {
				return
			}
		}
	}
}

// load answers one load request; it reports whether the connection stays open.
func (s *Server) load(w *connWriter, req *http.Request, done <-chan struct{}, keep bool) bool {
	p := s.planFor(req.URL.RawQuery)
	if s.cfg.DB != nil && s.dbWork(done) != nil {
		p.status = http.StatusInternalServerError
	}
	p.work(done)
	select {
	case <-done: // shutting down: this response is the connection's last
		keep = false
	default:
	}
	// Drain the request body so that the next request can be read.
	if req.ContentLength != 0 {
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			keep = false
		}
	}
	body := p.body
	n := len(body)
	if !bodyAllowed(p.status) {
		body, n = nil, -1
	}
	w.head(p.status, w.ctype, n, keep, nil)
	sent := 0
	if req.Method != http.MethodHead && body != nil {
		sent, _ = w.bw.Write(body)
	}
	s.count(p.status, sent)
	return keep
}

// dbWork runs the request's database work, cancelled when the server shuts down.
func (s *Server) dbWork(done <-chan struct{}) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-done:
			cancel()
		case <-finished:
		}
	}()
	return s.cfg.DB.Do(ctx)
}

// handle serves req with an http.Handler, buffering its response.
func (s *Server) handle(w *connWriter, req *http.Request, h http.Handler, keep bool) bool {
	rec := recorder.New()
	h.ServeHTTP(rec, req.WithContext(context.Background()))
	// The handler may read the body (a form); what it left is drained.
	if req.ContentLength != 0 {
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			keep = false
		}
	}
	status, body := rec.Status(), rec.Body()
	ctype := rec.Header().Get("Content-Type")
	if ctype == "" && len(body) > 0 {
		ctype = http.DetectContentType(body)
	}
	n := len(body)
	if !bodyAllowed(status) {
		n = -1
	}
	w.head(status, ctype, n, keep, rec.Header())
	if req.Method != http.MethodHead && n > 0 {
		_, _ = w.bw.Write(body)
	}
	return keep
}
