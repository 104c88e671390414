package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/sim/cfs"
	"github.com/tidemark/tidemark/internal/sim/hpa"
)

// StepDuration is the model's time step: one CFS bandwidth slice (sched_cfs_bandwidth_slice_us).
const StepDuration = 5 * time.Millisecond

// maxRequestsPerPod bounds the requests one pod holds (queued and in progress), so memory
// and the cost of a step stay bounded under any load; beyond it requests are refused like
// a full queue. 4096 is the listen backlog limit (net.core.somaxconn) since Linux 5.4.
const maxRequestsPerPod = 4096

// Reasons a request failed, reported in Result.Reason.
const (
	ReasonNoEndpoints   = "no_ready_endpoints"       // no Ready pod behind the Service: 503
	ReasonQueueFull     = "queue_full"               // the pod's accept queue is full: 503
	ReasonQueueTimeout  = "queue_timeout"            // waited longer than queue.timeout: 503
	ReasonPoolTimeout   = "pool_timeout"             // no pool connection within pool.timeout: 500
	ReasonDBConnections = "db_connections_exhausted" // max_connections reached: 500
	ReasonDownstream    = "downstream_error"         // a called service failed: 502
	ReasonTimeout       = "timeout"                  // request.timeout elapsed: 504
	ReasonPodTerminated = "pod_terminated"           // the pod went away mid-request: 502
	ReasonOverflow      = "upstream_overflow"        // ingress.max_pending outstanding already (Envoy UO): 503
	ReasonRouteTimeout  = "route_timeout"            // ingress.route_timeout elapsed (Envoy UT): 504
	ReasonOOMKilled     = "oom_killed"               // the pod's container was OOM-killed holding it: 502
	ReasonDBError       = "db_error"                 // a query failed (the process runtime's database work): 500
)

// Result is how the simulated cluster answered one request.
type Result struct {
	// Status is the HTTP status code.
	Status int
	// Latency is the simulated time from Submit to the answer.
	Latency time.Duration
	// Reason is empty on success, else one of the Reason* constants.
	Reason string
	// Pod is the pod that handled the request ("" if none did).
	Pod string
	// Cause is, for a failure (Status 500 or more), the resource the simulator knows
	// made it fail, one of the Cause* constants; empty on success.
	Cause string
}

// Cluster is the simulated cluster: Deployments with pods, their HPAs, metrics-server, CFS
// bandwidth per container and a database. It runs in simulated time, advanced only by
// Step and Advance; nothing reads a clock. It is not safe for concurrent use.
type Cluster struct {
	p           *Profile
	start, now  time.Time
	rng         *rand.Rand // pods: start-up times, names, HPA phases
	costRng     *rand.Rand // requests: cost jitter, load-balancer picks
	services    []*service
	byName      map[string]*service
	db          *database
	msNext      time.Time
	timeouts    deadlineHeap
	onEvent     func(Event)
	workStart   time.Time // start of the step being run
	ipSeq       int
	initialised bool
	// lagged is the start-up gap state the cluster shows now (Snapshot, ksm): some HPA's
	// status currentReplicas above its Deployment's Ready replicas. It is computed after
	// the controllers of each step.
	lagged    bool
	gapTime   time.Duration
	responses map[responseKey]int
	// failures counts the failed answers to external requests by service, reason and
	// cause, with the first one's time.
	failures map[failureKey]*failureCount
}

// failureKey classifies one failed answer to an external request.
type failureKey struct {
	svc           int
	reason, cause string
}

type failureCount struct {
	n     int
	first time.Time
}

// responseKey classifies one answer to an external request.
type responseKey struct {
	svc    int // index in Cluster.services
	status int
	gap    bool
}

type service struct {
	spec         *ServiceSpec
	idx          int
	name         string
	rsName       string
	specReplicas int32
	pods         []*pod
	rr           int
	endpoints    []*endpoint // longest path first; the last is the default ("")
	quota        time.Duration
	hpa          *hpa.Controller
	hpaNext      time.Time
	hpaStatus    hpa.Status
	// outstanding counts the requests the ingress accepted and has not answered yet.
	outstanding int
}

// endpoint is a request cost for a URL path prefix, with its calls resolved.
type endpoint struct {
	prefix string
	spec   *RequestSpec
	calls  []call
}

type call struct {
	svc  *service
	path string
}

