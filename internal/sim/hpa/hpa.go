// Package hpa reproduces the decisions of the Kubernetes HorizontalPodAutoscaler controller
// for a CPU-utilisation target: pod grouping (unready, missing, ignored), integer-truncated
// utilisation, tolerance, both normalisation paths (legacy without behavior, and
// stabilisation windows with scaling policies) and the status it writes.
//
// It follows pkg/controller/podautoscaler (horizontal.go, replica_calculator.go) closely so
// that table tests can be computed by hand from the controller's code paths. Time is passed
// in by the caller; the package never reads a clock.
package hpa

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// PolicyType is the kind of a scaling policy.
type PolicyType string

// Scaling policy types, as in autoscaling/v2.
const (
	PodsPolicy    PolicyType = "Pods"
	PercentPolicy PolicyType = "Percent"
)

// SelectPolicy chooses among the proposals of several policies.
type SelectPolicy string

// Policy selection modes, as in autoscaling/v2.
const (
	SelectMax      SelectPolicy = "Max"
	SelectMin      SelectPolicy = "Min"
	SelectDisabled SelectPolicy = "Disabled"
)

// Policy is one HPAScalingPolicy.
type Policy struct {
	Type          PolicyType
	Value         int32
	PeriodSeconds int32
}

// Rules is one direction of HorizontalPodAutoscalerBehavior (HPAScalingRules).
// Nil pointer fields take the Kubernetes defaults when the behavior is normalised.
type Rules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               SelectPolicy
	Policies                   []Policy
	// Tolerance overrides the controller-wide tolerance for this direction
	// (feature gate HPAConfigurableTolerance).
	Tolerance *float64
}

// Behavior is spec.behavior. A nil *Behavior selects the legacy normalisation path.
type Behavior struct {
	ScaleUp   *Rules
	ScaleDown *Rules
}

// Spec is the part of an HPA spec the simulator supports: one Resource metric, cpu,
// with an averageUtilization target.
type Spec struct {
	MinReplicas          int32
	MaxReplicas          int32
	TargetCPUUtilization int32
	Behavior             *Behavior
}

// Config holds the kube-controller-manager flags that shape the controller.
type Config struct {
	SyncPeriod              time.Duration // --horizontal-pod-autoscaler-sync-period
	Tolerance               float64       // --horizontal-pod-autoscaler-tolerance
	CPUInitializationPeriod time.Duration // --horizontal-pod-autoscaler-cpu-initialization-period
	InitialReadinessDelay   time.Duration // --horizontal-pod-autoscaler-initial-readiness-delay
	DownscaleStabilization  time.Duration // --horizontal-pod-autoscaler-downscale-stabilization
}

// DefaultConfig is kube-controller-manager's default (config/v1alpha1/defaults.go).
var DefaultConfig = Config{
	SyncPeriod:              15 * time.Second,
	Tolerance:               0.1,
	CPUInitializationPeriod: 5 * time.Minute,
	InitialReadinessDelay:   30 * time.Second,
	DownscaleStabilization:  5 * time.Minute,
}

// Phase is a pod phase.
type Phase string

// Pod phases used by the controller.
const (
	PodPending Phase = "Pending"
	PodRunning Phase = "Running"
	PodFailed  Phase = "Failed"
)

// Pod is what the controller reads from a pod.
type Pod struct {
	Name     string
	Phase    Phase
	Deleting bool      // metadata.deletionTimestamp != nil
	Started  time.Time // status.startTime; zero means unset
	// HasReadyCondition is false when the PodReady condition is absent.
	HasReadyCondition bool
	Ready             bool
	// ReadyTransition is the PodReady condition's lastTransitionTime.
	ReadyTransition time.Time
	// RequestMilli is the sum of the containers' cpu requests in millicores.
	RequestMilli int64
}

// PodMetric is one pod's entry from the resource metrics API (metrics-server).
type PodMetric struct {
	Timestamp time.Time
	Window    time.Duration
	// Milli is the pod's cpu usage in millicores, summed over its containers.
	Milli int64
}

