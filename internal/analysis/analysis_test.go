package analysis

import (
	"cmp"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

func requireAt(t *testing.T, f *Fact, want time.Time, msg string) {
	t.Helper()
	require.NotNil(t, f, msg)
	require.Equal(t, want, f.At, msg)
}

func requireSeconds(t *testing.T, f *Fact, want float64, msg string) {
	t.Helper()
	require.NotNil(t, f, msg)
	require.Equal(t, UnitSeconds, f.Unit, msg)
	require.InDelta(t, want, f.Value, 1e-9, msg)
}

func TestSpikeStory1(t *testing.T) {
	t.Parallel()
	a := Analyze(spike(), DefaultConfig)

	// Load: stages from the target series.
	require.Len(t, a.Load.Stages, 5)
	kinds := []timeline.StageKind{timeline.Hold, timeline.RampUp, timeline.Hold, timeline.RampDown, timeline.Hold}
	for i, st := range a.Load.Stages {
		require.Equal(t, kinds[i], st.Kind, "stage %d", i)
		require.Equal(t, i, st.Index)
	}
	require.Equal(t, runFrom.Add(2*time.Minute), a.Load.Stages[1].From)
	require.InDelta(t, 50, a.Load.Stages[2].StartTarget, 1e-9)
	require.NotNil(t, a.Load.Stages[0].Achieved)
	require.InDelta(t, 10, a.Load.Stages[0].Achieved.Value, 1e-9)
	require.True(t, a.Load.Stages[0].Held)
	require.False(t, a.Load.Stages[2].Held)
	require.Equal(t, []time.Time{runFrom.Add(2 * time.Minute)}, a.Load.LoadSteps)
	require.Equal(t, runFrom.Add(7*time.Minute), a.Load.LoadEnd)
	require.NotNil(t, a.Load.Capacity.LastHeld)
	require.Equal(t, 0, *a.Load.Capacity.LastHeld)
	require.Equal(t, 1, *a.Load.Capacity.FirstBroke)
	require.InDelta(t, 1460, a.Load.Failures, 1e-6)
	require.Equal(t, LatencyCumulative, a.Load.Stages[0].LatencySource)

	// Autoscaling.
	require.Len(t, a.Autoscaling, 1)
	h := a.Autoscaling[0]
	require.Equal(t, "order", h.Deployment)
	require.InDelta(t, 2, h.Baseline.Value, 0)
	requireAt(t, h.MetricCrossed, runFrom.Add(135*time.Second), "crossing")
	require.Equal(t, 15.0, h.MetricCrossed.ResolutionSeconds)
	require.Len(t, h.Steps, 3)
	require.Equal(t, "up", h.Steps[0].Direction)
	require.InDelta(t, 4, h.Steps[0].To, 0)
	requireSeconds(t, h.Steps[0].ReadyGap, 15, "gap 2→4")
	requireSeconds(t, h.Steps[1].ReadyGap, 30, "gap 4→5")
	require.Equal(t, "down", h.Steps[2].Direction)
	requireSeconds(t, h.ReactionFromLoadStep, 30, "reaction from load step")
	requireSeconds(t, h.ReactionFromCrossing, 15, "reaction from crossing")
	requireAt(t, h.MaxReached, runFrom.Add(3*time.Minute), "max reached")
	requireSeconds(t, h.TimeToMax, 60, "time to max")
	requireSeconds(t, h.HeldAtMax, 540, "held at max")
	requireAt(t, h.ScaleInStart, runFrom.Add(12*time.Minute), "scale-in")
	requireSeconds(t, h.ScaleInDelay, 300, "scale-in delay")
	requireSeconds(t, h.RecoveryAfterLoadEnd, 300, "recovery")
	require.Len(t, h.Pods, 2)
	requireSeconds(t, h.Pods[0].Startup, 12, "pod c")
	requireSeconds(t, h.Pods[1].Startup, 28, "pod e")
	require.Equal(t, 1.0, h.Pods[0].Startup.ResolutionSeconds)
	require.Equal(t, []timeline.Window{
		{From: runFrom.Add(150 * time.Second), To: runFrom.Add(165 * time.Second)},
		{From: runFrom.Add(180 * time.Second), To: runFrom.Add(210 * time.Second)},
	}, h.Gaps)
	require.NotEmpty(t, h.Steps[0].DesiredAt.Evidence)
	require.Equal(t, []time.Time{runFrom.Add(135 * time.Second), runFrom.Add(150 * time.Second)}, h.Steps[0].DesiredAt.Evidence[0].Times)

	// CPU.
	require.Len(t, a.CPU, 1)
	c := a.CPU[0]
	require.False(t, c.NoLimit)
	require.InDelta(t, 0.07, c.HPATarget.Value, 1e-9)
	require.InDelta(t, 1.11, c.PeakUsageOfRequest.Value, 1e-9, "111% of the request, as the HPA saw it")
	require.InDelta(t, 0.555, c.PeakUsageOfLimit.Value, 1e-9)
	require.InDelta(t, 0.3, c.PeakThrottled.Value, 1e-9)
	require.Len(t, c.Onsets, 2)
	requireAt(t, c.Onsets[0].At, runFrom.Add(135*time.Second), "onset 5%")
	require.InDelta(t, 50, c.Onsets[0].RequestRate.Value, 1e-9)
	require.InDelta(t, 25, c.Onsets[0].VUs.Value, 1e-9)
	requireAt(t, c.Onsets[1].At, runFrom.Add(150*time.Second), "onset 25%")
	require.InDelta(t, 0.555, c.UsageOfLimitWhileThrottled.Value, 1e-9)

	// Database.
	require.Len(t, a.Database, 1)
	d := a.Database[0]
	require.Equal(t, "shoong-db", d.Instance)
	require.InDelta(t, 5, d.CPUBaseline.Value, 1e-9)
	require.InDelta(t, 12, d.CPUPeak.Value, 1e-9)
	require.InDelta(t, 21, d.ConnectionsGrowth.Value, 1e-9)
	require.NotNil(t, d.Plateau)
	require.InDelta(t, 41, d.Plateau.Value, 1e-9)
	require.Equal(t, "rising", d.CreditTrend)
	require.InDelta(t, 3e8, d.FreeableMin.Value, 0)
	require.InDelta(t, 60, d.Cadence.Value, 0)

	// Errors.
	require.Len(t, a.Errors.Bursts, 2)
	require.Equal(t, runFrom.Add(2*time.Minute), a.Errors.Bursts[0].From)
	require.Equal(t, runFrom.Add(4*time.Minute), a.Errors.Bursts[0].To)
	require.InDelta(t, 1160.0/1460, a.Errors.Bursts[0].Share, 1e-9)
	require.InDelta(t, 450.0/1460, a.Errors.InGapShare.Value, 1e-9)
	// 50 failures a push (5 s) from 2 m; gaps [150 s, 165 s] and [180 s, 210 s] seen at a
	// 15 s scrape: surely inside are the pushes at 185–195 s, maybe those at 140–210 s.
	require.Equal(t, &Bounds{Low: 150.0 / 1460, High: 750.0 / 1460}, a.Errors.InGapShareBounds)
	require.Greater(t, a.Errors.Lift.Value, 1.0)

	// Events are sorted and include the timeline of story 1.
	kindsSeen := map[string]bool{}
	for i, e := range a.Events {
		kindsSeen[e.Kind] = true
		if i > 0 {
			require.False(t, e.At.Before(a.Events[i-1].At))
		}
	}
	for _, k := range []string{EventRunStart, EventStageStart, EventMetricCrossed, EventScaleUp, EventReadyCaughtUp, EventMaxReached, EventLoadEnd, EventScaleInStart, EventRecovered, EventThrottlingOnset, EventErrorBurst} {
		require.True(t, kindsSeen[k], k)
	}
}

// edit returns the spike timeline with some sets replaced.
func edit(f func(tl *timeline.Timeline)) *timeline.Timeline {
	tl := spike()
	f(tl)
	return tl
}

func constant(labels map[string]string, v float64) timeline.Series {
	return gen(labels, t0, endAll, ksmRes, func(time.Duration) float64 { return v })
}

func hasNote(notes []Note, level, substr string) bool {
	for _, n := range notes {
		if n.Level == level && contains(n.Text, substr) {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestAutoscalingEdgeCases(t *testing.T) {
	t.Parallel()
	hpa := m("namespace", "shoong", "horizontalpodautoscaler", "order")
	dep := m("namespace", "shoong", "deployment", "order")
	for _, tc := range []struct {
		name  string
		tl    *timeline.Timeline
		check func(t *testing.T, h HPA, notes []Note)
	}{
		{
			name: "no scale-up",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPACurrent] = timeline.Set{constant(hpa, 2)}
				tl.Sets[QHPADesired] = timeline.Set{constant(hpa, 2)}
				tl.Sets[QDeploymentReady] = timeline.Set{constant(dep, 2)}
			}),
			check: func(t *testing.T, h HPA, notes []Note) {
				require.Empty(t, h.Steps)
				require.Nil(t, h.FirstScaleUp)
				require.Nil(t, h.ReactionFromLoadStep)
				require.Nil(t, h.MaxReached)
				require.Nil(t, h.ScaleInStart)
				require.Empty(t, h.Gaps)
				require.NotNil(t, h.MetricCrossed, "the metric still crossed")
				require.True(t, hasNote(notes, NoteInfo, "no scale step"))
			},
		},
		{
			name: "desired 0 until the HPA's first sync, then a real scale-up",
			tl: edit(func(tl *timeline.Timeline) {
				// kube-state-metrics read an empty status (desired 0) for the first 20 s.
				s := tl.Sets[QHPADesired][0]
				for i := range s.Points {
					if s.Points[i].T.Sub(t0) >= sec(15) && s.Points[i].T.Sub(t0) < sec(45) {
						s.Points[i].V = 0
					}
				}
			}),
			check: func(t *testing.T, h HPA, _ []Note) {
				require.Len(t, h.Steps, 5)
				require.Equal(t, "up", h.Steps[1].Direction)
				require.InDelta(t, 0, h.Steps[1].From, 0)
				require.Nil(t, h.Steps[1].ReadyGap, "no pod was added: no start-up gap")
				require.Nil(t, h.Steps[1].ReadyAt)
				requireAt(t, h.FirstScaleUp, runFrom.Add(150*time.Second), "the first scale-up that added pods")
				requireSeconds(t, h.ReactionFromLoadStep, 30, "from the load step at 2m")
				requireSeconds(t, h.ReactionFromCrossing, 15, "from the crossing at 2m15s")
			},
		},
		{
			name: "desired 0 until the first sync, never scaled",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPACurrent] = timeline.Set{constant(hpa, 2)}
				tl.Sets[QHPADesired] = timeline.Set{gen(hpa, t0, endAll, ksmRes, stepsAt([]time.Duration{0, sec(30)}, []float64{0, 2}))}
				tl.Sets[QDeploymentReady] = timeline.Set{constant(dep, 2)}
			}),
			check: func(t *testing.T, h HPA, _ []Note) {
				require.Len(t, h.Steps, 1)
				require.Nil(t, h.Steps[0].ReadyGap)
				require.Nil(t, h.FirstScaleUp)
				require.Nil(t, h.ReactionFromLoadStep)
				require.Nil(t, h.ReactionFromCrossing)
			},
		},
		{
			name: "ready caught up within the same scrape",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QDeploymentReady] = timeline.Set{{Labels: dep, Points: append([]timeline.Point(nil), tl.Sets[QHPACurrent][0].Points...)}}
			}),
			check: func(t *testing.T, h HPA, _ []Note) {
				for _, st := range h.Steps[:2] {
					require.NotNil(t, st.ReadyGap)
					// Zero, known to within both samples' resolution: "below 30 s", not "0 ms".
					require.InDelta(t, 0, st.ReadyGap.Value, 0)
					require.InDelta(t, 2*ksmRes.Seconds(), st.ReadyGap.ResolutionSeconds, 0)
				}
			},
		},
		{
			name: "already at max",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPACurrent] = timeline.Set{constant(hpa, 5)}
				tl.Sets[QHPADesired] = timeline.Set{constant(hpa, 5)}
				tl.Sets[QDeploymentReady] = timeline.Set{constant(dep, 5)}
			}),
			check: func(t *testing.T, h HPA, notes []Note) {
				require.Empty(t, h.Steps)
				require.Nil(t, h.TimeToMax)
				require.NotNil(t, h.MaxReached)
				requireSeconds(t, h.HeldAtMax, endAll.Sub(t0).Seconds(), "held the whole window")
				require.True(t, hasNote(notes, NoteInfo, "already at maxReplicas"))
			},
		},
		{
			name: "scrape gap around the first step",
			tl: edit(func(tl *timeline.Timeline) {
				for _, q := range []string{QHPACurrent, QHPADesired} {
					s := tl.Sets[q][0]
					var kept []timeline.Point
					for _, p := range s.Points {
						if d := p.T.Sub(runFrom); d > 100*time.Second && d < 150*time.Second {
							continue // KSM not scraped for a minute
						}
						kept = append(kept, p)
					}
					tl.Sets[q] = timeline.Set{{Labels: s.Labels, Points: kept}}
				}
			}),
			check: func(t *testing.T, h HPA, _ []Note) {
				require.Len(t, h.Steps, 3)
				requireAt(t, h.Steps[0].DesiredAt, runFrom.Add(150*time.Second), "step seen at the first sample after the gap")
				// The evidence shows the whole interval in which the change happened.
				require.Equal(t, []time.Time{runFrom.Add(90 * time.Second), runFrom.Add(150 * time.Second)}, h.Steps[0].DesiredAt.Evidence[0].Times)
			},
		},
		{
			name: "pods that never become Ready",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QDeploymentReady] = timeline.Set{constant(dep, 2)}
				tl.Sets[QPodReadyTime] = nil
				tl.Sets[QPodReady] = timeline.Set{constant(m("namespace", "shoong", "workload", "order", "pod", "order-c"), 0)}
			}),
			check: func(t *testing.T, h HPA, notes []Note) {
				require.True(t, h.Steps[0].NeverReady)
				require.Nil(t, h.Steps[0].ReadyGap)
				require.InDelta(t, 2, h.Steps[0].ReadyMax, 0)
				require.True(t, h.Pods[0].NeverReady)
				require.Nil(t, h.Pods[0].Startup)
				require.True(t, hasNote(notes, NotePartial, "never became Ready"))
				require.True(t, hasNote(notes, NotePartial, "ready replicas never reached 4"))
			},
		},
		{
			name: "no deployment join",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPADeployment] = nil
			}),
			check: func(t *testing.T, h HPA, notes []Note) {
				require.Empty(t, h.Deployment)
				require.Nil(t, h.Steps[0].ReadyAt)
				require.Empty(t, h.Pods)
				require.True(t, hasNote(notes, NotePartial, "no kube_horizontalpodautoscaler_info"))
			},
		},
		{
			name: "no target metric",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPATargetMetric] = nil
			}),
			check: func(t *testing.T, h HPA, notes []Note) {
				require.Nil(t, h.MetricCrossed)
				require.Nil(t, h.ReactionFromCrossing)
				require.NotNil(t, h.ReactionFromLoadStep)
				require.True(t, hasNote(notes, NoteMissing, "spec_target_metric"))
			},
		},
		{
			name: "no status metric: the crossing from cAdvisor's usage over the requests",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPAStatusMetric] = nil
			}),
			check: func(t *testing.T, h HPA, notes []Note) {
				requireAt(t, h.MetricCrossed, runFrom.Add(135*time.Second), "crossing")
				require.Equal(t, []string{QCPUUsagePod, QCPURequestPod}, []string{h.MetricCrossed.Evidence[0].Query, h.MetricCrossed.Evidence[1].Query})
				require.NotNil(t, h.ReactionFromCrossing)
				require.True(t, hasNote(notes, NotePartial, "the crossing is read from cAdvisor"))
			},
		},
		{
			name: "no status metric and no CPU requests",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPAStatusMetric] = nil
				tl.Sets[QCPURequestPod] = nil
			}),
			check: func(t *testing.T, h HPA, notes []Note) {
				require.Nil(t, h.MetricCrossed)
				require.True(t, hasNote(notes, NoteMissing, "no kube_horizontalpodautoscaler_status_target_metric"))
			},
		},
		{
			name: "tolerance from kube-state-metrics",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QHPATolerance] = timeline.Set{constant(hpa, 0.5)}
			}),
			check: func(t *testing.T, h HPA, _ []Note) {
				require.InDelta(t, 0.5, h.Tolerance, 0)
				require.Equal(t, "kube-state-metrics", h.ToleranceFrom)
				// 111 > 70×1.5 = 105 still crosses, at the same sample.
				requireAt(t, h.MetricCrossed, runFrom.Add(135*time.Second), "crossing")
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := Analyze(tc.tl, DefaultConfig)
			require.Len(t, a.Autoscaling, 1)
			tc.check(t, a.Autoscaling[0], a.Notes)
			_, err := json.Marshal(a)
			require.NoError(t, err, "every fact is a finite number")
		})
	}
}

