package hpa

import (
	"errors"
	"math"
	"time"
)

// Errors returned by a sync whose metric could not be computed. The controller then keeps
// the previous desired replicas and does not scale.
var (
	ErrNoPods    = errors.New("no pods returned by selector while calculating replica count")
	ErrNoMetrics = errors.New("did not receive metrics for targeted pods (pods might be unready)")
)

type tolerances struct{ down, up float64 }

func (t tolerances) within(r float64) bool { return 1.0-t.down <= r && r <= 1.0+t.up }

// groupPods is replica_calculator.go's groupPods for the cpu resource.
func groupPods(now time.Time, pods []Pod, metrics map[string]PodMetric, cfg Config) (ready int, unready, missing, ignored map[string]bool) {
	unready, missing, ignored = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range pods {
		if p.Deleting || p.Phase == PodFailed {
			ignored[p.Name] = true
			continue
		}
		if p.Phase == PodPending {
			unready[p.Name] = true
			continue
		}
		m, ok := metrics[p.Name]
		if !ok {
			missing[p.Name] = true
			continue
		}
		var isUnready bool
		if !p.HasReadyCondition || p.Started.IsZero() {
			isUnready = true
		} else if p.Started.Add(cfg.CPUInitializationPeriod).After(now) {
			// Still within the initialisation period: ignore the sample if the pod is unready
			// or one full metric window has not been collected since the last transition.
			isUnready = !p.Ready || m.Timestamp.Before(p.ReadyTransition.Add(m.Window))
		} else {
			// Ignore the metric if the pod is unready and has never been ready.
			isUnready = !p.Ready && p.Started.Add(cfg.InitialReadinessDelay).After(p.ReadyTransition)
		}
		if isUnready {
			unready[p.Name] = true
			continue
		}
		ready++
	}
	return ready, unready, missing, ignored
}

// utilizationRatio is metrics.GetResourceUtilizationRatio: utilisation is truncated to a
// whole percent before the ratio is taken.
func utilizationRatio(metrics map[string]int64, requests map[string]int64, target int32) (ratio float64, util int32, avg int64, ok bool) {
	var total, reqTotal int64
	n := 0
	for name, v := range metrics {
		r, has := requests[name]
		if !has {
			continue
		}
		total += v
		reqTotal += r
		n++
	}
	if reqTotal == 0 {
		return 0, 0, 0, false
	}
	util = int32(total * 100 / reqTotal)
	return float64(util) / float64(target), util, total / int64(n), true
}

// resourceReplicas is ReplicaCalculator.GetResourceReplicas for cpu with a utilisation
// target. It returns the raw recommendation, the utilisation and the average usage.
func resourceReplicas(now time.Time, current, target int32, tol tolerances, in Input, cfg Config) (int32, int32, int64, error) {
	if len(in.Pods) == 0 {
		return 0, 0, 0, ErrNoPods
	}
	metrics := make(map[string]int64, len(in.Metrics))
	for name, m := range in.Metrics {
		metrics[name] = m.Milli
	}
	// The metrics client only returns metrics for pods matching the selector.
	requests := make(map[string]int64, len(in.Pods))
	known := make(map[string]bool, len(in.Pods))
	for _, p := range in.Pods {
		requests[p.Name] = p.RequestMilli
		known[p.Name] = true
	}
	for name := range metrics {
		if !known[name] {
			delete(metrics, name)
		}
	}
	ready, unready, missing, ignored := groupPods(now, in.Pods, in.Metrics, cfg)
	for name := range ignored {
		delete(metrics, name)
	}
	for name := range unready {
		delete(metrics, name)
	}
	if len(metrics) == 0 {
		return 0, 0, 0, ErrNoMetrics
	}
	for _, p := range in.Pods {
		if p.RequestMilli <= 0 {
			return 0, 0, 0, errors.New("missing request for cpu in pod " + p.Name)
		}
	}
	ratio, util, avg, ok := utilizationRatio(metrics, requests, target)
	if !ok {
		return 0, 0, 0, errors.New("no metrics returned matched known pods")
	}
	scaleUpWithUnready := len(unready) > 0 && ratio > 1.0
	if !scaleUpWithUnready && len(missing) == 0 {
		if tol.within(ratio) {
			return current, util, avg, nil
		}
		return int32(math.Ceil(ratio * float64(ready))), util, avg, nil
	}
	if len(missing) > 0 {
		if ratio < 1.0 {
			fallback := int64(max(100, target))
			for name := range missing {
				metrics[name] = requests[name] * fallback / 100
			}
		} else if ratio > 1.0 {
			for name := range missing {
				metrics[name] = 0
			}
		}
	}
	if scaleUpWithUnready {
		for name := range unready {
			metrics[name] = 0
		}
	}
	newRatio, _, _, _ := utilizationRatio(metrics, requests, target)
	if tol.within(newRatio) || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		return current, util, avg, nil
	}
	newReplicas := int32(math.Ceil(newRatio * float64(len(metrics))))
	if (newRatio < 1.0 && newReplicas > current) || (newRatio > 1.0 && newReplicas < current) {
		return current, util, avg, nil
	}
	return newReplicas, util, avg, nil
}
