// Package process is the process runtime of the simulated cluster (`tidemark simulate
// --runtime process`, `tidemark demo --runtime process`): each pod of a profile is a real
// `tidemark target` child process (package workload) doing the profile's CPU work per
// request in its own kernel cgroup (package cgroup), with the profile's CPU request as
// shares and its limit as a CFS quota, so throttling is the kernel's own.
//
// The runtime plays the cluster's controllers with real parts: the Deployment controller
// starts and stops processes (SIGTERM, then SIGKILL after the grace period); the kubelet
// probes readiness over HTTP after the profile's initial delay, every period; a front load
// balancer per service (a loopback reverse proxy, round robin or least request) sends each
// request to a Ready pod, where it queues under the pod's threads and concurrency;
// metrics-server reads each pod's CPU usage from its cgroup every resolution; and the HPA
// (package hpa, the simulator's algorithm and settings) scales the Deployment.
// kube-state-metrics-named series come from the runtime's own state through the
// simulator's collectors (a sim.Snapshot), cAdvisor's series from cAdvisor's own library
// over the pods' cgroups with the kubelet's labels (ContainersFunc: CadvisorContainers, or
// CPUStatContainers, cpu.stat read with cAdvisor's semantics).
//
// Every cgroup and process is removed when the runtime stops. When the runtime is killed
// without stopping, its pods get their parent-death signal (workload.ParentDeathSignal), see their parent is
// gone and remove their own cgroups; and a runtime that starts removes the cgroups of
// earlier runs whose owner is dead (and kills what is left in them).
package process

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/hpa"
)

// Top is the cgroup every run's cgroups are under: Top/<run id>/<pod>.
const Top = "tidemark"

// topRequestMilli gives Top the kernel's maximum cpu.shares (262144).
const topRequestMilli = 256_000

type options struct {
	metricsAddr   string
	serviceAddrs  map[string]string
	fast          bool
	fastWindow    time.Duration
	webConfigFile string
	binary        string
	podArgs       PodArgsFunc
	containers    ContainersFunc
	hierarchy     *cgroup.Hierarchy
	readyTimeout  time.Duration
	stopGrace     time.Duration
}

// Option configures a Runtime.
type Option func(*options)

// WithMetricsAddress sets the metrics listen address (default 127.0.0.1:0).
func WithMetricsAddress(addr string) Option { return func(o *options) { o.metricsAddr = addr } }

// WithServiceAddress sets one service's load balancer address, overriding the profile.
func WithServiceAddress(service, addr string) Option {
	return func(o *options) { o.serviceAddrs[service] = addr }
}

// WithFast shortens the HPA downscale stabilisation window to d (sim.FastDownscaleStabilization if 0).
func WithFast(d time.Duration) Option {
	return func(o *options) {
		o.fast, o.fastWindow = true, d
		if d <= 0 {
			o.fastWindow = sim.FastDownscaleStabilization
		}
	}
}

// WithWebConfigFile serves the metrics endpoint with exporter-toolkit's web configuration.
func WithWebConfigFile(path string) Option { return func(o *options) { o.webConfigFile = path } }

// WithBinary sets the tidemark binary the pods run (default os.Executable()).
func WithBinary(path string) Option { return func(o *options) { o.binary = path } }

// PodArgsFunc returns more `tidemark target` flags and environment variables ("K=V") for
// pod, a pod of svc (a database pool's flags and DSN); nil for none.
type PodArgsFunc func(svc sim.ServiceSpec, pod string) (args, env []string)

// WithPodArgs adds f's target flags to each pod, after the runtime's own --pod.* flags,
// and its environment variables to the pod's environment.
func WithPodArgs(f PodArgsFunc) Option { return func(o *options) { o.podArgs = f } }

// WithContainers sets the collector of cAdvisor-named series (default CadvisorContainers).
func WithContainers(f ContainersFunc) Option { return func(o *options) { o.containers = f } }

