package restapi

import (
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

// GroupsFromSnapshot builds the group tree from a snapshot (aggregate.GroupTree): every
// group a series is tagged with (group_duration, requests and checks inside groups) and
// the checks from the `checks` rate series, ordered by when they were first seen.
func GroupsFromSnapshot(snap *aggregate.Snapshot) *Group {
	return groupOf(aggregate.GroupTree(snap, false))
}

func groupOf(g *aggregate.Group) *Group {
	out := &Group{Path: g.Path, Name: g.Name}
	for _, c := range g.Checks {
		out.Checks = append(out.Checks, Check{Path: c.Path, Name: c.Name, Passes: c.Passes, Fails: c.Fails})
	}
	for _, sub := range g.Groups {
		out.Groups = append(out.Groups, groupOf(sub))
	}
	return out
}
