package analysis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// Database holds the facts of one RDS instance.
type Database struct {
	Instance string `json:"instance"`
	// Cadence is the spacing of CloudWatch samples (the source's resolution).
	Cadence *Fact `json:"cadence,omitempty"`
	// Lag is how far the newest sample trails the end of the window.
	Lag                 *Fact `json:"lag,omitempty"`
	CPUBaseline         *Fact `json:"cpu_baseline_percent,omitempty"`
	CPUPeak             *Fact `json:"cpu_peak_percent,omitempty"`
	ConnectionsBaseline *Fact `json:"connections_baseline,omitempty"`
	ConnectionsPeak     *Fact `json:"connections_peak,omitempty"`
	ConnectionsGrowth   *Fact `json:"connections_growth,omitempty"`
	// Plateau is set when connections stayed within 5% of their peak for 3 samples or more.
	Plateau *Fact `json:"connections_plateau,omitempty"`
	// PoolCeiling is pool-per-pod × peak ready replicas, when the pool is known.
	PoolCeiling *Fact  `json:"pool_ceiling,omitempty"`
	PlateauText string `json:"plateau_text,omitempty"`
	CreditStart *Fact  `json:"credit_balance_start,omitempty"`
	CreditEnd   *Fact  `json:"credit_balance_end,omitempty"`
	CreditTrend string `json:"credit_trend,omitempty"` // rising, falling or flat
	FreeableMin *Fact  `json:"freeable_memory_min,omitempty"`
}

func dbInstance(s timeline.Series) string {
	for _, l := range []string{"dimension_DBInstanceIdentifier", "dbinstance_identifier"} {
		if v := s.Label(l); v != "" {
			return v
		}
	}
	return "(unnamed)"
}

