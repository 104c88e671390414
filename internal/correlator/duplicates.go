package correlator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// ksmDuplicates is the catalog query naming the kube-state-metrics scrape targets that
// exported an object another target exported too (optional in a custom catalog).
const ksmDuplicates = "ksm_duplicates"

// duplicates says when the window held kube-state-metrics series that differ only by
// scrape identity (two replicas, a restarted exporter, an HA pair): the catalog collapses
// them before summing, and the report says it did. No series, no note.
func (c *Correlator) duplicates(ctx context.Context, tl *timeline.Timeline, vars query.Vars) ([]analysis.Note, error) {
	if _, ok := c.cat.Queries[ksmDuplicates]; !ok {
		return nil, nil
	}
	span := tl.Span()
	v := vars
	v.Range = span.Duration()
	r, err := c.runner.Instant(ctx, ksmDuplicates, v, span.To)
	if err != nil {
		if errors.Is(err, query.ErrUnavailable) {
			return nil, err
		}
		c.logger.Debug("Could not look for duplicate series", "query", ksmDuplicates, "err", err)
		return nil, nil
	}
	if len(r.Set) < 2 {
		return nil, nil // one target alone cannot duplicate an object
	}
	var targets []string
	var objects float64
	for _, s := range r.Set {
		var ids []string
		for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
			if s.Labels[k] != "" {
				ids = append(ids, fmt.Sprintf("%s=%q", k, s.Labels[k]))
			}
		}
		if len(ids) == 0 {
			ids = []string{"no scrape label"}
		}
		targets = append(targets, strings.Join(ids, " "))
		if len(s.Points) > 0 {
			objects = max(objects, s.Points[len(s.Points)-1].V)
		}
	}
	slices.Sort(targets)
	return []analysis.Note{{Level: analysis.NoteInfo, Section: "sources", Object: analysis.SourceKSM,
		Text: fmt.Sprintf("kube-state-metrics series of %d scrape targets were deduplicated (%s): %g HPA(s) were exported more than once in the window; every query collapses them with max by object before summing, so no fact counts them twice",
			len(r.Set), strings.Join(targets, ", "), objects)}}, nil
}
