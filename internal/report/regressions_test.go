package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/regress"
)

// storyResult is one run of the spike: HPA reaction from the load step.
func storyResult(id string, end time.Time, reaction float64) *correlator.Result {
	r := &correlator.Result{TestID: id}
	r.Window.Run.From, r.Window.Run.To = end.Add(-10*time.Minute), end
	r.Autoscaling = []analysis.HPA{{Namespace: "shoong", Name: "dev-shoong-order",
		ReactionFromLoadStep: &analysis.Fact{Value: reaction, Unit: analysis.UnitSeconds, ResolutionSeconds: 15}}}
	return r
}

func TestCorrelationRegressionsSection(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC)
	r1 := storyResult("spike-50-20260528", day, 25)
	r2 := storyResult("spike-50-20260529", day.Add(24*time.Hour), 55)
	changes := regress.Detect([]regress.Run{regress.NewRun(r1)}, regress.NewRun(r2))
	require.Len(t, changes, 1)
	const want = "HPA reaction shoong/dev-shoong-order: 55 s, was 25 s in spike-50-20260528 (+30 s, resolution ±15 s)"

	d := FromCorrelation(r2, WithRegressions(changes))
	require.Equal(t, RegressionsTitle, d.Sections[0].Title, "the regressions come first")
	require.Equal(t, [][]string{{"regression", want}}, d.Sections[0].Tables[0].Rows)
	var md, html bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, d))
	require.Contains(t, md.String(), "## Regressions")
	require.Contains(t, md.String(), "| regression | "+want+" |")
	require.NoError(t, WriteHTML(&html, d))
	require.Contains(t, html.String(), "Regressions")
	require.Contains(t, html.String(), "was 25 s in spike-50-20260528")

	// No changes, no section; the same document as without the option.
	for _, d := range []*Document{FromCorrelation(r2), FromCorrelation(r2, WithRegressions(nil))} {
		for _, s := range d.Sections {
			require.NotEqual(t, RegressionsTitle, s.Title)
		}
	}
}

func TestComparisonMarksChanges(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC)
	rs := []*correlator.Result{
		storyResult("spike-50-20260528", day, 25),
		storyResult("spike-50-20260529", day.Add(24*time.Hour), 55),
		storyResult("spike-50-20260530", day.Add(48*time.Hour), 5),
	}
	first := regress.NewRun(rs[0])
	var changes []regress.Change
	for _, r := range rs[1:] {
		changes = append(changes, regress.Detect([]regress.Run{first}, regress.NewRun(r))...)
	}
	require.Len(t, changes, 2)
	d := FromComparison(correlator.Compare(rs...), rs, WithRegressions(changes))
	require.Equal(t, RegressionsTitle, d.Sections[0].Title)
	require.Equal(t, []string{"Run", "Kind", "Change"}, d.Sections[0].Tables[0].Columns)
	require.Equal(t, []string{"spike-50-20260529", "regression", changes[0].Text}, d.Sections[0].Tables[0].Rows[0])
	require.Equal(t, "improvement", d.Sections[0].Tables[0].Rows[1][1])
	var row []string
	for _, s := range d.Sections {
		if s.Title != "autoscaling" {
			continue
		}
		require.Equal(t, "Change vs spike-50-20260528", s.Tables[0].Columns[len(s.Tables[0].Columns)-1])
		for _, r := range s.Tables[0].Rows {
			if r[2] == "reaction_from_load_step" {
				row = r
			}
		}
	}
	require.Equal(t, []string{"autoscaling", "shoong/dev-shoong-order", "reaction_from_load_step", "25 s", "55 s", "5 s",
		"spike-50-20260529: regression +30 s; spike-50-20260530: improvement −20 s"}, row)
}