// WithHierarchy sets the cgroup hierarchy (default cgroup.Detect()).
func WithHierarchy(h *cgroup.Hierarchy) Option { return func(o *options) { o.hierarchy = h } }

// WithReadyTimeout bounds how long Start waits for the first pods to be Ready (default 2m).
func WithReadyTimeout(d time.Duration) Option { return func(o *options) { o.readyTimeout = d } }

// Runtime runs a profile's services as real processes in cgroups.
type Runtime struct {
	logger  *slog.Logger
	opts    options
	profile *sim.Profile
	h       *cgroup.Hierarchy
	runID   string
	rng     *rand.Rand

	mu       sync.Mutex
	services []*service
	byName   map[string]*service
	start    time.Time
	started  bool
	stopOnce sync.Once
	stopErr  error
	done     chan struct{}
	wg       sync.WaitGroup
	pods     sync.WaitGroup
	servers  []*http.Server
	urls     map[string]string
	metrics  string
	cadv     Containers
	msNext   time.Time
	respMu   sync.Mutex
	resp     map[respKey]int
	fails    map[failKey]*sim.FailureCount
}

type respKey struct {
	svc    int
	status int
	gap    bool
}

// failKey is one kind of failed answer: its service, reason and cause.
type failKey struct {
	svc           int
	reason, cause string
}

// New checks the machine (a writable cgroup cpu controller, the tidemark binary) and the
// profile; it starts nothing. Stale cgroups of dead earlier runs are removed here.
func New(p *sim.Profile, logger *slog.Logger, opts ...Option) (*Runtime, error) {
	o := options{metricsAddr: "127.0.0.1:0", serviceAddrs: map[string]string{}, readyTimeout: 2 * time.Minute, stopGrace: 3 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if p == nil {
		return nil, errors.New("new process runtime: no profile")
	}
	if p.Database != nil && p.Database.Engine == "" {
		return nil, errors.New("new process runtime: the profile's simulated database is not supported by the process runtime; " +
			"give it database.engine (postgres or mariadb) for a real one, remove its database section or use --runtime sim")
	}
	cp := *p
	cp.Services = slices.Clone(p.Services)
	if o.fast {
		cp.Controller.DownscaleStabilization = sim.Duration(o.fastWindow)
	}
	for name := range o.serviceAddrs {
		if !slices.ContainsFunc(cp.Services, func(s sim.ServiceSpec) bool { return s.Name == name }) {
			return nil, fmt.Errorf("new process runtime: address for unknown service %q", name)
		}
	}
	if o.binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("new process runtime: find the tidemark binary: %w", err)
		}
		o.binary = exe
	}
	if o.hierarchy == nil {
		h, err := cgroup.Detect()
		if err != nil {
			return nil, fmt.Errorf("new process runtime: %w", err)
		}
		o.hierarchy = h
	}
	if o.containers == nil {
		o.containers = CadvisorContainers
	}
	r := &Runtime{
		logger: logger.With("component", "process"), opts: o, profile: &cp, h: o.hierarchy,
		rng: rand.New(rand.NewPCG(cp.Seed, uint64(os.Getpid()))), byName: map[string]*service{},
		done: make(chan struct{}), urls: map[string]string{}, resp: map[respKey]int{}, fails: map[failKey]*sim.FailureCount{},
	}
	r.runID = runID(os.Getpid())
	if n, err := RemoveStale(r.h, r.logger); err != nil {
		r.logger.Warn("Could not remove stale cgroups of earlier runs", "err", err)
	} else if n > 0 {
		r.logger.Info("Removed stale cgroups of earlier runs", "count", n)
	}
	// The run's parent cgroups, no quota; creating them now checks the controller is
	// writable. The run's cgroup gets the node's CPUs as shares, as the kubelet gives
	// kubepods. The top one gets the most shares there are: on a real node the pods are
	// the node's work and get their requests, while on a shared machine other processes
	// (builds, tests) would otherwise starve them below their limits, where a CFS quota
	// is never exhausted and throttling would not show (each pod's quota still caps it).
	if _, err := r.h.Create(Top, cgroup.Limits{RequestMilli: topRequestMilli}); err != nil {
		return nil, fmt.Errorf("new process runtime: %w", err)
	}
	if _, err := r.h.Create(r.Subtree(), cgroup.Limits{RequestMilli: int64(cp.Node.CPUs) * 1000}); err != nil {
		return nil, fmt.Errorf("new process runtime: %w", err)
	}
	hcfg := hpa.Config{
		SyncPeriod: cp.Controller.SyncPeriod.D(), Tolerance: *cp.Controller.Tolerance,
		CPUInitializationPeriod: cp.Controller.CPUInitializationPeriod.D(),
		InitialReadinessDelay:   cp.Controller.InitialReadinessDelay.D(),
		DownscaleStabilization:  cp.Controller.DownscaleStabilization.D(),
	}
	for i, spec := range cp.Services {
		s := &service{idx: i, spec: spec, rsName: spec.Name + "-" + templateHash(spec.Name+spec.Image), specReplicas: int32(spec.Replicas)}
		if spec.HPA != nil {
			ctrl, err := hpa.NewController(hpaSpec(spec.HPA), hcfg)
			if err != nil {
				return nil, errors.Join(fmt.Errorf("new process runtime: service %s: %w", spec.Name, err), r.removeCgroups())
			}
			s.hpa = ctrl
			s.hpaStatus = ctrl.Settle(s.specReplicas, -1, 0)
		}
		r.services = append(r.services, s)
		r.byName[spec.Name] = s
	}
	return r, nil
}

