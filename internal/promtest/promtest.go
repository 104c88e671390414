// Package promtest starts real Prometheus and VictoriaMetrics servers (the Debian
// binaries /usr/bin/prometheus and /usr/bin/victoria-metrics) for integration tests, and
// polls queries against any Prometheus-compatible API until a deadline.
//
// Servers listen on free loopback ports, keep their data under t.TempDir(), are ready when
// the Start function returns, and are stopped by t.Cleanup. A missing binary fails the test;
// it never skips.
//
//	prom := promtest.StartPrometheus(t)
//	// remote-write to prom.WriteURL(), then:
//	v := promtest.WaitForQuery(t, prom.URL, `sum(k6_http_reqs_total)`, 10*time.Second, promtest.NonEmpty)
package promtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Binary paths of the Debian packages prometheus and victoria-metrics.
const (
	PrometheusBinary      = "/usr/bin/prometheus"
	VictoriaMetricsBinary = "/usr/bin/victoria-metrics"
)

// Timeouts of server start and stop. Both servers are ready in about 0.1 s on an idle
// machine; the generous bounds absorb a machine busy with parallel builds.
const (
	readyTimeout = 30 * time.Second
	stopTimeout  = 10 * time.Second
)

// Server is a running Prometheus-compatible server started by StartPrometheus or
// StartVictoriaMetrics.
type Server struct {
	// Name is "prometheus" or "victoria-metrics".
	Name string
	// URL is the base URL, e.g. http://127.0.0.1:41234. The Prometheus query API is under
	// URL + "/api/v1".
	URL string
	// DataDir is the server's storage directory, under t.TempDir().
	DataDir string

	bin, dir  string
	args      []string
	readyPath string
	logPath   string
	// user and password answer the server's basic authentication (WithBasicAuth).
	user, password string

	// Replaced by each (re)start.
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	stop    sync.Once
}

// WriteURL returns the server's remote-write endpoint, URL + "/api/v1/write".
func (s *Server) WriteURL() string { return s.URL + "/api/v1/write" }

// Log returns what the server has written to stdout and stderr so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// Stop stops the server with SIGTERM (SIGKILL after 10 s) and waits for it. t.Cleanup
// calls it; call it earlier to test a restart. It is safe to call more than once.
func (s *Server) Stop() {
	s.stop.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
}

// Kill stops the server with SIGKILL, as a crash would, and waits for it. It is safe
// to call more than once, and after Stop.
func (s *Server) Kill() {
	s.stop.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
}

// Restart stops the server if it runs and starts it again on the same address, data
// directory and arguments, returning once it is ready; the log goes on in the same
// file. The t.Cleanup of the first start stops the new process.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.launch(); err != nil {
		t.Fatalf("promtest: restart %s: %v\n%s log:\n%s", s.Name, err, s.Name, tail(s.Log(), 4000))
	}
}

type options struct {
	config         string
	args           []string
	user, password string
}

// Option changes how a server is started.
type Option func(*options)

// WithConfig sets the content of Prometheus' configuration file (prometheus.yml), for
// example to add scrape_configs. The default has only a 15 s global scrape interval and no
// scrape jobs. VictoriaMetrics ignores it.
func WithConfig(yaml string) Option { return func(o *options) { o.config = yaml } }

// WithBasicAuth makes every endpoint of the server, the query API and remote write
// included, require HTTP basic authentication as user with password: Prometheus
// through its --web.config.file (a bcrypt hash), VictoriaMetrics through
// -httpAuth.username and -httpAuth.password. The readiness probe authenticates.
func WithBasicAuth(user, password string) Option {
	return func(o *options) { o.user, o.password = user, password }
}

// WithArgs appends command-line arguments to the server's defaults.
func WithArgs(args ...string) Option { return func(o *options) { o.args = append(o.args, args...) } }

