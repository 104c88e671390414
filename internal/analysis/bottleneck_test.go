package analysis

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// bottleneckCase builds a three-stage run of 10 minutes (stages of 3, 3 and 4
// minutes) whose detector results each case edits.
type bottleneckCase struct {
	tl *timeline.Timeline
	a  Analysis
}

func newBottleneckCase() *bottleneckCase {
	run := timeline.Window{From: t0, To: t0.Add(10 * time.Minute)}
	tl := &timeline.Timeline{Run: run, Step: k6Res, Sets: map[string]timeline.Set{},
		Resolution: map[string]time.Duration{SourceK6: k6Res, SourceKSM: ksmRes, SourceCAdvisor: ksmRes, SourceRDS: rdsRes}}
	tl.Sets[QDeploymentSpec] = timeline.Set{gen(m("namespace", "shop", "deployment", "api"), run.From, run.To, ksmRes, func(time.Duration) float64 { return 2 })}
	tl.Sets[QVUs] = timeline.Set{gen(m(), run.From, run.To, k6Res, func(d time.Duration) float64 { return 10 + d.Minutes()*10 })}
	tl.Sets[QHTTPReqRate] = timeline.Set{gen(m(), run.From, run.To, k6Res, func(d time.Duration) float64 { return 20 + d.Minutes()*20 })}
	b := &bottleneckCase{tl: tl}
	bounds := []time.Duration{0, 3 * time.Minute, 6 * time.Minute, 10 * time.Minute}
	for i := range 3 {
		st := StageFacts{Stage: timeline.Stage{Index: i, Window: timeline.Window{From: t0.Add(bounds[i]), To: t0.Add(bounds[i+1])}},
			Requests: 1000, Held: true, Why: "held",
			P95: &Fact{Value: 0.02, Unit: UnitSeconds}, ErrorRate: &Fact{Value: 0, Unit: UnitRatio}}
		b.a.Load.Stages = append(b.a.Load.Stages, st)
	}
	b.a.Load.Requests = 3000
	b.a.Load.Capacity.Text = "held through stage 3"
	// One workload with a 500m limit, used at 40% and throttled 1%: ruled out.
	b.a.CPU = []WorkloadCPU{{Namespace: "shop", Workload: "api", Limit: &Fact{Value: 0.5, Unit: UnitCores},
		Usage:     gen(m(), run.From, run.To, ksmRes, func(time.Duration) float64 { return 0.2 }),
		Throttled: gen(m(), run.From, run.To, ksmRes, func(time.Duration) float64 { return 0.01 })}}
	// One HPA, 2 → at most 4 of 10 replicas, no failures: ruled out.
	b.a.Autoscaling = []HPA{{Namespace: "shop", Name: "api", Max: &Fact{Value: 10}, Peak: &Fact{Value: 4}, Tolerance: 0.1,
		TargetMetric: "cpu utilization 60", TargetValue: &Fact{Value: 60}}}
	return b
}

func (b *bottleneckCase) breakStage(i int, why string) {
	b.a.Load.Stages[i].Held, b.a.Load.Stages[i].Why = false, "broke: "+why
}

func (b *bottleneckCase) withDatabase(cpu float64, conns float64) {
	rds := m("dimension_DBInstanceIdentifier", "db1")
	b.tl.Sets[QRDSCPU] = timeline.Set{gen(rds, b.tl.Run.From, b.tl.Run.To, rdsRes, func(time.Duration) float64 { return cpu })}
	b.tl.Sets[QRDSCreditBalance] = timeline.Set{gen(rds, b.tl.Run.From, b.tl.Run.To, rdsRes, func(d time.Duration) float64 { return 100 + d.Minutes() })}
	b.tl.Sets[QRDSConnections] = timeline.Set{gen(rds, b.tl.Run.From, b.tl.Run.To, rdsRes, flat(conns))}
	b.a.Database = []Database{{Instance: "db1", ConnectionsPeak: &Fact{Value: conns}, CreditEnd: &Fact{Value: 110}, CreditTrend: "rising"}}
}

// withMemory puts the workload shop/api's memory series in the timeline (two pods, a
// 256 MiB limit each; pod b's working set of limit is ofLimit, pod a's 30%; restarts
// and the OOMKilled reason per pod b as given) and derives a.Memory from them.
func (b *bottleneckCase) withMemory(ofLimit, restarts, oomKilled func(time.Duration) float64) {
	run := b.tl.Run
	pod := func(p string) map[string]string { return m("namespace", "shop", "workload", "api", "pod", p) }
	const limit = 256 << 20
	b.tl.Sets[QMemoryLimit] = timeline.Set{gen(pod("a"), run.From, run.To, ksmRes, func(time.Duration) float64 { return limit }),
		gen(pod("b"), run.From, run.To, ksmRes, func(time.Duration) float64 { return limit })}
	b.tl.Sets[QMemoryOfLimit] = timeline.Set{gen(pod("a"), run.From, run.To, ksmRes, func(time.Duration) float64 { return 0.3 }),
		gen(pod("b"), run.From, run.To, ksmRes, ofLimit)}
	b.tl.Sets[QMemoryWorkingSet] = timeline.Set{gen(pod("b"), run.From, run.To, ksmRes, func(d time.Duration) float64 { return ofLimit(d) * limit })}
	if restarts != nil {
		b.tl.Sets[QRestarts] = timeline.Set{gen(pod("a"), run.From, run.To, ksmRes, func(time.Duration) float64 { return 0 }),
			gen(pod("b"), run.From, run.To, ksmRes, restarts)}
	}
	if oomKilled != nil {
		b.tl.Sets[QOOMKilled] = timeline.Set{gen(pod("b"), run.From, run.To, ksmRes, oomKilled)}
	}
	b.a.Memory = AnalyzeMemory(b.tl)
}

