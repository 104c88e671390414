// Package sitetest serves, on loopback, the public hosts that k6's examples and
// documentation load-test (httpbin.org, test.k6.io, quickpizza.grafana.com, …), so that
// those scripts run unmodified where the network is closed.
//
// The server is a forward proxy: a process started with Env's variables (HTTP_PROXY and
// HTTPS_PROXY pointing at it, SSL_CERT_FILE at its CA) sends every http:// request to it
// in absolute form and opens every https:// connection through CONNECT; the server
// answers as the host asked for, over TLS with a certificate its CA signs for that name
// (HTTP/2 when the client offers it). k6 honours the same variables (Go's
// http.ProxyFromEnvironment and the system roots), so this changes nothing a script can
// observe beyond timings. Requests sent to the server directly, not through the proxy,
// are served as QuickPizza (whose scripts take their BASE_URL from -e). Each site
// implements the endpoints the corpus uses with the behaviour the public site documents.
package sitetest

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/target"
)

// Server is the running proxy and its sites.
type Server struct {
	// URL is the server's own address, "http://127.0.0.1:PORT": the proxy, and QuickPizza
	// for direct requests.
	URL string
	// CAFile is the PEM file of the CA that signs the sites' certificates.
	CAFile string
	// GRPCAddr is the gRPC target's address, "127.0.0.1:PORT" (see startGRPC).
	GRPCAddr string

	ca      *authority
	sites   map[string]http.Handler
	tlsConn chan net.Conn
	tlsSrv  *http.Server
	mu      sync.Mutex
	served  map[string]int

	plainConn chan net.Conn // CONNECT tunnels to port 80 (ws:// through the proxy)
}

// Start serves the sites until the test ends; dir receives the CA file.
func Start(tb testing.TB, dir string) *Server {
	tb.Helper()
	ca, err := newAuthority()
	if err != nil {
		tb.Fatalf("sitetest: CA: %v", err)
	}
	s := &Server{ca: ca, CAFile: filepath.Join(dir, "sitetest-ca.pem"), tlsConn: make(chan net.Conn), plainConn: make(chan net.Conn), served: map[string]int{}}
	if err := os.WriteFile(s.CAFile, ca.certPEM, 0o600); err != nil {
		tb.Fatalf("sitetest: %v", err)
	}
	s.sites = map[string]http.Handler{
		"httpbin.org":                newHTTPBin(),
		"httpbin.test.k6.io":         newHTTPBin(),
		"test.k6.io":                 target.NewTestK6(),
		"quickpizza.grafana.com":     target.NewQuickPizza(),
		"sha256.badssl.com":          page("sha256.badssl.com"),
		"stackoverflow.com":          page("Stack Overflow"),
		"example.org":                page("Example Domain"),
		"echo.websocket.org":         target.NewEcho(),
		"googlechromelabs.github.io": newDarkModeToggle(),
		"example.com":                newExampleCom(),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("sitetest: listen: %v", err)
	}
	s.URL = "http://" + ln.Addr().String()
	s.GRPCAddr = startGRPC(tb)
	front := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.tlsSrv = &http.Server{Handler: http.HandlerFunc(s.serveSite), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS10, GetConfigForClient: s.tlsConfig}} //nolint:gosec // tlsconfig.js asks for TLS 1.0 to 1.2
	tl := &connListener{conns: s.tlsConn, addr: ln.Addr(), done: make(chan struct{})}
	pl := &connListener{conns: s.plainConn, addr: ln.Addr(), done: make(chan struct{})}
	plainSrv := &http.Server{Handler: http.HandlerFunc(s.serveSite), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = front.Serve(ln) }()
	go func() { _ = s.tlsSrv.ServeTLS(tl, "", "") }()
	go func() { _ = plainSrv.Serve(pl) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = front.Shutdown(ctx)
		_ = s.tlsSrv.Shutdown(ctx)
		_ = plainSrv.Shutdown(ctx)
		tl.close()
		pl.close()
	})
	return s
}

// Env returns the variables that send a process's HTTP(S) requests to the server.
func (s *Server) Env() []string {
	return []string{"HTTP_PROXY=" + s.URL, "HTTPS_PROXY=" + s.URL, "http_proxy=" + s.URL, "https_proxy=" + s.URL,
		"NO_PROXY=", "no_proxy=", "SSL_CERT_FILE=" + s.CAFile}
}

// Served returns how many requests each host has answered so far.
func (s *Server) Served() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.served)
}

// ServeHTTP is the proxy's front door: CONNECT opens a TLS tunnel to a site,
// absolute-form requests go to their site, and anything else is QuickPizza.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.connect(w, r)
		return
	}
	if r.URL.IsAbs() {
		s.serveSite(w, r)
		return
	}
	s.count("direct")
	s.sites["quickpizza.grafana.com"].ServeHTTP(w, r)
}

// connect answers CONNECT for a known site and hands the tunnel to the TLS server,
// or for port 80 (a ws:// WebSocket through the proxy) to the plain one.
func (s *Server) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if _, ok := s.sites[host]; !ok {
		http.Error(w, "sitetest: no site "+host, http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "sitetest: cannot hijack", http.StatusInternalServerError)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	if _, err := buf.WriteString("HTTP/1.1 200 Connection established\r\n\r\n"); err != nil || buf.Flush() != nil {
		_ = conn.Close()
		return
	}
	if port == "80" {
		s.plainConn <- conn
		return
	}
	s.tlsConn <- conn
}

// serveSite answers a request as the site its Host names.
func (s *Server) serveSite(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	site, ok := s.sites[strings.ToLower(host)]
	if !ok {
		http.Error(w, "sitetest: no site "+host, http.StatusBadGateway)
		return
	}
	s.count(host)
	site.ServeHTTP(w, r)
}

func (s *Server) count(host string) {
	s.mu.Lock()
	s.served[host]++
	s.mu.Unlock()
}

// tlsConfig gives each name its certificate. sha256.badssl.com speaks what the real one
// does for tlsconfig.js: TLS 1.2 at most, RSA key exchange allowed, HTTP/1.1 only.
func (s *Server) tlsConfig(hello *tls.ClientHelloInfo) (*tls.Config, error) {
	cert, err := s.ca.leaf(hello.ServerName)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{*cert}, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
	if hello.ServerName == "sha256.badssl.com" {
		cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS10, tls.VersionTLS12 //nolint:gosec // the site under test allows it
		cfg.NextProtos = []string{"http/1.1"}
		cfg.CipherSuites = []uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256} //nolint:gosec // as the site
	}
	return cfg, nil
}

func html(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	_, _ = io.WriteString(w, s)
}

// page serves one HTML page with title on every path (hosts a script only reaches for
// their TLS or to open a page: sha256.badssl.com, stackoverflow.com, example.org).
func page(title string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		html(w, "<!DOCTYPE html><html><head><title>"+title+"</title></head><body></body></html>")
	})
}

// connListener is a net.Listener over the tunnels CONNECT hands over.
type connListener struct {
	conns <-chan net.Conn
	addr  net.Addr
	once  sync.Once
	done  chan struct{}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error { l.close(); return nil }

func (l *connListener) close() { l.once.Do(func() { close(l.done) }) }

func (l *connListener) Addr() net.Addr { return l.addr }

var _ net.Listener = (*connListener)(nil)

// errNoName is returned for a TLS hello without a server name.
var errNoName = errors.New("sitetest: TLS hello without a server name")
