package hpa

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// readyPods returns n Running, Ready pods started an hour before t0 with 100m requests
// and metrics of the given millicores (missing entries have no metric).
func readyPods(milli ...int64) ([]Pod, map[string]PodMetric) {
	var pods []Pod
	metrics := map[string]PodMetric{}
	for i, m := range milli {
		name := fmt.Sprintf("p%d", i)
		pods = append(pods, Pod{
			Name: name, Phase: PodRunning, Started: t0.Add(-time.Hour), HasReadyCondition: true,
			Ready: true, ReadyTransition: t0.Add(-time.Hour + 30*time.Second), RequestMilli: 100,
		})
		if m >= 0 {
			metrics[name] = PodMetric{Timestamp: t0.Add(-5 * time.Second), Window: 15 * time.Second, Milli: m}
		}
	}
	return pods, metrics
}

type step struct {
	at          time.Duration // offset from t0
	replicas    int32         // spec replicas of the target
	milli       []int64       // metrics of ready pods, -1 = missing
	extra       func() ([]Pod, map[string]PodMetric)
	wantDesired int32
	wantRescale bool
	wantReason  string
	wantErr     error
}

func i32(v int32) *int32 { return new(v) }

func TestControllerSync(t *testing.T) {
	t.Parallel()
	unreadyYoung := func(name string, milli int64) (Pod, *PodMetric) {
		return Pod{
			Name: name, Phase: PodRunning, Started: t0.Add(-10 * time.Second), HasReadyCondition: true,
			Ready: false, ReadyTransition: t0.Add(-10 * time.Second), RequestMilli: 100,
		}, &PodMetric{Timestamp: t0.Add(-2 * time.Second), Window: 15 * time.Second, Milli: milli}
	}
	for _, tc := range []struct {
		name  string
		spec  Spec
		steps []step
		// settle is the replicas of a target the HPA has been running with (0: a new HPA).
		settle int32
	}{
		{
			name:  "within tolerance keeps current",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			steps: []step{{replicas: 3, milli: []int64{70, 75, 80}, wantDesired: 3}}, // util 75, ratio 1.071
		},
		{
			name: "utilization truncated to whole percent stays within tolerance",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// 233m/300m = 77.67% -> 77% -> ratio 1.1 exactly: within; untruncated would scale.
			steps: []step{{replicas: 3, milli: []int64{77, 78, 78}, wantDesired: 3}},
		},
		{
			name: "just above tolerance scales on ready pod count",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// 234m/300m = 78% -> ratio 1.114 -> ceil(3.343) = 4.
			steps: []step{{replicas: 3, milli: []int64{78, 78, 78}, wantDesired: 4, wantRescale: true, wantReason: "ReadyForNewScale"}},
		},
		{
			name:  "lower tolerance edge 63 of 70 keeps current",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 70, Behavior: &Behavior{ScaleDown: &Rules{StabilizationWindowSeconds: i32(0)}}},
			steps: []step{{replicas: 10, milli: []int64{63, 63, 63, 63, 63, 63, 63, 63, 63, 63}, wantDesired: 10}},
		},
		{
			name: "below lower tolerance scales down with zero window",
			spec: Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 70, Behavior: &Behavior{ScaleDown: &Rules{StabilizationWindowSeconds: i32(0)}}},
			// 62% -> ratio 0.8857 -> ceil(8.857) = 9.
			steps: []step{{replicas: 10, milli: []int64{62, 62, 62, 62, 62, 62, 62, 62, 62, 62}, wantDesired: 9, wantRescale: true, wantReason: "ReadyForNewScale"}},
		},
		{
			name: "legacy path holds scale-down for the 5 minute window",
			spec: Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 70},
			steps: []step{
				{at: 0, replicas: 10, milli: []int64{62, 62, 62, 62, 62, 62, 62, 62, 62, 62}, wantDesired: 10, wantReason: "ScaleDownStabilized"},
				{at: 5 * time.Minute, replicas: 10, milli: []int64{62, 62, 62, 62, 62, 62, 62, 62, 62, 62}, wantDesired: 10, wantReason: "ScaleDownStabilized"},
				{at: 5*time.Minute + 15*time.Second, replicas: 10, milli: []int64{62, 62, 62, 62, 62, 62, 62, 62, 62, 62}, wantDesired: 9, wantRescale: true, wantReason: "ReadyForNewScale"},
			},
		},
		{
			name: "legacy scale-up limit max(2x, 4): story 1 order 2 to 4 to 5",
			spec: Spec{MinReplicas: 2, MaxReplicas: 5, TargetCPUUtilization: 70},
			steps: []step{
				// 200% -> ratio 2.857 -> ceil(5.71) = 6 -> limit max(4, 4) = 4.
				{at: 0, replicas: 2, milli: []int64{200, 200}, wantDesired: 4, wantRescale: true, wantReason: "ScaleUpLimit"},
				// next sync: 4 ready pods at 150% -> ceil(8.57) = 9 -> limit 8 > max 5 -> 5.
				{at: 15 * time.Second, replicas: 4, milli: []int64{150, 150, 150, 150}, wantDesired: 5, wantRescale: true, wantReason: "TooManyReplicas"},
			},
		},
		{
			name:  "legacy scale-up limit from 1 replica is 4",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 100},
			steps: []step{{replicas: 1, milli: []int64{1000}, wantDesired: 4, wantRescale: true, wantReason: "ScaleUpLimit"}},
		},
		{
			name:  "default behavior from 1 replica allows 5 (Pods 4 beats Percent 100)",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 100, Behavior: &Behavior{}},
			steps: []step{{replicas: 1, milli: []int64{1000}, wantDesired: 5, wantRescale: true, wantReason: "ScaleUpLimit"}},
		},
		{
			name:  "selectPolicy Min picks the smaller scale-up",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 100, Behavior: &Behavior{ScaleUp: &Rules{SelectPolicy: SelectMin}}},
			steps: []step{{replicas: 1, milli: []int64{1000}, wantDesired: 2, wantRescale: true, wantReason: "ScaleUpLimit"}},
		},
		{
			name:  "selectPolicy Disabled never scales up",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 100, Behavior: &Behavior{ScaleUp: &Rules{SelectPolicy: SelectDisabled}}},
			steps: []step{{replicas: 1, milli: []int64{1000}, wantDesired: 1, wantReason: "ScaleUpLimit"}},
		},
		{
			name: "Pods policy period counts earlier scale-ups",
			spec: Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 100, Behavior: &Behavior{ScaleUp: &Rules{Policies: []Policy{{PodsPolicy, 4, 60}}}}},
			steps: []step{
				{at: 0, replicas: 1, milli: []int64{1000}, wantDesired: 5, wantRescale: true, wantReason: "ScaleUpLimit"},
				// 4 pods added within 60 s: period start 1 -> limit 5 = current.
				{at: 15 * time.Second, replicas: 5, milli: []int64{400, 400, 400, 400, 400}, wantDesired: 5, wantReason: "ScaleUpLimit"},
				{at: 60 * time.Second, replicas: 5, milli: []int64{400, 400, 400, 400, 400}, wantDesired: 9, wantRescale: true, wantReason: "ScaleUpLimit"},
			},
		},
		{
			name: "Percent scale-down policy with period",
			spec: Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 50, Behavior: &Behavior{ScaleDown: &Rules{StabilizationWindowSeconds: i32(0), Policies: []Policy{{PercentPolicy, 50, 60}}}}},
			steps: []step{
				// 10% -> ratio 0.2 -> raw 2 -> limit int(10*0.5) = 5.
				{at: 0, replicas: 10, milli: []int64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, wantDesired: 5, wantRescale: true, wantReason: "ScaleDownLimit"},
				{at: 15 * time.Second, replicas: 5, milli: []int64{10, 10, 10, 10, 10}, wantDesired: 5, wantReason: "ScaleDownLimit"},
				// event left the 60 s period: start 5 -> int(2.5) = 2.
				{at: 61 * time.Second, replicas: 5, milli: []int64{10, 10, 10, 10, 10}, wantDesired: 2, wantRescale: true, wantReason: "ScaleDownLimit"},
			},
		},
		{
			name: "scale-down selectPolicy Min takes the smallest change",
			spec: Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 50, Behavior: &Behavior{ScaleDown: &Rules{
				StabilizationWindowSeconds: i32(0), SelectPolicy: SelectMin, Policies: []Policy{{PodsPolicy, 1, 60}, {PercentPolicy, 50, 60}},
			}}},
			steps: []step{{replicas: 10, milli: []int64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, wantDesired: 9, wantRescale: true, wantReason: "ScaleDownLimit"}},
		},
		{
			name: "scale-down selectPolicy Max takes the largest change",
			spec: Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 50, Behavior: &Behavior{ScaleDown: &Rules{
				StabilizationWindowSeconds: i32(0), Policies: []Policy{{PodsPolicy, 1, 60}, {PercentPolicy, 50, 60}},
			}}},
			steps: []step{{replicas: 10, milli: []int64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, wantDesired: 5, wantRescale: true, wantReason: "ScaleDownLimit"}},
		},
		{
			name: "scale-up stabilization window takes the min over the window",
			spec: Spec{MinReplicas: 1, MaxReplicas: 20, TargetCPUUtilization: 70, Behavior: &Behavior{ScaleUp: &Rules{StabilizationWindowSeconds: i32(60)}}},
			steps: []step{
				{at: 0, replicas: 2, milli: []int64{70, 70}, wantDesired: 2, wantReason: "ReadyForNewScale"},
				{at: 15 * time.Second, replicas: 2, milli: []int64{200, 200}, wantDesired: 2, wantReason: "ScaleUpStabilized"},
				{at: 45 * time.Second, replicas: 2, milli: []int64{200, 200}, wantDesired: 2, wantReason: "ScaleUpStabilized"},
				// (0s, 60s] no longer holds the t=0 recommendation of 2: raw 6 passes.
				{at: 60 * time.Second, replicas: 2, milli: []int64{200, 200}, wantDesired: 6, wantRescale: true, wantReason: "ReadyForNewScale"},
			},
		},
		{
			name: "unready pods count 0 on scale-up and cancel a small one",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// ready util 150% (ratio 2.14); with 2 unready at 0: 300/400 = 75% -> 1.07 within.
			steps: []step{{replicas: 4, milli: []int64{150, 150}, extra: func() ([]Pod, map[string]PodMetric) {
				p1, m1 := unreadyYoung("u1", 10)
				p2, m2 := unreadyYoung("u2", 10)
				return []Pod{p1, p2}, map[string]PodMetric{"u1": *m1, "u2": *m2}
			}, wantDesired: 4}},
		},
		{
			name: "unready pods count 0 and scale on all metric pods",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// 400/400 = 100% -> 1.43 -> ceil(1.43*4) = 6.
			steps: []step{{replicas: 4, milli: []int64{200, 200}, extra: func() ([]Pod, map[string]PodMetric) {
				p1, m1 := unreadyYoung("u1", 90)
				p2, m2 := unreadyYoung("u2", 90)
				return []Pod{p1, p2}, map[string]PodMetric{"u1": *m1, "u2": *m2}
			}, wantDesired: 6, wantRescale: true, wantReason: "ReadyForNewScale"}},
		},
		{
			name: "pending pods are unready",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			steps: []step{{replicas: 4, milli: []int64{200, 200}, extra: func() ([]Pod, map[string]PodMetric) {
				return []Pod{{Name: "u1", Phase: PodPending, RequestMilli: 100}, {Name: "u2", Phase: PodPending, RequestMilli: 100}}, map[string]PodMetric{}
			}, wantDesired: 6, wantRescale: true, wantReason: "ReadyForNewScale"}},
		},
		{
			name: "sample taken before ready plus window is unready during cpu initialisation",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// young pod Ready since t0-20s; sample at t0-10s with a 15 s window started before readiness.
			// Without it: 300/300 -> ratio 1.43 with unready -> 300/400 = 75% within.
			steps: []step{{replicas: 4, milli: []int64{100, 100, 100}, extra: func() ([]Pod, map[string]PodMetric) {
				return []Pod{{
						Name: "y", Phase: PodRunning, Started: t0.Add(-time.Minute), HasReadyCondition: true, Ready: true,
						ReadyTransition: t0.Add(-20 * time.Second), RequestMilli: 100,
					}}, map[string]PodMetric{"y": {
						Timestamp: t0.Add(-10 * time.Second), Window: 15 * time.Second, Milli: 300,
					}}
			}, wantDesired: 4}},
		},
		{
			name: "pod never ready after cpu initialisation is unready",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// A, B at 100%; C unready since start+5s (< 30 s delay): ratio 1.43 -> with C=0: 66% within.
			steps: []step{{replicas: 3, milli: []int64{100, 100}, extra: func() ([]Pod, map[string]PodMetric) {
				return []Pod{{
					Name: "c", Phase: PodRunning, Started: t0.Add(-10 * time.Minute), HasReadyCondition: true, Ready: false,
					ReadyTransition: t0.Add(-10*time.Minute + 5*time.Second), RequestMilli: 100,
				}}, map[string]PodMetric{"c": {Timestamp: t0, Window: 15 * time.Second, Milli: 100}}
			}, wantDesired: 3}},
		},
		{
			name: "pod that was ready and became unready after initialisation counts",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// C turned unready at start+2m: its sample counts -> 100% -> ceil(1.43*3) = 5.
			steps: []step{{replicas: 3, milli: []int64{100, 100}, extra: func() ([]Pod, map[string]PodMetric) {
				return []Pod{{
					Name: "c", Phase: PodRunning, Started: t0.Add(-10 * time.Minute), HasReadyCondition: true, Ready: false,
					ReadyTransition: t0.Add(-8 * time.Minute), RequestMilli: 100,
				}}, map[string]PodMetric{"c": {Timestamp: t0, Window: 15 * time.Second, Milli: 100}}
			}, wantDesired: 5, wantRescale: true, wantReason: "ReadyForNewScale"}},
		},
		{
			name: "missing metrics count as 100% on scale-down",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70, Behavior: &Behavior{ScaleDown: &Rules{StabilizationWindowSeconds: i32(0)}}},
			// 90/300 = 30% -> 0.43; missing -> 100m: 190/400 = 47% -> 0.671 -> ceil(2.69) = 3.
			steps: []step{{replicas: 4, milli: []int64{30, 30, 30, -1}, wantDesired: 3, wantRescale: true, wantReason: "ReadyForNewScale"}},
		},
		{
			name: "missing metrics count as 0% on scale-up",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// 140% -> 2.0; missing -> 0: 280/300 = 93% -> 1.329 -> ceil(3.99) = 4.
			steps: []step{{replicas: 3, milli: []int64{140, 140, -1}, wantDesired: 4, wantRescale: true, wantReason: "ReadyForNewScale"}},
		},
		{
			name: "missing metric that flips the direction keeps current",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			// 75% -> 1.07 (within, but missing pods skip the early return); 75/200 = 37% -> 0.53: flipped.
			steps: []step{{replicas: 2, milli: []int64{75, -1}, wantDesired: 2}},
		},
		{
			name: "all pods unready gives no metrics and no scaling",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			steps: []step{{replicas: 2, extra: func() ([]Pod, map[string]PodMetric) {
				return []Pod{{Name: "a", Phase: PodPending, RequestMilli: 100}, {Name: "b", Phase: PodPending, RequestMilli: 100}}, nil
			}, wantDesired: 0, wantErr: ErrNoMetrics}},
		},
		{
			name: "settled status keeps desired when the first sync has no metrics",
			spec: Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			steps: []step{{replicas: 2, extra: func() ([]Pod, map[string]PodMetric) {
				return []Pod{{Name: "a", Phase: PodPending, RequestMilli: 100}, {Name: "b", Phase: PodPending, RequestMilli: 100}}, nil
			}, wantDesired: 2, wantErr: ErrNoMetrics}},
			settle: 2,
		},
		{
			name:   "settled status, then a scale-up",
			spec:   Spec{MinReplicas: 2, MaxReplicas: 10, TargetCPUUtilization: 50},
			steps:  []step{{replicas: 2, milli: []int64{100, 100}, wantDesired: 4, wantRescale: true}},
			settle: 2,
		},
		{
			name:  "zero replicas disables scaling",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70},
			steps: []step{{replicas: 0, wantDesired: 0, wantReason: "ScalingDisabled"}},
		},
		{
			name:  "above max is brought to max",
			spec:  Spec{MinReplicas: 1, MaxReplicas: 3, TargetCPUUtilization: 70},
			steps: []step{{replicas: 6, milli: []int64{10}, wantDesired: 3, wantRescale: true, wantReason: "TooManyReplicas"}},
		},
		{
			name:  "below min is brought to min",
			spec:  Spec{MinReplicas: 2, MaxReplicas: 3, TargetCPUUtilization: 70},
			steps: []step{{replicas: 1, milli: []int64{10}, wantDesired: 2, wantRescale: true, wantReason: "TooFewReplicas"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewController(tc.spec, DefaultConfig)
			require.NoError(t, err)
			if tc.settle > 0 {
				st := c.Settle(tc.settle, 3, 3)
				require.Equal(t, Status{CurrentReplicas: tc.settle, DesiredReplicas: tc.settle, MetricValid: true, CurrentUtilization: 3, CurrentAverageMilli: 3}, st)
				require.Equal(t, st, c.Status())
			}
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				var pods []Pod
				metrics := map[string]PodMetric{}
				if len(s.milli) > 0 {
					pods, metrics = readyPods(s.milli...)
				}
				if s.extra != nil {
					ep, em := s.extra()
					pods = append(pods, ep...)
					maps.Copy(metrics, em)
				}
				// Shift metric timestamps and pod times with the step so samples stay fresh.
				for j := range pods {
					if !pods[j].Started.IsZero() {
						pods[j].Started = pods[j].Started.Add(s.at)
						pods[j].ReadyTransition = pods[j].ReadyTransition.Add(s.at)
					}
				}
				for k, m := range metrics {
					m.Timestamp = m.Timestamp.Add(s.at)
					metrics[k] = m
				}
				d := c.Sync(now, Input{SpecReplicas: s.replicas, Pods: pods, Metrics: metrics})
				if s.wantErr != nil {
					require.ErrorIs(t, d.Err, s.wantErr, "step %d", i)
				} else {
					require.NoError(t, d.Err, "step %d", i)
				}
				require.Equal(t, s.wantRescale, d.Rescale, "step %d rescale", i)
				require.Equal(t, s.wantDesired, d.Status.DesiredReplicas, "step %d desired", i)
				require.Equal(t, s.replicas, d.Status.CurrentReplicas, "step %d current", i)
				if s.wantReason != "" {
					require.Equal(t, s.wantReason, d.Status.Reason, "step %d reason", i)
				}
			}
		})
	}
}

