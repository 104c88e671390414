package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
)

// Metrics paths served by Server. Path "/metrics" has every series; the others split
// them by the exporter a real cluster would run, so each can be its own scrape job.
const (
	MetricsPath          = "/metrics"
	KubeStateMetricsPath = "/metrics/kube-state-metrics"
	CadvisorPath         = "/metrics/cadvisor"
	RDSPath              = "/metrics/rds"
)

// FastDownscaleStabilization is the downscale stabilisation window WithFast uses.
const FastDownscaleStabilization = 30 * time.Second

type serverOptions struct {
	now           func() time.Time
	tick          time.Duration
	metricsAddr   string
	serviceAddrs  map[string]string
	fast          bool
	fastWindow    time.Duration
	webConfigFile string
}

// Option configures a Server.
type Option func(*serverOptions)

// WithClock sets the clock the model follows in real time (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *serverOptions) { o.now = now } }

// WithTick sets how often the model catches up with the clock (default 10ms).
func WithTick(d time.Duration) Option { return func(o *serverOptions) { o.tick = d } }

// WithMetricsAddress sets the metrics listen address (default 127.0.0.1:0, a free port).
func WithMetricsAddress(addr string) Option { return func(o *serverOptions) { o.metricsAddr = addr } }

// WithServiceAddress sets one service's listen address, overriding the profile.
func WithServiceAddress(service, addr string) Option {
	return func(o *serverOptions) { o.serviceAddrs[service] = addr }
}

// WithFast shortens the HPA downscale stabilisation window to d (FastDownscaleStabilization
// if d is 0) for demos. It is reported in tidemark_sim_info{fast="true"}.
func WithFast(d time.Duration) Option {
	return func(o *serverOptions) {
		o.fast = true
		o.fastWindow = d
		if d <= 0 {
			o.fastWindow = FastDownscaleStabilization
		}
	}
}

// WithWebConfigFile serves the metrics endpoint with exporter-toolkit's web configuration
// (TLS, basic auth).
func WithWebConfigFile(path string) Option { return func(o *serverOptions) { o.webConfigFile = path } }

// Server runs a Cluster in real time behind HTTP: one endpoint per service, where each
// request is held for its simulated time and answered with the model's status (or not at
// all, until the client gives up), and a metrics endpoint with kube-state-metrics,
// cAdvisor and YACE RDS series.
type Server struct {
	logger   *slog.Logger
	opts     serverOptions
	profile  *Profile
	mu       sync.Mutex
	cluster  *Cluster
	started  bool
	stopOnce sync.Once
	done     chan struct{}
	wg       sync.WaitGroup
	servers  []*http.Server
	urls     map[string]string
	metrics  string
}

// NewServer builds the cluster of profile p (copied; p is not modified). Start serves it.
func NewServer(p *Profile, logger *slog.Logger, opts ...Option) (*Server, error) {
	o := serverOptions{now: time.Now, tick: 10 * time.Millisecond, metricsAddr: "127.0.0.1:0", serviceAddrs: map[string]string{}}
	for _, opt := range opts {
		opt(&o)
	}
	if p == nil {
		return nil, errors.New("new simulation server: no profile")
	}
	cp := *p
	cp.Services = slices.Clone(p.Services)
	if o.fast {
		cp.Controller.DownscaleStabilization = Duration(o.fastWindow)
	}
	for name := range o.serviceAddrs {
		if !slices.ContainsFunc(cp.Services, func(s ServiceSpec) bool { return s.Name == name }) {
			return nil, fmt.Errorf("new simulation server: address for unknown service %q", name)
		}
	}
	c, err := NewCluster(&cp, o.now())
	if err != nil {
		return nil, fmt.Errorf("new simulation server: %w", err)
	}
	s := &Server{
		logger: logger.With("component", "sim"), opts: o, profile: &cp, cluster: c,
		done: make(chan struct{}), urls: map[string]string{},
	}
	c.OnEvent(s.logEvent)
	return s, nil
}

// Snapshot returns the cluster's current state, advanced to the clock.
func (s *Server) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cluster.Advance(s.opts.now())
	return s.cluster.Snapshot()
}