// Input is what one sync observes.
type Input struct {
	// SpecReplicas is the scale subresource's spec.replicas of the target.
	SpecReplicas int32
	Pods         []Pod
	Metrics      map[string]PodMetric
}

// Status is the HPA status written by a sync.
type Status struct {
	CurrentReplicas int32
	DesiredReplicas int32
	// MetricValid reports whether the current metric below was computed.
	MetricValid bool
	// CurrentUtilization is status.currentMetrics[].resource.current.averageUtilization.
	CurrentUtilization int32
	// CurrentAverageMilli is status.currentMetrics[].resource.current.averageValue in millicores.
	CurrentAverageMilli int64
	LastScaleTime       time.Time
	// Reason is the last AbleToScale/ScalingLimited reason, for logs and tests.
	Reason string
}

// Decision is the result of one sync.
type Decision struct {
	// Rescale is true when the controller updated the target's spec.replicas to Replicas.
	Rescale  bool
	Replicas int32
	// Raw is the metric recommendation before normalisation (-1 when the metric failed).
	Raw    int32
	Status Status
	Err    error
}

type timestamped struct {
	value int32
	at    time.Time
}

type scaleEvent struct {
	change   int32
	at       time.Time
	outdated bool
}

// Controller holds one HPA's controller state: recommendations history, scale events and
// the last written status. It is not safe for concurrent use.
type Controller struct {
	spec            Spec
	cfg             Config
	recommendations []timestamped
	upEvents        []scaleEvent
	downEvents      []scaleEvent
	status          Status
	initialised     bool
}

// NewController validates spec, fills behavior defaults the way the API server does, and
// returns a controller with no history.
func NewController(spec Spec, cfg Config) (*Controller, error) {
	if spec.MinReplicas == 0 {
		spec.MinReplicas = 1 // API default, also what kube-state-metrics reports.
	}
	if spec.MinReplicas < 0 || spec.MaxReplicas < spec.MinReplicas {
		return nil, fmt.Errorf("invalid replicas bounds min=%d max=%d", spec.MinReplicas, spec.MaxReplicas)
	}
	if spec.TargetCPUUtilization <= 0 {
		return nil, errors.New("target cpu utilization must be positive")
	}
	if cfg.Tolerance < 0 {
		return nil, errors.New("tolerance must not be negative")
	}
	if spec.Behavior != nil {
		b, err := defaultBehavior(*spec.Behavior, cfg)
		if err != nil {
			return nil, err
		}
		spec.Behavior = &b
	}
	return &Controller{spec: spec, cfg: cfg}, nil
}

// Settle writes the status an HPA has when it has been running for a while with its target
// steady at replicas: its last sync found current = desired = replicas. utilization and
// averageMilli are the current metric it read (percent of the request, millicores per pod);
// a negative utilization leaves the metric unknown. The recommendation history still starts
// at the first Sync. Call it before the first Sync, so that a sync whose metric fetch fails
// keeps a desired count that is the Deployment's and not zero.
func (c *Controller) Settle(replicas, utilization int32, averageMilli int64) Status {
	c.status = Status{CurrentReplicas: replicas, DesiredReplicas: replicas}
	if utilization >= 0 {
		c.status.MetricValid, c.status.CurrentUtilization, c.status.CurrentAverageMilli = true, utilization, averageMilli
	}
	return c.status
}

// Spec returns the normalised spec (with behavior defaults filled in).
func (c *Controller) Spec() Spec { return c.spec }

// Status returns the status written by the last sync.
func (c *Controller) Status() Status { return c.status }

