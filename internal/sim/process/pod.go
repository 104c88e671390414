package process

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/cfs"
	"github.com/tidemark/tidemark/internal/sim/hpa"
	"github.com/tidemark/tidemark/internal/sim/workload"
)

// service is one Deployment, its ReplicaSet, HPA and load balancer.
type service struct {
	idx          int
	spec         sim.ServiceSpec
	rsName       string
	specReplicas int32
	hpa          *hpa.Controller
	hpaStatus    hpa.Status
	hpaNext      time.Time
	pods         []*pod
	balancer     *balancer
	// retryAt holds back new pods after a pod failed to start (as a kubelet's back-off).
	retryAt time.Time
}

// pod is one pod: a tidemark target process in its cgroup. Fields are guarded by the
// runtime's mutex except inflight.
type pod struct {
	svc                      *service
	name, uid, cid           string
	created, started, launch time.Time
	running, ready, deleting bool
	gone                     bool
	readyAt, deletedAt       time.Time
	addr                     string
	group                    *cgroup.Group
	cmd                      *exec.Cmd
	exited                   chan struct{}
	ms                       []msSample
	inflight                 atomic.Int64
	probeCancel              context.CancelFunc
}

type msSample struct {
	at    time.Time
	usage time.Duration
}

// launchBackoff is how long a Deployment waits for a new pod after one failed to start.
const launchBackoff = 5 * time.Second

// reconcile is the Deployment controller: it creates pods up to spec.replicas and deletes
// the extra ones (not running first, then not ready, then the newest); and the kubelet:
// pods whose start-up delay has passed get their process.
func (r *Runtime) reconcile(now time.Time) {
	for _, s := range r.services {
		var live []*pod
		for _, pd := range s.pods {
			if !pd.deleting && !pd.gone {
				live = append(live, pd)
			}
		}
		for n := len(live); n < int(s.specReplicas) && !now.Before(s.retryAt); n++ {
			r.newPod(s, now)
		}
		if extra := len(live) - int(s.specReplicas); extra > 0 {
			slices.SortStableFunc(live, func(a, b *pod) int {
				if a.running != b.running {
					if !a.running {
						return -1
					}
					return 1
				}
				if a.ready != b.ready {
					if !a.ready {
						return -1
					}
					return 1
				}
				return b.created.Compare(a.created)
			})
			for _, pd := range live[:extra] {
				r.terminate(pd, s.spec.TerminationGracePeriod.D())
			}
		}
		for _, pd := range s.pods {
			if !pd.running && !pd.deleting && !now.Before(pd.launch) {
				if err := r.launch(pd); err != nil {
					r.logger.Error("Could not start pod", "pod", pd.name, "err", err, "retry_seconds", launchBackoff.Seconds())
					pd.deleting, pd.gone = true, true
					s.retryAt = now.Add(launchBackoff)
				}
			}
		}
		s.pods = slices.DeleteFunc(s.pods, func(pd *pod) bool { return pd.gone })
	}
}

func (r *Runtime) newPod(s *service, now time.Time) {
	st := s.spec.Startup
	sched := st.Scheduling.Draw(r.rng)
	pd := &pod{
		svc: s, created: now, name: fmt.Sprintf("%s-%05x", s.rsName, r.rng.IntN(1<<20)),
		uid: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.rng.Uint32(), r.rng.IntN(1<<16), r.rng.IntN(1<<12), r.rng.IntN(1<<12), r.rng.Int64N(1<<48)),
		cid: fmt.Sprintf("%016x%016x", r.rng.Uint64(), r.rng.Uint64()),
	}
	pd.started = now.Add(sched)
	pd.launch = pd.started.Add(st.ImagePull.Draw(r.rng))
	s.pods = append(s.pods, pd)
}

