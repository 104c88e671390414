package layouts

import (
	"fmt"
	"strings"
	"time"
)

// Truth is what happened in a fixture, computed by the generator from the timeline that
// writes its series. Times are absolute; the facts a correlator derives should match them
// within the resolution of the source they come from.
type Truth struct {
	// Namespace and TestID select the run and its application.
	Namespace string
	TestID    string
	// Cluster is the value of the cluster label on this copy's series, "" for none.
	Cluster string

	// RunFrom and RunTo are the run's start and end (of the earliest and the latest
	// instance). FirstSample and LastSample are the first and last sample of any of its
	// k6 series (the first push is one push interval after the start).
	RunFrom, RunTo          time.Time
	FirstSample, LastSample time.Time
	Instances               []Instance
	PushInterval            time.Duration
	KSMInterval             time.Duration
	CadvisorInterval        time.Duration
	RDSInterval             time.Duration
	// StartRate and Stages are the scenario as configured (a ramping-arrival-rate in
	// iterations per second), stages relative to RunFrom.
	StartRate float64
	Stages    []Stage
	// LoadStep is when the target jumps 10→50/s; LoadEnd when the ramp-down starts.
	LoadStep, LoadEnd time.Time
	// Requests and Failures are the run's totals (failures: 503 responses).
	Requests, Failures float64

	HPAs      []HPA
	Workloads []Workload
	DB        DB
	// Connections are the database exporter's and the pools' truth (Options.DBExporter,
	// Options.Pool).
	Connections DBTruth
	// FailuresInGaps are the failures while some HPA's desired replicas exceeded its
	// Deployment's ready replicas.
	FailuresInGaps float64
}

// Instance is one load generator of the run (one for Tidemark and K6Only, three for
// ThreeInstances).
type Instance struct {
	ID                      string // instance_id, "" when the series have none
	From, To                time.Time
	FirstSample, LastSample time.Time
	Requests, Failures      float64
}

// Stage is one configured stage, as k6 writes it: reach Target over Duration.
type Stage struct {
	Duration time.Duration
	Target   float64
}

// StagesString renders stages in k6's duration:target syntax (`2m0s:10,0s:50,…`).
func StagesString(stages []Stage) string {
	parts := make([]string, len(stages))
	for i, s := range stages {
		parts[i] = fmt.Sprintf("%s:%g", s.Duration, s.Target)
	}
	return strings.Join(parts, ",")
}

// HPA is one autoscaler's behaviour.
type HPA struct {
	Name, Deployment string
	Min, Max         float64
	Baseline         float64 // replicas before the load step
	// Steps are the changes of desired replicas in order (scale-ups, then the scale-in).
	Steps []ScaleStep
	// MetricCrossedAt is when the CPU utilisation first exceeded the HPA's target.
	MetricCrossedAt   time.Time
	TargetUtilization float64
	// Startups are each new pod's creation-to-ready time, by pod name.
	Startups map[string]time.Duration
}

// ScaleStep is one change of an HPA's desired replicas and when the Deployment's ready
// replicas followed.
type ScaleStep struct {
	From, To  float64
	DesiredAt time.Time
	ReadyAt   time.Time
	// Gap is ReadyAt − DesiredAt for a scale-up (the start-up gap), 0 for a scale-in.
	Gap time.Duration
}

// Workload is one Deployment's CPU.
type Workload struct {
	Name string
	// Request and Limit are per container in cores; Limit 0 is none (no CFS series).
	Request, Limit float64
	// PeakUsage is the highest per-pod CPU usage in cores; PeakThrottled the highest
	// throttled share of CFS periods.
	PeakUsage, PeakThrottled float64
	// HPATarget is the HPA's average-value target in cores, 0 for none.
	HPATarget float64
	Onsets    []Onset
}

// Onset is the first time the throttled share of CFS periods reached Threshold.
type Onset struct {
	Threshold float64
	At        time.Time
	VUs       float64 // active VUs at that time
}

// DB is the RDS instance's behaviour (CloudWatch minutes).
type DB struct {
	Instance             string
	ConnectionsBaseline  float64
	ConnectionsPeak      float64
	ConnectionsGrowth    float64 // peak − baseline
	CPUBaseline, CPUPeak float64
	FreeableMin          float64
	CreditTrend          string // "rising"
}
