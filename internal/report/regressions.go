package report

import (
	"github.com/tidemark/tidemark/internal/regress"
)

// Option adds optional input to a document built by [FromCorrelation] or
// [FromComparison].
type Option func(*options)

type options struct {
	changes []regress.Change
}

func applyOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithRegressions adds a "Regressions" section listing the changes' texts, regressions
// first: for a correlation report the changes of the run against its group's history
// (the exporter's), for a comparison those of each later run against the first. No
// changes, no section.
func WithRegressions(changes []regress.Change) Option {
	return func(o *options) { o.changes = append(o.changes, changes...) }
}

// RegressionsTitle is the title of the regressions section.
const RegressionsTitle = "Regressions"

// regressionsSection lists changes; withRun adds the run column (comparisons).
func regressionsSection(changes []regress.Change, withRun bool) (Section, bool) {
	if len(changes) == 0 {
		return Section{}, false
	}
	cs := append([]regress.Change(nil), changes...)
	regress.Sort(cs)
	t := Table{Columns: []string{"Kind", "Change"}}
	if withRun {
		t.Columns = []string{"Run", "Kind", "Change"}
	}
	for _, c := range cs {
		kind := "improvement"
		if c.Regression {
			kind = "regression"
		}
		row := []string{kind, c.Text}
		if withRun {
			row = append([]string{c.TestID}, row...)
		}
		t.Rows = append(t.Rows, row)
	}
	return Section{
		Title: RegressionsTitle,
		Text: []string{"Facts that moved by more than their resolution and outside the spread of the runs they are compared with " +
			"(rule and directions: docs/regressions.md)."},
		Tables: []Table{t},
	}, true
}
