// Package target is the built-in HTTP target of `tidemark target`: a loopback server
// with a configurable latency distribution, CPU work and error ratio per request, that
// counts what it served so tests and benchmarks can compare the load generator's
// numbers with the server's own. Beside it, on addresses of their own, the same
// command serves the stand-ins that example scripts name: k6's gRPC services
// (grpctarget) and QuickPizza (NewQuickPizza).
package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/internal/dbpool"
)

// LatencyKind names a latency distribution.
type LatencyKind string

// The latency distributions.
const (
	Fixed     LatencyKind = "fixed"     // always A
	Uniform   LatencyKind = "uniform"   // uniform in [A, B]
	Normal    LatencyKind = "normal"    // mean A, standard deviation B, never below 0
	LogNormal LatencyKind = "lognormal" // median A, shape sigma S
)

// Latency is a distribution of added response latency.
type Latency struct {
	Kind LatencyKind
	A, B time.Duration
	S    float64
}

// ParseLatency parses "fixed:10ms", "uniform:5ms,20ms", "normal:20ms,5ms" (mean,
// stddev) or "lognormal:20ms,0.5" (median, sigma). A bare duration means fixed; ""
// and "0" mean none.
func ParseLatency(s string) (Latency, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return Latency{Kind: Fixed}, nil
	}
	kind, args, ok := strings.Cut(s, ":")
	if !ok {
		kind, args = string(Fixed), s
	}
	parts := strings.Split(args, ",")
	dur := func(i int) (time.Duration, error) {
		if i >= len(parts) {
			return 0, fmt.Errorf("parse latency %q: missing argument %d", s, i+1)
		}
		d, err := time.ParseDuration(strings.TrimSpace(parts[i]))
		if err != nil || d < 0 {
			return 0, fmt.Errorf("parse latency %q: %q is not a duration such as 10ms", s, parts[i])
		}
		return d, nil
	}
	l := Latency{Kind: LatencyKind(kind)}
	want := 2
	var err error
	switch l.Kind {
	case Fixed:
		want = 1
		l.A, err = dur(0)
	case Uniform, Normal:
		if l.A, err = dur(0); err == nil {
			l.B, err = dur(1)
		}
		if err == nil && l.Kind == Uniform && l.B < l.A {
			err = fmt.Errorf("parse latency %q: expected min <= max", s)
		}
	case LogNormal:
		if l.A, err = dur(0); err == nil {
			if len(parts) < 2 {
				err = fmt.Errorf("parse latency %q: missing sigma", s)
			} else if l.S, err = strconv.ParseFloat(strings.TrimSpace(parts[1]), 64); err != nil || l.S < 0 {
				err = fmt.Errorf("parse latency %q: sigma %q is not a number >= 0", s, parts[1])
			}
		}
	default:
		return Latency{}, fmt.Errorf("parse latency %q: unknown distribution %q; expected fixed, uniform, normal or lognormal", s, kind)
	}
	if err == nil && len(parts) > want {
		err = fmt.Errorf("parse latency %q: expected %d argument(s)", s, want)
	}
	return l, err
}

// Sample draws one latency.
func (l Latency) Sample(r *rand.Rand) time.Duration {
	switch l.Kind {
	case Uniform:
		if l.B <= l.A {
			return l.A
		}
		return l.A + time.Duration(r.Int64N(int64(l.B-l.A)+1))
	case Normal:
		return max(0, l.A+time.Duration(r.NormFloat64()*float64(l.B)))
	case LogNormal:
		return time.Duration(float64(l.A) * math.Exp(r.NormFloat64()*l.S))
	default:
		return l.A
	}
}

// String returns the distribution in ParseLatency's syntax.
func (l Latency) String() string {
	switch l.Kind {
	case Uniform, Normal:
		return fmt.Sprintf("%s:%s,%s", l.Kind, l.A, l.B)
	case LogNormal:
		return fmt.Sprintf("%s:%s,%g", l.Kind, l.A, l.S)
	default:
		return l.A.String()
	}
}

// Config configures the target.
type Config struct {
	Latency Latency
	// CPUWork is busy CPU time spent per request.
	CPUWork time.Duration
	// ErrorRatio in [0,1] of requests answer ErrorStatus (default 500).
	ErrorRatio  float64
	ErrorStatus int
	// BodySize is the response size in bytes, at most 64 MiB; 0 means 3 ("ok\n").
	BodySize int
	// DB, when set, does each load request's database work before its CPU work and
	// latency (package dbpool: a pool connection and its queries); a failure answers
	// 500. If it is also a prometheus.Collector, /metrics exposes it.
	DB DBWork
	// Pool, when enabled and DB is nil, is the pool ListenAndServeAll opens as DB
	// (`tidemark target --db.*`).
	Pool dbpool.Config
}