type pod struct {
	svc                     *service
	name, uid, ip, cid      string
	created, started        time.Time // started = status.startTime (kubelet accepted the pod)
	running, appUp, readyAt time.Time
	isRunning, ready        bool
	deleting                bool
	deletedAt               time.Time
	gone                    bool
	cpu                     *cfs.Group
	queue                   []*request
	active                  []*request
	cpuReqs                 []*request
	pool                    *pool
	ms                      []msSample
	outstanding             int // requests the ingress sent here and has not answered
	// cpuSatAt is the end of the last step in which the pod's CPU was saturated: its CFS
	// quota or its threads gave its runnable requests less than they wanted.
	cpuSatAt time.Time
	// restarts counts the container's restarts; oomKilled is true once its last
	// termination was an OOM kill.
	restarts  int
	oomKilled bool
}

type msSample struct {
	at    time.Time
	usage time.Duration
}

type stage int

const (
	stageQueued stage = iota // zero value: waiting in the pod's queue
	stageCPU
	stageDBWait
	stageDB
	stageCall
)

type request struct {
	svc         *service
	ep          *endpoint
	pod         *pod
	arrived     time.Time
	deadline    time.Time
	timeoutWhy  string // the Reason of a 504 at deadline
	stage       stage
	cpuLeft     time.Duration
	queriesLeft int
	callIdx     int
	waitSince   time.Time
	cpuFrom     time.Time // when the request became runnable
	q           *query
	hasConn     bool
	responded   bool
	finished    bool
	external    bool // submitted from outside the cluster, counted in Responses
	ingress     bool // counted in svc.outstanding until answered
	// cause is set when the failure's cause is known before the answer (a failed call).
	cause string
	done  func(Result)
}

// NewCluster builds the cluster described by p at simulated time start: every Deployment
// has its initial replicas Ready (created an hour earlier), HPAs have synced before, and
// metrics-server holds one idle sample. A profile built in code is validated and its
// defaults filled in place, as ParseProfile does.
func NewCluster(p *Profile, start time.Time) (*Cluster, error) {
	if p == nil {
		return nil, errors.New("new cluster: no profile")
	}
	if err := p.validate("profile", nil); err != nil {
		return nil, fmt.Errorf("new cluster: %w", err)
	}
	c := &Cluster{
		p: p, start: start, now: start, byName: map[string]*service{}, responses: map[responseKey]int{},
		failures: map[failureKey]*failureCount{},
		rng:      rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15)),
		// A stream of its own, so that the load does not move the pods' start-up draws.
		costRng: rand.New(rand.NewPCG(p.Seed^0x5851f42d4c957f2d, p.Seed+1)),
	}
	if p.Database != nil {
		c.db = newDatabase(p.Database, p.CloudWatch.Period.D(), start)
	}
	hcfg := hpa.Config{
		SyncPeriod:              p.Controller.SyncPeriod.D(),
		Tolerance:               *p.Controller.Tolerance,
		CPUInitializationPeriod: p.Controller.CPUInitializationPeriod.D(),
		InitialReadinessDelay:   p.Controller.InitialReadinessDelay.D(),
		DownscaleStabilization:  p.Controller.DownscaleStabilization.D(),
	}
	for i := range p.Services {
		spec := &p.Services[i]
		s := &service{
			spec: spec, idx: i, name: spec.Name, specReplicas: int32(spec.Replicas),
			rsName: spec.Name + "-" + templateHash(spec.Name+spec.Image),
			quota:  cfs.QuotaForLimit(int64(spec.Resources.Limits.CPU), cfs.DefaultPeriod),
		}
		if spec.HPA != nil {
			ctrl, err := hpa.NewController(spec.HPA.hpaSpec(), hcfg)
			if err != nil {
				return nil, fmt.Errorf("new cluster: service %s: %w", spec.Name, err)
			}
			s.hpa = ctrl
			// Each HPA is resynced on its own phase of the controller's period.
			s.hpaNext = start.Add(time.Duration(c.rng.Int64N(int64(hcfg.SyncPeriod))))
			// The cluster has been running: the HPA has synced before and read the pods'
			// idle CPU (per pod, as metrics-server reports it) against their request.
			util, idle := int32(-1), int64(spec.IdleCPU)
			if req := int64(spec.Resources.Requests.CPU); req > 0 {
				util = int32(idle * 100 / req)
			}
			s.hpaStatus = ctrl.Settle(s.specReplicas, util, idle)
		}
		c.services = append(c.services, s)
		c.byName[s.name] = s
	}
	for _, s := range c.services {
		resolve := func(prefix string, spec *RequestSpec) *endpoint {
			ep := &endpoint{prefix: prefix, spec: spec}
			for _, target := range spec.Calls {
				ep.calls = append(ep.calls, call{svc: c.byName[callService(target)], path: callPath(target)})
			}
			return ep
		}
		for i := range s.spec.Endpoints {
			s.endpoints = append(s.endpoints, resolve(s.spec.Endpoints[i].Path, &s.spec.Endpoints[i].Request))
		}
		slices.SortStableFunc(s.endpoints, func(a, b *endpoint) int { return len(b.prefix) - len(a.prefix) })
		s.endpoints = append(s.endpoints, resolve("", &s.spec.Request))
		for range s.specReplicas {
			pd := c.newPod(s, start.Add(-time.Hour))
			pd.running, pd.appUp, pd.readyAt = pd.created, pd.created, pd.created.Add(10*time.Second)
			pd.started = pd.created
		}
	}
	c.msNext = start.Add(time.Duration(c.rng.Int64N(int64(p.MetricsServer.Resolution.D()))))
	// metrics-server's two previous scrapes of pods that have been idling, so that an HPA
	// sync before its first real scrape reads a metric and the first real scrape yields a
	// rate. Only differences of the cumulative usage matter: the counter is extended back
	// from 0 at the cluster start at the idle rate.
	res := p.MetricsServer.Resolution.D()
	for _, s := range c.services {
		idle := func(at time.Time) time.Duration {
			return time.Duration(int64(s.spec.IdleCPU) * int64(at.Sub(start)) / 1000)
		}
		for _, pd := range s.pods {
			a, b := c.msNext.Add(-2*res), c.msNext.Add(-res)
			pd.ms = []msSample{{at: a, usage: idle(a)}, {at: b, usage: idle(b)}}
		}
	}
	c.lifecycle()
	c.lagged = c.readyLag()
	if c.db != nil {
		// CloudWatch already holds the previous period of the idle instance.
		c.db.settle(c.dbConnections())
	}
	c.initialised = true
	return c, nil
}

const hashAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func templateHash(s string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	v := h.Sum64()
	out := make([]byte, 10)
	for i := range out {
		out[i] = hashAlphabet[v%uint64(len(hashAlphabet))]
		v /= uint64(len(hashAlphabet))
	}
	return string(out)
}

func (c *Cluster) randSuffix(n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = hashAlphabet[c.rng.IntN(len(hashAlphabet))]
	}
	return string(out)
}

func (c *Cluster) draw(d Dist) time.Duration {
	return max(d.sample(c.rng.Float64(), c.rng.NormFloat64()), 0)
}

// newPod creates a pod at t and draws its start-up: scheduling, image pull, app start and
// the readiness probe schedule.
func (c *Cluster) newPod(s *service, t time.Time) *pod {
	c.ipSeq++
	pd := &pod{
		svc: s, created: t,
		name: s.rsName + "-" + c.randSuffix(5),
		uid:  fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", c.rng.Uint32(), c.rng.IntN(1<<16), c.rng.IntN(1<<12), c.rng.IntN(1<<12), c.rng.Int64N(1<<48)),
		ip:   fmt.Sprintf("10.0.%d.%d", (c.ipSeq/250)%250, c.ipSeq%250+2),
		cid:  fmt.Sprintf("%016x%016x", c.rng.Uint64(), c.rng.Uint64()),
		cpu:  cfs.NewGroup(cfs.Bandwidth{Quota: s.quota, Period: cfs.DefaultPeriod}, c.p.Node.CPUs),
	}
	st := s.spec.Startup
	pd.started = t.Add(c.draw(st.Scheduling))
	pd.running = pd.started.Add(c.draw(st.ImagePull))
	pd.appUp = pd.running.Add(c.draw(st.AppStart))
	pd.readyAt = readyTime(st.Readiness, pd.running, pd.appUp)
	if c.db != nil && slices.ContainsFunc(s.endpoints, func(e *endpoint) bool { return e.spec.DBQueries > 0 }) {
		pd.pool = &pool{pod: pd, size: s.spec.Pool.Size}
	}
	s.pods = append(s.pods, pd)
	if c.initialised {
		c.emit(Event{Kind: EventPodCreated, Service: s.name, Pod: pd.name, StartUp: pd.readyAt.Sub(pd.created)})
	}
	return pd
}

