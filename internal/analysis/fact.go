// Package analysis holds Tidemark's detectors: pure functions from a timeline to the
// facts people otherwise read off graphs by hand (stages that held, HPA reaction time,
// start-up gaps, throttling onset, DB connection growth, error bursts) and the events
// that mark them on a time axis. Every fact carries its resolution and its evidence;
// missing data gives a note, never a number.
package analysis

import (
	"fmt"
	"time"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Evidence names a series and the sample times a fact was read from.
type Evidence struct {
	Query  string      `json:"query"`
	Series string      `json:"series"`
	Times  []time.Time `json:"times"`
}

// Fact is one derived number or instant. At is set for instants and for values read at a
// moment. Resolution is the sample interval of the source it came from: the fact is
// exact to within it.
type Fact struct {
	Value             float64    `json:"value"`
	Unit              string     `json:"unit"`
	At                time.Time  `json:"at,omitzero"`
	ResolutionSeconds float64    `json:"resolution_seconds"`
	Evidence          []Evidence `json:"evidence,omitempty"`
}

// Units used by facts.
const (
	UnitSeconds  = "seconds"
	UnitTime     = "time" // the fact is the instant At; Value is its unix time
	UnitReplicas = "replicas"
	UnitRatio    = "ratio"
	UnitPerSec   = "per_second"
	UnitCores    = "cores"
	UnitCount    = "count"
	UnitPercent  = "percent"
	UnitBytes    = "bytes"
	UnitVUs      = "vus"
	// UnitScore is a unitless score, such as Cumulative Layout Shift.
	UnitScore = "score"
)

func instant(t time.Time, res time.Duration, ev ...Evidence) *Fact {
	return &Fact{Value: float64(t.Unix()), Unit: UnitTime, At: t, ResolutionSeconds: res.Seconds(), Evidence: ev}
}

func spanFact(d time.Duration, res time.Duration, ev ...Evidence) *Fact {
	return &Fact{Value: d.Seconds(), Unit: UnitSeconds, ResolutionSeconds: res.Seconds(), Evidence: ev}
}

func value(v float64, unit string, at time.Time, res time.Duration, ev ...Evidence) *Fact {
	return &Fact{Value: v, Unit: unit, At: at, ResolutionSeconds: res.Seconds(), Evidence: ev}
}

// between returns the span b − a. Each end is known to within its resolution, so the
// span is known to within their sum.
func between(a, b *Fact) *Fact {
	if a == nil || b == nil {
		return nil
	}
	res := a.ResolutionSeconds + b.ResolutionSeconds
	ev := append(append([]Evidence{}, a.Evidence...), b.Evidence...)
	return &Fact{Value: b.At.Sub(a.At).Seconds(), Unit: UnitSeconds, ResolutionSeconds: res, Evidence: ev}
}

// ev builds evidence from a series and the times that matter.
func ev(query string, s timeline.Series, times ...time.Time) Evidence {
	return Evidence{Query: query, Series: s.String(), Times: times}
}

// Note explains missing or partial data, or a limit of a fact.
type Note struct {
	Level   string `json:"level"` // "missing", "partial" or "info"
	Section string `json:"section"`
	Object  string `json:"object,omitempty"`
	Text    string `json:"text"`
}

// Note levels.
const (
	NoteMissing = "missing"
	NotePartial = "partial"
	NoteInfo    = "info"
)

func note(level, section, object, format string, args ...any) Note {
	return Note{Level: level, Section: section, Object: object, Text: fmt.Sprintf(format, args...)}
}

// Event is a moment on the shared time axis, written back as tidemark_event{kind,object}.
type Event struct {
	At                time.Time `json:"at"`
	Kind              string    `json:"kind"`
	Object            string    `json:"object"`
	Text              string    `json:"text"`
	ResolutionSeconds float64   `json:"resolution_seconds"`
}

// Event kinds.
const (
	EventRunStart        = "run_start"
	EventRunEnd          = "run_end"
	EventStageStart      = "stage_start"
	EventLoadEnd         = "load_end"
	EventMetricCrossed   = "metric_crossed"
	EventScaleUp         = "scale_up"
	EventScaleDown       = "scale_down"
	EventReadyCaughtUp   = "ready_caught_up"
	EventMaxReached      = "max_reached"
	EventScaleInStart    = "scale_in_start"
	EventRecovered       = "recovered_to_min"
	EventThrottlingOnset = "throttling_onset"
	EventErrorBurst      = "error_burst"
	// EventBottleneck is the moment the resource that limited the load saturated
	// (Bottleneck.At); its object is the resource, as in tidemark_run_bottleneck.
	EventBottleneck = "bottleneck"
)

// Config holds the detectors' thresholds (the catalog's defaults).
type Config struct {
	HPATolerance   float64
	ThrottleOnsets []float64
	// ThrottleStageOnset is the share of active CFS periods throttled over a hold of the
	// load from which the workload counts as throttled (WorkloadCPU.StageOnset); 0 = none.
	ThrottleStageOnset float64
	ErrorBurstRatio    float64
	StageAchievedOK    float64
	ErrorRatioOK       float64
	// RateWindows are the rate() windows of the queries, by source (two of the source's
	// own intervals: query.Catalog.RateWindowOf), to explain their lag; nil = not known.
	RateWindows map[string]time.Duration
	// PoolPerPod is the application's DB connection pool per pod; 0 = unknown.
	PoolPerPod float64
	// DBMaxConnections is the RDS instances' max_connections (params.db_max_connections),
	// which CloudWatch does not publish; 0 = unknown.
	DBMaxConnections float64
	// GivenStages, when set, are the run's stages as the user gave them (ParseStages:
	// `tidemark correlate --stages 2m:10,30s:50`), from the run window's start. They
	// replace the tidemark_scenario_target series and inference (Load.StagesSource
	// "given").
	GivenStages []GivenStage
	// GivenStagesUnit is what the given targets count: StageUnitVUs (the default: k6's
	// --stage means ramping-vus) or StageUnitIterations (an arrival rate per second).
	GivenStagesUnit string
	// Bottleneck are the thresholds of the bottleneck rules (the catalog's bottleneck
	// section); zero = query.DefaultBottleneckRules.
	Bottleneck query.BottleneckRules
}

// DefaultConfig matches the embedded catalog's defaults.
var DefaultConfig = Config{
	HPATolerance:       0.1,
	ThrottleOnsets:     []float64{0.05, 0.25},
	ThrottleStageOnset: 0.5,
	ErrorBurstRatio:    0.05,
	StageAchievedOK:    0.95,
	ErrorRatioOK:       0.01,
}

// Query names the detectors read from a timeline: the catalog's (internal/query
// names them, and requires each of Queries).
const (
	QScenarioTarget = query.QScenarioTarget
	// QScenarioTargetInstances is the target per scenario and instance (instance_id), read
	// when the catalog has it: the stages of a run spread over instances are cut from it.
	QScenarioTargetInstances = query.QScenarioTargetInstances
	QHTTPReqs                = query.QHTTPReqs
	QHTTPFailures            = query.QHTTPFailures
	QHTTPReqRate             = query.QHTTPReqRate
	QIterations              = query.QIterations
	QIterationsRaw           = query.QIterationsRaw
	QHTTPReqsRaw             = query.QHTTPReqsRaw
	QDroppedRaw              = query.QDroppedRaw
	QDropped                 = query.QDropped
	QVUs                     = query.QVUs
	QLatencyP50              = query.QLatencyP50
	QLatencyP95              = query.QLatencyP95
	QLatencyP99              = query.QLatencyP99
	QHPADeployment           = query.QHPADeployment
	QHPACurrent              = query.QHPACurrent
	QHPADesired              = query.QHPADesired
	QHPAMin                  = query.QHPAMin
	QHPAMax                  = query.QHPAMax
	QHPATargetMetric         = query.QHPATargetMetric
	QHPAStatusMetric         = query.QHPAStatusMetric
	QHPATolerance            = query.QHPATolerance
	QDeploymentSpec          = query.QDeploymentSpec
	QDeploymentReady         = query.QDeploymentReady
	QPodCreated              = query.QPodCreated
	QPodReadyTime            = query.QPodReadyTime
	QPodReady                = query.QPodReady
	QCPUUsagePod             = query.QCPUUsagePod
	QCPURequestPod           = query.QCPURequestPod
	QCPULimitPod             = query.QCPULimitPod
	QCPUCFSPeriods           = query.QCPUCFSPeriods
	QCPUThrottled            = query.QCPUThrottled
	QRDSCPU                  = query.QRDSCPU
	QRDSConnections          = query.QRDSConnections
	QRDSCreditBalance        = query.QRDSCreditBalance
	QRDSFreeableMem          = query.QRDSFreeableMem
	QPGConnections           = query.QPGConnections
	QPGMaxConnections        = query.QPGMaxConnections
	QMySQLConnections        = query.QMySQLConnections
	QMySQLThreadsRunning     = query.QMySQLThreadsRunning
	QMySQLMaxConnections     = query.QMySQLMaxConnections
	QPoolBusy                = query.QPoolBusy
	QPoolSize                = query.QPoolSize
	QPoolPending             = query.QPoolPending
	QPoolWaits               = query.QPoolWaits
	QMemoryWorkingSet        = query.QMemoryWorkingSet
	QMemoryLimit             = query.QMemoryLimit
	QMemoryOfLimit           = query.QMemoryOfLimit
	QRestarts                = query.QRestarts
	QOOMKilled               = query.QOOMKilled
	QLoadGeneratorCPU        = query.QLoadGeneratorCPU
	QLoadGeneratorCPUCores   = query.QLoadGeneratorCPUCores
	QBrowserScenarios        = query.QBrowserScenarios
)

// Queries returns the names of the queries the detectors read: a catalog must define
// each of them.
func Queries() []string { return query.DetectorQueries() }

// Source names, as in the catalog.
const (
	SourceK6       = query.SourceK6
	SourceKSM      = query.SourceKSM
	SourceCAdvisor = query.SourceCAdvisor
	SourceRDS      = query.SourceRDS
	SourcePostgres = query.SourcePostgres
	SourceMySQL    = query.SourceMySQL
	SourcePool     = query.SourcePool
)

// Sources returns the source names the detectors refer to: a catalog must define each
// of them.
func Sources() []string { return query.RequiredSources() }