func TestMissingDataGivesNotesNotNumbers(t *testing.T) {
	t.Parallel()
	tl := &timeline.Timeline{
		Run:        timeline.Window{From: runFrom, To: runTo},
		Baseline:   timeline.Window{From: t0, To: runFrom},
		After:      timeline.Window{From: runTo, To: endAll},
		Step:       k6Res,
		Resolution: map[string]time.Duration{},
		Sets:       map[string]timeline.Set{},
	}
	a := Analyze(tl, DefaultConfig)
	_, err := json.Marshal(a)
	require.NoError(t, err)
	require.Empty(t, a.Autoscaling)
	require.Empty(t, a.CPU)
	require.Empty(t, a.Database)
	require.Nil(t, a.Load.ErrorRate)
	require.Nil(t, a.Load.PeakRate)
	require.Nil(t, a.Errors.ErrorRate)
	require.Empty(t, a.Load.Stages)
	for _, want := range []string{"no k6_http_reqs_total", "no tidemark_scenario_target", "no kube_horizontalpodautoscaler_", "no container_cpu_usage_seconds_total", "no aws_rds_", "no requests counted"} {
		require.True(t, hasNote(a.Notes, NoteMissing, want), want)
	}
}

func TestCounterResets(t *testing.T) {
	t.Parallel()
	tl := edit(func(tl *timeline.Timeline) {
		// The generator restarted 6 minutes in: its counters begin again from zero.
		for _, q := range []string{QHTTPReqs, QIterations} {
			s := tl.Sets[q][0]
			cut := runFrom.Add(6 * time.Minute)
			base, _ := s.At(cut, 0)
			var ps []timeline.Point
			for _, p := range s.Points {
				if p.T.After(cut) {
					p.V -= base
				}
				ps = append(ps, p)
			}
			tl.Sets[q] = timeline.Set{{Labels: s.Labels, Points: ps}}
		}
	})
	a := Analyze(tl, DefaultConfig)
	clean := Analyze(spike(), DefaultConfig)
	require.Equal(t, 1, a.Load.CounterResets) // iterations are not counted in resets
	require.InDelta(t, clean.Load.Requests, a.Load.Requests, 1e-6)
	require.InDelta(t, clean.Load.Stages[2].Achieved.Value, a.Load.Stages[2].Achieved.Value, 1e-6)
	require.True(t, hasNote(a.Notes, NoteInfo, "counter reset"))
}

func TestCPUEdgeCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		tl    *timeline.Timeline
		check func(t *testing.T, c WorkloadCPU, notes []Note)
	}{
		{
			name: "no limit set",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QCPULimitPod], tl.Sets[QCPUThrottled], tl.Sets[QCPUCFSPeriods] = nil, nil, nil
			}),
			check: func(t *testing.T, c WorkloadCPU, notes []Note) {
				require.True(t, c.NoLimit)
				require.Nil(t, c.PeakThrottled)
				require.Empty(t, c.Onsets)
				require.True(t, hasNote(notes, NoteInfo, "no CPU limit set: cannot throttle"))
			},
		},
		{
			name: "limit without CFS series",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QCPUThrottled], tl.Sets[QCPUCFSPeriods] = nil, nil
			}),
			check: func(t *testing.T, c WorkloadCPU, notes []Note) {
				require.False(t, c.NoLimit)
				require.Nil(t, c.PeakThrottled)
				require.True(t, hasNote(notes, NoteMissing, "no container_cpu_cfs_* series"))
			},
		},
		{
			name: "never throttled",
			tl: edit(func(tl *timeline.Timeline) {
				tl.Sets[QCPUThrottled] = timeline.Set{constant(m("namespace", "shoong", "workload", "order"), 0.01)}
			}),
			check: func(t *testing.T, c WorkloadCPU, _ []Note) {
				require.Empty(t, c.Onsets)
				require.InDelta(t, 0.01, c.PeakThrottled.Value, 1e-9)
				require.Nil(t, c.UsageOfLimitWhileThrottled)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := Analyze(tc.tl, DefaultConfig)
			require.Len(t, a.CPU, 1)
			tc.check(t, a.CPU[0], a.Notes)
		})
	}
}