// launch starts the pod's process in a new cgroup and its readiness probe.
func (r *Runtime) launch(pd *pod) error {
	s := pd.svc
	g, err := r.h.Create(r.Subtree()+"/"+pd.name, cgroup.Limits{
		RequestMilli: int64(s.spec.Resources.Requests.CPU), LimitMilli: int64(s.spec.Resources.Limits.CPU),
	})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return errors.Join(err, g.Remove())
	}
	file, err := l.(*net.TCPListener).File()
	_ = l.Close()
	if err != nil {
		return errors.Join(err, g.Remove())
	}
	defer func() { _ = file.Close() }()
	cfg := workload.Config{
		Name: pd.name, Threads: s.spec.Threads, Concurrency: s.spec.Concurrency,
		QueueMax: s.spec.Queue.Max, QueueTimeout: s.spec.Queue.Timeout.D(),
		AppStart: s.spec.Startup.AppStart.Draw(r.rng), Cgroup: g.Path(), ParentPID: os.Getpid(),
		Grace: s.spec.TerminationGracePeriod.D(),
		Costs: []workload.Cost{{CPU: s.spec.Request.CPU.D(), Jitter: s.spec.Request.CPUJitter}},
	}
	for _, e := range s.spec.Endpoints {
		cfg.Costs = append(cfg.Costs, workload.Cost{Path: e.Path, CPU: e.Request.CPU.D(), Jitter: e.Request.CPUJitter})
	}
	args := append([]string{"target", "--log.level=warn"}, workload.Args(cfg, 3)...)
	var env []string
	if r.opts.podArgs != nil {
		// Extra parts of a pod (a database pool) add their target flags here.
		more, moreEnv := r.opts.podArgs(s.spec, pd.name)
		args, env = append(args, more...), moreEnv
	}
	cmd := exec.Command(r.opts.binary, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.ExtraFiles = []*os.File{file}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	// The pod gets workload.ParentDeathSignal when the runtime's thread it is attached to
	// dies: it then checks whether its parent is gone and, if so, removes its cgroup. In a
	// process group of its own, a terminal's Ctrl-C reaches the runtime only, which then
	// stops its pods itself, as a kubelet's containers are not in the kubelet's group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: workload.ParentDeathSignal, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return errors.Join(fmt.Errorf("start pod %s: %w", pd.name, err), g.Remove())
	}
	if err := g.Add(cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return errors.Join(err, g.Remove())
	}
	pd.cmd, pd.group, pd.running, pd.addr = cmd, g, true, fileAddr(file)
	pd.exited = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	pd.probeCancel = cancel
	r.pods.Add(2)
	go r.wait(pd)
	go r.probe(ctx, pd)
	r.logger.Debug("Pod started", "pod", pd.name, "pid", cmd.Process.Pid, "address", pd.addr, "cgroup", g.Path())
	return nil
}

