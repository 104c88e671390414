// Package workload is the application a pod of the process runtime runs (package
// process starts it as `tidemark target --pod.request=...`): an HTTP server whose requests
// each cost the profile's CPU time, spent on the thread's own CPU clock so that a CFS
// quota delays the work instead of shortening it; the profile's threads bound the requests
// on CPU at once and its concurrency the requests in the pod, others wait in a bounded
// queue. It starts answering (readiness included) after the profile's app start delay.
//
// A pod whose parent (the runtime) dies without stopping it leaves and removes its own
// cgroup before it exits, so that nothing is left behind even when the runtime was killed.
package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sys/unix"

	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/dbpool"
)

// ReadinessPath is the path of the pod's readiness probe.
const ReadinessPath = "/healthz"

// Cost is the CPU time of a request on a path: CPU spread uniformly by ±Jitter×CPU.
type Cost struct {
	// Path is a URL path prefix; "" is the cost of every other path.
	Path   string
	CPU    time.Duration
	Jitter float64
}

// ParseCost parses "PATH=CPU[,JITTER]" (PATH "" or "*" for the default cost), as
// --pod.request takes it: "/coupons/poll=20ms,0.2".
func ParseCost(s string) (Cost, error) {
	path, rest, ok := strings.Cut(s, "=")
	if !ok {
		return Cost{}, fmt.Errorf("parse request cost %q: expected PATH=CPU[,JITTER], like /orders=20ms,0.2", s)
	}
	if path == "*" {
		path = ""
	}
	if path != "" && !strings.HasPrefix(path, "/") {
		return Cost{}, fmt.Errorf("parse request cost %q: path %q does not start with /", s, path)
	}
	cpu, jitter, _ := strings.Cut(rest, ",")
	c := Cost{Path: path}
	var err error
	if c.CPU, err = time.ParseDuration(cpu); err != nil || c.CPU < 0 {
		return Cost{}, fmt.Errorf("parse request cost %q: CPU %q is not a duration such as 20ms", s, cpu)
	}
	if jitter != "" {
		if c.Jitter, err = strconv.ParseFloat(jitter, 64); err != nil || c.Jitter < 0 || c.Jitter > 1 {
			return Cost{}, fmt.Errorf("parse request cost %q: jitter %q is not a fraction in [0, 1]", s, jitter)
		}
	}
	return c, nil
}

// String is the cost in ParseCost's syntax.
func (c Cost) String() string {
	path := c.Path
	if path == "" {
		path = "*"
	}
	return fmt.Sprintf("%s=%s,%g", path, c.CPU, c.Jitter)
}

// Config is one pod's application.
type Config struct {
	// Name is the pod's name, in answers and logs.
	Name string
	// Costs per path prefix (the longest match wins) and the default ("" path).
	Costs []Cost
	// Threads bounds the requests on CPU at once (default 1).
	Threads int
	// Concurrency bounds the requests in the pod (0: unlimited); others wait in a queue of
	// at most QueueMax (beyond it: 503) for at most QueueTimeout (0: no limit; then 503).
	Concurrency, QueueMax int
	QueueTimeout          time.Duration
	// AppStart is how long the application takes to start before it answers.
	AppStart time.Duration
	// Cgroup is the pod's cgroup path; ParentPID its parent's pid. When the parent dies
	// the pod leaves and removes the cgroup (and its empty parents up to the top one).
	Cgroup    string
	ParentPID int
	// Grace bounds the drain of in-flight requests on a normal stop.
	Grace time.Duration
	// DB, when set, is the pod's connection pool (package dbpool): each admitted request
	// does its database work before its CPU work (a failure answers 500), and /metrics
	// serves the pool's metrics.
	DB *dbpool.Pool
}

// App is a running pod application.
type App struct {
	cfg    Config
	logger *slog.Logger
	costs  []Cost // longest path first; the default last
	slots  chan struct{}
	cpus   chan struct{}
	mu     sync.Mutex
	queued int
	// metrics serves the pool's metrics (nil without a pool).
	metrics http.Handler
}

