// Package facts is the one table of correlation facts: each fact a run's analysis yields
// (an HPA's reaction, a stage's p95, a database's connection growth …) declared once,
// with its name, labels, unit, direction, title, report section and how to read it.
//
// Everything else derives from the table: the key facts (Table.KeyFacts), the
// tidemark_fact_* series written back to Prometheus and exposed by the exporter
// (Table.Series), the rows of `tidemark compare` (Table.Rows), the regression detector's
// directions and titles (Table.Direction, Table.Title) and the run-history dashboard's
// queries (Fact.Metric, Fact.Selector). Adding a fact is one entry in Default plus the
// detector in internal/analysis that computes it.
//
// Data flows one way: analysis → facts → correlator, report, regress, dashboards.
package facts
