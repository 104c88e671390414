package summary

import (
	"github.com/tidemark/tidemark/internal/aggregate"
)

// checkTree holds the checks of a run: per group for the JSON outputs, and merged by
// name across groups for the text summary (k6's compact mode).
type checkTree struct {
	root  *aggregate.Group
	flat  []*aggregate.Check
	total aggregate.Values // The `checks` rate over every series.
	has   bool
}

func buildChecks(snap *aggregate.Snapshot) *checkTree {
	t := &checkTree{root: aggregate.GroupTree(snap, true)}
	all, ok := snap.Metric("checks")
	if !ok {
		return t
	}
	t.has = true
	t.total = all.Values
	byName := map[string]*aggregate.Check{}
	var walk func(g *aggregate.Group)
	walk = func(g *aggregate.Group) {
		for _, c := range g.Checks {
			f, ok := byName[c.Name]
			if !ok {
				f = &aggregate.Check{Name: c.Name, Path: "::" + c.Name, First: c.First}
				byName[c.Name] = f
				t.flat = append(t.flat, f)
			}
			if f.First.IsZero() || (!c.First.IsZero() && c.First.Before(f.First)) {
				f.First = c.First
			}
			f.Passes += c.Passes
			f.Fails += c.Fails
		}
		for _, sub := range g.Groups {
			walk(sub)
		}
	}
	walk(t.root)
	aggregate.SortChecks(t.flat)
	return t
}