// defaultBehavior fills a non-nil behavior as pkg/apis/autoscaling/v2/defaults.go and the
// controller's maybeInitScaleDownStabilizationWindow do.
func defaultBehavior(b Behavior, cfg Config) (Behavior, error) {
	up := Rules{}
	if b.ScaleUp != nil {
		up = *b.ScaleUp
	}
	if up.StabilizationWindowSeconds == nil {
		up.StabilizationWindowSeconds = new(int32(0))
	}
	if up.SelectPolicy == "" {
		up.SelectPolicy = SelectMax
	}
	if len(up.Policies) == 0 {
		up.Policies = []Policy{{PodsPolicy, 4, 15}, {PercentPolicy, 100, 15}}
	}
	down := Rules{}
	if b.ScaleDown != nil {
		down = *b.ScaleDown
	}
	if down.StabilizationWindowSeconds == nil {
		down.StabilizationWindowSeconds = new(int32(cfg.DownscaleStabilization / time.Second))
	}
	if down.SelectPolicy == "" {
		down.SelectPolicy = SelectMax
	}
	if len(down.Policies) == 0 {
		down.Policies = []Policy{{PercentPolicy, 100, 15}}
	}
	for _, r := range []*Rules{&up, &down} {
		if *r.StabilizationWindowSeconds < 0 || *r.StabilizationWindowSeconds > 3600 {
			return Behavior{}, fmt.Errorf("stabilization window %ds out of range [0, 3600]", *r.StabilizationWindowSeconds)
		}
		switch r.SelectPolicy {
		case SelectMax, SelectMin, SelectDisabled:
		default:
			return Behavior{}, fmt.Errorf("unknown select policy %q (want Max, Min or Disabled)", r.SelectPolicy)
		}
		for _, p := range r.Policies {
			if p.Type != PodsPolicy && p.Type != PercentPolicy {
				return Behavior{}, fmt.Errorf("unknown policy type %q (want Pods or Percent)", p.Type)
			}
			if p.Value <= 0 {
				return Behavior{}, fmt.Errorf("policy value %d must be positive", p.Value)
			}
			if p.PeriodSeconds <= 0 || p.PeriodSeconds > 1800 {
				return Behavior{}, fmt.Errorf("policy period %ds out of range (0, 1800]", p.PeriodSeconds)
			}
		}
		if r.Tolerance != nil && *r.Tolerance < 0 {
			return Behavior{}, errors.New("tolerance must not be negative")
		}
	}
	return Behavior{ScaleUp: &up, ScaleDown: &down}, nil
}

// tolerances returns the scale-down and scale-up tolerances.
func (c *Controller) tolerances() (down, up float64) {
	down, up = c.cfg.Tolerance, c.cfg.Tolerance
	if b := c.spec.Behavior; b != nil {
		if b.ScaleDown.Tolerance != nil {
			down = *b.ScaleDown.Tolerance
		}
		if b.ScaleUp.Tolerance != nil {
			up = *b.ScaleUp.Tolerance
		}
	}
	return down, up
}

// Sync runs one reconcileAutoscaler at now.
func (c *Controller) Sync(now time.Time, in Input) Decision {
	current := in.SpecReplicas
	if !c.initialised {
		// recordInitialRecommendation
		c.recommendations = []timestamped{{current, now}}
		c.initialised = true
	}
	minReplicas := c.spec.MinReplicas
	var desired int32
	raw := int32(-1)
	rescale := true
	reason := ""
	switch {
	case current == 0 && minReplicas != 0:
		desired, rescale, reason = 0, false, "ScalingDisabled"
	case current > c.spec.MaxReplicas:
		desired, reason = c.spec.MaxReplicas, "TooManyReplicas"
	case current < minReplicas:
		desired, reason = minReplicas, "TooFewReplicas"
	default:
		down, up := c.tolerances()
		r, util, avg, err := resourceReplicas(now, current, c.spec.TargetCPUUtilization, tolerances{down, up}, in, c.cfg)
		if err != nil {
			// computeReplicasForMetrics failed for the only metric: status keeps the
			// previous desired replicas and the metric is reported as unknown.
			c.status.CurrentReplicas = current
			c.status.MetricValid = false
			c.status.Reason = "FailedGetResourceMetric"
			return Decision{Replicas: current, Raw: -1, Status: c.status, Err: err}
		}
		c.status.MetricValid, c.status.CurrentUtilization, c.status.CurrentAverageMilli = true, util, avg
		raw = r
		if c.spec.Behavior == nil {
			desired, reason = c.normalize(now, current, r, minReplicas)
		} else {
			desired, reason = c.normalizeWithBehavior(now, current, r, minReplicas)
		}
		rescale = desired != current
	}
	if rescale {
		c.storeScaleEvent(now, current, desired)
		c.status.LastScaleTime = now
	} else {
		desired = current
	}
	c.status.CurrentReplicas = current
	c.status.DesiredReplicas = desired
	c.status.Reason = reason
	return Decision{Rescale: rescale, Replicas: desired, Raw: raw, Status: c.status}
}