// DBWork is one load request's database work.
type DBWork interface {
	Do(ctx context.Context) error
}

// Stats is what the target served, as /stats reports it.
type Stats struct {
	Requests int64            `json:"requests"`
	Errors   int64            `json:"errors"`
	Bytes    int64            `json:"bytes"`
	ByStatus map[string]int64 `json:"by_status"`
	Started  time.Time        `json:"started"`
}

// Server is the target's handler and counters. Paths: /stats (JSON), /healthz,
// test.k6.io's pages but its home (NewTestK6: /news.php, /my_messages.php, …), the page
// whose LCP waits for a backend (PagePath: /page?backend=URL, and its image); every
// other path is load (mount a Collector's /metrics in front). Query parameters override the
// configuration per request: delay=1s, status=503, size=100, cpu=1ms.
type Server struct {
	cfg     Config
	body    []byte
	started time.Time

	requests, errors, bytes atomic.Int64
	mu                      sync.Mutex
	byStatus                map[int]*atomic.Int64
	ok                      *atomic.Int64

	rngs        sync.Pool
	contentType []string
	testK6      http.Handler // test.k6.io's pages (testk6.go)
	lcp         *lcpPage     // PagePath and PageImagePath (page.go)

	echo      *Echo      // /ws
	broadcast *Broadcast // /ws/broadcast
}

// New returns a target server.
func New(cfg Config) (*Server, error) {
	if cfg.ErrorStatus == 0 {
		cfg.ErrorStatus = http.StatusInternalServerError
	}
	if cfg.BodySize < 0 || cfg.BodySize > maxBodySize {
		return nil, fmt.Errorf("new target: body size %d is out of range; expected 0 (the default, 3 bytes) to %d bytes", cfg.BodySize, maxBodySize)
	}
	if cfg.BodySize == 0 {
		cfg.BodySize = 3
	}
	if cfg.CPUWork < 0 {
		return nil, fmt.Errorf("new target: CPU work %s is negative; expected a duration of 0 or more", cfg.CPUWork)
	}
	if cfg.ErrorRatio < 0 || cfg.ErrorRatio > 1 {
		return nil, fmt.Errorf("new target: error ratio %g is not in [0,1]", cfg.ErrorRatio)
	}
	// A 1xx status is interim: a client would wait for the final response.
	if cfg.ErrorStatus < 200 || cfg.ErrorStatus > 999 {
		return nil, fmt.Errorf("new target: error status %d is not a final HTTP status; expected 200 to 999", cfg.ErrorStatus)
	}
	pg, err := newLCPPage()
	if err != nil {
		return nil, fmt.Errorf("new target: %w", err)
	}
	s := &Server{cfg: cfg, lcp: pg, body: makeBody(cfg.BodySize), started: time.Now(), byStatus: map[int]*atomic.Int64{},
		contentType: []string{"text/plain; charset=utf-8"}, testK6: NewTestK6(), echo: NewEcho(), broadcast: NewBroadcast()}
	s.ok = s.statusCounter(http.StatusOK)
	s.rngs.New = func() any { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
	return s, nil
}

// maxBodySize bounds a response body, from the configuration or ?size=: the body
// is held in memory.
const maxBodySize = 64 << 20

func makeBody(n int) []byte {
	if n == 3 {
		return []byte("ok\n")
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	if n > 0 {
		b[n-1] = '\n'
	}
	return b
}

func (s *Server) statusCounter(code int) *atomic.Int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byStatus[code]
	if !ok {
		c = new(atomic.Int64)
		s.byStatus[code] = c
	}
	return c
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	st := Stats{Requests: s.requests.Load(), Errors: s.errors.Load(), Bytes: s.bytes.Load(), ByStatus: map[string]int64{}, Started: s.started}
	s.mu.Lock()
	for code, c := range s.byStatus {
		if v := c.Load(); v > 0 {
			st.ByStatus[strconv.Itoa(code)] = v
		}
	}
	s.mu.Unlock()
	return st
}

// ServeHTTP routes /stats, /healthz, test.k6.io's pages (NewTestK6), PagePath and
// PageImagePath, and the WebSockets /ws (echo) and /ws/broadcast, and serves load on
// every other path.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/ws":
		s.echo.ServeHTTP(w, r)
		return
	case "/ws/broadcast":
		s.broadcast.ServeHTTP(w, r)
		return
	case "/stats":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Stats())
		return
	case "/healthz":
		_, _ = w.Write([]byte("ok\n"))
		return
	case PagePath, PageImagePath:
		s.lcp.ServeHTTP(w, r)
		return
	}
	if isTestK6Path(r.URL.Path) {
		s.testK6.ServeHTTP(w, r)
		return
	}
	s.serveLoad(w, r)
}