func fileAddr(f *os.File) string {
	l, err := net.FileListener(f)
	if err != nil {
		return ""
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// wait reaps the pod's process, then removes its cgroup and the pod.
func (r *Runtime) wait(pd *pod) {
	defer r.pods.Done()
	err := pd.cmd.Wait()
	close(pd.exited)
	pd.probeCancel()
	r.mu.Lock()
	if !pd.deleting {
		r.logger.Warn("Pod process exited", "pod", pd.name, "err", err)
	}
	pd.ready, pd.gone = false, true
	r.mu.Unlock()
	// The kernel moves an exited process out of its cgroup a moment after the reap.
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := pd.group.Remove()
		if err == nil || time.Now().After(deadline) {
			if err != nil {
				r.logger.Warn("Could not remove a pod's cgroup", "pod", pd.name, "err", err)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// probe is the kubelet's readiness probe: GET /healthz after the initial delay, every
// period, with the probe's timeout; success_threshold successes in a row make the pod
// Ready, failure_threshold failures in a row make it not Ready (a throttled pod whose
// probe is late once stays in the Service, as on a node).
func (r *Runtime) probe(ctx context.Context, pd *pod) {
	defer r.pods.Done()
	rp := pd.svc.spec.Startup.Readiness
	client := &http.Client{Timeout: rp.Timeout.D(), Transport: &http.Transport{DisableKeepAlives: true}}
	t := time.NewTimer(rp.InitialDelay.D())
	defer t.Stop()
	successes, failures := 0, 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok := false
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+pd.addr+workload.ReadinessPath, nil)
		if resp, err := client.Do(req); err == nil {
			ok = resp.StatusCode >= 200 && resp.StatusCode < 400
			_ = resp.Body.Close()
		}
		r.mu.Lock()
		switch {
		case ok && !pd.deleting:
			successes, failures = successes+1, 0
			if !pd.ready && successes >= rp.SuccessThreshold {
				pd.ready, pd.readyAt = true, time.Now()
				r.logger.Debug("Pod ready", "pod", pd.name, "startup_seconds", pd.readyAt.Sub(pd.created).Seconds())
			}
		case pd.deleting:
			successes, pd.ready = 0, false
		default:
			successes, failures = 0, failures+1
			if failures >= rp.FailureThreshold {
				pd.ready = false
			}
		}
		r.mu.Unlock()
		t.Reset(rp.Period.D())
	}
}

// terminate deletes a pod: not Ready at once, SIGTERM, SIGKILL after grace. A pod not
// launched yet is just removed.
func (r *Runtime) terminate(pd *pod, grace time.Duration) {
	if pd.deleting {
		return
	}
	pd.deleting, pd.deletedAt, pd.ready = true, time.Now(), false
	if pd.cmd == nil {
		pd.gone = true
		return
	}
	_ = pd.cmd.Process.Signal(syscall.SIGTERM)
	r.pods.Go(func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-pd.exited:
		case <-t.C:
			_ = pd.cmd.Process.Kill()
		}
	})
}

// scrapeMetrics is metrics-server: every resolution it reads each running pod's cgroup
// CPU usage and keeps the last two samples.
func (r *Runtime) scrapeMetrics(now time.Time) {
	if now.Before(r.msNext) {
		return
	}
	r.msNext = now.Add(r.profile.MetricsServer.Resolution.D())
	for _, s := range r.services {
		for _, pd := range s.pods {
			if !pd.running || pd.gone {
				continue
			}
			st, err := pd.group.Stat()
			if err != nil {
				continue
			}
			smp := msSample{at: now, usage: st.Usage}
			if len(pd.ms) >= 2 {
				pd.ms = append(pd.ms[:0], pd.ms[1], smp)
			} else {
				pd.ms = append(pd.ms, smp)
			}
		}
	}
}

func (pd *pod) metric() (hpa.PodMetric, bool) {
	if len(pd.ms) < 2 {
		return hpa.PodMetric{}, false
	}
	a, b := pd.ms[0], pd.ms[1]
	w := b.at.Sub(a.at)
	if w <= 0 {
		return hpa.PodMetric{}, false
	}
	return hpa.PodMetric{Timestamp: b.at, Window: w, Milli: int64(float64(b.usage-a.usage) / float64(w) * 1000)}, true
}

// syncHPAs runs each HPA's sync every sync period on what metrics-server holds.
func (r *Runtime) syncHPAs(now time.Time) {
	for _, s := range r.services {
		if s.hpa == nil || now.Before(s.hpaNext) {
			continue
		}
		s.hpaNext = s.hpaNext.Add(r.profile.Controller.SyncPeriod.D())
		in := hpa.Input{SpecReplicas: s.specReplicas, Metrics: map[string]hpa.PodMetric{}}
		for _, pd := range s.pods {
			hp := hpa.Pod{Name: pd.name, Phase: hpa.PodPending, Deleting: pd.deleting, RequestMilli: int64(s.spec.Resources.Requests.CPU)}
			if !now.Before(pd.started) {
				hp.Started, hp.HasReadyCondition, hp.ReadyTransition = pd.started, true, pd.started
			}
			if pd.running {
				hp.Phase = hpa.PodRunning
			}
			if pd.ready {
				hp.Ready, hp.ReadyTransition = true, pd.readyAt
			}
			in.Pods = append(in.Pods, hp)
			if m, ok := pd.metric(); ok {
				in.Metrics[pd.name] = m
			}
		}
		d := s.hpa.Sync(now, in)
		s.hpaStatus = d.Status
		if d.Rescale {
			r.logger.Info("HPA rescaled deployment", "deployment", s.spec.Name, "from", s.specReplicas, "to", d.Replicas,
				"reason", d.Status.Reason, "cpu_utilization_percent", d.Status.CurrentUtilization)
			s.specReplicas = d.Replicas
		}
	}
}

// readyLag reports whether some Deployment with an HPA has fewer Ready replicas than its
// HPA status currentReplicas (the start-up gap). The caller holds r.mu.
func (r *Runtime) readyLag() bool {
	for _, s := range r.services {
		if s.hpa != nil && int32(s.readyReplicas()) < s.hpaStatus.CurrentReplicas {
			return true
		}
	}
	return false
}

func (s *service) readyReplicas() int {
	n := 0
	for _, pd := range s.pods {
		if pd.ready && !pd.gone && !pd.deleting {
			n++
		}
	}
	return n
}

// Snapshot returns the runtime's state as the simulator's snapshot: what kube-state-metrics
// would report, and each pod's cgroup counters.
func (r *Runtime) Snapshot() sim.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	snap := sim.Snapshot{At: now, Namespace: r.profile.Namespace, Node: r.profile.Node.Name}
	for _, s := range r.services {
		d := sim.DeploymentSnapshot{Name: s.spec.Name, ReplicaSet: s.rsName, Image: s.spec.Image, SpecReplicas: int(s.specReplicas)}
		for _, pd := range s.pods {
			if pd.gone {
				continue
			}
			if !pd.deleting {
				d.Replicas++
				if pd.ready {
					d.ReadyReplicas++
				}
			}
			snap.Pods = append(snap.Pods, r.podSnapshot(pd, now))
		}
		d.AvailableReplicas = d.ReadyReplicas
		if s.hpa != nil {
			sp, st := s.hpa.Spec(), s.hpaStatus
			d.HPA = &sim.HPASnapshot{
				MinReplicas: sp.MinReplicas, MaxReplicas: sp.MaxReplicas, TargetCPUUtilization: sp.TargetCPUUtilization,
				CurrentReplicas: st.CurrentReplicas, DesiredReplicas: st.DesiredReplicas, MetricValid: st.MetricValid,
				CurrentUtilization: st.CurrentUtilization, CurrentAverageCores: float64(st.CurrentAverageMilli) / 1000,
				LastScaleTime: st.LastScaleTime, Reason: st.Reason,
			}
		}
		snap.Deployments = append(snap.Deployments, d)
	}
	snap.Responses = r.responses()
	return snap
}

