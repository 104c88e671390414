package restapi

import (
	"cmp"
	"crypto/md5" //nolint:gosec // k6's group and check ids are the MD5 hex of the path, not a security measure.
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
)

// Group is a k6 group in /v1/groups. The root group has an empty Path and Name.
type Group struct {
	Path, Name string
	Checks     []Check
	// Groups are the sub-groups, in the order the script first ran them.
	Groups []*Group
}

// Check is one check of a group.
type Check struct {
	Path, Name    string
	Passes, Fails uint64
}

// GroupsSource is the optional capability behind /v1/groups. Without it only the root
// group is listed.
type GroupsSource interface {
	// Groups returns the root group, with every group under it.
	Groups() *Group
}

// ID is k6's id of a group or check: the MD5 hex digest of its path.
func ID(path string) string {
	sum := md5.Sum([]byte(path)) //nolint:gosec // See the import.
	return hex.EncodeToString(sum[:])
}

// GroupsFromSnapshot builds the group tree from a snapshot: every group a series is
// tagged with (group_duration, requests and checks inside groups) and the checks from
// the `checks` rate series, ordered by when they were first seen.
func GroupsFromSnapshot(snap *aggregate.Snapshot) *Group {
	root := &builtGroup{}
	if snap == nil {
		return root.group()
	}
	for i := range snap.Series {
		se := &snap.Series[i]
		if se.Tags == nil {
			continue
		}
		gpath, _ := se.Tags.Get("group")
		g := root.find(gpath, se.First)
		if se.Metric.Name != "checks" {
			continue
		}
		name, ok := se.Tags.Get("check")
		if !ok {
			continue
		}
		c := g.check(name, se.First)
		c.Passes += se.Passes
		c.Fails += se.Fails()
	}
	root.sort()
	return root.group()
}

type builtCheck struct {
	Check
	first time.Time
}

type builtGroup struct {
	name, path string
	first      time.Time
	groups     []*builtGroup
	checks     []*builtCheck
}

// find returns the group at path ("::a::b"), creating it and its parents.
func (g *builtGroup) find(path string, seen time.Time) *builtGroup {
	if path == "" {
		return g
	}
	cur := g
	for name := range strings.SplitSeq(strings.TrimPrefix(path, "::"), "::") {
		i := slices.IndexFunc(cur.groups, func(s *builtGroup) bool { return s.name == name })
		if i < 0 {
			cur.groups = append(cur.groups, &builtGroup{name: name, path: cur.path + "::" + name, first: seen})
			i = len(cur.groups) - 1
		}
		next := cur.groups[i]
		next.first = earliest(next.first, seen)
		cur = next
	}
	return cur
}

func (g *builtGroup) check(name string, seen time.Time) *builtCheck {
	for _, c := range g.checks {
		if c.Name == name {
			c.first = earliest(c.first, seen)
			return c
		}
	}
	c := &builtCheck{Check: Check{Name: name, Path: g.path + "::" + name}, first: seen}
	g.checks = append(g.checks, c)
	return c
}

func (g *builtGroup) sort() {
	slices.SortStableFunc(g.groups, func(a, b *builtGroup) int {
		return cmp.Or(a.first.Compare(b.first), strings.Compare(a.name, b.name))
	})
	slices.SortStableFunc(g.checks, func(a, b *builtCheck) int {
		return cmp.Or(a.first.Compare(b.first), strings.Compare(a.Name, b.Name))
	})
	for _, sub := range g.groups {
		sub.sort()
	}
}

func (g *builtGroup) group() *Group {
	out := &Group{Path: g.path, Name: g.name}
	for _, c := range g.checks {
		out.Checks = append(out.Checks, c.Check)
	}
	for _, sub := range g.groups {
		out.Groups = append(out.Groups, sub.group())
	}
	return out
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