// readyTime is when a container started at running, whose app is up at appUp, passes
// its readiness probe: probes run at running+initialDelay+k*period; the pod is Ready
// after success_threshold consecutive successes, the first once the app is up.
func readyTime(rp ReadinessProbe, running, appUp time.Time) time.Time {
	first := running.Add(rp.InitialDelay.D())
	if appUp.After(first) {
		k := math.Ceil(float64(appUp.Sub(first)) / float64(rp.Period.D()))
		first = first.Add(time.Duration(k) * rp.Period.D())
	}
	return first.Add(time.Duration(rp.SuccessThreshold-1) * rp.Period.D())
}

// EventKind says what happened in an Event.
type EventKind string

// Event kinds.
const (
	EventScaled     EventKind = "scaled"      // an HPA changed its Deployment's spec.replicas
	EventPodCreated EventKind = "pod_created" // the ReplicaSet created a pod
	EventPodReady   EventKind = "pod_ready"   // a pod passed its readiness probe
	EventPodDeleted EventKind = "pod_deleted" // a deleted pod finished terminating
	EventOOMKilled  EventKind = "oom_killed"  // a pod's container was OOM-killed and restarts
)

// Event is one change in the cluster, for logs and demos.
type Event struct {
	At      time.Time
	Kind    EventKind
	Service string
	Pod     string
	// From and To are the spec replicas of a scaled event.
	From, To int
	// Reason and Utilization are the HPA's, for a scaled event.
	Reason      string
	Utilization int32
	// StartUp is the pod's drawn creation-to-Ready time (pod_created, pod_ready).
	StartUp time.Duration
}

// OnEvent sets a function called (synchronously, during Step) for every Event; nil stops
// the calls. It must not call back into the cluster.
func (c *Cluster) OnEvent(f func(Event)) { c.onEvent = f }

func (c *Cluster) emit(e Event) {
	if c.onEvent != nil {
		e.At = c.now
		c.onEvent(e)
	}
}

// Now returns the simulated time.
func (c *Cluster) Now() time.Time { return c.now }

// Start returns the simulated time the cluster was built at.
func (c *Cluster) Start() time.Time { return c.start }

// Profile returns the profile the cluster runs (with defaults filled in).
func (c *Cluster) Profile() *Profile { return c.p }

// Services returns the service names in profile order.
func (c *Cluster) Services() []string {
	out := make([]string, len(c.services))
	for i, s := range c.services {
		out[i] = s.name
	}
	return out
}

// Advance runs whole steps until the simulated time reaches to (never past it).
func (c *Cluster) Advance(to time.Time) {
	for !c.now.Add(StepDuration).After(to) {
		c.Step()
	}
}

// Submit sends one request to service at the current simulated time. done is called
// exactly once, possibly before Submit returns (immediate rejections) or from a later
// Step; it must not call back into the cluster.
func (c *Cluster) Submit(serviceName string, done func(Result)) error {
	return c.SubmitPath(serviceName, "/", done)
}

// SubmitPath is Submit for a URL path: the service's endpoint with the longest matching
// path prefix sets the request's cost, else its default request.
func (c *Cluster) SubmitPath(serviceName, path string, done func(Result)) error {
	s, ok := c.byName[serviceName]
	if !ok {
		return fmt.Errorf("submit: unknown service %q", serviceName)
	}
	c.submit(s, path, done, true)
	return nil
}

func (s *service) endpoint(path string) *endpoint {
	for _, ep := range s.endpoints {
		if strings.HasPrefix(path, ep.prefix) {
			return ep
		}
	}
	return s.endpoints[len(s.endpoints)-1]
}