// Subtree is the run's cgroup (Top/<run id>); the pods' cgroups are its children.
func (r *Runtime) Subtree() string { return "/" + Top + "/" + r.runID }

// Profile returns the profile the runtime runs (with WithFast applied).
func (r *Runtime) Profile() *sim.Profile { return r.profile }

// Hierarchy returns the cgroup hierarchy of the pods.
func (r *Runtime) Hierarchy() *cgroup.Hierarchy { return r.h }

func templateHash(s string) string {
	h := fnv.New32a()
	_, _ = io.WriteString(h, s)
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	v := h.Sum32()
	out := make([]byte, 10)
	for i := range out {
		out[i] = alphabet[v%uint32(len(alphabet))]
		v = v/uint32(len(alphabet)) + uint32(i)*2654435761
	}
	return string(out)
}

func hpaSpec(h *sim.HPASpec) hpa.Spec {
	s := hpa.Spec{MinReplicas: int32(h.MinReplicas), MaxReplicas: int32(h.MaxReplicas), TargetCPUUtilization: int32(h.TargetCPUUtilization)}
	if h.Behavior != nil {
		conv := func(r *sim.RulesSpec) *hpa.Rules {
			if r == nil {
				return nil
			}
			out := &hpa.Rules{SelectPolicy: hpa.SelectPolicy(r.SelectPolicy), Tolerance: r.Tolerance}
			if r.StabilizationWindowSeconds != nil {
				w := int32(*r.StabilizationWindowSeconds)
				out.StabilizationWindowSeconds = &w
			}
			for _, p := range r.Policies {
				out.Policies = append(out.Policies, hpa.Policy{Type: hpa.PolicyType(p.Type), Value: int32(p.Value), PeriodSeconds: int32(p.PeriodSeconds)})
			}
			return out
		}
		s.Behavior = &hpa.Behavior{ScaleUp: conv(h.Behavior.ScaleUp), ScaleDown: conv(h.Behavior.ScaleDown)}
	}
	return s
}

