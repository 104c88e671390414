package analysis

import (
	"cmp"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// Database engines of a [DBServer].
const (
	EnginePostgres = "postgres"
	EngineMySQL    = "mysql"
)

// Connections are the database's connections as its own exporter (postgres_exporter,
// mysqld_exporter) and the application's pools (HikariCP, Prisma, database/sql) saw
// them. Either side may be missing.
type Connections struct {
	Servers []DBServer `json:"servers,omitempty"`
	// Pools are one per pod and pool, ordered by namespace, pod and pool.
	Pools []Pool `json:"pools,omitempty"`
	// Total is every pool taken together at each moment: busy summed over the pods, of
	// their sizes summed; nil without pools.
	Total *Pool `json:"total,omitempty"`
}

// Empty reports whether neither a server nor a pool was seen.
func (c Connections) Empty() bool { return len(c.Servers) == 0 && len(c.Pools) == 0 }

// DBServer is one database server seen through its exporter.
type DBServer struct {
	Engine string `json:"engine"`
	// Server names it: postgres_exporter's server label, else the exporter's instance.
	Server string `json:"server"`
	// MaxConnections is the server's max_connections (the largest value in the window).
	MaxConnections *Fact `json:"max_connections,omitempty"`
	// ConnectionsPeak is the most connections at one scrape, dated at it.
	ConnectionsPeak *Fact `json:"connections_peak,omitempty"`
	// PeakShare is ConnectionsPeak ÷ MaxConnections.
	PeakShare *Fact `json:"peak_share,omitempty"`
}

// Pool is one application pod's connection pool, or all of them together (Pod empty).
type Pool struct {
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Pool      string `json:"pool,omitempty"`
	// Size is the pool's size: the pool's own maximum (HikariCP's max, database/sql's
	// max open), else params.db_pool_per_pod (Prisma reports none). SizeFrom says which.
	Size     *Fact  `json:"size,omitempty"`
	SizeFrom string `json:"size_from,omitempty"`
	// BusyPeak is the most connections in use at one sample, dated at it.
	BusyPeak *Fact `json:"busy_peak,omitempty"`
	// BusyShare is the peak of busy ÷ size (a ratio), dated at that peak.
	BusyShare *Fact `json:"busy_share,omitempty"`
	// PendingPeak is the most queries waiting for a connection at one sample (HikariCP's
	// pending, Prisma's queries wait); database/sql has no gauge of waiters.
	PendingPeak *Fact `json:"pending_peak,omitempty"`
	// WaitersFirst is the first sample in the run that showed a waiter (a pending query,
	// or a database/sql wait begun), nil when none waited.
	WaitersFirst *Fact `json:"waiters_first,omitempty"`
	// WaitersAfterStart is WaitersFirst as seconds after the run's start.
	WaitersAfterStart *Fact `json:"waiters_after_start,omitempty"`
	// Busy is the series BusyPeak was read from (not in the JSON: the result's series
	// hold it as pool_busy).
	Busy timeline.Series `json:"-"`
}

// Name is how reports name the pool: namespace/pod (pool), or "all pods".
func (p Pool) Name() string {
	if p.Pod == "" {
		return "all pods"
	}
	n := p.Namespace + "/" + p.Pod
	if p.Pool != "" {
		n += " (" + p.Pool + ")"
	}
	return n
}

// Pool sizes come from the pool's metrics or from params.db_pool_per_pod.
const (
	SizeFromMetric = "metric"
	SizeFromParam  = "db_pool_per_pod"
)

// AnalyzeConnections derives the database servers' and the pools' facts over the
// timeline's span. Every fact carries its source's scrape interval as its resolution.
func AnalyzeConnections(tl *timeline.Timeline, cfg Config) Connections {
	var c Connections
	span := tl.Span()
	for _, e := range []struct{ engine, source, conns, max string }{
		{EnginePostgres, SourcePostgres, QPGConnections, QPGMaxConnections},
		{EngineMySQL, SourceMySQL, QMySQLConnections, QMySQLMaxConnections},
	} {
		res := tl.Res(e.source)
		for _, s := range tl.Set(e.conns) {
			d := DBServer{Engine: e.engine, Server: serverName(s)}
			if p, ok := timeline.ArgMax(s.Between(span)); ok {
				d.ConnectionsPeak = value(p.V, UnitCount, p.T, res, ev(e.conns, s, p.T))
			}
			if m := tl.Set(e.max).Match(sameServer(s)); len(m) > 0 {
				if p, ok := timeline.ArgMax(m[0].Between(span)); ok && p.V > 0 {
					d.MaxConnections = value(p.V, UnitCount, time.Time{}, res, ev(e.max, m[0], p.T))
					if d.ConnectionsPeak != nil {
						d.PeakShare = value(d.ConnectionsPeak.Value/p.V, UnitRatio, d.ConnectionsPeak.At, res,
							slices.Concat(d.ConnectionsPeak.Evidence, d.MaxConnections.Evidence)...)
					}
				}
			}
			c.Servers = append(c.Servers, d)
		}
	}
	slices.SortStableFunc(c.Servers, func(a, b DBServer) int {
		return cmp.Or(cmp.Compare(a.Engine, b.Engine), cmp.Compare(a.Server, b.Server))
	})
	c.Pools, c.Total = analyzePools(tl, cfg, span)
	return c
}

// serverName is postgres_exporter's server label, else the exporter's instance.
func serverName(s timeline.Series) string {
	for _, l := range []string{"server", "instance"} {
		if v := s.Label(l); v != "" {
			return v
		}
	}
	return "(unnamed)"
}

func sameServer(s timeline.Series) map[string]string {
	return map[string]string{"instance": s.Label("instance"), "server": s.Label("server")}
}

func poolKey(s timeline.Series) map[string]string {
	return map[string]string{"namespace": s.Label("namespace"), "pod": s.Label("pod"), "pool": s.Label("pool")}
}

func analyzePools(tl *timeline.Timeline, cfg Config, span timeline.Window) ([]Pool, *Pool) {
	busy := slices.Clone(tl.Set(QPoolBusy))
	if len(busy) == 0 {
		return nil, nil
	}
	slices.SortFunc(busy, func(a, b timeline.Series) int {
		return cmp.Or(cmp.Compare(a.Label("namespace"), b.Label("namespace")), cmp.Compare(a.Label("pod"), b.Label("pod")),
			cmp.Compare(a.Label("pool"), b.Label("pool")))
	})
	res := tl.Res(SourcePool)
	pools := make([]Pool, 0, len(busy))
	var sizes timeline.Set // the size of each pool at its busy samples, for the total
	for _, b := range busy {
		key := poolKey(b)
		p := Pool{Namespace: key["namespace"], Pod: key["pod"], Pool: key["pool"], Busy: b}
		size := timeline.Series{Labels: key}
		if m := tl.Set(QPoolSize).Match(key); len(m) > 0 {
			if mx, ok := timeline.ArgMax(m[0].Between(span)); ok && mx.V > 0 {
				p.Size, p.SizeFrom = value(mx.V, UnitCount, time.Time{}, res, ev(QPoolSize, m[0], mx.T)), SizeFromMetric
				size = m[0]
			}
		}
		if p.Size == nil && cfg.PoolPerPod > 0 {
			p.Size, p.SizeFrom = value(cfg.PoolPerPod, UnitCount, time.Time{}, 0), SizeFromParam
			for _, pt := range b.Points {
				size.Points = append(size.Points, timeline.Point{T: pt.T, V: cfg.PoolPerPod})
			}
		}
		if pk, ok := timeline.ArgMax(b.Between(span)); ok {
			p.BusyPeak = value(pk.V, UnitCount, pk.T, res, ev(QPoolBusy, b, pk.T))
			if p.Size != nil {
				p.BusyShare = value(pk.V/p.Size.Value, UnitRatio, pk.T, res, slices.Concat(p.BusyPeak.Evidence, p.Size.Evidence)...)
			}
		}
		if m := tl.Set(QPoolPending).Match(key); len(m) > 0 {
			if pk, ok := timeline.ArgMax(m[0].Between(span)); ok {
				p.PendingPeak = value(pk.V, UnitCount, pk.T, res, ev(QPoolPending, m[0], pk.T))
			}
		}
		p.WaitersFirst = firstWaiter(tl, key, tl.Run, res)
		if f := p.WaitersFirst; f != nil {
			p.WaitersAfterStart = spanFact(f.At.Sub(tl.Run.From), res, f.Evidence...)
		}
		pools = append(pools, p)
		sizes = append(sizes, size)
	}
	return pools, poolTotal(tl, pools, sizes, span, res)
}

// firstWaiter is the first sample in w at which a query of the pool waited.
func firstWaiter(tl *timeline.Timeline, key map[string]string, w timeline.Window, res time.Duration) *Fact {
	var first *Fact
	for _, q := range []string{QPoolPending, QPoolWaits} {
		for _, s := range tl.Set(q).Match(key) {
			for _, p := range s.Between(w) {
				if p.V > 0 {
					if first == nil || p.T.Before(first.At) {
						first = instant(p.T, res, ev(q, s, p.T))
					}
					break
				}
			}
		}
	}
	return first
}

// poolTotal takes every pool together: at each moment, the connections busy in all of
// them of the sizes of the pools that reported then.
func poolTotal(tl *timeline.Timeline, pools []Pool, sizes timeline.Set, span timeline.Window, res time.Duration) *Pool {
	age := 2 * res
	busy := make(timeline.Set, 0, len(pools))
	for _, p := range pools {
		busy = append(busy, p.Busy)
	}
	sum := busy.Sum(age)
	t := &Pool{Busy: sum}
	evTotal := func(q string, at time.Time) Evidence {
		return Evidence{Query: q, Series: "sum", Times: []time.Time{at}}
	}
	if pk, ok := timeline.ArgMax(sum.Between(span)); ok {
		t.BusyPeak = value(pk.V, UnitCount, pk.T, res, evTotal(QPoolBusy, pk.T))
	}
	var best *timeline.Point
	var bestSize float64
	for _, pt := range sum.Between(span) {
		var size float64
		complete := true
		for i, s := range sizes {
			if _, alive := busy[i].At(pt.T, age); !alive {
				continue
			}
			v, ok := s.At(pt.T, age)
			if !ok {
				complete = false
				break
			}
			size += v
		}
		if !complete || size <= 0 {
			continue
		}
		if best == nil || pt.V/size > best.V/bestSize {
			p := pt
			best, bestSize = &p, size
		}
	}
	if best != nil {
		t.BusyShare = value(best.V/bestSize, UnitRatio, best.T, res, evTotal(QPoolBusy, best.T), evTotal(QPoolSize, best.T))
		t.Size = value(bestSize, UnitCount, best.T, res, evTotal(QPoolSize, best.T))
		t.SizeFrom = pools[0].SizeFrom
	}
	pending := make(timeline.Set, 0, len(pools))
	for _, p := range pools {
		pending = append(pending, tl.Set(QPoolPending).Match(poolKey(p.Busy))...)
	}
	if len(pending) > 0 {
		if pk, ok := timeline.ArgMax(pending.Sum(age).Between(span)); ok {
			t.PendingPeak = value(pk.V, UnitCount, pk.T, res, evTotal(QPoolPending, pk.T))
		}
	}
	for _, p := range pools {
		if f := p.WaitersFirst; f != nil && (t.WaitersFirst == nil || f.At.Before(t.WaitersFirst.At)) {
			t.WaitersFirst, t.WaitersAfterStart = f, p.WaitersAfterStart
		}
	}
	return t
}