func flat(v float64) func(time.Duration) float64 { return func(time.Duration) float64 { return v } }

// withHolds makes the three stages holds of 10, 20 and 30 VUs whose throttled shares are
// shares, and sets the workload's throttling onset (the first hold over 50%) as
// AnalyzeCPU does.
func (b *bottleneckCase) withHolds(shares [3]float64) {
	w := &b.a.CPU[0]
	w.StageOnsetShare = 0.5
	for i := range b.a.Load.Stages {
		st := &b.a.Load.Stages[i]
		st.Kind, st.Unit, st.StartTarget, st.EndTarget = timeline.Hold, StageUnitVUs, float64(10*(i+1)), float64(10*(i+1))
		w.Holds = append(w.Holds, HoldThrottling{Stage: i, Target: st.EndTarget, Unit: StageUnitVUs, Share: &Fact{Value: shares[i], Unit: UnitRatio, At: st.To}})
	}
	for i := range w.Holds {
		if w.Holds[i].Share.Value > w.StageOnsetShare {
			w.StageOnset = &w.Holds[i]
			break
		}
	}
}

// withGeneratorCPU puts the load generator's CPU in the timeline: share of its cores
// (QLoadGeneratorCPU) and cores (QLoadGeneratorCPUCores), on instance_id inst ("" for a
// single instance).
func (b *bottleneckCase) withGeneratorCPU(inst string, cores float64, share func(time.Duration) float64) {
	l := m()
	if inst != "" {
		l = m("instance_id", inst)
	}
	run := b.tl.Run
	b.tl.Sets[QLoadGeneratorCPU] = append(b.tl.Sets[QLoadGeneratorCPU], gen(l, run.From, run.To, k6Res, share))
	b.tl.Sets[QLoadGeneratorCPUCores] = append(b.tl.Sets[QLoadGeneratorCPUCores], gen(l, run.From, run.To, k6Res, flat(cores)))
}