// Profile returns the profile the server runs (with --fast applied).
func (s *Server) Profile() *Profile { return s.profile }

// Start listens on every address and runs the model in real time. It does not block;
// Stop ends it (the context is not retained).
func (s *Server) Start(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("start simulation server: already started")
	}
	s.started = true
	// Bind every address first, so a failure leaves nothing running.
	type bound struct {
		name string
		l    net.Listener
	}
	var listeners []bound
	closeAll := func() {
		for _, b := range listeners {
			_ = b.l.Close()
		}
	}
	for _, spec := range s.profile.Services {
		addr := spec.Listen
		if a, ok := s.opts.serviceAddrs[spec.Name]; ok {
			addr = a
		}
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll()
			return fmt.Errorf("start simulation server: listen for service %s: %w", spec.Name, err)
		}
		listeners = append(listeners, bound{spec.Name, l})
	}
	ml, err := net.Listen("tcp", s.opts.metricsAddr)
	if err != nil {
		closeAll()
		return fmt.Errorf("start simulation server: listen for metrics: %w", err)
	}
	mux, err := s.metricsMux()
	if err != nil {
		closeAll()
		_ = ml.Close()
		return fmt.Errorf("start simulation server: %w", err)
	}
	for _, b := range listeners {
		s.urls[b.name] = "http://" + b.l.Addr().String()
		s.serve(&http.Server{Handler: s.serviceHandler(b.name), ReadHeaderTimeout: 10 * time.Second}, b.l, nil)
	}
	s.metrics = "http://" + ml.Addr().String() + MetricsPath
	s.serve(&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ml, &web.FlagConfig{WebConfigFile: &s.opts.webConfigFile})
	s.wg.Add(1)
	go s.run()
	s.logger.Info("Simulated cluster started", "profile", s.profile.Name, "metrics_url", s.metrics,
		"fast", s.opts.fast, "downscale_stabilization_seconds", s.profile.Controller.DownscaleStabilization.D().Seconds())
	return nil
}

func (s *Server) serve(srv *http.Server, l net.Listener, flags *web.FlagConfig) {
	// http.Server.Shutdown treats a connection that has not sent a request yet (a client's
	// spare dial, left in its idle pool) as active for 5 seconds, so Stop would wait that
	// long and fail; such connections are closed when the shutdown starts.
	fresh := &freshConns{conns: map[net.Conn]struct{}{}}
	srv.ConnState = fresh.track
	srv.RegisterOnShutdown(fresh.closeAll)
	s.servers = append(s.servers, srv)
	s.wg.Go(func() {
		var err error
		if flags != nil {
			err = web.Serve(l, srv, flags, s.logger)
		} else {
			err = srv.Serve(l)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("Simulation server stopped", "err", err, "address", l.Addr().String())
		}
	})
}

// freshConns tracks one http.Server's connections that have not sent a request yet
// (http.StateNew).
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st == http.StateNew {
		f.conns[c] = struct{}{}
		return
	}
	delete(f.conns, c)
}

func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close()
	}
	clear(f.conns)
}

// run advances the model with the clock.
func (s *Server) run() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.tick)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.mu.Lock()
			s.cluster.Advance(s.opts.now())
			s.mu.Unlock()
		}
	}
}

// ServiceURLs returns each service's base URL (valid after Start).
func (s *Server) ServiceURLs() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.urls))
	maps.Copy(out, s.urls)
	return out
}

// MetricsURL returns the URL of the all-series metrics endpoint (valid after Start).
func (s *Server) MetricsURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metrics
}