// AnalyzeDatabase derives RDS facts. CloudWatch samples arrive late and once a minute at
// best: every fact carries the measured cadence as its resolution.
func AnalyzeDatabase(tl *timeline.Timeline, cfg Config) ([]Database, []Note) {
	var (
		out   []Database
		notes []Note
	)
	span := tl.Span()
	names := map[string]bool{}
	var order []string
	for _, q := range []string{QRDSCPU, QRDSConnections, QRDSCreditBalance, QRDSFreeableMem} {
		for _, s := range tl.Set(q) {
			if n := dbInstance(s); !names[n] {
				names[n] = true
				order = append(order, n)
			}
		}
	}
	if len(order) == 0 {
		notes = append(notes, note(NoteMissing, "database", "", "no aws_rds_* series in the window — is YACE or cloudwatch_exporter scraped? (CloudWatch data can lag by up to 10 minutes) Nor any of postgres_exporter, mysqld_exporter or a connection pool (HikariCP, Prisma, database/sql)"))
		return nil, notes
	}
	pick := func(q, inst string) timeline.Series {
		for _, s := range tl.Set(q) {
			if dbInstance(s) == inst {
				return s
			}
		}
		return timeline.Series{}
	}
	for _, inst := range order {
		d := Database{Instance: inst}
		scrape := tl.Res(SourceRDS)
		cpu := pick(QRDSCPU, inst)
		conns := pick(QRDSConnections, inst)
		credit := pick(QRDSCreditBalance, inst)
		mem := pick(QRDSFreeableMem, inst)
		// The sample interval (measured by the caller) is how often the exporter was
		// scraped; CloudWatch publishes less often and the exporter repeats its newest
		// datapoint in between. Every fact is known to within the publishing cadence.
		res, changes := cloudWatchCadence(scrape, span, cpu, conns, credit, mem)
		cadenceEv := ev(QRDSCPU, cpu)
		if len(changes) > 1 {
			cadenceEv = Evidence{Query: "rds_*", Series: fmt.Sprintf("{dimension_DBInstanceIdentifier=%q}", inst), Times: changes}
		}
		d.Cadence = value(res.Seconds(), UnitSeconds, time.Time{}, res, cadenceEv)
		if len(cpu.Points) > 0 {
			last := cpu.Points[len(cpu.Points)-1].T
			if lag := tl.Run.To.Sub(last); lag > 0 {
				d.Lag = value(lag.Seconds(), UnitSeconds, last, res, ev(QRDSCPU, cpu, last))
				notes = append(notes, note(NoteInfo, "database", inst, "newest CloudWatch sample is %s before the run end: facts near the end are incomplete", lag.Round(time.Second)))
			} else if n := len(changes); n > 1 && !changes[n-1].After(tl.Run.To) {
				// Samples up to the end, but the value stopped changing: the exporter
				// repeats an old datapoint. Within one cadence that is the normal wait
				// for the next period.
				if lag := tl.Run.To.Sub(changes[n-1]); lag > res+scrape {
					d.Lag = value(lag.Seconds(), UnitSeconds, changes[n-1], res, cadenceEv)
					notes = append(notes, note(NoteInfo, "database", inst, "no new CloudWatch datapoint in the last %s of the run (published every %s): facts near the end are incomplete", lag.Round(time.Second), res.Round(time.Second)))
				}
			}
		}
		if run := tl.Run.Duration(); res > scrape && run < 5*res {
			n := 1 // the datapoint in effect at the start
			for _, c := range changes {
				if c.After(tl.Run.From) && !c.After(tl.Run.To) {
					n++
				}
			}
			notes = append(notes, note(NoteInfo, "database", inst, "CloudWatch publishes every %s: the %s run spans %d datapoint(s), each an average over its period; database facts are known to within %s", res.Round(time.Second), run.Round(time.Second), n, res.Round(time.Second)))
		}
		base := timeline.Window{From: span.From, To: tl.Run.From}
		if _, _, mean, ok := timeline.Stats(cpu.Between(base)); ok {
			d.CPUBaseline = value(mean, UnitPercent, time.Time{}, res, ev(QRDSCPU, cpu, base.From, base.To))
		}
		if p, ok := timeline.ArgMax(cpu.Between(span)); ok {
			d.CPUPeak = value(p.V, UnitPercent, p.T, res, ev(QRDSCPU, cpu, p.T))
		}
		if _, _, mean, ok := timeline.Stats(conns.Between(base)); ok {
			d.ConnectionsBaseline = value(mean, UnitCount, time.Time{}, res, ev(QRDSConnections, conns, base.From, base.To))
		}
		if p, ok := timeline.ArgMax(conns.Between(span)); ok {
			d.ConnectionsPeak = value(p.V, UnitCount, p.T, res, ev(QRDSConnections, conns, p.T))
			if d.ConnectionsBaseline != nil {
				d.ConnectionsGrowth = value(countChange(p.V-d.ConnectionsBaseline.Value), UnitCount, p.T, res, slices.Concat(d.ConnectionsBaseline.Evidence, d.ConnectionsPeak.Evidence)...)
			} else if ref, ok := growthReference(conns, tl.Run.From); ok {
				// No sample in the baseline (CloudWatch publishes once a period and the
				// window may start shortly before the run): grow from the nearest sample.
				d.ConnectionsGrowth = value(countChange(p.V-ref.V), UnitCount, p.T, res, ev(QRDSConnections, conns, ref.T), ev(QRDSConnections, conns, p.T))
				where := "the last sample before the run"
				if !ref.T.Before(tl.Run.From) {
					where = "the first sample after the run start (it may already include some load)"
				}
				notes = append(notes, note(NotePartial, "database", inst, "no CloudWatch sample before the run: connection growth is measured from %s, %s at %s, to the peak", where, fmtCount(ref.V), ref.T.UTC().Format(time.TimeOnly)))
			}
			d.plateau(conns, span, p.V, res)
			if cfg.PoolPerPod > 0 {
				ready := tl.Set(QDeploymentReady).Sum(2 * tl.Res(SourceKSM))
				if r, ok := ready.At(p.T, 2*tl.Res(SourceKSM)); ok {
					d.PoolCeiling = value(cfg.PoolPerPod*r, UnitCount, p.T, tl.Res(SourceKSM), Evidence{Query: QDeploymentReady, Series: "sum", Times: []time.Time{p.T}})
					if d.Plateau != nil && d.PoolCeiling.Value > 0 {
						d.PlateauText = fmt.Sprintf("plateau %.0f vs pool %g × %g ready replicas = %.0f (%.0f%%)", d.Plateau.Value, cfg.PoolPerPod, r, d.PoolCeiling.Value, 100*d.Plateau.Value/d.PoolCeiling.Value)
					}
				}
			}
		}
		if ps := credit.Between(span); len(ps) > 0 {
			a, b := ps[0], ps[len(ps)-1]
			d.CreditStart = value(a.V, UnitCount, a.T, res, ev(QRDSCreditBalance, credit, a.T))
			d.CreditEnd = value(b.V, UnitCount, b.T, res, ev(QRDSCreditBalance, credit, b.T))
			switch diff := b.V - a.V; {
			case math.Abs(diff) <= 0.01*math.Max(math.Abs(a.V), 1):
				d.CreditTrend = "flat"
			case diff > 0:
				d.CreditTrend = "rising"
			default:
				d.CreditTrend = "falling"
			}
		}
		if ps := mem.Between(span); len(ps) > 0 {
			lo := ps[0]
			for _, p := range ps {
				if p.V < lo.V {
					lo = p
				}
			}
			d.FreeableMin = value(lo.V, UnitBytes, lo.T, res, ev(QRDSFreeableMem, mem, lo.T))
		}
		out = append(out, d)
	}
	return out, notes
}

