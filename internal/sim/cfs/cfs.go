// Package cfs models Linux CFS bandwidth control for one cgroup: a quota of CPU time per
// period, work beyond the quota waiting for the next period, and the cpu.stat counters
// (nr_periods, nr_throttled, throttled_time) accounted the way kernel/sched/fair.c does.
//
// Accounting rules reproduced (do_sched_cfs_period_timer, unthrottle_cfs_rq):
//   - the period timer runs only while the group is active: it starts when the group first
//     consumes runtime, every timer expiry adds one to nr_periods, and the timer stops at the
//     end of the first full period in which the group neither ran nor was throttled (that
//     idle period is still counted);
//   - nr_throttled counts expiries at which the group is throttled;
//   - throttled_time is summed per CPU run queue, so with several runnable threads it grows
//     faster than wall-clock time.
package cfs

import "time"

// DefaultPeriod is the CFS period Kubernetes uses (cpu.cfs_period_us = 100000).
const DefaultPeriod = 100 * time.Millisecond

// Bandwidth is a group's cpu.max: Quota of CPU time per Period. A zero Quota means
// unlimited ("max"), as for a container without a CPU limit.
type Bandwidth struct {
	Quota  time.Duration
	Period time.Duration
}

// QuotaForLimit returns the quota Kubernetes sets for a CPU limit in millicores
// (MilliCPUToQuota: milliCPU × period / 1000, at least 1 ms). It is 0 for no limit.
func QuotaForLimit(milli int64, period time.Duration) time.Duration {
	if milli <= 0 {
		return 0
	}
	q := time.Duration(milli) * period / 1000
	return max(q, time.Millisecond)
}

// Stats are the group's cumulative cpu.stat values.
type Stats struct {
	// Usage is usage_usec: CPU time consumed.
	Usage time.Duration
	// Periods is nr_periods: period timer expiries while the group was active.
	Periods uint64
	// ThrottledPeriods is nr_throttled.
	ThrottledPeriods uint64
	// ThrottledTime is throttled_time, summed over CPU run queues.
	ThrottledTime time.Duration
}

// Group is one cgroup under bandwidth control. It keeps its own time, advanced by Run.
// It is not safe for concurrent use.
type Group struct {
	bw        Bandwidth
	cpus      int
	now       time.Duration
	active    bool // period timer running
	idle      bool // cfs_b->idle: no runtime consumed since the last expiry
	throttled bool
	periodEnd time.Duration
	runtime   time.Duration // runtime left in this period
	stats     Stats
}

// NewGroup returns an idle group with bandwidth bw on a node with cpus CPUs (at least 1).
// A zero Period is DefaultPeriod.
func NewGroup(bw Bandwidth, cpus int) *Group {
	if bw.Period <= 0 {
		bw.Period = DefaultPeriod
	}
	if bw.Quota < 0 {
		bw.Quota = 0
	}
	return &Group{bw: bw, cpus: max(cpus, 1)}
}

// Bandwidth returns the group's quota and period.
func (g *Group) Bandwidth() Bandwidth { return g.bw }

// Limited reports whether the group has a quota.
func (g *Group) Limited() bool { return g.bw.Quota > 0 }

// Stats returns the cumulative counters.
func (g *Group) Stats() Stats { return g.stats }

// Throttled reports whether the group is throttled now.
func (g *Group) Throttled() bool { return g.throttled }

// Run advances the group by dt while runnable threads want demand CPU time in total, and
// returns the CPU time the group got. The grant is at most demand, at most one CPU per
// runnable thread (bounded by the node's CPUs) for dt, and at most the quota left.
// Run must be called for every interval, with runnable 0 when the group is idle, so that
// the period timer advances.
func (g *Group) Run(dt time.Duration, runnable int, demand time.Duration) time.Duration {
	if dt <= 0 {
		return 0
	}
	if runnable < 0 {
		runnable = 0
	}
	if demand < 0 {
		demand = 0
	}
	threads := min(runnable, g.cpus)
	var granted time.Duration
	if !g.Limited() {
		granted = min(demand, time.Duration(threads)*dt)
		g.stats.Usage += granted
		g.now += dt
		return granted
	}
	rest := dt
	for rest > 0 {
		if !g.active {
			if threads == 0 || demand-granted <= 0 {
				g.now += rest
				break
			}
			// start_cfs_bandwidth: the timer is armed from now, with a fresh quota.
			g.active, g.idle, g.throttled = true, false, false
			g.periodEnd = g.now + g.bw.Period
			g.runtime = g.bw.Quota
		}
		seg := min(rest, g.periodEnd-g.now)
		want := min(demand-granted, time.Duration(threads)*seg)
		if g.throttled {
			if want > 0 {
				g.stats.ThrottledTime += time.Duration(threads) * seg
			}
		} else if want > 0 {
			use := min(want, g.runtime)
			g.runtime -= use
			granted += use
			g.idle = false
			if use < want {
				// Quota exhausted part-way: the run queues holding runnable threads are
				// throttled until the period timer refills the quota.
				g.throttled = true
				ran := use / time.Duration(threads)
				g.stats.ThrottledTime += time.Duration(threads) * (seg - ran)
			}
		}
		g.now += seg
		rest -= seg
		if g.now >= g.periodEnd {
			g.expire()
		}
	}
	g.stats.Usage += granted
	return granted
}

// expire is do_sched_cfs_period_timer for one overrun.
func (g *Group) expire() {
	g.runtime = g.bw.Quota
	g.stats.Periods++
	g.periodEnd += g.bw.Period
	if g.idle && !g.throttled {
		g.active = false
		return
	}
	if !g.throttled {
		g.idle = true
		return
	}
	g.stats.ThrottledPeriods++
	g.throttled = false
	g.idle = false
}