func (r *Runtime) podSnapshot(pd *pod, now time.Time) sim.PodSnapshot {
	spec := pd.svc.spec
	ps := sim.PodSnapshot{
		Name: pd.name, UID: pd.uid, Deployment: spec.Name, ReplicaSet: pd.svc.rsName, IP: "127.0.0.1",
		ContainerID: pd.cid, Image: spec.Image, Created: pd.created, Running: pd.running, Ready: pd.ready,
		Terminating:        pd.deleting,
		CPURequestCores:    float64(spec.Resources.Requests.CPU) / 1000,
		CPULimitCores:      float64(spec.Resources.Limits.CPU) / 1000,
		MemoryRequestBytes: int64(spec.Resources.Requests.Memory),
		MemoryLimitBytes:   int64(spec.Resources.Limits.Memory),
		InFlight:           int(pd.inflight.Load()),
	}
	if !now.Before(pd.started) {
		ps.Started = pd.started
	}
	if pd.ready {
		ps.ReadyTime = pd.readyAt
	}
	if pd.running && pd.group != nil {
		if st, err := pd.group.Stat(); err == nil {
			ps.CFS = cfs.Stats{Usage: st.Usage, Periods: st.Periods, ThrottledPeriods: st.Throttled, ThrottledTime: st.ThrottledTime}
			ps.CPUUsageSeconds = st.Usage.Seconds()
		}
		if c, err := pd.group.Config(); err == nil {
			ps.CFSPeriod = time.Duration(c.PeriodUs) * time.Microsecond
			if c.QuotaUs > 0 {
				ps.CFSQuota = time.Duration(c.QuotaUs) * time.Microsecond
			}
		}
	}
	return ps
}

// labels maps a pod's cgroup path to the kubelet's labels of its container.
func (r *Runtime) labels(path string) (Labels, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.services {
		for _, pd := range s.pods {
			if pd.group != nil && pd.group.Path() == path {
				return Labels{Namespace: r.profile.Namespace, Pod: pd.name, Container: s.spec.Name, Image: s.spec.Image, Name: pd.cid}, true
			}
		}
	}
	return Labels{}, false
}