// plan is what the target does for one load request.
type plan struct {
	status int
	body   []byte
	delay  time.Duration
	cpu    time.Duration
}

// planFor draws the configured latency and error and applies the query's overrides.
func (s *Server) planFor(rawQuery string) plan {
	p := plan{status: http.StatusOK, body: s.body, cpu: s.cfg.CPUWork}
	if s.cfg.Latency.Kind != Fixed || s.cfg.ErrorRatio > 0 {
		rng := s.rngs.Get().(*rand.Rand)
		p.delay = s.cfg.Latency.Sample(rng)
		if s.cfg.ErrorRatio > 0 && rng.Float64() < s.cfg.ErrorRatio {
			p.status = s.cfg.ErrorStatus
		}
		s.rngs.Put(rng)
	} else {
		p.delay = s.cfg.Latency.A
	}
	if rawQuery != "" {
		v, _ := url.ParseQuery(rawQuery)
		if d, err := time.ParseDuration(v.Get("delay")); err == nil {
			p.delay = d
		}
		if d, err := time.ParseDuration(v.Get("cpu")); err == nil {
			p.cpu = d
		}
		if c, err := strconv.Atoi(v.Get("status")); err == nil && c >= 200 && c <= 999 { // 1xx is interim, not an answer
			p.status = c
		}
		if n, err := strconv.Atoi(v.Get("size")); err == nil && n >= 0 && n <= maxBodySize {
			p.body = makeBody(n)
		}
	}
	return p
}

// work spends the plan's CPU and waits its delay, or until done.
func (p plan) work(done <-chan struct{}) {
	if p.cpu > 0 {
		spin(p.cpu)
	}
	if p.delay > 0 {
		t := time.NewTimer(p.delay)
		select {
		case <-t.C:
		case <-done:
			t.Stop()
		}
	}
}

// count records one served load response.
func (s *Server) count(status, bytes int) {
	s.requests.Add(1)
	s.bytes.Add(int64(bytes))
	if status == http.StatusOK {
		s.ok.Add(1)
		return
	}
	s.statusCounter(status).Add(1)
	if status >= 400 {
		s.errors.Add(1)
	}
}

func (s *Server) serveLoad(w http.ResponseWriter, r *http.Request) {
	p := s.planFor(r.URL.RawQuery)
	if s.cfg.DB != nil && s.cfg.DB.Do(r.Context()) != nil {
		p.status = http.StatusInternalServerError
	}
	p.work(r.Context().Done())
	// Drain the request body so keep-alive works for POSTs.
	if r.Body != nil && r.ContentLength != 0 {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	h := w.Header()
	// A shared, never-modified slice avoids an allocation per response.
	h["Content-Type"] = s.contentType
	if p.status != http.StatusOK {
		w.WriteHeader(p.status)
	}
	n, _ := w.Write(p.body)
	s.count(p.status, n)
}

// spin burns CPU for d.
func spin(d time.Duration) {
	end := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(end) {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	_ = x
}

const namespace = "tidemark"

// Collector exposes the counters as Prometheus metrics.
type Collector struct {
	s        *Server
	requests *prometheus.Desc
	bytes    *prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a collector over s.
func NewCollector(s *Server) *Collector {
	return &Collector{
		s: s,
		requests: prometheus.NewDesc(prometheus.BuildFQName(namespace, "target", "requests_total"),
			"Requests the target served, by status code.", []string{"code"}, nil),
		bytes: prometheus.NewDesc(prometheus.BuildFQName(namespace, "target", "response_bytes_total"),
			"Response body bytes the target wrote.", nil, nil),
	}
}

// Describe sends the descriptors.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.requests
	ch <- c.bytes
}

// Collect sends the current values.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	for code, n := range st.ByStatus {
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(n), code)
	}
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.CounterValue, float64(st.Bytes))
}
