package dashboards

import (
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/barchart"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/units"

	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/regress"
)

// RunsOverTimeUID is the UID of the Runs over time dashboard.
const RunsOverTimeUID = "tidemark-runs-over-time"

// runsSelector selects the runs of the $group variable: the group itself (a testid
// without a date suffix is its own group) or the group followed by one of the suffixes
// regress.Group strips (regress.SuffixPattern).
const runsSelector = `testid=~"${group:regex}([-_.](` + regress.SuffixPattern + `))?"`

// groupRegex extracts a run's group from its testid for the group variable (Grafana's
// JavaScript regex, the first capture group): regress.Group's rule, so the variable
// offers the groups the exporter compares within. Testids without a suffix are offered
// as themselves.
const groupRegex = `/^(.+?)(?:[-_.](?:` + regress.SuffixPattern + `))?$/`

// runsExprs are the Runs over time dashboard's queries: the key facts' series
// (tidemark_fact_*, written back by tidemark correlate and exposed by tidemark exporter
// with the same names) and the exporter's regressions. They are Tidemark's own contract,
// not the catalog's, so they do not go through [Exprs].
//
// Written-back facts have one sample per run, at its end, and no job label; the
// exporter's gauges are a constant series per run, sampled at every scrape for as long
// as it exposes the run. Every per-run query is therefore an instant query of the last
// value in the time range (last_over_time over $__range), one value per run whichever
// source holds it, shown with the testid on the x axis. Regressions are annotated where
// their series first appear (the step before had none), not along the whole series.
func runsExprs() ExprTable {
	t := facts.Default()
	// perRun is the last value of the fact called name in each run; with dims, one per
	// value of those labels. Facts sharing a name are told apart by their Fixed labels:
	// the first declared is queried (the HPA reaction from the load step).
	perRun := func(name string, dims ...string) string {
		f, _ := t.Get(name)
		sel := f.Metric() + "{" + runsSelector + f.Selector() + "}"
		last := "last_over_time(" + sel + "[$__range])"
		if len(dims) == 0 {
			return "max by (testid) (" + last + ")"
		}
		return "max by (testid, series) (label_join(" + last + `, "series", " ", "` + strings.Join(dims, `", "`) + `"))`
	}
	appeared := func(kind string) string {
		sel := regress.RegressionMetric + "{" + runsSelector + `, kind="` + kind + `"}`
		return sel + " unless " + sel + " offset $__interval"
	}
	return ExprTable{
		"runs_reaction":       perRun(facts.HPAReaction, "object"),
		"runs_ready_gap":      perRun(facts.HPAReadyGap, "object"),
		"runs_time_to_max":    perRun(facts.HPATimeToMax, "object"),
		"runs_scale_in_delay": perRun(facts.HPAScaleInDelay, "object"),
		"runs_error_ratio":    perRun(facts.ErrorRatio),
		"runs_peak_rate":      perRun(facts.PeakRequestRate),
		"runs_stage_p95":      perRun(facts.StageP95, "scenario", "stage"),
		"runs_onset_vus":      perRun(facts.ThrottlingOnsetVU, "object", "threshold"),
		"runs_db_growth":      perRun(facts.DBGrowth, "object"),

		"runs_table_requests":  perRun(facts.Requests),
		"runs_table_error":     perRun(facts.ErrorRatio),
		"runs_table_reaction":  perRun(facts.HPAReaction),
		"runs_table_ready_gap": perRun(facts.HPAReadyGap),
		"runs_table_max":       perRun(facts.HPATimeToMax),
		"runs_table_onset":     perRun(facts.ThrottlingOnsetVU),

		"runs_regressions":       appeared("regression"),
		"runs_improvements":      appeared("improvement"),
		"runs_regressions_table": "max by (testid, kind, fact, object, baseline_testid) (last_over_time(" + regress.RegressionMetric + "{" + runsSelector + "}[$__range]))",
	}
}