// StartPrometheus starts /usr/bin/prometheus with its remote-write receiver and native
// histograms enabled, and returns once GET /-/ready answers 200.
func StartPrometheus(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := options{config: "global:\n  scrape_interval: 15s\n"}
	for _, opt := range opts {
		opt(&o)
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(o.config), 0o600); err != nil {
		t.Fatalf("promtest: write prometheus config: %v", err)
	}
	data := filepath.Join(dir, "data")
	if o.user != "" {
		hash, err := bcrypt.GenerateFromPassword([]byte(o.password), bcrypt.MinCost)
		if err != nil {
			t.Fatalf("promtest: hash the password: %v", err)
		}
		webPath := filepath.Join(dir, "web.yml")
		if err := os.WriteFile(webPath, fmt.Appendf(nil, "basic_auth_users:\n  %q: %q\n", o.user, hash), 0o600); err != nil {
			t.Fatalf("promtest: write web config: %v", err)
		}
		o.args = append(o.args, "--web.config.file="+webPath)
	}
	return start(t, "prometheus", PrometheusBinary, dir, data, "/-/ready", o, func(addr string) []string {
		return append([]string{
			"--config.file=" + cfgPath,
			"--storage.tsdb.path=" + data,
			"--web.listen-address=" + addr,
			"--web.enable-remote-write-receiver",
			"--enable-feature=native-histograms",
			"--log.level=warn",
		}, o.args...)
	})
}

// StartVictoriaMetrics starts /usr/bin/victoria-metrics with -search.latencyOffset=0s, so
// that fresh samples are visible to queries, and returns once GET /health answers 200.
// Even so, VictoriaMetrics makes new rows searchable only after a second or two: poll
// with WaitForQuery.
func StartVictoriaMetrics(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if o.user != "" {
		o.args = append(o.args, "-httpAuth.username="+o.user, "-httpAuth.password="+o.password)
	}
	return start(t, "victoria-metrics", VictoriaMetricsBinary, dir, data, "/health", o, func(addr string) []string {
		return append([]string{
			"-httpListenAddr=" + addr,
			"-storageDataPath=" + data,
			"-search.latencyOffset=0s",
			"-loggerLevel=WARN",
		}, o.args...)
	})
}

// startAttempts is how often start retries when the free port it picked was taken by
// someone else between picking and binding.
const startAttempts = 3

func start(t testing.TB, name, bin, dir, data, readyPath string, o options, args func(addr string) []string) *Server {
	t.Helper()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("promtest: %s is required for this integration test (apt-get install --no-install-recommends %s): %v", bin, name, err)
	}
	var lastErr error
	for attempt := range startAttempts {
		addr, err := freeAddr()
		if err != nil {
			t.Fatalf("promtest: %v", err)
		}
		s := &Server{
			Name:      name,
			URL:       "http://" + addr,
			DataDir:   data,
			bin:       bin,
			dir:       dir,
			args:      args(addr),
			readyPath: readyPath,
			logPath:   filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, attempt)),
			user:      o.user,
			password:  o.password,
		}
		if err := s.launch(); err != nil {
			lastErr = fmt.Errorf("%w\n%s log:\n%s", err, name, tail(s.Log(), 4000))
			continue
		}
		t.Cleanup(s.Stop)
		return s
	}
	t.Fatalf("promtest: %s did not become ready: %v", name, lastErr)
	return nil
}

// launch starts the server's process and waits until it is ready; on error the process
// is stopped.
func (s *Server) launch() error {
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	cmd, done := exec.Command(s.bin, s.args...), make(chan struct{})
	cmd.Dir = s.dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.cmd, s.done, s.waitErr, s.stop = cmd, done, nil, sync.Once{}
	go func() {
		s.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(done)
	}()
	if err := waitReady(s, s.readyPath); err != nil {
		s.Stop()
		return err
	}
	return nil
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	return addr, nil
}

func waitReady(s *Server, path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	ticker := time.NewTicker(20 * time.Millisecond)
	defer ticker.Stop()
	var last error
	for {
		select {
		case <-s.done:
			if s.waitErr == nil {
				return fmt.Errorf("%s exited before it was ready", s.Name)
			}
			return fmt.Errorf("%s exited before it was ready: %w", s.Name, s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s after %s: %w", s.Name, s.URL+path, readyTimeout, last)
		case <-ticker.C:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
		if err != nil {
			return err
		}
		if s.user != "" {
			req.SetBasicAuth(s.user, s.password)
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		last = errors.New(resp.Status)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// Poll calls check every interval until it returns true or timeout passes; then it fails
// the test with the last error check returned. Use it instead of sleeping.
func Poll(t testing.TB, timeout, interval time.Duration, check func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := check()
		if ok {
			return
		}
		last = err
		if time.Now().After(deadline) {
			t.Fatalf("promtest: condition not met after %s: %v", timeout, last)
		}
		time.Sleep(interval)
	}
}