// submit sends a request to s: external ones come from outside the cluster (Submit),
// the others are calls between services.
func (c *Cluster) submit(s *service, path string, done func(Result), external bool) *request {
	r := &request{svc: s, ep: s.endpoint(path), arrived: c.now, done: done, external: external}
	if to := r.ep.spec.Timeout.D(); to > 0 {
		r.deadline, r.timeoutWhy = c.now.Add(to), ReasonTimeout
	}
	var endpoints []*pod
	for _, pd := range s.pods {
		if pd.ready && !pd.deleting && !pd.gone {
			endpoints = append(endpoints, pd)
		}
	}
	if len(endpoints) == 0 {
		c.respond(r, http.StatusServiceUnavailable, ReasonNoEndpoints)
		r.finished = true
		return r
	}
	if in := s.spec.Ingress; in != nil {
		if s.outstanding >= in.MaxPending {
			c.respond(r, http.StatusServiceUnavailable, ReasonOverflow)
			r.finished = true
			return r
		}
		r.ingress = true
		s.outstanding++
		if to := in.RouteTimeout.D(); to > 0 && (r.deadline.IsZero() || c.now.Add(to).Before(r.deadline)) {
			r.deadline, r.timeoutWhy = c.now.Add(to), ReasonRouteTimeout
		}
	}
	var pd *pod
	if in := s.spec.Ingress; in != nil && in.LBPolicy == LBLeastRequest {
		// Envoy's least request with equal weights: the less loaded of two random picks.
		a, b := endpoints[c.costRng.IntN(len(endpoints))], endpoints[c.costRng.IntN(len(endpoints))]
		pd = a
		if b.outstanding < a.outstanding {
			pd = b
		}
	} else {
		pd = endpoints[s.rr%len(endpoints)]
		s.rr = (s.rr + 1) % len(endpoints)
	}
	r.pod = pd
	if r.ingress {
		pd.outstanding++
	}
	if len(pd.queue) >= s.spec.Queue.Max || len(pd.queue)+len(pd.active) >= maxRequestsPerPod {
		c.respond(r, http.StatusServiceUnavailable, ReasonQueueFull)
		r.finished = true
		return r
	}
	pd.queue = append(pd.queue, r)
	if !r.deadline.IsZero() {
		heap.Push(&c.timeouts, r)
	}
	c.admit(pd)
	return r
}

func (c *Cluster) respond(r *request, status int, reason string) {
	if r.responded {
		return
	}
	r.responded = true
	if r.ingress {
		r.svc.outstanding--
		if r.pod != nil {
			r.pod.outstanding--
		}
	}
	cause := ""
	if status >= http.StatusInternalServerError {
		cause = r.cause
		if cause == "" {
			cause = c.cause(r, reason)
		}
	}
	if r.external {
		c.responses[responseKey{svc: r.svc.idx, status: status, gap: c.lagged}]++
		if cause != "" {
			k := failureKey{svc: r.svc.idx, reason: reason, cause: cause}
			if f, ok := c.failures[k]; ok {
				f.n++
			} else {
				c.failures[k] = &failureCount{n: 1, first: c.now}
			}
		}
	}
	name := ""
	if r.pod != nil {
		name = r.pod.name
	}
	if r.done != nil {
		r.done(Result{Status: status, Latency: c.now.Sub(r.arrived), Reason: reason, Pod: name, Cause: cause})
	}
}

// finish ends a request's work and answers it if nobody has yet.
func (c *Cluster) finish(r *request, status int, reason string) {
	if r.finished {
		return
	}
	r.finished = true
	if pd := r.pod; pd != nil {
		if i := slices.Index(pd.active, r); i >= 0 {
			pd.active = slices.Delete(pd.active, i, i+1)
		}
		if r.stage == stageCPU {
			if i := slices.Index(pd.cpuReqs, r); i >= 0 {
				pd.cpuReqs = slices.Delete(pd.cpuReqs, i, i+1)
			}
		}
		if r.q != nil {
			r.q.cancelled = true
			r.q = nil
		}
		if r.hasConn && pd.pool != nil {
			r.hasConn = false
			pd.pool.release(c)
		}
		c.admit(pd)
	}
	c.respond(r, status, reason)
}

// admit moves queued requests into service while the pod has concurrency left.
func (c *Cluster) admit(pd *pod) {
	limit := pd.svc.spec.Concurrency
	for len(pd.queue) > 0 && (limit == 0 || len(pd.active) < limit) && !pd.gone {
		r := pd.queue[0]
		pd.queue = pd.queue[1:]
		pd.active = append(pd.active, r)
		spec := r.ep.spec
		cost := float64(spec.CPU.D()) * pd.svc.spec.Startup.WarmUp.factor(c.now.Sub(pd.readyAt))
		if spec.CPUJitter > 0 {
			cost *= 1 + spec.CPUJitter*(2*c.costRng.Float64()-1)
		}
		r.cpuLeft = max(time.Duration(cost), time.Microsecond)
		r.cpuFrom = c.now
		r.queriesLeft = spec.DBQueries
		r.stage = stageCPU
		pd.cpuReqs = append(pd.cpuReqs, r)
	}
}

