package dashboards

import (
	"errors"
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// Panel widths on Grafana's 24-column grid.
const (
	fullWidth    = 24
	halfWidth    = 12
	thirdWidth   = 8
	quarterWidth = 6
	sixthWidth   = 4
	statHeight   = 4
	graphHeight  = 8
	tableHeight  = 9
)

// datasourceVar is the name of the data-source variable every panel queries through.
const datasourceVar = "datasource"

// datasource is the reference to the dashboard's data-source variable.
func datasource() common.DataSourceRef {
	return common.DataSourceRef{Type: new("prometheus"), Uid: new("${" + datasourceVar + "}")}
}

// panelQuery is one panel query: the name of its expression in the [Exprs] table, its
// legend, and optionally a wrapper that narrows the expression for this panel (the
// series stay those of the named query).
type panelQuery struct {
	name   string
	legend string
	wrap   func(b *builder, expr string) string
}

// q is shorthand for a query.
func q(name, legend string) panelQuery { return panelQuery{name: name, legend: legend} }

// qw is a query whose expression is wrapped for the panel.
func qw(name, legend string, wrap func(*builder, string) string) panelQuery {
	return panelQuery{name: name, legend: legend, wrap: wrap}
}

// panelExpr returns the PromQL of a panel query.
func (b *builder) panelExpr(qu panelQuery) string {
	e := b.expr(qu.name)
	if qu.wrap != nil && e != "" {
		e = qu.wrap(b, e)
	}
	return e
}

// builder resolves query names for one dashboard and collects the names it could not resolve,
// so a builder function stays a plain chain of SDK calls.
type builder struct {
	exprs Exprs
	errs  []error
}

// expr returns the PromQL of a named query, recording a lookup failure.
func (b *builder) expr(name string) string {
	e, err := b.exprs.Expr(name)
	if err != nil {
		b.errs = append(b.errs, err)
	}
	return e
}

// err returns every lookup failure so far.
func (b *builder) err() error { return errors.Join(b.errs...) }

// refID returns the Grafana refId of a panel's i-th query: A to Z, then AA, AB and so on.
func refID(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return refID(i/26-1) + refID(i%26)
}

// targets turns queries into range queries with refIds A, B, C, … in order.
func (b *builder) targets(qs []panelQuery) []cog.Builder[variants.Dataquery] {
	return b.queries(qs, func(q *prometheus.DataqueryBuilder) *prometheus.DataqueryBuilder { return q.Range() })
}

// instantTable turns queries into instant table queries with refIds A, B, C, … in order.
func (b *builder) instantTable(qs []panelQuery) []cog.Builder[variants.Dataquery] {
	return b.queries(qs, func(q *prometheus.DataqueryBuilder) *prometheus.DataqueryBuilder {
		return q.Instant().Format(prometheus.PromQueryFormatTable)
	})
}

// queries builds one Prometheus query per panelQuery, shaped by kind, with refIds in order.
func (b *builder) queries(qs []panelQuery, kind func(*prometheus.DataqueryBuilder) *prometheus.DataqueryBuilder) []cog.Builder[variants.Dataquery] {
	out := make([]cog.Builder[variants.Dataquery], 0, len(qs))
	for i, qu := range qs {
		q := prometheus.NewDataqueryBuilder().
			Datasource(datasource()).
			Expr(b.panelExpr(qu)).
			LegendFormat(qu.legend)
		out = append(out, kind(q).RefId(refID(i)))
	}
	return out
}

// graph is a time-series panel of the queries with a table legend and a shared tooltip.
func (b *builder) graph(title, description, unit string, width uint32, qs ...panelQuery) *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().
		Title(title).
		Description(description).
		Datasource(datasource()).
		Unit(unit).
		Height(graphHeight).
		Span(width).
		LineWidth(1).
		FillOpacity(10).
		ShowPoints(common.VisibilityModeNever).
		SpanNulls(common.BoolOrFloat64{Bool: new(false)}).
		Legend(common.NewVizLegendOptionsBuilder().
			DisplayMode(common.LegendDisplayModeTable).
			Placement(common.LegendPlacementBottom).
			ShowLegend(true).
			Calcs([]string{"max", "mean", "lastNotNull"})).
		Tooltip(common.NewVizTooltipOptionsBuilder().
			Mode(common.TooltipDisplayModeMulti).
			Sort(common.SortOrderDescending)).
		Targets(b.targets(qs))
}