// normalize is normalizeDesiredReplicas: max-stabilisation over the downscale window, then
// convertDesiredReplicasWithRules.
func (c *Controller) normalize(now time.Time, current, raw, minReplicas int32) (int32, string) {
	stabilized := raw
	cutoff := now.Add(-c.cfg.DownscaleStabilization)
	oldIdx := -1
	for i, rec := range c.recommendations {
		if rec.at.Before(cutoff) {
			oldIdx = i
		} else if rec.value > stabilized {
			stabilized = rec.value
		}
	}
	c.recordRecommendation(oldIdx, raw, now)
	reason := "ReadyForNewScale"
	if stabilized != raw {
		reason = "ScaleDownStabilized"
	}
	// convertDesiredReplicasWithRules
	scaleUpLimit := int32(math.Max(2.0*float64(current), 4.0))
	maxAllowed, limitReason := c.spec.MaxReplicas, "TooManyReplicas"
	if c.spec.MaxReplicas > scaleUpLimit {
		maxAllowed, limitReason = scaleUpLimit, "ScaleUpLimit"
	}
	switch {
	case stabilized < minReplicas:
		return minReplicas, "TooFewReplicas"
	case stabilized > maxAllowed:
		return maxAllowed, limitReason
	}
	return stabilized, reason
}

// normalizeWithBehavior is normalizeDesiredReplicasWithBehaviors.
func (c *Controller) normalizeWithBehavior(now time.Time, current, raw, minReplicas int32) (int32, string) {
	b := c.spec.Behavior
	upRec, downRec := raw, raw
	upCutoff := now.Add(-time.Duration(*b.ScaleUp.StabilizationWindowSeconds) * time.Second)
	downCutoff := now.Add(-time.Duration(*b.ScaleDown.StabilizationWindowSeconds) * time.Second)
	oldIdx := -1
	for i, rec := range c.recommendations {
		if rec.at.After(upCutoff) {
			upRec = min(rec.value, upRec)
		}
		if rec.at.After(downCutoff) {
			downRec = max(rec.value, downRec)
		}
		if rec.at.Before(upCutoff) && rec.at.Before(downCutoff) {
			oldIdx = i
		}
	}
	// Clamp current into [upRec, downRec], as the controller's stabilizeRecommendationWithBehaviors.
	stabilized := min(max(current, upRec), downRec)
	c.recordRecommendation(oldIdx, raw, now)
	reason := "ReadyForNewScale"
	if stabilized != raw {
		if raw > current {
			reason = "ScaleUpStabilized"
		} else {
			reason = "ScaleDownStabilized"
		}
	}
	// convertDesiredReplicasWithBehaviorRate
	switch {
	case stabilized > current:
		limit := max(scaleUpLimit(now, current, c.upEvents, c.downEvents, b.ScaleUp), current)
		maxAllowed, why := c.spec.MaxReplicas, "TooManyReplicas"
		if maxAllowed > limit {
			maxAllowed, why = limit, "ScaleUpLimit"
		}
		if stabilized > maxAllowed {
			return maxAllowed, why
		}
	case stabilized < current:
		limit := min(scaleDownLimit(now, current, c.upEvents, c.downEvents, b.ScaleDown), current)
		minAllowed, why := minReplicas, "TooFewReplicas"
		if minAllowed < limit {
			minAllowed, why = limit, "ScaleDownLimit"
		}
		if stabilized < minAllowed {
			return minAllowed, why
		}
	}
	return stabilized, reason
}

