package html

import (
	"github.com/PuerkitoBio/goquery"
	"github.com/grafana/sobek"
)

// filtered applies the optional selector: all when it is missing, else filtered.
func (s *Selection) filtered(selector sobek.Value, all func() *goquery.Selection, filtered func(string) *goquery.Selection) *Selection {
	if nullish(selector) {
		return s.wrap(all())
	}
	return s.wrap(filtered(selector.String()))
}

// Next returns each node's next element sibling, filtered by the optional selector.
func (s *Selection) Next(selector sobek.Value) *Selection {
	return s.filtered(selector, s.sel.Next, s.sel.NextFiltered)
}

// NextAll returns each node's following element siblings, filtered by the
// optional selector.
func (s *Selection) NextAll(selector sobek.Value) *Selection {
	return s.filtered(selector, s.sel.NextAll, s.sel.NextAllFiltered)
}

// Prev returns each node's previous element sibling, filtered by the optional selector.
func (s *Selection) Prev(selector sobek.Value) *Selection {
	return s.filtered(selector, s.sel.Prev, s.sel.PrevFiltered)
}

// PrevAll returns each node's preceding element siblings, filtered by the
// optional selector.
func (s *Selection) PrevAll(selector sobek.Value) *Selection {
	return s.filtered(selector, s.sel.PrevAll, s.sel.PrevAllFiltered)
}

// Parent returns each node's parent, filtered by the optional selector.
func (s *Selection) Parent(selector sobek.Value) *Selection {
	return s.filtered(selector, s.sel.Parent, s.sel.ParentFiltered)
}

// Parents returns each node's ancestors, filtered by the optional selector.
func (s *Selection) Parents(selector sobek.Value) *Selection {
	return s.filtered(selector, s.sel.Parents, s.sel.ParentsFiltered)
}

// until is the *Until traversals: up to (not including) the node matching
// stop (a selector string, a Selection, or nothing for all), filtered by the
// optional selector filter.
type until struct {
	all           func() *goquery.Selection
	bySel         func(string) *goquery.Selection
	bySelection   func(*goquery.Selection) *goquery.Selection
	fBySel        func(string, string) *goquery.Selection
	fBySelection  func(string, *goquery.Selection) *goquery.Selection
	filterPlain   func(string) *goquery.Selection
	stop, filterV sobek.Value
}

func (s *Selection) until(u until) *Selection {
	stop := selectionOf(u.stop)
	switch {
	case nullish(u.filterV) && nullish(u.stop):
		return s.wrap(u.all())
	case nullish(u.filterV) && stop != nil:
		return s.wrap(u.bySelection(stop.sel))
	case nullish(u.filterV):
		return s.wrap(u.bySel(u.stop.String()))
	case nullish(u.stop):
		return s.wrap(u.filterPlain(u.filterV.String()))
	case stop != nil:
		return s.wrap(u.fBySelection(u.filterV.String(), stop.sel))
	}
	return s.wrap(u.fBySel(u.filterV.String(), u.stop.String()))
}

// NextUntil returns each node's following siblings up to the one matching stop,
// filtered by filter.
func (s *Selection) NextUntil(stop, filter sobek.Value) *Selection {
	return s.until(until{
		all: s.sel.NextAll, bySel: s.sel.NextUntil, bySelection: s.sel.NextUntilSelection,
		fBySel: s.sel.NextFilteredUntil, fBySelection: s.sel.NextFilteredUntilSelection,
		filterPlain: s.sel.NextAllFiltered, stop: stop, filterV: filter,
	})
}

// PrevUntil returns each node's preceding siblings up to the one matching stop,
// filtered by filter.
func (s *Selection) PrevUntil(stop, filter sobek.Value) *Selection {
	return s.until(until{
		all: s.sel.PrevAll, bySel: s.sel.PrevUntil, bySelection: s.sel.PrevUntilSelection,
		fBySel: s.sel.PrevFilteredUntil, fBySelection: s.sel.PrevFilteredUntilSelection,
		filterPlain: s.sel.PrevAllFiltered, stop: stop, filterV: filter,
	})
}

// ParentsUntil returns each node's ancestors up to the one matching stop,
// filtered by filter.
func (s *Selection) ParentsUntil(stop, filter sobek.Value) *Selection {
	return s.until(until{
		all: s.sel.Parents, bySel: s.sel.ParentsUntil, bySelection: s.sel.ParentsUntilSelection,
		fBySel: s.sel.ParentsFilteredUntil, fBySelection: s.sel.ParentsFilteredUntilSelection,
		filterPlain: s.sel.ParentsFiltered, stop: stop, filterV: filter,
	})
}
