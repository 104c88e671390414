package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/units"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/regress"
)

// RunsOverTimeUID is the UID of the Runs over time dashboard.
const RunsOverTimeUID = "tidemark-runs-over-time"

// runsSelector selects the runs of the $group variable: the group itself (a testid
// without a date suffix is its own group) or the group followed by one of the suffixes
// regress.Group strips (a date from 19xx/20xx, or unix seconds or milliseconds).
const runsSelector = `testid=~"${group:regex}([-_.]((19|20)[0-9]{6}.*|(19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}.*|1[0-9]{9}|1[0-9]{12}))?"`

// groupRegex extracts a run's group from its testid for the group variable (Grafana's
// JavaScript regex, the first capture group): the same suffixes as regress.Group.
// Testids without a suffix are offered by the second alternative as themselves.
const groupRegex = `/^(.+?)(?:[-_.](?:(?:19|20)\d{6}.*|(?:19|20)\d\d-\d\d-\d\d.*|1\d{9}|1\d{12}))?$/`

// runsExprs are the Runs over time dashboard's queries: the key facts' series
// (tidemark_fact_*, written back by tidemark correlate and exposed by tidemark exporter
// with the same names) and the exporter's regressions. They are Tidemark's own contract,
// not the catalog's, so they do not go through [Exprs].
//
// Written-back facts have one sample per run, at its end, and no job label; the
// exporter's gauges carry the scrape's job and are exposed for every run it keeps. The
// graphs read the written-back samples (job="") so each run is a point at its end; the
// table and annotations read both.
func runsExprs() ExprTable {
	wb := func(name, by, extra string) string {
		return "max by (" + by + ") (" + correlator.FactPrefix + name + "{" + runsSelector + extra + `, job=""})`
	}
	perRun := func(name, extra string) string {
		return "max by (testid) (last_over_time(" + correlator.FactPrefix + name + "{" + runsSelector + extra + "}[$__range]))"
	}
	return ExprTable{
		"runs_reaction":       wb("hpa_reaction_seconds", "object", `, from="load_step"`),
		"runs_ready_gap":      wb("hpa_ready_gap_seconds", "object", ""),
		"runs_time_to_max":    wb("hpa_time_to_max_seconds", "object", ""),
		"runs_scale_in_delay": wb("hpa_scale_in_delay_seconds", "object", ""),
		"runs_error_ratio":    wb("error_ratio", "testid", ""),
		"runs_peak_rate":      wb("peak_request_rate", "testid", ""),
		"runs_stage_p95":      wb("stage_p95_seconds", "scenario, stage", ""),
		"runs_onset_vus":      wb("throttling_onset_vus", "object, threshold", ""),
		"runs_db_growth":      wb("db_connections_growth", "object", ""),

		"runs_table_requests":  perRun("requests_total", ""),
		"runs_table_error":     perRun("error_ratio", ""),
		"runs_table_reaction":  perRun("hpa_reaction_seconds", `, from="load_step"`),
		"runs_table_ready_gap": perRun("hpa_ready_gap_seconds", ""),
		"runs_table_max":       perRun("hpa_time_to_max_seconds", ""),
		"runs_table_onset":     perRun("throttling_onset_vus", ""),

		"runs_regressions":       regress.RegressionMetric + "{" + runsSelector + "}",
		"runs_regressions_table": "max by (testid, fact, object, baseline_testid) (last_over_time(" + regress.RegressionMetric + "{" + runsSelector + "}[$__range]))",
	}
}

// overlay answers its own names first, then falls back.
type overlay struct {
	own  ExprTable
	rest Exprs
}

var _ Exprs = overlay{}

// Expr returns the expression called name.
func (o overlay) Expr(name string) (string, error) {
	if e, ok := o.own[name]; ok {
		return e, nil
	}
	return o.rest.Expr(name)
}