// New checks cfg and returns the application.
func New(cfg Config, logger *slog.Logger) (*App, error) {
	if cfg.Threads == 0 {
		cfg.Threads = 1
	}
	if cfg.Threads < 0 || cfg.Concurrency < 0 || cfg.QueueMax < 0 || cfg.QueueTimeout < 0 || cfg.AppStart < 0 {
		return nil, errors.New("new pod application: threads, concurrency, queue and app start must not be negative")
	}
	a := &App{cfg: cfg, logger: logger, cpus: make(chan struct{}, cfg.Threads)}
	if cfg.Concurrency > 0 {
		a.slots = make(chan struct{}, cfg.Concurrency)
	}
	if cfg.DB != nil {
		reg := prometheus.NewRegistry()
		if err := reg.Register(cfg.DB); err != nil {
			return nil, fmt.Errorf("new pod application: register the pool's metrics: %w", err)
		}
		a.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	a.costs = append(a.costs, cfg.Costs...)
	sort.SliceStable(a.costs, func(i, j int) bool { return len(a.costs[i].Path) > len(a.costs[j].Path) })
	if len(a.costs) == 0 || a.costs[len(a.costs)-1].Path != "" {
		a.costs = append(a.costs, Cost{})
	}
	return a, nil
}

// cost returns the cost of a request to path.
func (a *App) cost(path string) Cost {
	for _, c := range a.costs {
		if strings.HasPrefix(path, c.Path) {
			return c
		}
	}
	return Cost{}
}

// ServeHTTP answers one request: the readiness probe at once, any other path after its
// CPU work.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == ReadinessPath {
		w.WriteHeader(http.StatusOK)
		return
	}
	if a.metrics != nil && r.URL.Path == dbpool.MetricsPath {
		a.metrics.ServeHTTP(w, r)
		return
	}
	if a.slots != nil {
		if why := a.admit(r.Context()); why != "" {
			w.Header().Set(FailureHeader, why)
			http.Error(w, "pod queue full or timed out", http.StatusServiceUnavailable)
			return
		}
		defer func() { <-a.slots }()
	}
	if a.cfg.DB != nil {
		if err := a.cfg.DB.Do(r.Context()); err != nil {
			w.Header().Set(FailureHeader, dbFailure(err))
			http.Error(w, "database: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	c := a.cost(r.URL.Path)
	work := c.CPU
	if c.Jitter > 0 {
		work = time.Duration(float64(work) * (1 + c.Jitter*(2*rand.Float64()-1)))
	}
	select {
	case a.cpus <- struct{}{}:
	case <-r.Context().Done():
		return
	}
	used := Burn(work)
	<-a.cpus
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"pod": a.cfg.Name, "cpu_seconds": used.Seconds()})
}

// FailureHeader is set on an answer the pod failed, to why, so that the process
// runtime's load balancer records each failure's cause as the in-memory simulator does
// (package process): the queue was full (FailureQueueFull) or the request waited in it
// past the queue timeout (FailureQueueTimeout), no pool connection came within the
// pool's timeout (FailurePoolTimeout, dbpool.ErrPoolTimeout), or the database work
// failed otherwise (FailureDatabase). The values are spelt as the simulator's reasons
// (sim.Reason*).
const (
	FailureHeader       = "Tidemark-Failure"
	FailureQueueFull    = "queue_full"
	FailureQueueTimeout = "queue_timeout"
	FailurePoolTimeout  = "pool_timeout"
	FailureDatabase     = "db_error"
)

// dbFailure is FailureHeader's value for an error of the database work.
func dbFailure(err error) string {
	if errors.Is(err, dbpool.ErrPoolTimeout) {
		return FailurePoolTimeout
	}
	return FailureDatabase
}

// admit takes a concurrency slot, waiting in the pod's queue when none is free; it
// returns why it could not (FailureQueueFull, FailureQueueTimeout), or "".
func (a *App) admit(ctx context.Context) string {
	select {
	case a.slots <- struct{}{}:
		return ""
	default:
	}
	a.mu.Lock()
	if a.cfg.QueueMax > 0 && a.queued >= a.cfg.QueueMax {
		a.mu.Unlock()
		return FailureQueueFull
	}
	a.queued++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.queued--
		a.mu.Unlock()
	}()
	var timeout <-chan time.Time
	if a.cfg.QueueTimeout > 0 {
		t := time.NewTimer(a.cfg.QueueTimeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case a.slots <- struct{}{}:
		return ""
	case <-timeout:
		return FailureQueueTimeout
	case <-ctx.Done():
		return FailureQueueTimeout
	}
}