// perRunBars is a bar chart of one value per run (an instant table query), runs on the x
// axis in testid order (chronological for testids with date suffixes). With series,
// the query's series label (label_join of the fact's own labels) makes one bar per
// value of it in each run's group of bars.
func (b *builder) perRunBars(title, description, unit string, width uint32, name string, series bool) *barchart.PanelBuilder {
	p := barchart.NewPanelBuilder().
		Title(title).
		Description(description).
		Datasource(datasource()).
		Unit(unit).
		Height(graphHeight).
		Span(width).
		XTickLabelRotation(-45).
		ShowValue(common.VisibilityModeAuto).
		Legend(common.NewVizLegendOptionsBuilder().
			DisplayMode(common.LegendDisplayModeList).
			Placement(common.LegendPlacementBottom).
			ShowLegend(true)).
		Tooltip(common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeMulti)).
		Targets(b.instantTable([]panelQuery{q(name, "")})).
		WithTransformation(dashboard.DataTransformerConfig{Id: "sortBy", Options: map[string]any{
			"sort": []any{map[string]any{"field": "testid"}},
		}})
	if series {
		return p.WithTransformation(dashboard.DataTransformerConfig{Id: "groupingToMatrix", Options: map[string]any{
			"columnField": "series", "rowField": "testid", "valueField": "Value",
		}})
	}
	return p.WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
		"excludeByName": map[string]any{"Time": true},
		"renameByName":  map[string]any{"Value": title},
	}})
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
// comparable runs (regress.Group: the testid without its date suffix), one bar per run,
// a table of the runs, and the regressions and improvements the exporter found as
// annotations where they first appear (regress.RegressionMetric).
func RunsOverTime(exprs Exprs) (dashboard.Dashboard, error) {
	b := &builder{exprs: overlay{own: runsExprs(), rest: exprs}}
	db := dashboard.NewDashboardBuilder("Tidemark / Runs over time").
		Uid(RunsOverTimeUID).
		Description("The key facts of a group of comparable runs over days or weeks (one bar per run, in testid order, from the written-back facts or the exporter's gauges) and the regressions between them. Rule: docs/regressions.md.").
		Tags(tags()).
		Editable().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Time("now-30d", "now").
		Timezone(common.TimeZoneUtc).
		Refresh("5m").
		Link(dashboardLink()).
		WithVariable(datasourceVariable()).
		WithVariable(queryVariable("group", "Group", "label_values("+facts.Prefix+facts.Requests+", testid)").Regex(groupRegex))
	db.Annotation(b.annotationQuery(annotation{name: "Regressions", query: "runs_regressions", color: "red",
		title: "regression: {{fact}} {{object}}", text: "{{testid}} against {{baseline_testid}} (value: the change in the fact's unit)", tagKeys: "fact,object,testid"}))
	db.Annotation(b.annotationQuery(annotation{name: "Improvements", query: "runs_improvements", color: "green",
		title: "improvement: {{fact}} {{object}}", text: "{{testid}} against {{baseline_testid}} (value: the change in the fact's unit)", tagKeys: "fact,object,testid"}))

	bars := func(title, description, unit string, width uint32, name string, series bool) {
		db.WithPanel(b.perRunBars(title, description, unit, width, name, series))
	}
	db.WithRow(row("Runs"))
	db.WithPanel(b.table("Runs of the group", "Each run's key facts (the last value in the time range of the written-back series or the exporter's gauges).", units.Short, fullWidth,
		q("runs_table_requests", "requests"),
		q("runs_table_error", "error ratio"),
		q("runs_table_reaction", "HPA reaction (s)"),
		q("runs_table_ready_gap", "max start-up gap (s)"),
		q("runs_table_max", "time to max (s)"),
		q("runs_table_onset", "throttling onset (VUs)")))
	db.WithPanel(b.table("Regressions and improvements", "Changes the exporter found (tidemark_fact_regression): each run's fact against its baseline run, value the change in the fact's unit; kind says which way.", units.Short, fullWidth,
		q("runs_regressions_table", "change")))

	db.WithRow(row("Autoscaling"))
	bars("HPA reaction", "From the load step to the first scale-up, per run (tidemark_fact_hpa_reaction_seconds, from=load_step).", units.Seconds, halfWidth, "runs_reaction", true)
	bars("Largest start-up gap", "The longest wait from a scale-up until Ready caught up, per run.", units.Seconds, halfWidth, "runs_ready_gap", true)
	bars("Time to max replicas", "From the load step to the HPA's peak, per run.", units.Seconds, halfWidth, "runs_time_to_max", true)
	bars("Scale-in delay", "From the end of the load to the first scale-in, per run.", units.Seconds, halfWidth, "runs_scale_in_delay", true)

	db.WithRow(row("Load and errors"))
	bars("Error ratio", "Failed ÷ all requests, per run.", units.PercentUnit, thirdWidth, "runs_error_ratio", false)
	bars("Peak request rate", "The highest request rate of each run.", units.RequestsPerSecond, thirdWidth, "runs_peak_rate", false)
	bars("p95 latency per stage", "Each stage's p95, per run (scenario and stage number, counted from 0).", units.Seconds, thirdWidth, "runs_stage_p95", true)

	db.WithRow(row("CPU and database"))
	bars("Throttling onset", "The VUs at which CPU throttling first crossed each threshold (object and threshold), per run.", units.Short, halfWidth, "runs_onset_vus", true)
	bars("DB connections growth", "Peak minus baseline connections, per run.", units.Short, halfWidth, "runs_db_growth", true)
	return finish(b, db)
}
