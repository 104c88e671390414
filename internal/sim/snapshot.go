package sim

import (
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
		InFlight:           len(pd.active),
	}
	if !c.now.Before(pd.started) {
		ps.Started = pd.started
	}
	if pd.ready {
		ps.ReadyTime = pd.readyAt
	}
	ps.CPUUsageSeconds = ps.CFS.Usage.Seconds()
	if pd.isRunning {
		ps.MemoryWorkingSetBytes = float64(svc.spec.Memory.Base) + float64(svc.spec.Memory.PerRequest)*float64(len(pd.queue)+len(pd.active))
		if lim := svc.spec.Resources.Limits.Memory; lim > 0 {
			ps.MemoryWorkingSetBytes = min(ps.MemoryWorkingSetBytes, float64(lim))
		}
	}
	return ps
}