func (d *Database) plateau(conns timeline.Series, span timeline.Window, peak float64, res time.Duration) {
	var run []timeline.Point
	best := []timeline.Point(nil)
	for _, p := range conns.Between(span) {
		if p.V >= 0.95*peak {
			run = append(run, p)
			if len(run) > len(best) {
				best = run
			}
			continue
		}
		run = nil
	}
	distinct := map[time.Time]bool{}
	for _, p := range best {
		distinct[p.T] = true
	}
	if len(distinct) < 3 || best[len(best)-1].T.Sub(best[0].T) < 2*res {
		return
	}
	_, _, mean, _ := timeline.Stats(best)
	d.Plateau = value(mean, UnitCount, best[0].T, res, ev(QRDSConnections, conns, best[0].T, best[len(best)-1].T))
}

// growthReference is the connection count growth starts from when the baseline has no
// sample: the last sample before the run start, else the first at or after it.
func growthReference(conns timeline.Series, runFrom time.Time) (timeline.Point, bool) {
	var ref timeline.Point
	found := false
	for _, p := range conns.Points {
		if p.T.Before(runFrom) {
			ref, found = p, true
			continue
		}
		if !found {
			return p, true
		}
		break
	}
	return ref, found
}

// cloudWatchCadence measures how often CloudWatch published: the median spacing of the
// moments any of the series changed value in span (a change is dated at the first sample
// showing it). It returns the scrape interval when fewer than two changes show. The
// change times are returned as evidence.
func cloudWatchCadence(scrape time.Duration, span timeline.Window, series ...timeline.Series) (time.Duration, []time.Time) {
	var changes []time.Time
	for _, s := range series {
		ps := s.Between(span)
		for i := 1; i < len(ps); i++ {
			if ps[i].V != ps[i-1].V {
				changes = append(changes, ps[i].T)
			}
		}
	}
	slices.SortFunc(changes, func(a, b time.Time) int { return a.Compare(b) })
	changes = slices.CompactFunc(changes, func(a, b time.Time) bool { return a.Sub(b).Abs() < scrape/2 })
	if len(changes) < 2 {
		return scrape, changes
	}
	gaps := make([]time.Duration, 0, len(changes)-1)
	for i := 1; i < len(changes); i++ {
		gaps = append(gaps, changes[i].Sub(changes[i-1]))
	}
	slices.Sort(gaps)
	med := gaps[len(gaps)/2]
	if scrape > 0 {
		med = med.Round(scrape)
	}
	return max(med, scrape), changes
}

// countResolution is the smallest change of a connection count that is one: counts are
// shown to a tenth (fmtCount), and CloudWatch's averages of whole counts differ from
// each other by floating-point noise (a baseline mean of 41 samples of 41 less the peak
// 41 gave 8.85e-13).
const countResolution = 0.05

// countChange is a change of a count, 0 below countResolution: a fact below its
// resolution is no change, never a number.
func countChange(d float64) float64 {
	if math.Abs(d) < countResolution {
		return 0
	}
	return d
}

func fmtCount(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