func TestDatabasePoolAndLag(t *testing.T) {
	t.Parallel()
	tl := edit(func(tl *timeline.Timeline) {
		// CloudWatch stopped 4 minutes before the run end (exporter lag).
		for _, q := range []string{QRDSCPU} {
			s := tl.Sets[q][0]
			var ps []timeline.Point
			for _, p := range s.Points {
				if !p.T.After(runTo.Add(-4 * time.Minute)) {
					ps = append(ps, p)
				}
			}
			tl.Sets[q] = timeline.Set{{Labels: s.Labels, Points: ps}}
		}
	})
	cfg := DefaultConfig
	cfg.PoolPerPod = 8
	a := Analyze(tl, cfg)
	d := a.Database[0]
	require.NotNil(t, d.Lag)
	require.InDelta(t, 240, d.Lag.Value, 0)
	require.NotNil(t, d.PoolCeiling)
	require.InDelta(t, 40, d.PoolCeiling.Value, 0) // 8 × 5 ready at the connection peak
	require.Contains(t, d.PlateauText, "plateau 41 vs pool 8 × 5 ready replicas = 40")
}

func TestErrorsWithoutFailures(t *testing.T) {
	t.Parallel()
	tl := edit(func(tl *timeline.Timeline) { tl.Sets[QHTTPFailures] = nil })
	a := Analyze(tl, DefaultConfig)
	require.Empty(t, a.Errors.Bursts)
	require.InDelta(t, 0, a.Errors.ErrorRate.Value, 0)
	require.Nil(t, a.Errors.InGapShare)
	require.True(t, a.Load.Stages[2].Held)
}

