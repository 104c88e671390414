package sim

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/sim/cfs"
)

// Snapshot is a copy of the cluster's observable state at one instant: what
// kube-state-metrics, cAdvisor and CloudWatch would report. It shares no memory with
// the cluster.
type Snapshot struct {
	At          time.Time
	Namespace   string
	Node        string
	Deployments []DeploymentSnapshot
	Pods        []PodSnapshot
	// Database is nil when the profile has none.
	Database *DatabaseSnapshot
	// Responses is the simulator's ground truth on the answers it sent.
	Responses Responses
}

// Responses counts the answers to requests submitted from outside the cluster (Submit,
// SubmitPath and so the Server's service endpoints; not the calls between services),
// from the cluster's start to Snapshot.At. A request counts once, when its answer is sent
// (Submit's time plus Result.Latency), whether or not the client still waits for it; the
// requests not answered yet are not counted.
//
// An answer is in the start-up gap when, at the simulated instant it is sent, some
// Deployment with an HPA has fewer Ready replicas than its HPA's status currentReplicas:
// exactly when a Snapshot taken at that instant has a DeploymentSnapshot with
// ReadyReplicas < HPA.CurrentReplicas (kube-state-metrics'
// kube_deployment_status_replicas_ready below
// kube_horizontalpodautoscaler_status_current_replicas). The HPA writes currentReplicas
// as the spec.replicas it found at a sync, so a gap opens at the sync after a scale-up
// (and, for up to one sync period, after a scale-in too: terminating pods stop counting as
// Ready at once).
type Responses struct {
	ResponseTotals
	// StartupGap is the simulated time in the start-up gap: StepDuration for each step at
	// whose end a Snapshot shows a gap.
	StartupGap time.Duration
	// Services has the totals of each service the requests were submitted to, in profile
	// order (services with no answers included).
	Services []ServiceResponses
	// Counts splits the answers by service, status code and gap, ordered by service
	// (profile order), code and gap (false first); only non-zero counts appear.
	Counts []ResponseCount
	// Failures splits the failed answers (status 500 or more) by service, reason and
	// cause, ordered by the first one's time. The in-memory simulator judges every
	// failure; the process runtime those its pods name (workload.FailureHeader: the
	// queue, the pool, the database) and its load balancer's own (no Ready pod), the
	// others are "other".
	Failures []FailureCount
}

// FailureCount is the simulator's own account of the failed answers of one service with
// one Result.Reason and one Result.Cause (a Cause* constant): how many, and the simulated
// time the first was answered.
type FailureCount struct {
	Service string
	Reason  string
	Cause   string
	Count   int
	First   time.Time
}

// ResponseTotals are counts of answers.
type ResponseTotals struct {
	// Total is every answer.
	Total int
	// Failed is the answers with a status of 500 or more.
	Failed int
	// FailedInStartupGap is the failed answers sent in the start-up gap.
	FailedInStartupGap int
	// InStartupGap is every answer sent in the start-up gap.
	InStartupGap int
}

func (t *ResponseTotals) add(status int, gap bool, n int) {
	t.Total += n
	if gap {
		t.InStartupGap += n
	}
	if status >= 500 {
		t.Failed += n
		if gap {
			t.FailedInStartupGap += n
		}
	}
}

// ServiceResponses are the totals of one service.
type ServiceResponses struct {
	Service string
	ResponseTotals
}

// ResponseCount is the number of answers of one service with one status code, in or out
// of the start-up gap.
type ResponseCount struct {
	Service    string
	Code       int
	StartupGap bool
	Count      int
}

// responsesSnapshot copies the response counters.
func (c *Cluster) responsesSnapshot() Responses {
	r := Responses{StartupGap: c.gapTime, Services: make([]ServiceResponses, len(c.services))}
	for i, svc := range c.services {
		r.Services[i].Service = svc.name
	}
	keys := slices.SortedFunc(maps.Keys(c.responses), func(a, b responseKey) int {
		return cmp.Or(cmp.Compare(a.svc, b.svc), cmp.Compare(a.status, b.status), cmp.Compare(boolInt(a.gap), boolInt(b.gap)))
	})
	for _, k := range keys {
		n := c.responses[k]
		r.add(k.status, k.gap, n)
		r.Services[k.svc].add(k.status, k.gap, n)
		r.Counts = append(r.Counts, ResponseCount{Service: c.services[k.svc].name, Code: k.status, StartupGap: k.gap, Count: n})
	}
	for k, f := range c.failures {
		r.Failures = append(r.Failures, FailureCount{Service: c.services[k.svc].name, Reason: k.reason, Cause: k.cause, Count: f.n, First: f.first})
	}
	slices.SortFunc(r.Failures, func(a, b FailureCount) int {
		return cmp.Or(a.First.Compare(b.First), cmp.Compare(a.Service, b.Service), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Cause, b.Cause))
	})
	return r
}

// DeploymentSnapshot is one Deployment, its ReplicaSet and its HPA.
type DeploymentSnapshot struct {
	Name, ReplicaSet, Image string
	SpecReplicas            int
	Replicas                int // non-terminating pods
	ReadyReplicas           int
	AvailableReplicas       int // minReadySeconds is 0: the ready ones
	// HPA is nil when the Deployment has no autoscaler.
	HPA *HPASnapshot
}

// HPASnapshot is an HPA's spec and last written status.
type HPASnapshot struct {
	MinReplicas, MaxReplicas, TargetCPUUtilization int32
	CurrentReplicas, DesiredReplicas               int32
	// MetricValid is false while the controller could not compute the cpu metric.
	MetricValid         bool
	CurrentUtilization  int32
	CurrentAverageCores float64
	LastScaleTime       time.Time
	// Reason is the controller's last AbleToScale/ScalingLimited reason.
	Reason string
}