func TestNewControllerRejectsBadSpecs(t *testing.T) {
	t.Parallel()
	neg := -0.5
	for _, tc := range []struct {
		name    string
		spec    Spec
		wantErr string
	}{
		{"max below min", Spec{MinReplicas: 3, MaxReplicas: 2, TargetCPUUtilization: 50}, "invalid replicas bounds min=3 max=2"},
		{"no target", Spec{MinReplicas: 1, MaxReplicas: 2}, "target cpu utilization must be positive"},
		{"bad select", Spec{MinReplicas: 1, MaxReplicas: 2, TargetCPUUtilization: 50, Behavior: &Behavior{ScaleUp: &Rules{SelectPolicy: "Most"}}}, `unknown select policy "Most" (want Max, Min or Disabled)`},
		{"bad period", Spec{MinReplicas: 1, MaxReplicas: 2, TargetCPUUtilization: 50, Behavior: &Behavior{ScaleDown: &Rules{Policies: []Policy{{PodsPolicy, 1, 1801}}}}}, "policy period 1801s out of range (0, 1800]"},
		{"bad tolerance", Spec{MinReplicas: 1, MaxReplicas: 2, TargetCPUUtilization: 50, Behavior: &Behavior{ScaleDown: &Rules{Tolerance: &neg}}}, "tolerance must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewController(tc.spec, DefaultConfig)
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestPerDirectionTolerance(t *testing.T) {
	t.Parallel()
	up := 0.5
	c, err := NewController(Spec{MinReplicas: 1, MaxReplicas: 10, TargetCPUUtilization: 70, Behavior: &Behavior{ScaleUp: &Rules{Tolerance: &up}}}, DefaultConfig)
	require.NoError(t, err)
	pods, metrics := readyPods(100, 100) // 100% -> 1.43: within a 0.5 scale-up tolerance.
	d := c.Sync(t0, Input{SpecReplicas: 2, Pods: pods, Metrics: metrics})
	require.False(t, d.Rescale)
	require.Equal(t, int32(2), d.Status.DesiredReplicas)
	require.Equal(t, int32(100), d.Status.CurrentUtilization)
	require.Equal(t, int64(100), d.Status.CurrentAverageMilli)
}