func TestFiring(t *testing.T) {
	t.Parallel()
	s := func(offsets ...int) timeline.Series {
		out := timeline.Series{Labels: m("workload", "api")}
		for i, o := range offsets {
			out.Points = append(out.Points, timeline.Point{T: t0.Add(time.Duration(o) * time.Second), V: float64(i)})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		in     timeline.Series
		minFor time.Duration
		want   []timeline.Window
	}{
		{name: "empty", in: s(), minFor: 0},
		{name: "one span", in: s(0, 15, 30), minFor: 30 * time.Second, want: []timeline.Window{{From: t0, To: t0.Add(30 * time.Second)}}},
		{name: "too short", in: s(0, 15), minFor: 30 * time.Second},
		{name: "split by a gap", in: s(0, 15, 60, 75), minFor: 0, want: []timeline.Window{{From: t0, To: t0.Add(15 * time.Second)}, {From: t0.Add(60 * time.Second), To: t0.Add(75 * time.Second)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Firing(tc.in, 15*time.Second, tc.minFor)
			var ws []timeline.Window
			for _, f := range got {
				ws = append(ws, f.Window)
			}
			require.Equal(t, tc.want, ws)
		})
	}
}

// configured is a k6 stages list as the engine evaluates it: linear from start to each
// target over its duration, then the last target.
func configured(start float64, stages ...[2]float64) func(d time.Duration) float64 {
	return func(d time.Duration) float64 {
		from, at := start, 0.0
		for _, st := range stages {
			dur, target := st[0], st[1]
			if s := d.Seconds(); s <= at+dur {
				return from + (target-from)*(s-at)/dur
			}
			from, at = target, at+dur
		}
		return from
	}
}

func TestLoadStagesMatchTheConfiguredStages(t *testing.T) {
	t.Parallel()
	type want struct {
		kind       timeline.StageKind
		from, to   time.Duration // run offsets of the configured boundaries
		start, end float64
	}
	demo := []want{
		{timeline.Hold, 0, sec(30), 10, 10}, {timeline.RampUp, sec(30), sec(35), 10, 50}, {timeline.Hold, sec(35), sec(135), 50, 50},
		{timeline.RampDown, sec(135), sec(140), 50, 10}, {timeline.Hold, sec(140), sec(170), 10, 10},
	}
	for _, tc := range []struct {
		name string
		unit string
		// phase is how long after the run start the target is first sampled.
		phase    time.Duration
		target   func(time.Duration) float64
		want     []want
		capacity string
		events   []string
		// lag is how much older the sampled target is than its sample (the engine's
		// gauge is emitted every second, the push reads the latest).
		lag time.Duration
		// within is how close the boundaries must be (default one sample interval).
		within time.Duration
	}{
		{
			name: "demo spike, the gauge 100 ms older than the push", unit: "iterations_per_second", phase: sec(5), lag: 100 * time.Millisecond,
			target: configured(10, [2]float64{30, 10}, [2]float64{5, 50}, [2]float64{100, 50}, [2]float64{5, 10}, [2]float64{30, 10}),
			want:   demo, within: time.Second,
		},
		{
			name: "demo spike, ramp begins 30 ms before a sample", unit: "iterations_per_second", phase: sec(4) + 30*time.Millisecond,
			target: configured(10, [2]float64{30, 10}, [2]float64{5, 50}, [2]float64{100, 50}, [2]float64{5, 10}, [2]float64{30, 10}),
			want:   demo,
			events: []string{"stage 1: hold at 10 iterations/s", "stage 2: ramp-up 10→50 iterations/s", "stage 3: hold at 50 iterations/s", "stage 4: ramp-down 50→10 iterations/s", "stage 5: hold at 10 iterations/s"},
		},
		{
			name: "demo spike, ramp ends fall between samples", unit: "iterations_per_second", phase: sec(2),
			target: configured(10, [2]float64{30, 10}, [2]float64{5, 50}, [2]float64{100, 50}, [2]float64{5, 10}, [2]float64{30, 10}),
			want:   demo,
		},
		{
			name: "long ramp whose ends fall between samples", unit: "iterations_per_second", phase: sec(3),
			target: configured(10, [2]float64{32, 10}, [2]float64{61, 50}, [2]float64{60, 50}),
			want:   []want{{timeline.Hold, 0, sec(32), 10, 10}, {timeline.RampUp, sec(32), sec(93), 10, 50}, {timeline.Hold, sec(93), sec(153), 50, 50}},
		},
		{
			name: "ramping VUs", unit: "vus", phase: sec(1),
			target: func(d time.Duration) float64 {
				return math.Round(configured(0, [2]float64{42, 20}, [2]float64{60, 20}, [2]float64{34, 0})(d))
			},
			want:   []want{{timeline.RampUp, 0, sec(42), 0, 20}, {timeline.Hold, sec(42), sec(102), 20, 20}, {timeline.RampDown, sec(102), sec(136), 20, 0}},
			events: []string{"stage 1: ramp-up 0→20 VUs", "stage 2: hold at 20 VUs", "stage 3: ramp-down 20→0 VUs"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			from := runFrom.Add(tc.phase)
			tl := edit(func(tl *timeline.Timeline) {
				end := runFrom.Add(tc.want[len(tc.want)-1].to) // the engine writes the target until the run ends
				tl.Sets[QScenarioTarget] = timeline.Set{gen(m("scenario", "spike", "unit", tc.unit), from, end, k6Res,
					func(d time.Duration) float64 { return tc.target(d + tc.phase - tc.lag) })}
			})
			a := Analyze(tl, DefaultConfig)
			require.Len(t, a.Load.Stages, len(tc.want))
			within := cmp.Or(tc.within, k6Res)
			for i, w := range tc.want {
				st := a.Load.Stages[i]
				require.Equal(t, w.kind, st.Kind, "stage %d", i+1)
				require.Equal(t, i, st.Index)
				// Boundaries within one sample interval of the configured ones.
				if w.from >= tc.phase {
					require.InDelta(t, w.from.Seconds(), st.From.Sub(runFrom).Seconds(), within.Seconds(), "stage %d start", i+1)
				}
				require.InDelta(t, w.to.Seconds(), st.To.Sub(runFrom).Seconds(), within.Seconds(), "stage %d end", i+1)
				require.InDelta(t, w.start, st.StartTarget, 1e-9, "stage %d start target", i+1)
				require.InDelta(t, w.end, st.EndTarget, 1e-9, "stage %d end target", i+1)
			}
			var texts []string
			for _, e := range a.Events {
				if e.Kind == EventStageStart {
					texts = append(texts, e.Text)
				}
			}
			if tc.events != nil {
				require.Equal(t, tc.events, texts)
			}
			require.NotContains(t, a.Load.Capacity.Text, "stage 0")
			require.NotContains(t, a.Load.Capacity.Text, "_per_second")
			require.NotRegexp(t, `\([^)]*\d\.\d\d[^)]*\)`, a.Load.Capacity.Text, "the stages' targets rounded")
		})
	}
}

func TestCapacityTextNamesStagesFromOne(t *testing.T) {
	t.Parallel()
	a := Analyze(spike(), DefaultConfig)
	require.Equal(t, "last stage that held: stage 1 (spike, hold at 10 iterations/s); first that broke: stage 2 (spike, ramp-up 10→50 iterations/s): error rate 20% > 1% (default)", a.Load.Capacity.Text)
}

// cloudWatch builds an RDS timeline scraped every 5 s whose values CloudWatch publishes
// every 60 s (the exporter repeats the newest datapoint): a 3-minute run, the window from
// 15 s before it to 1 minute after. published(i) is the i-th datapoint's connections;
// datapoint i appears at run start + phase + i×60 s.
func cloudWatch(phase time.Duration, published func(i int) float64) *timeline.Timeline {
	from, to := runFrom.Add(-15*time.Second), runFrom.Add(4*time.Minute)
	val := func(scale float64) func(time.Duration) float64 {
		return func(d time.Duration) float64 {
			at := from.Add(d)
			i := int(math.Floor(at.Sub(runFrom.Add(phase)).Seconds() / 60))
			return scale * published(i)
		}
	}
	db := m("dimension_DBInstanceIdentifier", "shoong-db")
	step := 5 * time.Second
	return &timeline.Timeline{
		Run:        timeline.Window{From: runFrom, To: runFrom.Add(3 * time.Minute)},
		Baseline:   timeline.Window{From: from, To: runFrom},
		After:      timeline.Window{From: runFrom.Add(3 * time.Minute), To: to},
		Step:       step,
		Resolution: map[string]time.Duration{SourceRDS: step},
		Sets: map[string]timeline.Set{
			QRDSCPU:         {gen(db, from, to, step, val(0.25))},
			QRDSConnections: {gen(db, from, to, step, val(1))},
			QRDSFreeableMem: {gen(db, from, to, step, val(-1e6))},
		},
	}
}

func TestDatabaseFacts(t *testing.T) {
	t.Parallel()
	grow := func(i int) float64 { return float64(20 + 10*min(max(i+1, 0), 3)) } // 20 before the run, 50 at most
	for _, tc := range []struct {
		name  string
		tl    *timeline.Timeline
		check func(t *testing.T, d Database, notes []Note)
	}{
		{
			name: "baseline sample: growth from the baseline mean",
			tl:   spike(),
			check: func(t *testing.T, d Database, notes []Note) {
				require.NotNil(t, d.ConnectionsBaseline)
				require.InDelta(t, 41-20, d.ConnectionsGrowth.Value, 1e-9)
				require.InDelta(t, 60, d.Cadence.Value, 0)
				require.False(t, hasNote(notes, NotePartial, "no CloudWatch sample before the run"))
			},
		},
		{
			name: "no sample before the run: growth from the first sample after its start",
			tl: edit(func(tl *timeline.Timeline) {
				s := tl.Sets[QRDSConnections][0]
				tl.Sets[QRDSConnections] = timeline.Set{{Labels: s.Labels, Points: s.Between(timeline.Window{From: runFrom.Add(time.Minute), To: endAll})}}
			}),
			check: func(t *testing.T, d Database, notes []Note) {
				require.Nil(t, d.ConnectionsBaseline)
				require.NotNil(t, d.ConnectionsGrowth, "growth from the first sample")
				require.InDelta(t, 41-20, d.ConnectionsGrowth.Value, 1e-9) // 20 at +1m, peak 41
				require.Equal(t, runFrom.Add(time.Minute), d.ConnectionsGrowth.Evidence[0].Times[0])
				require.True(t, hasNote(notes, NotePartial, "first sample after the run start"))
			},
		},
		{
			name: "no connections at all: no growth",
			tl:   edit(func(tl *timeline.Timeline) { tl.Sets[QRDSConnections] = nil }),
			check: func(t *testing.T, d Database, _ []Note) {
				require.Nil(t, d.ConnectionsGrowth)
				require.Nil(t, d.ConnectionsPeak)
			},
		},
		{
			name: "3-minute run, scraped every 5 s, published every 60 s, baseline 15 s",
			tl:   cloudWatch(20*time.Second, grow),
			check: func(t *testing.T, d Database, notes []Note) {
				require.InDelta(t, 60, d.Cadence.Value, 0, "the publishing cadence, not the scrape interval")
				require.InDelta(t, 60, d.ConnectionsPeak.ResolutionSeconds, 0)
				require.InDelta(t, 20, d.ConnectionsBaseline.Value, 1e-9)
				require.InDelta(t, 30, d.ConnectionsGrowth.Value, 1e-9)
				require.Nil(t, d.Lag, "the newest datapoint is within one cadence of the run end")
				require.True(t, hasNote(notes, NoteInfo, "spans 4 datapoint(s)"))
			},
		},
		{
			name: "3-minute run, first datapoint 20 s after the run start",
			tl: func() *timeline.Timeline {
				tl := cloudWatch(20*time.Second, grow)
				for q, set := range tl.Sets {
					s := set[0]
					tl.Sets[q] = timeline.Set{{Labels: s.Labels, Points: s.Between(timeline.Window{From: runFrom.Add(20 * time.Second), To: tl.After.To})}}
				}
				return tl
			}(),
			check: func(t *testing.T, d Database, notes []Note) {
				require.Nil(t, d.ConnectionsBaseline)
				require.InDelta(t, 50-30, d.ConnectionsGrowth.Value, 1e-9, "from the first datapoint to the peak")
				require.Equal(t, []time.Time{runFrom.Add(20 * time.Second)}, d.ConnectionsGrowth.Evidence[0].Times)
				require.InDelta(t, 60, d.ConnectionsGrowth.ResolutionSeconds, 0)
				require.True(t, hasNote(notes, NotePartial, "first sample after the run start (it may already include some load), 30 at"))
			},
		},
		{
			name: "exporter repeats a stale datapoint",
			tl:   cloudWatch(20*time.Second, func(i int) float64 { return grow(min(i, 1)) }),
			check: func(t *testing.T, d Database, notes []Note) {
				require.InDelta(t, 60, d.Cadence.Value, 0)
				require.NotNil(t, d.Lag)
				require.InDelta(t, 100, d.Lag.Value, 0, "the last datapoint appeared at +1m20s of a 3m run")
				require.True(t, hasNote(notes, NoteInfo, "no new CloudWatch datapoint in the last 1m40s"))
			},
		},
		{
			name: "one datapoint only: the cadence is unknown, the scrape interval stands",
			tl:   cloudWatch(20*time.Second, func(i int) float64 { return grow(min(i, 0)) }),
			check: func(t *testing.T, d Database, _ []Note) {
				require.InDelta(t, 5, d.Cadence.Value, 0)
				require.Nil(t, d.Lag)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := Analyze(tc.tl, DefaultConfig)
			require.Len(t, a.Database, 1)
			tc.check(t, a.Database[0], a.Notes)
			_, err := json.Marshal(a)
			require.NoError(t, err)
		})
	}
}

// TestLagNote: the note on lag names the windows the rates were read over (two of each
// source's intervals), and is left out when neither is known.
func TestLagNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		windows map[string]time.Duration
		want    string
	}{
		{name: "both", windows: map[string]time.Duration{SourceK6: 10 * time.Second, SourceCAdvisor: time.Minute},
			want: "throttling ratios are rate() over 1m (two cAdvisor scrapes), request rates over 10s (two k6 pushes): each lags the moment by about half its window"},
		{name: "request rates only", windows: map[string]time.Duration{SourceK6: 10 * time.Second},
			want: "request rates over 10s (two k6 pushes): each lags the moment by about half its window"},
		{name: "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := lagNote(tc.windows)
			require.Equal(t, tc.want != "", ok)
			require.Equal(t, tc.want, got)
		})
	}
}
