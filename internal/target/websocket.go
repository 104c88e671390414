package target

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	gws "github.com/gorilla/websocket"
)

// Echo serves WebSockets that send every text and binary message back as it came,
// answer pings with pongs and echo the client's close frame (code and reason): the echo server k6's
// WebSocket examples and documentation talk to (echo.websocket.org, a local
// jmalloc/echo-server).
type Echo struct{ up gws.Upgrader }

// NewEcho returns the echo handler.
func NewEcho() *Echo {
	return &Echo{up: gws.Upgrader{CheckOrigin: func(*http.Request) bool { return true }, EnableCompression: true}}
}

// ServeHTTP upgrades the request and echoes until the client closes.
func (e *Echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := e.up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade answered the request with an error status
	}
	defer func() { _ = c.Close() }()
	c.SetCloseHandler(func(code int, text string) error {
		// The close frame comes back with its code and reason.
		_ = c.WriteControl(gws.CloseMessage, gws.FormatCloseMessage(code, text), time.Now().Add(time.Second))
		return nil
	})
	for {
		typ, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		if c.WriteMessage(typ, data) != nil {
			return
		}
	}
}

// Broadcast serves WebSockets that form one room: every message a client sends goes
// to every connected client, the sender too (QuickPizza's /ws chat).
type Broadcast struct {
	up    gws.Upgrader
	mu    sync.Mutex
	conns map[*gws.Conn]*sync.Mutex
}

// NewBroadcast returns the broadcast handler.
func NewBroadcast() *Broadcast {
	return &Broadcast{up: gws.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}, conns: map[*gws.Conn]*sync.Mutex{}}
}

// ServeHTTP upgrades the request and relays the client's messages to the room.
func (b *Broadcast) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The handshake and the joining are one step for the room: a client that got its
	// 101 gets every message broadcast after it.
	b.mu.Lock()
	c, err := b.up.Upgrade(w, r, nil)
	if err != nil {
		b.mu.Unlock()
		return
	}
	b.conns[c] = &sync.Mutex{}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.conns, c)
		b.mu.Unlock()
		_ = c.Close()
	}()
	for {
		typ, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		b.mu.Lock()
		for peer, wmu := range b.conns {
			wmu.Lock()
			_ = peer.SetWriteDeadline(time.Now().Add(5 * time.Second))
			_ = peer.WriteMessage(typ, data)
			wmu.Unlock()
		}
		b.mu.Unlock()
	}
}

// hijacked is the http.ResponseWriter of a request the target's own loop read: it
// lets a WebSocket handler take over the connection.
type hijacked struct {
	c      net.Conn
	rw     *bufio.ReadWriter
	header http.Header
	status int
}

func (h *hijacked) Header() http.Header { return h.header }

func (h *hijacked) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.WriteHeader(http.StatusOK)
	}
	return h.rw.Write(b)
}

// WriteHeader writes a non-upgrade answer (a refused handshake) and closes after it.
func (h *hijacked) WriteHeader(status int) {
	h.status = status
	_, _ = h.rw.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\nConnection: close\r\n")
	_ = h.header.Write(h.rw)
	_, _ = h.rw.WriteString("\r\n")
}

// Hijack hands the connection and its buffers over.
func (h *hijacked) Hijack() (net.Conn, *bufio.ReadWriter, error) { return h.c, h.rw, nil }

// serveWebSocket serves /ws (echo) and /ws/broadcast on a connection of Serve; the
// connection is the WebSocket's from then on.
func (s *Server) serveWebSocket(c net.Conn, br *bufio.Reader, bw *bufio.Writer, req *http.Request) {
	h := &hijacked{c: c, rw: bufio.NewReadWriter(br, bw), header: http.Header{}}
	if req.URL.Path == "/ws/broadcast" {
		s.broadcast.ServeHTTP(h, req)
	} else {
		s.echo.ServeHTTP(h, req)
	}
	_ = bw.Flush()
}