// next moves a request past its CPU, query or call stage.
func (c *Cluster) next(r *request) {
	if r.finished {
		return
	}
	pd := r.pod
	if r.queriesLeft > 0 && pd.pool != nil {
		pd.pool.acquire(c, r)
		return
	}
	if r.callIdx < len(r.ep.calls) {
		target := r.ep.calls[r.callIdx]
		r.callIdx++
		r.stage = stageCall
		c.submit(target.svc, target.path, func(res Result) {
			if r.finished {
				return
			}
			if res.Status >= 500 {
				r.cause = res.Cause
				c.finish(r, http.StatusBadGateway, ReasonDownstream)
				return
			}
			c.next(r)
		}, false)
		return
	}
	c.finish(r, http.StatusOK, "")
}

// Step advances the simulation by StepDuration.
//
// Controllers (Deployment, kubelet, metrics-server, HPA) act at the start of the step;
// then requests and queries run for the step, and whatever completes is stamped with the
// step's end. Work that becomes runnable during the step (a downstream call, the next
// query, a request admitted from the queue) starts running in the next step.
func (c *Cluster) Step() {
	dt := StepDuration
	c.reconcile()
	c.lifecycle()
	c.scrapeMetrics()
	c.syncHPAs()
	c.lagged = c.readyLag()
	if c.lagged {
		c.gapTime += dt
	}
	c.workStart = c.now
	c.now = c.now.Add(dt)
	for _, s := range c.services {
		for _, pd := range s.pods {
			if pd.gone {
				continue
			}
			c.checkMemory(pd)
			c.expireQueue(pd)
			c.runCPU(pd, dt)
		}
	}
	if c.db != nil {
		for _, q := range c.db.step(dt, c.workStart) {
			r := q.req
			if q.cancelled || r.finished {
				continue
			}
			r.q = nil
			r.queriesLeft--
			r.hasConn = false
			r.pod.pool.release(c)
			c.next(r)
		}
		for _, s := range c.services {
			for _, pd := range s.pods {
				if pd.pool != nil && !pd.gone {
					pd.pool.expire(c)
				}
			}
		}
	}
	c.deadlines()
	if c.db != nil {
		c.db.account(c.now, dt, c.dbConnections())
	}
}

// extract removes the requests for which take is true from q, in place and in order,
// and returns the rest and the removed ones.
func extract(q []*request, take func(*request) bool) (rest, taken []*request) {
	rest = q[:0]
	for _, r := range q {
		if take(r) {
			taken = append(taken, r)
			continue
		}
		rest = append(rest, r)
	}
	return rest, taken
}

func (c *Cluster) expireQueue(pd *pod) {
	to := pd.svc.spec.Queue.Timeout.D()
	if to <= 0 || len(pd.queue) == 0 {
		return
	}
	var expired []*request
	pd.queue, expired = extract(pd.queue, func(r *request) bool { return c.now.Sub(r.arrived) >= to })
	for _, r := range expired {
		r.finished = true
		c.respond(r, http.StatusServiceUnavailable, ReasonQueueTimeout)
	}
}