// countResponse records one answer of a service's load balancer, and for a failure
// (status 500 or more) its reason and cause (failureCause).
func (r *Runtime) countResponse(svc, status int, reason string) {
	now := time.Now()
	r.mu.Lock()
	st := serviceState{gap: r.readyLag(), atMax: r.services[svc].atMaxReplicas()}
	r.mu.Unlock()
	r.respMu.Lock()
	defer r.respMu.Unlock()
	r.resp[respKey{svc, status, st.gap}]++
	if status < http.StatusInternalServerError {
		return
	}
	reason, cause := failureCause(status, reason, st)
	k := failKey{svc, reason, cause}
	f, ok := r.fails[k]
	if !ok {
		f = &sim.FailureCount{Service: r.services[svc].spec.Name, Reason: reason, Cause: cause, First: now}
		r.fails[k] = f
	}
	f.Count++
}

// atMaxReplicas reports whether the service's HPA is at its max replicas. The caller
// holds r.mu.
func (s *service) atMaxReplicas() bool {
	return s.hpa != nil && s.hpaStatus.CurrentReplicas >= s.hpa.Spec().MaxReplicas
}

// serviceState is what the cause of a failure depends on when it was answered: some
// HPA's current replicas ahead of Ready (the start-up gap), the service's HPA at its max.
type serviceState struct{ gap, atMax bool }

// Reasons of the process runtime's failures besides the pod's own
// (workload.FailureHeader) and the in-memory simulator's (sim.Reason*).
const (
	// reasonUpstream: the load balancer could not reach the pod (a proxy error: 502).
	reasonUpstream = "upstream_error"
	// reasonStatus: a status with no reason (status_500).
	reasonStatus = "status_"
)

// failureCause names a failed answer's reason and the resource that made it fail, as the
// in-memory simulator does (sim.Cause*), from the pod's own account
// (workload.FailureHeader) and the load balancer's: a pool connection that did not come
// within the pool's timeout is "pool", any other error of the database work "database";
// a request the pod's full queue refused or let time out is "startup" inside a start-up
// gap, "replicas" while its HPA is at its max replicas, else "cpu" (its threads, under
// the CFS quota, held it back); no Ready pod is "startup" inside a gap; anything else is
// "other", which tells nothing. A request that timed out on the client is no answer
// here: the load generator counts it.
func failureCause(status int, reason string, st serviceState) (string, string) {
	switch reason {
	case workload.FailurePoolTimeout:
		return sim.ReasonPoolTimeout, sim.CausePool
	case workload.FailureDatabase:
		return sim.ReasonDBError, sim.CauseDatabase
	case workload.FailureQueueFull, workload.FailureQueueTimeout:
		switch {
		case st.gap:
			return reason, sim.CauseStartup
		case st.atMax:
			return reason, sim.CauseReplicas
		}
		return reason, sim.CauseCPU
	case sim.ReasonNoEndpoints:
		if st.gap {
			return reason, sim.CauseStartup
		}
		return reason, sim.CauseOther
	case "":
		reason = reasonStatus + strconv.Itoa(status)
	}
	return reason, sim.CauseOther
}

// responses is the snapshot's ground truth on the load balancers' answers (no start-up
// gap time: Responses.StartupGap stays 0). The caller holds r.mu.
func (r *Runtime) responses() sim.Responses {
	r.respMu.Lock()
	defer r.respMu.Unlock()
	out := sim.Responses{Services: make([]sim.ServiceResponses, len(r.services))}
	for i, s := range r.services {
		out.Services[i].Service = s.spec.Name
	}
	keys := slices.SortedFunc(maps.Keys(r.resp), func(a, b respKey) int {
		if a.svc != b.svc {
			return a.svc - b.svc
		}
		if a.status != b.status {
			return a.status - b.status
		}
		return boolInt(a.gap) - boolInt(b.gap)
	})
	for _, k := range keys {
		n := r.resp[k]
		add := func(t *sim.ResponseTotals) {
			t.Total += n
			if k.gap {
				t.InStartupGap += n
			}
			if k.status >= 500 {
				t.Failed += n
				if k.gap {
					t.FailedInStartupGap += n
				}
			}
		}
		add(&out.ResponseTotals)
		add(&out.Services[k.svc].ResponseTotals)
		out.Counts = append(out.Counts, sim.ResponseCount{Service: r.services[k.svc].spec.Name, Code: k.status, StartupGap: k.gap, Count: n})
	}
	for _, f := range r.fails {
		out.Failures = append(out.Failures, *f)
	}
	slices.SortFunc(out.Failures, func(a, b sim.FailureCount) int {
		return cmp.Or(a.First.Compare(b.First), cmp.Compare(a.Service, b.Service), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Cause, b.Cause))
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