// stat is a single-value panel showing the last value of its query, as 19665's stats do.
func (b *builder) stat(title, description, unit string, width uint32, qs ...panelQuery) *stat.PanelBuilder {
	return stat.NewPanelBuilder().
		Title(title).
		Description(description).
		Datasource(datasource()).
		Unit(unit).
		Height(statHeight).
		Span(width).
		GraphMode(common.BigValueGraphModeArea).
		ColorMode(common.BigValueColorModeValue).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"}).Values(false)).
		Targets(b.targets(qs))
}

// table is a table of instant queries merged on their labels, one column per query
// (renamed to the query's legend).
func (b *builder) table(title, description, unit string, width uint32, qs ...panelQuery) *table.PanelBuilder {
	rename := map[string]any{}
	exclude := map[string]any{"Time": true}
	for i, qu := range qs {
		col := "Value"
		if len(qs) > 1 {
			col = "Value #" + refID(i)
		}
		rename[col] = qu.legend
	}
	return table.NewPanelBuilder().
		Title(title).
		Description(description).
		Datasource(datasource()).
		Unit(unit).
		Height(tableHeight).
		Span(width).
		Targets(b.instantTable(qs)).
		WithTransformation(dashboard.DataTransformerConfig{Id: "merge", Options: map[string]any{}}).
		WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
			"excludeByName": exclude,
			"renameByName":  rename,
		}})
}

// row is a section header; the panels after it belong to it.
func row(title string) *dashboard.RowBuilder {
	return dashboard.NewRowBuilder(title)
}

// ratioThresholds colours ratios green below warn, orange from warn, red from crit.
func ratioThresholds(warn, crit float64) *dashboard.ThresholdsConfigBuilder {
	return dashboard.NewThresholdsConfigBuilder().
		Mode(dashboard.ThresholdsModeAbsolute).
		Steps([]dashboard.Threshold{
			{Color: "green"},
			{Value: new(warn), Color: "orange"},
			{Value: new(crit), Color: "red"},
		})
}

// datasourceVariable lets the viewer pick the Prometheus data source.
func datasourceVariable() *dashboard.DatasourceVariableBuilder {
	return dashboard.NewDatasourceVariableBuilder(datasourceVar).
		Label("Data source").
		Type("prometheus")
}

// queryVariable is a variable filled from label_values(...) of the data source.
func queryVariable(name, label, definition string) *dashboard.QueryVariableBuilder {
	return dashboard.NewQueryVariableBuilder(name).
		Label(label).
		Datasource(datasource()).
		Query(dashboard.StringOrMap{String: new(definition)}).
		Definition(definition).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc)
}

// multiAll makes a query variable multi-valued with an "All" that matches everything.
func multiAll(v *dashboard.QueryVariableBuilder) *dashboard.QueryVariableBuilder {
	return v.Multi(true).IncludeAll(true).AllValue(".+")
}

// assignIDs numbers every panel (rows included) 1, 2, 3, … in layout order, so panel
// ids, and the URLs that link to a panel, are stable across regenerations.
func assignIDs(d *dashboard.Dashboard) {
	var id uint32
	for i := range d.Panels {
		p := &d.Panels[i]
		switch {
		case p.Panel != nil:
			id++
			p.Panel.Id = new(id)
		case p.RowPanel != nil:
			id++
			p.RowPanel.Id = id
			for j := range p.RowPanel.Panels {
				id++
				p.RowPanel.Panels[j].Id = new(id)
			}
		}
	}
}

// finish builds the dashboard, numbers its panels and reports lookup and build errors.
func finish(b *builder, db *dashboard.DashboardBuilder) (dashboard.Dashboard, error) {
	d, err := db.Build()
	if err != nil {
		return dashboard.Dashboard{}, fmt.Errorf("build dashboard: %w", err)
	}
	if err := b.err(); err != nil {
		return dashboard.Dashboard{}, err
	}
	assignIDs(&d)
	return d, nil
}