// runCPU lets the CPU-stage requests of one pod run for dt under its CFS bandwidth, in the
// order they became runnable: the application's threads take the oldest first, each
// request on at most one thread (dt per step), as an event loop or a worker pool does.
func (c *Cluster) runCPU(pd *pod, dt time.Duration) {
	threads := pd.svc.spec.Threads
	idle := time.Duration(int64(pd.svc.spec.IdleCPU) * int64(dt) / 1000)
	if !pd.isRunning {
		pd.cpu.Run(dt, 0, 0)
		return
	}
	// cpuReqs is ordered by cpuFrom: the ones that became runnable during this step are at
	// the end and wait for the next one.
	n := len(pd.cpuReqs)
	for n > 0 && pd.cpuReqs[n-1].cpuFrom.After(c.workStart) {
		n--
	}
	runnableReqs := pd.cpuReqs[:n]
	// The application's threads can use up to dt each on the oldest requests.
	capacity := time.Duration(threads) * dt
	var demand time.Duration
	for _, r := range runnableReqs {
		if demand >= capacity {
			break
		}
		demand += min(r.cpuLeft, dt)
	}
	demand = min(demand, capacity)
	runnable := min(len(runnableReqs), threads)
	if idle > 0 {
		runnable++
		demand += idle
	}
	granted := pd.cpu.Run(dt, runnable, demand)
	if granted < demand || len(runnableReqs) > threads {
		pd.cpuSatAt = c.now
	}
	if idle > 0 {
		granted -= min(granted, idle) // the background threads run first
	}
	if granted <= 0 || len(runnableReqs) == 0 {
		return
	}
	for _, r := range runnableReqs {
		if granted <= 0 {
			break
		}
		give := min(r.cpuLeft, dt, granted)
		r.cpuLeft -= give
		granted -= give
	}
	var doneCPU []*request
	pd.cpuReqs, doneCPU = extract(pd.cpuReqs, func(r *request) bool { return r.cpuLeft <= 0 })
	for _, r := range doneCPU {
		r.stage = stageDB
		c.next(r)
	}
}

// share hands out total CPU time equally among items (processor sharing), each taking at
// most its remaining work and at most dt (one thread), and returns what was handed out.
// The common case, an equal share below everyone's remaining work, is one pass; otherwise
// it water-fills in order of remaining work.
func share[T any](total, dt time.Duration, items []T, left func(T) *time.Duration) time.Duration {
	if len(items) == 0 || total <= 0 {
		return 0
	}
	each := min(total/time.Duration(len(items)), dt)
	smallest := time.Duration(math.MaxInt64)
	for _, it := range items {
		smallest = min(smallest, *left(it))
	}
	if each <= smallest {
		for _, it := range items {
			*left(it) -= each
		}
		return each * time.Duration(len(items))
	}
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b T) int { return int(*left(a) - *left(b)) })
	rest := total
	for i, it := range sorted {
		l := left(it)
		give := min(*l, rest/time.Duration(len(sorted)-i), dt)
		*l -= give
		rest -= give
	}
	return total - rest
}

// deadlines answers 504 to requests whose server-side timeout has passed; their pods keep
// working on them.
func (c *Cluster) deadlines() {
	for len(c.timeouts) > 0 && !c.now.Before(c.timeouts[0].deadline) {
		r := heap.Pop(&c.timeouts).(*request)
		if !r.responded {
			c.respond(r, http.StatusGatewayTimeout, r.timeoutWhy)
		}
	}
}

// deadlineHeap orders requests by deadline.
type deadlineHeap []*request

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h deadlineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push implements heap.Interface.
func (h *deadlineHeap) Push(x any) { *h = append(*h, x.(*request)) }

// Pop implements heap.Interface.
func (h *deadlineHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return r
}

