package analysis

import (
	"encoding/json"
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