// RunsOverTime builds the Runs over time dashboard: the key facts of a group of
// comparable runs (regress.Group: the testid without its date suffix), one point per run
// at its end, a table of the runs, and the regressions the exporter found as
// annotations (regress.RegressionMetric).
func RunsOverTime(exprs Exprs) (dashboard.Dashboard, error) {
	b := &builder{exprs: overlay{own: runsExprs(), rest: exprs}}
	db := dashboard.NewDashboardBuilder("Tidemark / Runs over time").
		Uid(RunsOverTimeUID).
		Description("The key facts of a group of comparable runs over days or weeks (one point per run, at its end) and the regressions between them. Rule: docs/regressions.md.").
		Tags(tags()).
		Editable().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Time("now-30d", "now").
		Timezone(common.TimeZoneUtc).
		Refresh("5m").
		Link(dashboardLink()).
		WithVariable(datasourceVariable()).
		WithVariable(queryVariable("group", "Group", "label_values("+correlator.FactPrefix+"requests_total, testid)").Regex(groupRegex))
	db.Annotation(b.annotationQuery(annotation{name: "Regressions", query: "runs_regressions", color: "red",
		title: "{{fact}} {{object}}", text: "{{testid}} against {{baseline_testid}} (value: the change in the fact's unit)", tagKeys: "fact,object,testid"}))

	graph := func(title, description, unit string, width uint32, qs ...panelQuery) {
		db.WithPanel(b.graph(title, description, unit, width, qs...).
			ShowPoints(common.VisibilityModeAlways).
			PointSize(8).
			SpanNulls(common.BoolOrFloat64{Bool: new(true)}))
	}
	db.WithRow(row("Runs"))
	db.WithPanel(b.table("Runs of the group", "Each run's key facts (the last value in the time range of the written-back series or the exporter's gauges).", units.Short, fullWidth,
		q("runs_table_requests", "requests"),
		q("runs_table_error", "error ratio"),
		q("runs_table_reaction", "HPA reaction (s)"),
		q("runs_table_ready_gap", "max start-up gap (s)"),
		q("runs_table_max", "time to max (s)"),
		q("runs_table_onset", "throttling onset (VUs)")))
	db.WithPanel(b.table("Regressions and improvements", "Changes the exporter found (tidemark_fact_regression): each run's fact against its baseline run, value the change in the fact's unit.", units.Short, fullWidth,
		q("runs_regressions_table", "change")))

	db.WithRow(row("Autoscaling"))
	graph("HPA reaction", "From the load step to the first scale-up, per run (tidemark_fact_hpa_reaction_seconds, from=load_step).", units.Seconds, halfWidth, q("runs_reaction", "{{object}}"))
	graph("Largest start-up gap", "The longest wait from a scale-up until Ready caught up, per run.", units.Seconds, halfWidth, q("runs_ready_gap", "{{object}}"))
	graph("Time to max replicas", "From the load step to the HPA's peak, per run.", units.Seconds, halfWidth, q("runs_time_to_max", "{{object}}"))
	graph("Scale-in delay", "From the end of the load to the first scale-in, per run.", units.Seconds, halfWidth, q("runs_scale_in_delay", "{{object}}"))

	db.WithRow(row("Load and errors"))
	graph("Error ratio", "Failed ÷ all requests, per run.", units.PercentUnit, thirdWidth, q("runs_error_ratio", "{{testid}}"))
	graph("Peak request rate", "The highest request rate of each run.", units.RequestsPerSecond, thirdWidth, q("runs_peak_rate", "{{testid}}"))
	graph("p95 latency per stage", "Each stage's p95, per run (stage numbers count from 0).", units.Seconds, thirdWidth, q("runs_stage_p95", "{{scenario}} stage {{stage}}"))

	db.WithRow(row("CPU and database"))
	graph("Throttling onset", "The VUs at which CPU throttling first crossed each threshold, per run.", units.Short, halfWidth, q("runs_onset_vus", "{{object}} > {{threshold}}"))
	graph("DB connections growth", "Peak minus baseline connections, per run.", units.Short, halfWidth, q("runs_db_growth", "{{object}}"))
	return finish(b, db)
}
