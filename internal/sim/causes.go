package sim

import (
	"net/http"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/sim/cfs"
)

// Causes of a failed request: the resource the simulator knows made it fail, from its
// own state at the moment it answered (Result.Cause, FailureCount.Cause). They are
// spelt as the report's bottleneck resources (analysis.Resource*), so that the two can
// be compared.
const (
	// CauseCPU: a pod's CPU was saturated (throttled by its CFS quota, or every thread
	// busy) while its requests waited, and no HPA was at its maximum or starting pods.
	CauseCPU = "cpu"
	// CauseReplicas: the service's HPA was at its max replicas while its pods were
	// saturated.
	CauseReplicas = "replicas"
	// CauseStartup: some HPA's current replicas were ahead of its Deployment's Ready
	// replicas (the start-up gap) while the pods were saturated or there were none.
	CauseStartup = "startup"
	// CauseDatabase: the database refused a connection (max_connections), or a
	// request's deadline passed during its query.
	CauseDatabase = "database"
	// CausePool: a query waited for a pool connection longer than pool.timeout, or the
	// request's deadline passed while it waited.
	CausePool = "pool"
	// CauseMemory: a pod's container was OOM-killed holding the request, or the service
	// had no Ready pod (or saturated ones) while an OOM-killed container restarted.
	CauseMemory = "memory"
	// CauseOther: none of the above (a scale-in's terminated pod, a failure with no
	// saturated resource).
	CauseOther = "other"
)

// cause is the resource that made r fail with reason, read from the cluster's state now.
func (c *Cluster) cause(r *request, reason string) string {
	switch reason {
	case ReasonOOMKilled:
		return CauseMemory
	case ReasonPoolTimeout:
		return CausePool
	case ReasonDBConnections:
		return CauseDatabase
	case ReasonNoEndpoints:
		switch {
		case r.svc.restartingAfterOOM():
			return CauseMemory
		case c.lagged:
			return CauseStartup
		}
		return CauseOther
	case ReasonQueueFull, ReasonQueueTimeout, ReasonTimeout, ReasonRouteTimeout, ReasonOverflow:
		// A request refused, or whose deadline passed: what held it.
		switch r.stage {
		case stageDBWait:
			return CausePool
		case stageDB:
			if r.q != nil {
				return CauseDatabase
			}
		case stageCall:
			if r.callIdx > 0 {
				return c.saturation(r.ep.calls[r.callIdx-1].svc, nil)
			}
		}
		return c.saturation(r.svc, r.pod)
	}
	return CauseOther
}

// saturation is why the saturated pod pd of svc (any of its pods when nil) could not
// take a request now: an OOM-killed container restarting, the start-up gap, the HPA at
// its max replicas, or the pod's CPU.
func (c *Cluster) saturation(svc *service, pd *pod) string {
	switch {
	case svc.restartingAfterOOM():
		return CauseMemory
	case c.lagged:
		return CauseStartup
	case svc.hpa != nil && svc.specReplicas >= svc.hpa.Spec().MaxReplicas:
		return CauseReplicas
	case pd != nil && c.cpuSaturated(pd):
		return CauseCPU
	case pd == nil && slices.ContainsFunc(svc.pods, c.cpuSaturated):
		return CauseCPU
	}
	return CauseOther
}

// cpuSaturatedWithin is how recently a pod's CPU must have been saturated to count as
// saturated now: one CFS period (a throttled pod runs at the start of each period and is
// throttled for the rest of it) and one step.
const cpuSaturatedWithin = cfs.DefaultPeriod + StepDuration

func (c *Cluster) cpuSaturated(pd *pod) bool {
	return !pd.cpuSatAt.IsZero() && c.now.Sub(pd.cpuSatAt) <= cpuSaturatedWithin
}

// restartingAfterOOM reports whether one of the service's pods is not Ready because its
// container was OOM-killed.
func (s *service) restartingAfterOOM() bool {
	return slices.ContainsFunc(s.pods, func(pd *pod) bool { return pd.oomKilled && !pd.ready && !pd.gone && !pd.deleting })
}

// workingSet is the container's working set: memory.base plus memory.per_request for
// every request the pod holds (queued or in progress), as cAdvisor shows it.
func (pd *pod) workingSet() float64 {
	m := pd.svc.spec.Memory
	return float64(m.Base) + float64(m.PerRequest)*float64(len(pd.queue)+len(pd.active))
}

// checkMemory OOM-kills the pod's container when its working set reaches its memory
// limit.
func (c *Cluster) checkMemory(pd *pod) {
	lim := pd.svc.spec.Resources.Limits.Memory
	if lim <= 0 || !pd.isRunning || len(pd.queue)+len(pd.active) == 0 || pd.workingSet() < float64(lim) {
		return
	}
	c.oomKill(pd)
}

// Container restart back-off of the kubelet: the first restart is at once, then 10s,
// doubling up to 5 minutes (kubelet's backOffPeriod and MaxContainerBackOff).
const (
	restartBackOff    = 10 * time.Second
	maxRestartBackOff = 5 * time.Minute
)

// oomKill kills the pod's container as the kernel's OOM killer does at its memory limit:
// every request it holds fails (502, ReasonOOMKilled), its pool's connections close,
// the pod is not Ready, and the kubelet restarts the container (restart count +1, last
// termination OOMKilled) after its back-off; it is Ready again once the app has started
// and its readiness probe passed, with its working set back to memory.base.
func (c *Cluster) oomKill(pd *pod) {
	pd.restarts++
	pd.oomKilled = true
	pd.ready = false
	if pd.pool != nil {
		// The process is gone: its connections close with it (before the requests
		// end, so that none is handed to a waiter).
		pd.pool.close(c)
	}
	for _, r := range slices.Clone(pd.queue) {
		r.finished = true
		c.respond(r, http.StatusBadGateway, ReasonOOMKilled)
	}
	pd.queue = nil
	for _, r := range slices.Clone(pd.active) {
		c.finish(r, http.StatusBadGateway, ReasonOOMKilled)
	}
	pd.active, pd.cpuReqs = nil, nil
	backOff := time.Duration(0)
	if pd.restarts > 1 {
		backOff = min(restartBackOff<<min(pd.restarts-2, 16), maxRestartBackOff)
	}
	st := pd.svc.spec.Startup
	pd.running = c.now.Add(backOff)
	pd.appUp = pd.running.Add(c.draw(st.AppStart))
	pd.readyAt = readyTime(st.Readiness, pd.running, pd.appUp)
	c.emit(Event{Kind: EventOOMKilled, Service: pd.svc.name, Pod: pd.name, StartUp: pd.readyAt.Sub(c.now)})
}
