package sim

import (
	"net/http"
	"time"
)

type query struct {
	req       *request
	from      time.Time // when it started
	ioLeft    time.Duration
	cpuLeft   time.Duration
	cancelled bool
}

// CloudWatchValues are the RDS metrics of one published CloudWatch period (averages over
// the period, the credit balance at its end).
type CloudWatchValues struct {
	// At is the end of the period the values describe.
	At                  time.Time
	CPUUtilization      float64 // percent
	DatabaseConnections float64
	CPUCreditBalance    float64
	FreeableMemory      float64 // bytes
}

// database is an RDS-like instance: queries share its vCPUs (processor sharing) after a
// fixed latency, CPU credits are earned and spent like a burstable instance, and metrics
// are averaged and published once per CloudWatch period.
type database struct {
	spec        *DatabaseSpec
	period      time.Duration
	queries     []*query
	credits     float64
	periodStart time.Time
	accT        float64
	accCPU      float64
	accConn     float64
	accMem      float64
	published   bool
	pub         CloudWatchValues
	lastUsed    time.Duration
	conns       int
}

func newDatabase(spec *DatabaseSpec, period time.Duration, start time.Time) *database {
	d := &database{spec: spec, period: period, periodStart: start.Truncate(period)}
	if spec.Credits != nil {
		d.credits = spec.Credits.Initial
	}
	return d
}

// settle publishes the period before the cluster started as that of an idle instance with
// poolConns application connections open: background CPU only, the initial credit balance.
func (d *database) settle(poolConns int) {
	d.conns = poolConns + d.spec.BaseConnections
	d.pub = CloudWatchValues{
		At:                  d.periodStart,
		CPUUtilization:      d.spec.BackgroundCPUPercent,
		DatabaseConnections: float64(d.conns),
		CPUCreditBalance:    d.credits,
		FreeableMemory:      d.freeable(),
	}
	d.published = true
}

// capacity is the CPU time the instance can give queries in dt.
func (d *database) capacity(dt time.Duration) time.Duration {
	total := time.Duration(d.spec.VCPUs) * dt
	if cr := d.spec.Credits; cr != nil && d.credits <= 0 {
		total = time.Duration(float64(total) * cr.BaselinePercent / 100)
	}
	bg := time.Duration(float64(time.Duration(d.spec.VCPUs)*dt) * d.spec.BackgroundCPUPercent / 100)
	return max(total-bg, 0)
}

// step advances by dt the queries started by workStart and returns those that completed.
func (d *database) step(dt time.Duration, workStart time.Time) []*query {
	var cpuPhase []*query
	kept := d.queries[:0]
	for _, q := range d.queries {
		if q.cancelled {
			continue
		}
		kept = append(kept, q)
		if q.from.After(workStart) {
			continue // started during this step: runs from the next one
		}
		if q.ioLeft > 0 {
			q.ioLeft -= dt
			continue
		}
		cpuPhase = append(cpuPhase, q)
	}
	clear(d.queries[len(kept):])
	d.queries = kept
	left := d.capacity(dt)
	d.lastUsed = share(left, dt, cpuPhase, func(q *query) *time.Duration { return &q.cpuLeft })
	var done []*query
	kept = d.queries[:0]
	for _, q := range d.queries {
		if q.ioLeft <= 0 && q.cpuLeft <= 0 && !q.from.After(workStart) {
			done = append(done, q)
			continue
		}
		kept = append(kept, q)
	}
	clear(d.queries[len(kept):])
	d.queries = kept
	return done
}

// account updates credits and the CloudWatch period averages after a step ending at now.
func (d *database) account(now time.Time, dt time.Duration, poolConns int) {
	d.conns = poolConns + d.spec.BaseConnections
	sec := dt.Seconds()
	vcpuSec := float64(d.spec.VCPUs) * sec
	usedSec := d.lastUsed.Seconds() + vcpuSec*d.spec.BackgroundCPUPercent/100
	if cr := d.spec.Credits; cr != nil {
		d.credits += cr.EarnPerHour*sec/3600 - usedSec/60
		d.credits = min(max(d.credits, 0), cr.Max)
	}
	d.accT += sec
	d.accCPU += usedSec / vcpuSec * 100 * sec
	d.accConn += float64(d.conns) * sec
	d.accMem += d.freeable() * sec
	if end := d.periodStart.Add(d.period); !now.Before(end) {
		if d.accT > 0 {
			d.pub = CloudWatchValues{
				At:                  end,
				CPUUtilization:      d.accCPU / d.accT,
				DatabaseConnections: d.accConn / d.accT,
				CPUCreditBalance:    d.credits,
				FreeableMemory:      d.accMem / d.accT,
			}
			d.published = true
		}
		d.periodStart = end
		d.accT, d.accCPU, d.accConn, d.accMem = 0, 0, 0, 0
	}
}

func (d *database) freeable() float64 {
	return max(float64(d.spec.FreeableMemory)-float64(d.spec.MemoryPerConnection)*float64(d.conns), 0)
}

func (d *database) startQuery(now time.Time, r *request, connect time.Duration) {
	q := &query{req: r, from: now, ioLeft: d.spec.QueryLatency.D() + connect, cpuLeft: d.spec.QueryCPU.D()}
	d.queries = append(d.queries, q)
	r.q = q
	r.hasConn = true
	r.stage = stageDB
}

// pool is a per-pod, Prisma-like connection pool: connections open lazily up to size and
// stay open; a query without a free connection waits up to the pool timeout.
type pool struct {
	pod     *pod
	size    int
	open    int
	idle    int
	waiters []*request
}

func (p *pool) canOpen(c *Cluster) bool {
	return c.dbConnections()+c.p.Database.BaseConnections < c.p.Database.MaxConnections
}

func (p *pool) warm(c *Cluster, n int) {
	for p.open < n && p.canOpen(c) {
		p.open++
		p.idle++
	}
}

func (p *pool) acquire(c *Cluster, r *request) {
	switch {
	case p.idle > 0:
		p.idle--
		c.db.startQuery(c.now, r, 0)
	case p.open < p.size:
		if !p.canOpen(c) {
			c.finish(r, http.StatusInternalServerError, ReasonDBConnections)
			return
		}
		p.open++
		c.db.startQuery(c.now, r, c.p.Database.ConnectTime.D())
	default:
		r.stage = stageDBWait
		r.waitSince = c.now
		p.waiters = append(p.waiters, r)
	}
}

// release returns a connection: the first live waiter gets it, else it goes idle.
func (p *pool) release(c *Cluster) {
	if p.open == 0 {
		return // pool closed
	}
	for len(p.waiters) > 0 {
		w := p.waiters[0]
		p.waiters = p.waiters[1:]
		if w.finished {
			continue
		}
		c.db.startQuery(c.now, w, 0)
		return
	}
	p.idle++
}

func (p *pool) expire(c *Cluster) {
	if len(p.waiters) == 0 {
		return
	}
	to := p.pod.svc.spec.Pool.Timeout.D()
	// Finished waiters (answered elsewhere) leave the queue too, without an answer.
	var gone []*request
	p.waiters, gone = extract(p.waiters, func(w *request) bool { return w.finished || c.now.Sub(w.waitSince) >= to })
	for _, w := range gone {
		if w.finished {
			continue
		}
		c.finish(w, http.StatusInternalServerError, ReasonPoolTimeout)
	}
}

func (p *pool) close(*Cluster) {
	p.open, p.idle = 0, 0
	p.waiters = nil
}