// PodSnapshot is one pod with its single container.
type PodSnapshot struct {
	Name, UID, Deployment, ReplicaSet, IP, ContainerID, Image string
	Created                                                   time.Time
	// Started is status.startTime; zero until the kubelet has accepted the pod.
	Started time.Time
	// Running is true once the container started (phase Running), else phase is Pending.
	Running bool
	Ready   bool
	// ReadyTime is the Ready condition's last transition to True (valid when Ready).
	ReadyTime   time.Time
	Terminating bool
	// Resources.
	CPURequestCores, CPULimitCores       float64
	MemoryRequestBytes, MemoryLimitBytes int64
	// Container usage, cAdvisor-style.
	CPUUsageSeconds       float64
	CFS                   cfs.Stats
	CFSQuota, CFSPeriod   time.Duration // zero quota: no limit
	MemoryWorkingSetBytes float64
	// Restarts is the container's restart count; LastTerminatedReason is its last
	// termination's reason ("OOMKilled"), empty while it has not terminated.
	Restarts             int
	LastTerminatedReason string
	// Load inside the pod.
	Queued, InFlight int
}

// DatabaseSnapshot is the RDS-like instance.
type DatabaseSnapshot struct {
	Identifier, InstanceClass, Region string
	Burstable                         bool
	// Published is false until the first CloudWatch period has ended.
	Published  bool
	CloudWatch CloudWatchValues
	// Live values (not what CloudWatch shows).
	Connections      int
	CPUCreditBalance float64
	ActiveQueries    int
}

// Snapshot copies the observable state.
func (c *Cluster) Snapshot() Snapshot {
	s := Snapshot{At: c.now, Namespace: c.p.Namespace, Node: c.p.Node.Name}
	for _, svc := range c.services {
		s.Deployments = append(s.Deployments, svc.snapshot())
		for _, pd := range svc.pods {
			if !pd.gone {
				s.Pods = append(s.Pods, c.podSnapshot(pd))
			}
		}
	}
	if db := c.db; db != nil {
		s.Database = &DatabaseSnapshot{
			Identifier: db.spec.Identifier, InstanceClass: db.spec.InstanceClass, Region: db.spec.Region,
			Burstable: db.spec.Credits != nil, Published: db.published, CloudWatch: db.pub,
			Connections: db.conns, CPUCreditBalance: db.credits, ActiveQueries: len(db.queries),
		}
	}
	s.Responses = c.responsesSnapshot()
	return s
}

// Deployment returns one Deployment's state without copying the whole cluster.
func (c *Cluster) Deployment(name string) (DeploymentSnapshot, bool) {
	svc, ok := c.byName[name]
	if !ok {
		return DeploymentSnapshot{}, false
	}
	return svc.snapshot(), true
}

func (svc *service) snapshot() DeploymentSnapshot {
	d := DeploymentSnapshot{Name: svc.name, ReplicaSet: svc.rsName, Image: svc.spec.Image, SpecReplicas: int(svc.specReplicas)}
	for _, pd := range svc.pods {
		if pd.gone || pd.deleting {
			continue
		}
		d.Replicas++
		if pd.ready {
			d.ReadyReplicas++
		}
	}
	d.AvailableReplicas = d.ReadyReplicas
	if svc.hpa != nil {
		sp := svc.hpa.Spec()
		st := svc.hpaStatus
		d.HPA = &HPASnapshot{
			MinReplicas: sp.MinReplicas, MaxReplicas: sp.MaxReplicas, TargetCPUUtilization: sp.TargetCPUUtilization,
			CurrentReplicas: st.CurrentReplicas, DesiredReplicas: st.DesiredReplicas,
			MetricValid: st.MetricValid, CurrentUtilization: st.CurrentUtilization,
			CurrentAverageCores: float64(st.CurrentAverageMilli) / 1000, LastScaleTime: st.LastScaleTime,
			Reason: st.Reason,
		}
	}
	return d
}

func (c *Cluster) podSnapshot(pd *pod) PodSnapshot {
	svc := pd.svc
	ps := PodSnapshot{
		Name: pd.name, UID: pd.uid, Deployment: svc.name, ReplicaSet: svc.rsName, IP: pd.ip,
		ContainerID: pd.cid, Image: svc.spec.Image, Created: pd.created,
		Running: pd.isRunning, Ready: pd.ready, Terminating: pd.deleting,
		CPURequestCores:    float64(svc.spec.Resources.Requests.CPU) / 1000,
		CPULimitCores:      float64(svc.spec.Resources.Limits.CPU) / 1000,
		MemoryRequestBytes: int64(svc.spec.Resources.Requests.Memory),
		MemoryLimitBytes:   int64(svc.spec.Resources.Limits.Memory),
		CFS:                pd.cpu.Stats(),
		CFSQuota:           pd.cpu.Bandwidth().Quota,
		CFSPeriod:          pd.cpu.Bandwidth().Period,
		Queued:             len(pd.queue),
		Restarts:           pd.restarts,
		InFlight:           len(pd.active),
	}
	if pd.oomKilled {
		ps.LastTerminatedReason = "OOMKilled"
	}
	if !c.now.Before(pd.started) {
		ps.Started = pd.started
	}
	if pd.ready {
		ps.ReadyTime = pd.readyAt
	}
	ps.CPUUsageSeconds = ps.CFS.Usage.Seconds()
	if pd.isRunning {
		ps.MemoryWorkingSetBytes = pd.workingSet()
		if lim := svc.spec.Resources.Limits.Memory; lim > 0 {
			ps.MemoryWorkingSetBytes = min(ps.MemoryWorkingSetBytes, float64(lim))
		}
	}
	return ps
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
