package aggregate

import (
	"cmp"
	"crypto/md5" //nolint:gosec // k6's group and check ids are the MD5 hex of the path, not a security measure.
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// Group is a k6 group of a snapshot with its checks and sub-groups, each in the order
// the script first ran them. The root group has an empty Path and Name; a sub-group's
// Path is its parent's plus "::" and its name.
type Group struct {
	Path, Name string
	Checks     []*Check
	Groups     []*Group
	// First is when a series of the group was first seen.
	First time.Time
}

// Check is one check of a group: its results summed over the `checks` rate series
// tagged with its name and group.
type Check struct {
	Path, Name    string
	Passes, Fails uint64
	// First is when the check was first seen.
	First time.Time
}

// GroupID is k6's id of a group or check: the MD5 hex digest of its path.
func GroupID(path string) string {
	sum := md5.Sum([]byte(path)) //nolint:gosec // See the import.
	return hex.EncodeToString(sum[:])
}

// GroupTree builds the group tree of snap with the checks of its `checks` rate series.
// With checksOnly the tree has only the groups that hold a check (as k6's end-of-test
// summary); without, every group a series is tagged with (group_duration, requests and
// checks inside groups, as k6's REST API). A nil snapshot has an empty root.
func GroupTree(snap *Snapshot, checksOnly bool) *Group {
	root := &Group{}
	if snap == nil {
		return root
	}
	for i := range snap.Series {
		se := &snap.Series[i]
		if se.Tags == nil || (checksOnly && se.Metric.Name != "checks") {
			continue
		}
		name, isCheck := se.Tags.Get("check")
		isCheck = isCheck && se.Metric.Name == "checks"
		if checksOnly && !isCheck {
			continue
		}
		gpath, _ := se.Tags.Get("group")
		g := root.find(gpath, se.First)
		if !isCheck {
			continue
		}
		c := g.check(name, se.First)
		c.Passes += se.Passes
		c.Fails += se.Fails()
	}
	root.sort()
	return root
}

// find returns the group at path ("::a::b"), creating it and its parents.
func (g *Group) find(path string, seen time.Time) *Group {
	if path == "" {
		return g
	}
	cur := g
	for name := range strings.SplitSeq(strings.TrimPrefix(path, "::"), "::") {
		i := slices.IndexFunc(cur.Groups, func(s *Group) bool { return s.Name == name })
		if i < 0 {
			cur.Groups = append(cur.Groups, &Group{Name: name, Path: cur.Path + "::" + name, First: seen})
			i = len(cur.Groups) - 1
		}
		next := cur.Groups[i]
		next.First = earliest(next.First, seen)
		cur = next
	}
	return cur
}

func (g *Group) check(name string, seen time.Time) *Check {
	for _, c := range g.Checks {
		if c.Name == name {
			c.First = earliest(c.First, seen)
			return c
		}
	}
	c := &Check{Name: name, Path: g.Path + "::" + name, First: seen}
	g.Checks = append(g.Checks, c)
	return c
}

func (g *Group) sort() {
	slices.SortStableFunc(g.Groups, func(a, b *Group) int {
		return cmp.Or(a.First.Compare(b.First), strings.Compare(a.Name, b.Name))
	})
	SortChecks(g.Checks)
	for _, sub := range g.Groups {
		sub.sort()
	}
}

// SortChecks orders checks by when they were first seen, then by name: k6 lists them
// in the order the script ran them.
func SortChecks(cs []*Check) {
	slices.SortStableFunc(cs, func(a, b *Check) int {
		return cmp.Or(a.First.Compare(b.First), strings.Compare(a.Name, b.Name))
	})
}

// earliest returns the earlier of two times, a zero time counting as unknown.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