// Burn spins until the calling thread has used d of CPU time (CLOCK_THREAD_CPUTIME_ID),
// however long that takes in wall time (under a CFS quota: longer), and returns the CPU
// time used.
func Burn(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	x := uint64(1)
	for {
		for range 2000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if used := threadCPU() - start; used >= d || x == 0 {
			return used
		}
	}
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// Run waits out the app start, then serves on l until ctx ends, draining in-flight
// requests for at most the grace period. If the parent dies first (ParentPID is no longer
// the parent), it stops at once and removes the pod's cgroup.
func (a *App) Run(ctx context.Context, l net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	orphan := make(chan struct{})
	if a.cfg.ParentPID > 0 {
		// ParentDeathSignal: a thread of the parent died (one per thread as the kernel
		// reparents the pod within the dying parent); check the parent at once.
		deaths := make(chan os.Signal, 1)
		signal.Notify(deaths, ParentDeathSignal)
		defer signal.Stop(deaths)
		go a.watchParent(ctx, orphan, cancel, deaths)
	}
	srv := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	defer func() { _ = l.Close() }()
	t := time.NewTimer(a.cfg.AppStart)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return a.exit(orphan)
	}
	a.logger.Info("Pod application started", "pod", a.cfg.Name, "address", l.Addr().String())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return errors.Join(fmt.Errorf("serve pod %s: %w", a.cfg.Name, err), a.exit(orphan))
	case <-ctx.Done():
	}
	grace := a.cfg.Grace
	select {
	case <-orphan:
		grace = 0
	default:
	}
	sctx, scancel := context.WithTimeout(context.Background(), grace)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	return a.exit(orphan)
}

// ParentDeathSignal is the signal the runtime sets as its pods' parent-death signal. It is
// not SIGTERM: the kernel sends it each time the parent thread a pod is attached to dies,
// which under SIGKILL of a multi-threaded parent is several times, and a second SIGTERM
// kills a tidemark process at once (cmd/tidemark), before it can remove its cgroup.
const ParentDeathSignal = syscall.SIGUSR1

// watchParent closes orphan and cancels the app when the parent is gone: at each
// ParentDeathSignal and every 200 ms.
func (a *App) watchParent(ctx context.Context, orphan chan<- struct{}, cancel context.CancelFunc, deaths <-chan os.Signal) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		if os.Getppid() != a.cfg.ParentPID {
			close(orphan)
			cancel()
			return
		}
		select {
		case <-ctx.Done():
			if os.Getppid() != a.cfg.ParentPID {
				close(orphan)
			}
			return
		case <-deaths:
		case <-t.C:
		}
	}
}

// exit removes the pod's cgroup when the parent is gone: the process moves itself to the
// root cgroup, removes its own, then its parents while they are empty.
func (a *App) exit(orphan <-chan struct{}) error {
	// The watcher decides within one tick after ctx ends.
	time.Sleep(10 * time.Millisecond)
	select {
	case <-orphan:
	default:
		if a.cfg.ParentPID <= 0 || os.Getppid() == a.cfg.ParentPID {
			return nil
		}
	}
	if a.cfg.Cgroup == "" {
		return nil
	}
	// Remove first, log after: the parent's end of stderr may be gone (SIGPIPE).
	err := RemoveOwnCgroup(a.cfg.Cgroup)
	a.logger.Warn("Parent of the pod is gone, removed its cgroup", "pod", a.cfg.Name, "cgroup", a.cfg.Cgroup, "err", err)
	return err
}

// RemoveOwnCgroup moves the calling process out of the cgroup at path and removes it, then
// its parent (the run's cgroup, retried for a few seconds: the run's other pods leave it
// at the same moment) and the parent's parent (the top cgroup) if they are empty.
func RemoveOwnCgroup(path string) error {
	h, err := cgroup.Detect()
	if err != nil {
		return err
	}
	g := h.Open(path)
	if err := g.Leave(os.Getpid()); err != nil {
		return err
	}
	if err := g.Remove(); err != nil {
		return err
	}
	run := parentOf(g.Path())
	if run == "/" {
		return nil
	}
	deadline := time.Now().Add(3 * time.Second)
	for h.Open(run).Remove() != nil {
		if time.Now().After(deadline) {
			return nil // another run's pods, or a sibling still draining
		}
		time.Sleep(50 * time.Millisecond)
	}
	if top := parentOf(run); top != "/" {
		_ = h.Open(top).Remove() // busy while another run uses it
	}
	return nil
}

func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}