// Stop closes the listeners, answers held requests with 503, closes connections that have
// not sent a request, and waits for every goroutine. It is safe to call more than once.
func (s *Server) Stop() error {
	var errs []error
	s.stopOnce.Do(func() {
		close(s.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.mu.Lock()
		servers := slices.Clone(s.servers)
		s.mu.Unlock()
		for _, srv := range servers {
			if err := srv.Shutdown(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		s.wg.Wait()
	})
	if len(errs) > 0 {
		return fmt.Errorf("stop simulation server: %w", errors.Join(errs...))
	}
	return nil
}

// logEvent logs HPA decisions at Info and pod lifecycle at Debug.
func (s *Server) logEvent(e Event) {
	switch e.Kind {
	case EventScaled:
		s.logger.Info("HPA rescaled deployment", "deployment", e.Service, "from", e.From, "to", e.To,
			"reason", e.Reason, "cpu_utilization_percent", e.Utilization)
	default:
		s.logger.Debug("Pod event", "event", string(e.Kind), "deployment", e.Service, "pod", e.Pod,
			"startup_seconds", e.StartUp.Seconds())
	}
}

// serviceHandler answers requests to one service as the model decides.
func (s *Server) serviceHandler(service string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ch := make(chan Result, 1)
		// The request arrived now: read the clock before waiting for the model, which the
		// ticker or other requests may hold while it catches up, so that a request that
		// waited enters at its arrival when the model is not past it yet. When the model
		// is past it (the ticker advanced while this handler waited), it enters at the
		// model's time: the model cannot go back.
		arrived := s.opts.now()
		s.mu.Lock()
		s.cluster.Advance(arrived)
		err := s.cluster.SubmitPath(service, r.URL.Path, func(res Result) { ch <- res })
		s.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		select {
		case res := <-ch:
			w.Header().Set("Content-Type", "application/json")
			if res.Pod != "" {
				w.Header().Set("X-Sim-Pod", res.Pod)
			}
			if res.Reason != "" {
				w.Header().Set("X-Sim-Reason", res.Reason)
			}
			w.WriteHeader(res.Status)
			_ = json.NewEncoder(w).Encode(map[string]any{
				"service": service, "pod": res.Pod, "status": res.Status, "reason": res.Reason,
				"latency_seconds": res.Latency.Seconds(),
			})
		case <-r.Context().Done():
			// The client gave up (a client timeout): the pod keeps working on it.
		case <-s.done:
			http.Error(w, "simulation stopped", http.StatusServiceUnavailable)
		}
	})
}

func (s *Server) metricsMux() (*http.ServeMux, error) {
	snap := func() Snapshot { return s.Snapshot() }
	return MetricsMux(s.profile, s.opts.fast, snap, newCadvisorCollector(snap), s.logger)
}

// MetricsMux serves the metrics paths (MetricsPath, KubeStateMetricsPath, CadvisorPath,
// RDSPath) and a landing page for a cluster of profile p whose state snap returns at each
// scrape: kube-state-metrics, YACE RDS, tidemark_sim_info and the responses from the
// snapshot, cAdvisor's series from cadv (the simulator's own, or the process runtime's
// over real cgroups).
func MetricsMux(p *Profile, fast bool, snap func() Snapshot, cadv prometheus.Collector, logger *slog.Logger) (*http.ServeMux, error) {
	info := newInfoCollector(p.Name, p.Namespace, fast, p.Controller.DownscaleStabilization.D())
	ksm, rds := newKSMCollector(snap), newRDSCollector(snap)
	responses := newResponsesCollector(snap)
	mux := http.NewServeMux()
	for _, route := range []struct {
		path       string
		collectors []prometheus.Collector
	}{
		{MetricsPath, []prometheus.Collector{info, responses, ksm, cadv, rds}},
		{KubeStateMetricsPath, []prometheus.Collector{ksm}},
		{CadvisorPath, []prometheus.Collector{cadv}},
		{RDSPath, []prometheus.Collector{rds}},
	} {
		reg := prometheus.NewPedanticRegistry()
		for _, c := range route.collectors {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("register collectors for %s: %w", route.path, err)
			}
		}
		mux.Handle(route.path, promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelError)}))
	}
	landing, err := web.NewLandingPage(web.LandingConfig{
		Name:        "Tidemark simulated cluster",
		Description: "kube-state-metrics, cAdvisor and YACE RDS series of a simulated cluster",
		Links: []web.LandingLinks{
			{Address: MetricsPath, Text: "All metrics"},
			{Address: KubeStateMetricsPath, Text: "kube-state-metrics"},
			{Address: CadvisorPath, Text: "cAdvisor"},
			{Address: RDSPath, Text: "YACE RDS"},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("landing page: %w", err)
	}
	mux.Handle("/", landing)
	return mux, nil
}