// Start listens on every address, starts the pods of every Deployment and waits until they
// are Ready (at most the ready timeout) so that a load test begins on a ready cluster;
// then the controllers run in the background until Stop. On error, everything started is
// stopped and removed.
func (r *Runtime) Start(ctx context.Context) (err error) {
	r.mu.Lock()
	if r.started {
		r.mu.Unlock()
		return errors.New("start process runtime: already started")
	}
	r.started = true
	r.start = time.Now()
	r.mu.Unlock()
	defer func() {
		if err != nil {
			err = errors.Join(err, r.Stop())
		}
	}()
	if err := r.listen(); err != nil {
		return fmt.Errorf("start process runtime: %w", err)
	}
	r.mu.Lock()
	for _, s := range r.services {
		s.hpaNext = r.start.Add(r.profile.Controller.SyncPeriod.D())
	}
	r.msNext = r.start
	r.reconcile(r.start)
	r.mu.Unlock()
	r.wg.Add(1)
	go r.run()
	r.logger.Info("Process runtime started", "profile", r.profile.Name, "metrics_url", r.metrics, "cgroup", r.Subtree(), "hierarchy", r.h.String())
	wctx, cancel := context.WithTimeout(ctx, r.opts.readyTimeout)
	defer cancel()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		ready := true
		for _, d := range r.Snapshot().Deployments {
			if d.ReadyReplicas < d.SpecReplicas {
				ready = false
			}
		}
		if ready {
			return nil
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("start process runtime: pods not Ready within %s: %w", r.opts.readyTimeout, wctx.Err())
		case <-t.C:
		}
	}
}

func (r *Runtime) listen() error {
	var listeners []net.Listener
	closeAll := func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}
	for _, spec := range r.profile.Services {
		addr := spec.Listen
		if a, ok := r.opts.serviceAddrs[spec.Name]; ok {
			addr = a
		}
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll()
			return fmt.Errorf("listen for service %s: %w", spec.Name, err)
		}
		listeners = append(listeners, l)
	}
	ml, err := net.Listen("tcp", r.opts.metricsAddr)
	if err != nil {
		closeAll()
		return fmt.Errorf("listen for metrics: %w", err)
	}
	cadv, err := r.opts.containers(r.logger, r.Subtree(), r.h, r.labels)
	if err != nil {
		closeAll()
		_ = ml.Close()
		return err
	}
	if err := cadv.Start(context.Background()); err != nil {
		closeAll()
		_ = ml.Close()
		return err
	}
	r.cadv = cadv
	mux, err := sim.MetricsMux(r.profile, r.opts.fast, r.Snapshot, cadv, r.logger)
	if err != nil {
		closeAll()
		_ = ml.Close()
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, l := range listeners {
		s := r.services[i]
		s.balancer = newBalancer(r, s)
		r.urls[s.spec.Name] = "http://" + l.Addr().String()
		r.serve(&http.Server{Handler: s.balancer, ReadHeaderTimeout: 10 * time.Second}, l, nil)
	}
	r.metrics = "http://" + ml.Addr().String() + sim.MetricsPath
	r.serve(&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ml, &web.FlagConfig{WebConfigFile: &r.opts.webConfigFile})
	return nil
}

func (r *Runtime) serve(srv *http.Server, l net.Listener, flags *web.FlagConfig) {
	r.servers = append(r.servers, srv)
	r.wg.Go(func() {
		var err error
		if flags != nil {
			err = web.Serve(l, srv, flags, r.logger)
		} else {
			err = srv.Serve(l)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.logger.Error("Process runtime server stopped", "err", err, "address", l.Addr().String())
		}
	})
}

// run is the controllers' loop.
func (r *Runtime) run() {
	defer r.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case now := <-t.C:
			r.mu.Lock()
			r.scrapeMetrics(now)
			r.syncHPAs(now)
			r.reconcile(now)
			r.mu.Unlock()
		}
	}
}

// ServiceURLs returns each service's load balancer URL (valid after Start).
func (r *Runtime) ServiceURLs() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.urls))
	maps.Copy(out, r.urls)
	return out
}