// reconcile is the Deployment/ReplicaSet controller: it creates or deletes pods until the
// live pods match spec.replicas.
func (c *Cluster) reconcile() {
	for _, s := range c.services {
		var live []*pod
		for _, pd := range s.pods {
			if !pd.deleting && !pd.gone {
				live = append(live, pd)
			}
		}
		for n := len(live); n < int(s.specReplicas); n++ {
			c.newPod(s, c.now)
		}
		if extra := len(live) - int(s.specReplicas); extra > 0 {
			// ReplicaSet deletion ranking: not running < running, not ready < ready,
			// ready for less time < longer, newer < older.
			slices.SortStableFunc(live, func(a, b *pod) int {
				if a.isRunning != b.isRunning {
					if !a.isRunning {
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
				if !a.readyAt.Equal(b.readyAt) {
					return b.readyAt.Compare(a.readyAt)
				}
				return b.created.Compare(a.created)
			})
			for _, pd := range live[:extra] {
				pd.deleting = true
				pd.deletedAt = c.now
			}
		}
	}
}

// lifecycle moves pods through Pending → Running → Ready, and removes deleted pods once
// drained or at the end of their grace period.
func (c *Cluster) lifecycle() {
	for _, s := range c.services {
		kept := s.pods[:0]
		for _, pd := range s.pods {
			if !pd.isRunning && !c.now.Before(pd.running) {
				pd.isRunning = true
				if pd.pool != nil {
					pd.pool.warm(c, *s.spec.Pool.Warm)
				}
			}
			if !pd.ready && pd.isRunning && !c.now.Before(pd.readyAt) && !pd.deleting {
				pd.ready = true
				if c.initialised {
					c.emit(Event{Kind: EventPodReady, Service: s.name, Pod: pd.name, StartUp: pd.readyAt.Sub(pd.created)})
				}
			}
			if pd.deleting {
				drained := len(pd.queue) == 0 && len(pd.active) == 0
				if drained || c.now.Sub(pd.deletedAt) >= s.spec.TerminationGracePeriod.D() || !pd.isRunning {
					c.remove(pd)
					continue
				}
			}
			kept = append(kept, pd)
		}
		clear(s.pods[len(kept):])
		s.pods = kept
	}
}

func (c *Cluster) remove(pd *pod) {
	c.emit(Event{Kind: EventPodDeleted, Service: pd.svc.name, Pod: pd.name})
	pd.gone = true
	pd.ready = false
	for _, r := range slices.Clone(pd.queue) {
		r.finished = true
		c.respond(r, http.StatusBadGateway, ReasonPodTerminated)
	}
	pd.queue = nil
	for _, r := range slices.Clone(pd.active) {
		c.finish(r, http.StatusBadGateway, ReasonPodTerminated)
	}
	if pd.pool != nil {
		pd.pool.close(c)
	}
}

// scrapeMetrics is metrics-server: every resolution it reads each running pod's cumulative
// CPU and keeps the last two samples.
func (c *Cluster) scrapeMetrics() {
	if c.now.Before(c.msNext) {
		return
	}
	c.msNext = c.msNext.Add(c.p.MetricsServer.Resolution.D())
	for _, s := range c.services {
		for _, pd := range s.pods {
			if !pd.isRunning || pd.gone {
				continue
			}
			smp := msSample{at: c.now, usage: pd.cpu.Stats().Usage}
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
	milli := int64(float64(b.usage-a.usage) / float64(w) * 1000)
	return hpa.PodMetric{Timestamp: b.at, Window: w, Milli: milli}, true
}

func (c *Cluster) syncHPAs() {
	for _, s := range c.services {
		if s.hpa == nil || c.now.Before(s.hpaNext) {
			continue
		}
		s.hpaNext = s.hpaNext.Add(c.p.Controller.SyncPeriod.D())
		in := hpa.Input{SpecReplicas: s.specReplicas, Metrics: map[string]hpa.PodMetric{}}
		for _, pd := range s.pods {
			hp := hpa.Pod{
				Name: pd.name, Phase: hpa.PodPending, Deleting: pd.deleting,
				RequestMilli: int64(s.spec.Resources.Requests.CPU),
			}
			if !c.now.Before(pd.started) {
				hp.Started = pd.started
				hp.HasReadyCondition = true
				hp.ReadyTransition = pd.started
			}
			if pd.isRunning {
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
		d := s.hpa.Sync(c.now, in)
		s.hpaStatus = d.Status
		if d.Rescale {
			c.emit(Event{Kind: EventScaled, Service: s.name, From: int(s.specReplicas), To: int(d.Replicas),
				Reason: d.Status.Reason, Utilization: d.Status.CurrentUtilization})
			s.specReplicas = d.Replicas
		}
	}
}

// readyLag reports whether some Deployment with an HPA has fewer Ready replicas than its
// HPA status currentReplicas, the values Snapshot and kube-state-metrics show.
func (c *Cluster) readyLag() bool {
	for _, s := range c.services {
		if s.hpa == nil {
			continue
		}
		if int32(s.readyReplicas()) < s.hpaStatus.CurrentReplicas {
			return true
		}
	}
	return false
}

// readyReplicas counts the Ready pods that are not terminating (Deployment
// status.readyReplicas).
func (s *service) readyReplicas() int {
	n := 0
	for _, pd := range s.pods {
		if pd.ready && !pd.gone && !pd.deleting {
			n++
		}
	}
	return n
}

func (c *Cluster) dbConnections() int {
	n := 0
	for _, s := range c.services {
		for _, pd := range s.pods {
			if pd.pool != nil {
				n += pd.pool.open
			}
		}
	}
	return n
}