func TestDecideBottleneck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(b *bottleneckCase, cfg *Config)
		resource string
		stage    int
		at       time.Duration      // from t0; -1 = no moment
		ruledOut []string           // resources ruled out (with numbers)
		says     []string           // in the text or evidence
		numbers  map[string]float64 // in the ruled-out resources' numbers
	}{
		{
			name:     "every stage held",
			edit:     func(*bottleneckCase, *Config) {},
			resource: ResourceNone, at: -1,
			ruledOut: []string{ResourceStartup, ResourceReplicas, ResourceCPU},
			says:     []string{"not the app's CPU: api: CPU at most 40% of its limit, throttled in at most 1% of its CFS periods", "not replicas: api at most 4 of 10 replicas"},
		},
		{
			name: "story 3: throttled, latency rising at 0% errors",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "http_req_duration 'p(95)<500' p(95)=812ms")
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 6*time.Minute + 30*time.Second}, []float64{0.02, 0.6}))
			},
			resource: ResourceCPU, stage: 3, at: 6*time.Minute + 30*time.Second,
			ruledOut: []string{ResourceStartup, ResourceReplicas},
			says:     []string{"api throttled in 60% of its CFS periods", "(rule: ≥ 25%)", "75 VUs", "150.0/s requests"},
		},
		{
			name: "story 3 without latency thresholds: every stage held, p95 rose while throttled",
			edit: func(b *bottleneckCase, _ *Config) {
				b.a.Load.Stages[2].P95 = &Fact{Value: 0.09, Unit: UnitSeconds}
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 6*time.Minute + 30*time.Second}, []float64{0.02, 0.6}))
			},
			resource: ResourceCPU, stage: 3, at: 6*time.Minute + 30*time.Second,
			ruledOut: []string{ResourceReplicas},
			says:     []string{"every stage held its thresholds, but stage 3's p95 90 ms is 4.5× the run's lowest stage p95"},
		},
		{
			name: "throttled but latency flat and every stage held: none, saturation noted",
			edit: func(b *bottleneckCase, _ *Config) {
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 6*time.Minute + 30*time.Second}, []float64{0.02, 0.6}))
			},
			resource: ResourceNone, at: -1,
			says: []string{"cpu saturated while every stage held and latency stayed within 2×"},
		},
		{
			name: "story 2: CPU at the limit, pool and database ruled out",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(1, "error rate 4% > 1% (default)")
				b.a.CPU[0].Usage = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 4 * time.Minute}, []float64{0.2, 0.495}))
				b.withDatabase(12, 41)
				cfg.PoolPerPod = 10
				b.a.Database[0].PoolCeiling = &Fact{Value: 150}
			},
			resource: ResourceCPU, stage: 2, at: 4 * time.Minute,
			ruledOut: []string{ResourceDatabase, ResourcePool},
			says:     []string{"api CPU at 99% of its 500m limit", "not the database: db1: CPU at most 12%, CPU credits rising (110 at the end), connections at most 41", "not the pool: db1 at most 27% busy (41 of 150 connections)"},
		},
		{
			name: "replicas: at max with the metric over target",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 5% > 1% (default)")
				h := &b.a.Autoscaling[0]
				h.Peak = &Fact{Value: 10}
				h.MaxReached = &Fact{At: t0.Add(7 * time.Minute), Unit: UnitTime}
				b.tl.Sets[QHPAStatusMetric] = timeline.Set{gen(m("namespace", "shop", "horizontalpodautoscaler", "api", "metric_name", "cpu", "metric_target_type", "utilization"),
					b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 7*time.Minute + 30*time.Second}, []float64{50, 95}))}
			},
			resource: ResourceReplicas, stage: 3, at: 7*time.Minute + 30*time.Second,
			says: []string{"api at max 10 replicas from 10:07:00, its metric 95 over target 60×(1+0.1)"},
		},
		{
			name: "replicas at max without the HPA's status: not guessed",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 5% > 1% (default)")
				b.a.Autoscaling[0].MaxReached = &Fact{At: t0.Add(7 * time.Minute), Unit: UnitTime}
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			says: []string{"not checked: ", "replicas (kube_horizontalpodautoscaler_status_target_metric"},
		},
		{
			name: "story 1: failures inside the start-up gap",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "error rate 8% > 1% (default)")
				b.a.Errors.Failures = 100
				b.a.Errors.Gaps = []GapShare{{Object: "shop/api", Window: timeline.Window{From: t0.Add(200 * time.Second), To: t0.Add(260 * time.Second)}, Failures: 83}}
				b.withDatabase(12, 41)
			},
			resource: ResourceStartup, stage: 2, at: 200 * time.Second,
			ruledOut: []string{ResourceCPU, ResourceDatabase},
			says:     []string{"83 of 100 failures (83%) answered while an HPA's current replicas were ahead of Ready (rule: ≥ 50%); inside each HPA's gaps: shop/api 83; first such gap shop/api", "not the database: db1: CPU at most 12%, CPU credits rising"},
		},
		{
			name: "story 1: the CPU the HPA scales on saturated first, failures inside the gap",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "error rate 8% > 1% (default)")
				b.a.Autoscaling[0].Deployment = "api"
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 190 * time.Second}, []float64{0.02, 0.4}))
				b.a.Errors.Failures = 100
				b.a.Errors.Gaps = []GapShare{{Object: "shop/api", Window: timeline.Window{From: t0.Add(200 * time.Second), To: t0.Add(260 * time.Second)}, Failures: 83}}
			},
			resource: ResourceStartup, stage: 2, at: 200 * time.Second,
			says: []string{"shop/api's CPU saturated at 10:03:15, which its HPA scales on"},
		},
		{
			name: "demo: the CPU order's HPA scales on, then failures inside kitchen's gaps",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "error rate 15% > 1% (default)")
				b.a.Autoscaling[0].Deployment = "api"
				b.a.Autoscaling = append(b.a.Autoscaling, HPA{Namespace: "shop", Name: "kitchen", Deployment: "kitchen", Max: &Fact{Value: 5}, Peak: &Fact{Value: 3}})
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 180 * time.Second}, []float64{0.02, 0.4}))
				b.a.Errors.Failures = 860
				// The gaps overlap: 720 failures inside them, not 500 + 320.
				b.a.Errors.Gaps = []GapShare{
					{Object: "shop/kitchen", Window: timeline.Window{From: t0.Add(210 * time.Second), To: t0.Add(250 * time.Second)}, Failures: 500},
					{Object: "shop/api", Window: timeline.Window{From: t0.Add(240 * time.Second), To: t0.Add(270 * time.Second)}, Failures: 320},
				}
				b.a.Errors.InGapShare = &Fact{Value: 720.0 / 860, Unit: UnitRatio}
			},
			resource: ResourceStartup, stage: 2, at: 210 * time.Second,
			says: []string{"720 of 860 failures (84%)", "shop/api 320, shop/kitchen 500", "shop/api's CPU saturated at 10:03:00, which its HPA scales on"},
		},
		{
			name: "database CPU saturated before the app's",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 3% > 1% (default)")
				b.withDatabase(12, 41)
				b.tl.Sets[QRDSCPU][0] = gen(m("dimension_DBInstanceIdentifier", "db1"), b.tl.Run.From, b.tl.Run.To, rdsRes, stepsAt([]time.Duration{0, 5 * time.Minute}, []float64{30, 97}))
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 8 * time.Minute}, []float64{0.02, 0.5}))
			},
			resource: ResourceDatabase, stage: 3, at: 5 * time.Minute,
			says: []string{"db1 CPU 97% at 10:05:00 (rule: ≥ 90%)", "then cpu at 10:08:00"},
		},
		{
			name: "pool: connections held at the pool's size",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(2, "http_req_duration 'p(95)<500' p(95)=2s")
				b.withDatabase(20, 40)
				cfg.PoolPerPod = 10
				b.a.Database[0].Plateau = &Fact{Value: 40, At: t0.Add(6 * time.Minute)}
				b.a.Database[0].PoolCeiling = &Fact{Value: 40}
			},
			resource: ResourcePool, stage: 3, at: 6 * time.Minute,
			says: []string{"db1 connections held at 40 from 10:06:00, 100% of the pool"},
		},
		{
			name: "pool: the same plateau without pool metrics or the pool's size is not guessed: unknown names the pool's source",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "http_req_duration 'p(95)<500' p(95)=2s")
				b.withDatabase(20, 40)
				b.a.Database[0].Plateau = &Fact{Value: 40, At: t0.Add(6 * time.Minute)}
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			ruledOut: []string{ResourceDatabase, ResourceCPU},
			says:     []string{"pool (the pool's metrics (HikariCP, Prisma, database/sql), or its size (params.db_pool_per_pod) with the database's connections)"},
		},
		{
			name: "postgres at max_connections",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				b.tl.Sets[QPGConnections] = timeline.Set{gen(m("server", "pg:5432"), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 7 * time.Minute}, []float64{41, 148}))}
				b.a.Connections.Servers = []DBServer{{Engine: EnginePostgres, Server: "pg:5432", MaxConnections: &Fact{Value: 150, ResolutionSeconds: 15}}}
			},
			resource: ResourceDatabase, stage: 3, at: 7 * time.Minute,
			says: []string{"pg:5432 (postgres) at 148 of max_connections 150 at 10:07:00 (rule: ≥ 90%)"},
		},
		{
			name: "postgres_exporter without max_connections: not checked, never ruled out without numbers",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				b.tl.Sets[QPGConnections] = timeline.Set{gen(m("server", "pg:5432"), b.tl.Run.From, b.tl.Run.To, ksmRes, flat(41))}
				b.a.Connections.Servers = []DBServer{{Engine: EnginePostgres, Server: "pg:5432"}}
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			says: []string{"database (the database server's CPU, CPU credits, or connections with max_connections"},
		},
		{
			name: "RDS at max_connections (params.db_max_connections)",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				b.withDatabase(12, 41)
				b.tl.Sets[QRDSConnections][0] = gen(m("dimension_DBInstanceIdentifier", "db1"), b.tl.Run.From, b.tl.Run.To, rdsRes, stepsAt([]time.Duration{0, 7 * time.Minute}, []float64{41, 140}))
				cfg.DBMaxConnections = 150
			},
			resource: ResourceDatabase, stage: 3, at: 7 * time.Minute,
			ruledOut: []string{ResourceCPU},
			says:     []string{"db1 connections 140 of max_connections 150 (params.db_max_connections) at 10:07:00 (rule: ≥ 90%)"},
		},
		{
			name: "RDS connections below max_connections: ruled out with both numbers",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(2, "error rate 3% > 1% (default)")
				b.withDatabase(12, 41)
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 8 * time.Minute}, []float64{0.02, 0.5}))
				cfg.DBMaxConnections = 150
			},
			resource: ResourceCPU, stage: 3, at: 8 * time.Minute,
			ruledOut: []string{ResourceDatabase},
			says:     []string{"not the database: db1: CPU at most 12%, CPU credits rising (110 at the end), connections 41 of 150"},
			numbers:  map[string]float64{"db1_connections_peak": 41, "db1_max_connections": 150},
		},
		{
			name: "RDS max_connections unknown: 140 connections do not saturate, the text says not checked",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				b.withDatabase(12, 140)
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			ruledOut: []string{ResourceDatabase},
			says:     []string{"connections at most 140; not checked: max_connections (params.db_max_connections)"},
			numbers:  map[string]float64{"db1_connections_peak": 140},
		},
		{
			name: "RDS connections: a user's connections_of_max of 0.99 does not saturate at 140 of 150",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				b.withDatabase(12, 140)
				cfg.DBMaxConnections = 150
				cfg.Bottleneck.Database.ConnectionsOfMax.V = 0.99
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			ruledOut: []string{ResourceDatabase},
			says:     []string{"connections 140 of 150"},
			numbers:  map[string]float64{"db1_connections_peak": 140, "db1_max_connections": 150},
		},
		{
			name: "RDS connections only, max_connections given: judged without CPU series",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				b.withDatabase(12, 41)
				delete(b.tl.Sets, QRDSCPU)
				delete(b.tl.Sets, QRDSCreditBalance)
				b.a.Database[0].CreditEnd = nil
				b.tl.Sets[QRDSConnections][0] = gen(m("dimension_DBInstanceIdentifier", "db1"), b.tl.Run.From, b.tl.Run.To, rdsRes, stepsAt([]time.Duration{0, 9 * time.Minute}, []float64{41, 150}))
				cfg.DBMaxConnections = 150
			},
			resource: ResourceDatabase, stage: 3, at: 9 * time.Minute,
			says: []string{"db1 connections 150 of max_connections 150"},
		},
		{
			name: "story 2 with exporters: app CPU, pool 27% busy, connections 41 of 150",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "error rate 4% > 1% (default)")
				b.a.CPU[0].Usage = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 4 * time.Minute}, []float64{0.2, 0.495}))
				b.tl.Sets[QPGConnections] = timeline.Set{gen(m("server", "pg:5432"), b.tl.Run.From, b.tl.Run.To, ksmRes, func(time.Duration) float64 { return 41 })}
				b.a.Connections.Servers = []DBServer{{Engine: EnginePostgres, Server: "pg:5432", MaxConnections: &Fact{Value: 150}}}
				b.a.Connections.Pools = []Pool{{Namespace: "shop", Pod: "api-1", Pool: "HikariPool-1", Size: &Fact{Value: 80},
					Busy: gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, func(time.Duration) float64 { return 21.6 })}}
			},
			resource: ResourceCPU, stage: 2, at: 4 * time.Minute,
			ruledOut: []string{ResourceDatabase, ResourcePool},
			says:     []string{"not the database: pg:5432 connections 41 of 150", "not the pool: 1 pool(s) at most 27% busy, 0 waiting"},
		},
		{
			name: "pool: waiters before the pool is full",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "http_req_duration 'p(95)<500' p(95)=3s")
				b.a.Connections.Pools = []Pool{{Namespace: "shop", Pod: "api-1", Size: &Fact{Value: 10},
					Busy:         gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 8 * time.Minute}, []float64{5, 10})),
					WaitersFirst: &Fact{At: t0.Add(6*time.Minute + 45*time.Second), Unit: UnitTime}, PendingPeak: &Fact{Value: 7}}}
			},
			resource: ResourcePool, stage: 3, at: 6*time.Minute + 45*time.Second,
			says: []string{"shop/api-1: queries waited for a connection from 10:06:45 (at most 7 waiting at once)", "then shop/api-1: 10 of 10 connections busy at 10:08:00"},
		},
		{
			name: "pool: the first waiter and busy = size at the same scrape are both evidence",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "http_req_failed 'rate<0.01' rate=47%")
				b.a.Connections.Pools = []Pool{{Namespace: "shop", Pod: "api-1", Pool: "HikariPool-1", Size: &Fact{Value: 4},
					Busy:         gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 6 * time.Minute}, []float64{1, 4})),
					WaitersFirst: &Fact{At: t0.Add(6 * time.Minute), Unit: UnitTime}, PendingPeak: &Fact{Value: 23}}}
			},
			resource: ResourcePool, stage: 3, at: 6 * time.Minute,
			ruledOut: []string{ResourceCPU},
			says: []string{"shop/api-1 (HikariPool-1): queries waited for a connection from 10:06:00 (at most 23 waiting at once)",
				"shop/api-1 (HikariPool-1): 4 of 4 connections busy at 10:06:00 (rule: ≥ 95%)"},
		},
		{
			name: "demo spike with maxVUs 1: dropped, no failures, no HPA step",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "92 dropped")
				b.a.Load.Stages[1].Dropped = 92
				b.a.Load.Stages[1].MaxVUs = &Fact{Value: 1, Unit: UnitVUs}
				b.tl.Sets[QDropped] = timeline.Set{gen(m(), b.tl.Run.From, b.tl.Run.To, k6Res, stepsAt([]time.Duration{0, 3*time.Minute + 10*time.Second}, []float64{0, 0.5}))}
			},
			resource: ResourceLoadGenerator, stage: 2, at: 3*time.Minute + 10*time.Second,
			ruledOut: []string{ResourceCPU, ResourceReplicas, ResourceStartup},
			says:     []string{"92 dropped iterations, error rate 0%", "VUs at most 1", "not the service"},
		},
		{
			name: "drops with latency risen: the service, not the generator",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "92 dropped")
				b.a.Load.Stages[1].Dropped = 92
				b.a.Load.Stages[1].P95 = &Fact{Value: 0.5, Unit: UnitSeconds}
			},
			resource: ResourceUnknown, stage: 2, at: -1,
			ruledOut: []string{ResourceLoadGenerator},
			says:     []string{"not the load generator: 92 dropped, error rate 0%, p95 500 ms (25.0× the lowest stage p95; rule: ≤ 2×)", "memory (cAdvisor's container_memory_working_set_bytes"},
		},
		{
			name:     "memory ruled out with numbers: working set 41% of its limit, no restarts",
			edit:     func(b *bottleneckCase, _ *Config) { b.withMemory(flat(0.41), flat(3), flat(0)) },
			resource: ResourceNone, at: -1,
			ruledOut: []string{ResourceMemory, ResourceCPU},
			says:     []string{"not memory: shop/api working set at most 41% of its limit, 0 restarts"},
		},
		{
			name: "memory: a working set of 0 in every sample (no memory cgroup read) is not checked, never ruled out",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "error rate 7% > 1% (default)")
				b.withMemory(flat(0), flat(0), nil)
				for i := range b.tl.Sets[QMemoryOfLimit] {
					b.tl.Sets[QMemoryOfLimit][i] = gen(b.tl.Sets[QMemoryOfLimit][i].Labels, b.tl.Run.From, b.tl.Run.To, ksmRes, flat(0))
				}
				b.a.Memory = AnalyzeMemory(b.tl)
			},
			resource: ResourceUnknown, stage: 2, at: -1,
			ruledOut: []string{ResourceCPU},
			says:     []string{"memory (cAdvisor's container_memory_working_set_bytes", "(shop/api: a working set of 0 in every sample, no memory cgroup read)"},
		},
		{
			name: "memory: working set reached the limit in the broken stage",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "error rate 7% > 1% (default)")
				b.withMemory(stepsAt([]time.Duration{0, 5 * time.Minute}, []float64{0.5, 0.97}), flat(0), nil)
			},
			resource: ResourceMemory, stage: 2, at: 5 * time.Minute,
			ruledOut: []string{ResourceCPU, ResourceReplicas},
			says:     []string{"shop/api working set at 97% of its 256.0 MiB memory limit at 10:05:00 (rule: ≥ 95%)"},
		},
		{
			name: "memory: an OOM kill during the run, below the working-set threshold",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				kill := 7*time.Minute + 30*time.Second
				b.withMemory(flat(0.8), stepsAt([]time.Duration{0, kill}, []float64{2, 3}), stepsAt([]time.Duration{0, kill}, []float64{0, 1}))
			},
			resource: ResourceMemory, stage: 3, at: 7*time.Minute + 30*time.Second,
			says: []string{"shop/api: a container OOM-killed at 10:07:30"},
		},
		{
			name: "memory: an OOM kill before the run (reason set from the start, no restart) is not this run's",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				b.withMemory(flat(0.8), flat(4), flat(1))
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			ruledOut: []string{ResourceMemory},
			says:     []string{"not memory: shop/api working set at most 80% of its limit, 0 restarts"},
		},
		{
			name: "memory: a second OOM kill while the reason was already OOMKilled (the pod restarted)",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 9% > 1% (default)")
				kill := 8 * time.Minute
				b.withMemory(flat(0.8), stepsAt([]time.Duration{0, kill}, []float64{4, 5}), flat(1))
			},
			resource: ResourceMemory, stage: 3, at: 8 * time.Minute,
			says: []string{"a container OOM-killed at 10:08:00"},
		},
		{
			name: "memory: a user's threshold of 99% does not saturate at 97%",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(1, "error rate 7% > 1% (default)")
				b.withMemory(flat(0.97), nil, nil)
				cfg.Bottleneck.Memory.WorkingSetOfLimit.V = 0.99
			},
			resource: ResourceUnknown, stage: 2, at: -1,
			ruledOut: []string{ResourceMemory},
			says:     []string{"not memory: shop/api working set at most 97% of its limit"},
		},
		{
			name: "no cAdvisor: CPU not checked, unknown names it",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 5% > 1% (default)")
				b.a.CPU = nil
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			says: []string{"cpu (cAdvisor's container_cpu_usage_seconds_total"},
		},
		{
			name: "CPU limits from kube-state-metrics without cAdvisor's samples: not checked, never ruled out without numbers",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 5% > 1% (default)")
				b.a.CPU[0].Usage, b.a.CPU[0].Throttled = timeline.Series{}, timeline.Series{}
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			says: []string{"cpu (cAdvisor's container_cpu_usage_seconds_total"},
		},
		{
			name: "every stage held but the p95 rose 6× and the CPU was not read: unknown names cAdvisor, not none",
			edit: func(b *bottleneckCase, _ *Config) {
				b.a.CPU = nil
				b.a.Load.Stages[2].P95 = &Fact{Value: 0.12, Unit: UnitSeconds}
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			ruledOut: []string{ResourceReplicas},
			says: []string{"unknown: stage 3's p95 rose 6.0× while every stage held, and no resource read saturated; not checked: cpu (cAdvisor's container_cpu_usage_seconds_total",
				"every stage held its thresholds, but stage 3's p95 120 ms is 6.0× the run's lowest stage p95 (rule: > 2×)"},
		},
		{
			name: "every stage held, the p95 rose 6× with the CPU read and ruled out: none, whatever else was not read",
			edit: func(b *bottleneckCase, _ *Config) {
				b.a.Load.Stages[2].P95 = &Fact{Value: 0.12, Unit: UnitSeconds}
			},
			resource: ResourceNone, at: -1,
			ruledOut: []string{ResourceCPU, ResourceReplicas},
			says:     []string{"none: the service held every stage"},
		},
		{
			name: "a user's threshold: throttled 50% is not saturation at 0.6",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(2, "error rate 5% > 1% (default)")
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, func(time.Duration) float64 { return 0.5 })
				cfg.Bottleneck.CPU.ThrottledRatio.V = 0.6
			},
			resource: ResourceUnknown, stage: 3, at: -1,
			ruledOut: []string{ResourceCPU},
			says:     []string{"throttled in at most 50% of its CFS periods"},
		},
		{
			name: "the generator's CPU at 97% of its 0.2 cores, no drops, p95 risen: the tool set the pace",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "http_req_duration 'p(95)<100' p(95)=400ms")
				b.a.Load.Stages[1].P95 = &Fact{Value: 0.4, Unit: UnitSeconds}
				b.withGeneratorCPU("", 0.2, stepsAt([]time.Duration{0, 3*time.Minute + 20*time.Second}, []float64{0.5, 0.97}))
			},
			resource: ResourceLoadGenerator, stage: 2, at: 3*time.Minute + 20*time.Second,
			ruledOut: []string{ResourceCPU, ResourceReplicas, ResourceStartup},
			says: []string{"the load generator's own CPU at 97% of its 0.2 cores at 10:03:20 (rule: ≥ 90%)", "stage 2: 0 dropped iterations",
				"measured by a load generator short of CPU", "load-generator: stage 2 was limited by the load generator, not the service"},
		},
		{
			name: "the generator's CPU saturated in a stage that held: it limited the first stage that broke, from then",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "error rate 5% > 1% (default)")
				b.a.Load.Stages[2].ErrorRate = &Fact{Value: 0.05, Unit: UnitRatio}
				b.withGeneratorCPU("", 0.5, stepsAt([]time.Duration{0, 2 * time.Minute}, []float64{0.3, 0.92}))
			},
			resource: ResourceLoadGenerator, stage: 3, at: 2 * time.Minute,
			says: []string{"at 92% of its 0.5 cores at 10:02:00", "error rate 5%", "measured by a load generator short of CPU"},
		},
		{
			name: "drops first, then the generator's CPU: the CPU leads the evidence, at the first drop",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "92 dropped")
				b.a.Load.Stages[1].Dropped = 92
				b.tl.Sets[QDropped] = timeline.Set{gen(m(), b.tl.Run.From, b.tl.Run.To, k6Res, stepsAt([]time.Duration{0, 3*time.Minute + 10*time.Second}, []float64{0, 0.5}))}
				b.withGeneratorCPU("", 2, stepsAt([]time.Duration{0, 3*time.Minute + 20*time.Second}, []float64{0.4, 0.95}))
			},
			resource: ResourceLoadGenerator, stage: 2, at: 3*time.Minute + 10*time.Second,
			says: []string{"the load generator's own CPU at 95% of its 2 cores at 10:03:20 (rule: ≥ 90%)", "stage 2: 92 dropped iterations", "the first drops at 10:03:10"},
		},
		{
			name: "drops with the generator's CPU at most 40%: by the drops, the CPU's peak in the evidence",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "92 dropped")
				b.a.Load.Stages[1].Dropped = 92
				b.a.Load.Stages[1].MaxVUs = &Fact{Value: 1, Unit: UnitVUs}
				b.withGeneratorCPU("", 2, flat(0.4))
			},
			resource: ResourceLoadGenerator, stage: 2, at: 3 * time.Minute,
			says: []string{"92 dropped iterations", "the load generator's own CPU at most 40% of its 2 cores", "VUs at most 1"},
		},
		{
			name: "latency risen, the generator's CPU at most 40%: ruled out with its peak",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "http_req_duration 'p(95)<100' p(95)=400ms")
				b.a.Load.Stages[1].P95 = &Fact{Value: 0.4, Unit: UnitSeconds}
				b.withGeneratorCPU("", 1, stepsAt([]time.Duration{0, 5 * time.Minute}, []float64{0.2, 0.4}))
			},
			resource: ResourceUnknown, stage: 2, at: -1,
			ruledOut: []string{ResourceLoadGenerator},
			says:     []string{"not the load generator: 0 dropped, error rate 0%, p95 400 ms (20.0× the lowest stage p95; rule: ≤ 2×), the load generator's own CPU at most 40% of its 1 core"},
		},
		{
			name: "a run without the generator's CPU (k6's own) that nothing explains: not checked, named",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "http_req_duration 'p(95)<100' p(95)=400ms")
				b.a.Load.Stages[1].P95 = &Fact{Value: 0.4, Unit: UnitSeconds}
			},
			resource: ResourceUnknown, stage: 2, at: -1,
			ruledOut: []string{ResourceLoadGenerator},
			says:     []string{"load-generator (the load generator's own CPU (tidemark_load_generator_cpu_seconds_total"},
		},
		{
			name: "the app's CPU throttled: cpu, the generator's CPU saturated too as evidence",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "http_req_duration 'p(95)<500' p(95)=812ms")
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt([]time.Duration{0, 6*time.Minute + 30*time.Second}, []float64{0.02, 0.6}))
				b.withGeneratorCPU("", 0.5, stepsAt([]time.Duration{0, 7 * time.Minute}, []float64{0.3, 0.93}))
			},
			resource: ResourceCPU, stage: 3, at: 6*time.Minute + 30*time.Second,
			says: []string{"also the load generator's own CPU at 93% of its 0.5 cores at 10:07:00 (rule: ≥ 90%)"},
		},
		{
			name: "distributed: the instance that saturated first is named",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "92 dropped")
				b.a.Load.Stages[1].Dropped = 92
				b.a.Load.Stages[1].P95 = &Fact{Value: 0.3, Unit: UnitSeconds}
				b.withGeneratorCPU("1", 1, flat(0.5))
				b.withGeneratorCPU("2", 1, stepsAt([]time.Duration{0, 3*time.Minute + 45*time.Second}, []float64{0.5, 0.96}))
				b.withGeneratorCPU("3", 1, stepsAt([]time.Duration{0, 5 * time.Minute}, []float64{0.5, 0.99}))
			},
			resource: ResourceLoadGenerator, stage: 2, at: 3*time.Minute + 45*time.Second,
			says: []string{"the load generator's own CPU (instance_id 2) at 96% of its 1 core at 10:03:45"},
		},
		{
			name: "a user's threshold: the generator's CPU at 97% is not saturation at 0.99",
			edit: func(b *bottleneckCase, cfg *Config) {
				b.breakStage(1, "http_req_duration 'p(95)<100' p(95)=400ms")
				b.a.Load.Stages[1].P95 = &Fact{Value: 0.4, Unit: UnitSeconds}
				b.withGeneratorCPU("", 0.2, flat(0.97))
				cfg.Bottleneck.LoadGenerator.CPUOfAvailable.V = 0.99
			},
			resource: ResourceUnknown, stage: 2, at: -1,
			ruledOut: []string{ResourceLoadGenerator},
			says:     []string{"the load generator's own CPU at most 97% of its 0.2 cores"},
		},
		{
			name: "every stage held with the generator's CPU at 95%: none, the CPU noted",
			edit: func(b *bottleneckCase, _ *Config) {
				b.withGeneratorCPU("", 0.2, stepsAt([]time.Duration{0, 8 * time.Minute}, []float64{0.6, 0.95}))
			},
			resource: ResourceNone, at: -1,
			says: []string{"the load generator's own CPU at 95% of its 0.2 cores at 10:08:00 (rule: ≥ 90%) while every stage held"},
		},
		{
			name: "every stage held with the generator's CPU at most 30%: ruled out",
			edit: func(b *bottleneckCase, _ *Config) {
				b.withGeneratorCPU("", 2, flat(0.3))
			},
			resource: ResourceNone, at: -1,
			ruledOut: []string{ResourceLoadGenerator, ResourceCPU},
			says:     []string{"not the load generator: the load generator's own CPU at most 30% of its 2 cores"},
		},
		{
			name: "story 3's fixture: throttled 35% at 30 users broke the p95, the onset hold (40) is evidence, not the moment",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(1, "http_req_duration 'p(95)<500' p(95)=600ms")
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt(
					[]time.Duration{0, 3*time.Minute + 15*time.Second, 6*time.Minute + 15*time.Second}, []float64{0.08, 0.35, 0.6}))
				b.withHolds([3]float64{0.08, 0.35, 0.6})
			},
			resource: ResourceCPU, stage: 2, at: 3*time.Minute + 15*time.Second,
			says: []string{"api throttled in 35% of its CFS periods at 10:03:15 (rule: ≥ 25%)"},
		},
		{
			name: "the throttling onset hold inside the window is named in the evidence",
			edit: func(b *bottleneckCase, _ *Config) {
				b.breakStage(2, "http_req_duration 'p(95)<500' p(95)=812ms")
				b.a.CPU[0].Throttled = gen(m(), b.tl.Run.From, b.tl.Run.To, ksmRes, stepsAt(
					[]time.Duration{0, 3*time.Minute + 15*time.Second, 6*time.Minute + 15*time.Second}, []float64{0.08, 0.35, 0.6}))
				b.withHolds([3]float64{0.08, 0.35, 0.6})
			},
			resource: ResourceCPU, stage: 3, at: 3*time.Minute + 15*time.Second,
			says: []string{"api's throttling onset: throttled in 60% of its CFS periods over the hold at 30 VUs (10:06:00 → 10:10:00; > 50%)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBottleneckCase()
			cfg := DefaultConfig
			cfg.Bottleneck = defaultRules()
			tc.edit(b, &cfg)
			got := DecideBottleneck(b.tl, &b.a, cfg)
			all, _ := json.Marshal(got)
			if got.Resource != tc.resource {
				t.Fatalf("resource %q, want %q: %s", got.Resource, tc.resource, all)
			}
			if got.Stage != tc.stage {
				t.Errorf("stage %d, want %d", got.Stage, tc.stage)
			}
			switch {
			case tc.at < 0 && got.At != nil:
				t.Errorf("at %v, want none", got.At.At)
			case tc.at >= 0 && (got.At == nil || !got.At.At.Equal(t0.Add(tc.at))):
				t.Errorf("at %v, want %v", got.At, t0.Add(tc.at))
			}
			for _, r := range tc.ruledOut {
				i := indexRuledOut(got.RuledOut, r)
				if i < 0 {
					t.Errorf("%s not ruled out: %s", r, all)
					continue
				}
				if len(got.RuledOut[i].Numbers) == 0 {
					t.Errorf("%s ruled out without numbers: %+v", r, got.RuledOut[i])
				}
			}
			for _, r := range got.RuledOut {
				if len(r.Numbers) == 0 {
					t.Errorf("%s ruled out without numbers: %+v", r.Resource, r)
				}
			}
			for _, n := range got.NotChecked {
				if n.Missing == "" || !strings.Contains(got.Text, n.Resource+" ("+n.Missing+")") && got.Resource == ResourceUnknown {
					t.Errorf("not checked %s does not name its missing source in the verdict: %q", n.Resource, got.Text)
				}
			}
			for k, v := range tc.numbers {
				found := false
				for _, r := range got.RuledOut {
					if n, ok := r.Numbers[k]; ok {
						found = true
						if n != v {
							t.Errorf("ruled-out %s: %s = %g, want %g", r.Resource, k, n, v)
						}
					}
				}
				if !found {
					t.Errorf("no ruled-out resource has the number %s: %s", k, all)
				}
			}
			for _, s := range tc.says {
				if !strings.Contains(string(all), jsonEscape(s)) {
					t.Errorf("verdict does not say %q: %s", s, all)
				}
			}
			if got.Resource != ResourceNone && (len(got.Stages) == 0 || got.Stages[0].Resource != got.Resource) {
				t.Errorf("stages %+v do not start with the run's verdict", got.Stages)
			}
		})
	}
}

