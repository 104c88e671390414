package summary

import (
	"cmp"
	"crypto/md5" //nolint:gosec // k6's group and check ids are MD5 hex of the path, not a security measure.
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
)

// check is one check's results, from the `checks` rate series tagged `check`.
type check struct {
	name, path    string
	passes, fails uint64
	first         time.Time
}

// group is a k6 group with its checks and sub-groups, in first-seen order.
type group struct {
	name, path string
	first      time.Time
	groups     []*group
	checks     []*check
}

// checkTree holds the checks of a run: per group for the JSON outputs, and merged by
// name across groups for the text summary (k6's compact mode).
type checkTree struct {
	root  *group
	flat  []*check
	total aggregate.Values // The `checks` rate over every series.
	has   bool
}

func buildChecks(snap *aggregate.Snapshot) *checkTree {
	t := &checkTree{root: &group{}}
	all, ok := snap.Metric("checks")
	if !ok {
		return t
	}
	t.has = true
	t.total = all.Values
	byName := map[string]*check{}
	for i := range snap.Series {
		se := &snap.Series[i]
		if se.Metric.Name != "checks" {
			continue
		}
		name, ok := se.Tags.Get("check")
		if !ok {
			continue
		}
		gpath, _ := se.Tags.Get("group")
		g := t.root.find(gpath, se.First)
		c := g.check(name, se.First)
		c.passes += se.Passes
		c.fails += se.Fails()
		f, ok := byName[name]
		if !ok {
			f = &check{name: name, path: "::" + name, first: se.First}
			byName[name] = f
			t.flat = append(t.flat, f)
		}
		f.first = earliest(f.first, se.First)
		f.passes += se.Passes
		f.fails += se.Fails()
	}
	t.root.sort()
	sortChecks(t.flat)
	return t
}

// find returns the group at path ("::a::b"), creating it and its parents.
func (g *group) find(path string, seen time.Time) *group {
	if path == "" {
		return g
	}
	cur := g
	for name := range strings.SplitSeq(strings.TrimPrefix(path, "::"), "::") {
		var next *group
		for _, sub := range cur.groups {
			if sub.name == name {
				next = sub
				break
			}
		}
		if next == nil {
			next = &group{name: name, path: cur.path + "::" + name, first: seen}
			cur.groups = append(cur.groups, next)
		}
		next.first = earliest(next.first, seen)
		cur = next
	}
	return cur
}

func (g *group) check(name string, seen time.Time) *check {
	for _, c := range g.checks {
		if c.name == name {
			c.first = earliest(c.first, seen)
			return c
		}
	}
	c := &check{name: name, path: g.path + "::" + name, first: seen}
	g.checks = append(g.checks, c)
	return c
}

func (g *group) sort() {
	slices.SortStableFunc(g.groups, func(a, b *group) int {
		return cmp.Or(a.first.Compare(b.first), strings.Compare(a.name, b.name))
	})
	sortChecks(g.checks)
	for _, sub := range g.groups {
		sub.sort()
	}
}

// sortChecks orders checks by when they were first seen, as k6 lists them in the
// order the script ran them.
func sortChecks(cs []*check) {
	slices.SortStableFunc(cs, func(a, b *check) int {
		return cmp.Or(a.first.Compare(b.first), strings.Compare(a.name, b.name))
	})
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// id is k6's group and check id: the MD5 hex digest of the path.
func id(path string) string {
	sum := md5.Sum([]byte(path)) //nolint:gosec // See the import.
	return hex.EncodeToString(sum[:])
}