func changeInPeriod(now time.Time, periodSeconds int32, events []scaleEvent) int32 {
	cutoff := now.Add(-time.Duration(periodSeconds) * time.Second)
	var n int32
	for _, e := range events {
		if e.at.After(cutoff) {
			n += e.change
		}
	}
	return n
}

// scaleUpLimit is the most replicas the scale-up policies allow now (Kubernetes'
// calculateScaleUpLimitWithScalingRules).
func scaleUpLimit(now time.Time, current int32, up, down []scaleEvent, r *Rules) int32 {
	return scaleLimit(now, current, up, down, r, 1)
}

// scaleDownLimit is the fewest replicas the scale-down policies allow now (Kubernetes'
// calculateScaleDownLimitWithBehaviors).
func scaleDownLimit(now time.Time, current int32, up, down []scaleEvent, r *Rules) int32 {
	return scaleLimit(now, current, up, down, r, -1)
}

// scaleLimit applies r's policies in direction dir (1 up, -1 down). Each policy starts
// from the replicas before the changes inside its period and allows its value in pods or
// percent from there. SelectMax picks the policy that allows the largest change, Min the
// smallest; Disabled allows none.
func scaleLimit(now time.Time, current int32, up, down []scaleEvent, r *Rules, dir int32) int32 {
	if r.SelectPolicy == SelectDisabled {
		return current
	}
	// SelectMax takes the policy allowing the most change: the highest limit going up,
	// the lowest going down; SelectMin the opposite.
	higher := (r.SelectPolicy == SelectMin) != (dir > 0)
	pick, result := func(a, b int32) int32 { return max(a, b) }, int32(math.MinInt32)
	if !higher {
		pick, result = func(a, b int32) int32 { return min(a, b) }, math.MaxInt32
	}
	for _, p := range r.Policies {
		start := current - changeInPeriod(now, p.PeriodSeconds, up) + changeInPeriod(now, p.PeriodSeconds, down)
		var proposed int32
		switch {
		case p.Type == PodsPolicy:
			proposed = start + dir*p.Value
		case dir > 0:
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		default:
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
		}
		result = pick(result, proposed)
	}
	return result
}

// recordRecommendation keeps raw as the recommendation at now, in the slot of an
// outdated one (oldIdx) when there is one, as the controller's recommendations list does.
func (c *Controller) recordRecommendation(oldIdx int, raw int32, now time.Time) {
	if oldIdx >= 0 {
		c.recommendations[oldIdx] = timestamped{raw, now}
		return
	}
	c.recommendations = append(c.recommendations, timestamped{raw, now})
}

func longestPeriod(r *Rules) int32 {
	var l int32
	for _, p := range r.Policies {
		l = max(l, p.PeriodSeconds)
	}
	return l
}

// storeScaleEvent records a scale event for the behavior path (the legacy path keeps none).
func (c *Controller) storeScaleEvent(now time.Time, prev, next int32) {
	b := c.spec.Behavior
	if b == nil || prev == next {
		return
	}
	store := func(events []scaleEvent, period int32, change int32) []scaleEvent {
		cutoff := now.Add(-time.Duration(period) * time.Second)
		idx := -1
		for i := range events {
			if events[i].at.Before(cutoff) {
				events[i].outdated = true
			}
			if events[i].outdated {
				idx = i
			}
		}
		e := scaleEvent{change: change, at: now}
		if idx >= 0 {
			events[idx] = e
			return events
		}
		return append(events, e)
	}
	if next > prev {
		c.upEvents = store(c.upEvents, longestPeriod(b.ScaleUp), next-prev)
	} else {
		c.downEvents = store(c.downEvents, longestPeriod(b.ScaleDown), prev-next)
	}
}