func defaultRules() query.BottleneckRules { return query.DefaultBottleneckRules() }

func indexRuledOut(rs []RuledOut, resource string) int {
	for i, r := range rs {
		if r.Resource == resource {
			return i
		}
	}
	return -1
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func TestRuledOutJSON(t *testing.T) {
	r := RuledOut{Resource: ResourceDatabase, Text: "not the database", Numbers: map[string]float64{"cpu_peak_percent": 12}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"cpu_peak_percent":12,"resource":"database","text":"not the database"}` {
		t.Errorf("got %s", b)
	}
	var back RuledOut
	if err := json.Unmarshal(b, &back); err != nil || back.Resource != r.Resource || back.Numbers["cpu_peak_percent"] != 12 {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestConnectionGrowthBelowResolutionIsNoChange(t *testing.T) {
	for _, tc := range []struct {
		d, want float64
	}{{8.85e-13, 0}, {-0.04, 0}, {0.05, 0.05}, {3, 3}, {-2.5, -2.5}} {
		if got := countChange(tc.d); got != tc.want {
			t.Errorf("countChange(%g) = %g, want %g", tc.d, got, tc.want)
		}
	}
}

func TestAnalyzeMemory(t *testing.T) {
	b := newBottleneckCase()
	kill := 7*time.Minute + 30*time.Second
	b.withMemory(stepsAt([]time.Duration{0, kill}, []float64{0.6, 0.97}), stepsAt([]time.Duration{0, kill}, []float64{2, 3}), stepsAt([]time.Duration{0, kill}, []float64{0, 1}))
	if len(b.a.Memory) != 1 {
		t.Fatalf("memory of %d workloads, want 1: %+v", len(b.a.Memory), b.a.Memory)
	}
	w := b.a.Memory[0]
	if w.Object() != "shop/api" || w.PeakOfLimit == nil || w.PeakOfLimit.Value != 0.97 || !w.PeakOfLimit.At.Equal(t0.Add(kill)) {
		t.Errorf("peak of limit %+v of %s, want 0.97 at +%s", w.PeakOfLimit, w.Object(), kill)
	}
	if w.Limit == nil || w.Limit.Value != 256<<20 || w.PeakWorkingSet == nil || w.PeakWorkingSet.Value != 0.97*(256<<20) {
		t.Errorf("limit %+v, peak working set %+v", w.Limit, w.PeakWorkingSet)
	}
	if w.Restarts == nil || w.Restarts.Value != 1 {
		t.Errorf("restarts %+v, want 1 (2 → 3 in the run)", w.Restarts)
	}
	if len(w.OOMKills) != 1 || !w.OOMKills[0].Equal(t0.Add(kill)) {
		t.Errorf("OOM kills %v, want one at +%s", w.OOMKills, kill)
	}
	// A window with no memory samples (before the run) judges nothing.
	in := RuleInput{TL: b.tl, Analysis: &b.a, Window: timeline.Window{From: t0.Add(-2 * time.Hour), To: t0.Add(-time.Hour)}, Rules: defaultRules()}
	if c := MemoryRule(in); c.Missing == "" || c.Saturated {
		t.Errorf("memory judged without samples in the window: %+v", c)
	}
}