// FirstServiceURL returns the URL of the profile's first service.
func (r *Runtime) FirstServiceURL() (string, error) {
	urls := r.ServiceURLs()
	for _, svc := range r.profile.Services {
		if u, ok := urls[svc.Name]; ok {
			return u, nil
		}
	}
	return "", errors.New("the process runtime serves no service")
}

// MetricsURL returns the URL of the all-series metrics endpoint (valid after Start).
func (r *Runtime) MetricsURL() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.metrics
}

// ScrapeConfig is sim.Server.ScrapeConfig for the runtime's metrics endpoint.
func (r *Runtime) ScrapeConfig(interval time.Duration) (string, error) {
	u := strings.TrimPrefix(strings.TrimSuffix(r.MetricsURL(), sim.MetricsPath), "http://")
	if u == "" {
		return "", errors.New("scrape config: the process runtime is not started")
	}
	return sim.ScrapeConfigFor(u, interval), nil
}

// WaitScaledIn waits until every HPA is back at its minimum replicas, ctx is done, or
// limit has passed. It reports whether every HPA scaled in.
func (r *Runtime) WaitScaledIn(ctx context.Context, limit time.Duration) bool {
	return sim.WaitScaledIn(ctx, r.Snapshot, limit)
}

// WriteIntro writes the runtime's endpoints and how to stop it.
func (r *Runtime) WriteIntro(w io.Writer, realWindow time.Duration) error {
	p := r.profile
	fmt.Fprintf(w, "Cluster %q (namespace %s) runs as real processes in cgroup %s (%s).\n\n", p.Name, p.Namespace, r.Subtree(), r.h)
	urls := r.ServiceURLs()
	for _, n := range slices.Sorted(maps.Keys(urls)) {
		fmt.Fprintf(w, "  service %s  %s\n", n, urls[n])
	}
	base := strings.TrimSuffix(r.MetricsURL(), sim.MetricsPath)
	fmt.Fprintf(w, "  metrics (all)       %s\n  kube-state-metrics  %s\n  cAdvisor            %s\n", r.MetricsURL(), base+sim.KubeStateMetricsPath, base+sim.CadvisorPath)
	if r.opts.fast {
		fmt.Fprintf(w, "\nFAST MODE: the HPA downscale stabilisation window is %s instead of %s.\n", p.Controller.DownscaleStabilization.D(), realWindow)
	}
	_, err := fmt.Fprintln(w, "\nPress Ctrl-C to stop; every process and cgroup is removed.")
	return err
}

// Stop stops the servers and the controllers, terminates every pod (SIGTERM, then SIGKILL
// after a few seconds), and removes the run's cgroups. It is safe to call more than once.
func (r *Runtime) Stop() error {
	r.stopOnce.Do(func() {
		var errs []error
		close(r.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.mu.Lock()
		servers := slices.Clone(r.servers)
		r.mu.Unlock()
		for _, srv := range servers {
			if err := srv.Shutdown(ctx); err != nil {
				_ = srv.Close()
			}
		}
		r.wg.Wait()
		r.mu.Lock()
		for _, s := range r.services {
			for _, pd := range s.pods {
				r.terminate(pd, r.opts.stopGrace)
			}
		}
		r.mu.Unlock()
		r.pods.Wait()
		// The cgroups go first: cAdvisor's manager keeps reading the cgroups that still
		// exist after its Stop (internal/cadvisor).
		errs = append(errs, r.removeCgroups())
		if r.cadv != nil {
			errs = append(errs, r.cadv.Stop())
		}
		r.stopErr = errors.Join(errs...)
	})
	if r.stopErr != nil {
		return fmt.Errorf("stop process runtime: %w", r.stopErr)
	}
	return nil
}

// removeCgroups removes the run's cgroup tree (killing anything left in it) and the top
// cgroup when no other run uses it.
func (r *Runtime) removeCgroups() error {
	err := r.h.Open(r.Subtree()).RemoveAll(5 * time.Second)
	_ = r.h.Open(Top).Remove() // busy while another run uses it
	return err
}
