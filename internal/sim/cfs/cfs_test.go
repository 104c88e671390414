package cfs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const step = 5 * time.Millisecond

// runFor drives g for d in 5 ms steps with a constant number of runnable threads that
// always have work, and returns the CPU time granted.
func runFor(g *Group, d time.Duration, runnable int) time.Duration {
	var got time.Duration
	for t := time.Duration(0); t < d; t += step {
		demand := time.Duration(0)
		if runnable > 0 {
			demand = time.Hour
		}
		got += g.Run(step, runnable, demand)
	}
	return got
}

func TestGroupAccounting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		bw                Bandwidth
		cpus              int
		drive             func(g *Group) time.Duration
		wantUsage         time.Duration
		wantPeriods       uint64
		wantThrottled     uint64
		wantThrottledTime time.Duration
	}{
		{
			name: "one busy thread at 2x a 500m quota is throttled in every active period",
			bw:   Bandwidth{Quota: 50 * time.Millisecond, Period: DefaultPeriod}, cpus: 2,
			drive:     func(g *Group) time.Duration { return runFor(g, 10*time.Second, 1) },
			wantUsage: 5 * time.Second, wantPeriods: 100, wantThrottled: 100,
			// 50 ms of each period waiting on one run queue.
			wantThrottledTime: 5 * time.Second,
		},
		{
			name: "idle group accrues no periods",
			bw:   Bandwidth{Quota: 50 * time.Millisecond}, cpus: 2,
			drive: func(g *Group) time.Duration { return runFor(g, 10*time.Second, 0) },
		},
		{
			name: "a burst under quota counts its period and one idle period, unthrottled",
			bw:   Bandwidth{Quota: 50 * time.Millisecond}, cpus: 2,
			drive: func(g *Group) time.Duration {
				got := g.Run(step, 1, 30*time.Millisecond)
				for range 5 {
					got += g.Run(step, 1, 30*time.Millisecond-got)
				}
				return got + runFor(g, 2*time.Second, 0)
			},
			wantUsage: 30 * time.Millisecond, wantPeriods: 2,
		},
		{
			name: "throttled time sums over run queues and outgrows wall clock",
			bw:   Bandwidth{Quota: 100 * time.Millisecond}, cpus: 4,
			drive:     func(g *Group) time.Duration { return runFor(g, time.Second, 4) },
			wantUsage: time.Second, wantPeriods: 10, wantThrottled: 10,
			// each period: 4 threads run 25 ms, then 4 run queues wait 75 ms.
			wantThrottledTime: 3 * time.Second,
		},
		{
			name: "demand at quota is never throttled",
			bw:   Bandwidth{Quota: 100 * time.Millisecond}, cpus: 2,
			drive:     func(g *Group) time.Duration { return runFor(g, time.Second, 1) },
			wantUsage: time.Second, wantPeriods: 10,
		},
		{
			name: "no quota means no bandwidth accounting",
			bw:   Bandwidth{}, cpus: 2,
			drive:     func(g *Group) time.Duration { return runFor(g, time.Second, 3) },
			wantUsage: 2 * time.Second,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := NewGroup(tc.bw, tc.cpus)
			got := tc.drive(g)
			s := g.Stats()
			require.Equal(t, tc.wantUsage, got)
			require.Equal(t, tc.wantUsage, s.Usage)
			require.Equal(t, tc.wantPeriods, s.Periods)
			require.Equal(t, tc.wantThrottled, s.ThrottledPeriods)
			require.Equal(t, tc.wantThrottledTime, s.ThrottledTime)
		})
	}
}

func TestIntermittentLoadCountsOnlyActivePeriods(t *testing.T) {
	t.Parallel()
	g := NewGroup(Bandwidth{Quota: 50 * time.Millisecond}, 2)
	// 1 s busy at 2x quota, 5 s idle, 1 s busy again.
	runFor(g, time.Second, 1)
	runFor(g, 5*time.Second, 0)
	runFor(g, time.Second, 1)
	s := g.Stats()
	// 10 active periods per busy second, plus two idle periods after the first burst:
	// the expiry that unthrottles clears cfs_b->idle, the next one only marks the group
	// idle, and the one after that stops the timer. Nothing is counted for the other 4.8 s.
	require.Equal(t, uint64(22), s.Periods)
	require.Equal(t, uint64(20), s.ThrottledPeriods)
	require.Equal(t, time.Second, s.Usage)
}

func TestQuotaForLimit(t *testing.T) {
	t.Parallel()
	require.Equal(t, 50*time.Millisecond, QuotaForLimit(500, DefaultPeriod))
	require.Equal(t, 20*time.Millisecond, QuotaForLimit(200, DefaultPeriod))
	require.Equal(t, time.Millisecond, QuotaForLimit(1, DefaultPeriod))
	require.Equal(t, time.Duration(0), QuotaForLimit(0, DefaultPeriod))
}
