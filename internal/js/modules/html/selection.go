package html

import (
	"github.com/PuerkitoBio/goquery"
	"github.com/grafana/sobek"
	xhtml "golang.org/x/net/html"
)

// Selection is k6's Selection: a set of nodes of a document with jQuery's
// traversal API. Its methods are the script's (find, attr, …).
type Selection struct {
	rt  *sobek.Runtime
	sel *goquery.Selection
	url string // the document's address, for links and forms
}

func (s *Selection) wrap(sel *goquery.Selection) *Selection {
	return &Selection{rt: s.rt, sel: sel, url: s.url}
}

// selectionOf returns the Selection v holds, or nil.
func selectionOf(v sobek.Value) *Selection {
	if o, ok := v.(*sobek.Object); ok {
		if s, ok := o.Export().(*Selection); ok {
			return s
		}
	}
	return nil
}

// nullish reports whether v is missing, undefined or null.
func nullish(v sobek.Value) bool {
	return v == nil || sobek.IsUndefined(v) || sobek.IsNull(v)
}

// Find returns the descendants matching selector.
func (s *Selection) Find(selector string) *Selection { return s.wrap(s.sel.Find(selector)) }

// Single returns the first descendant matching selector (k6's goquery Single).
func (s *Selection) Single(selector string) *Selection {
	return s.wrap(s.sel.FindMatcher(goquery.Single(selector)))
}

// Children returns the element children, filtered by the optional selector.
func (s *Selection) Children(selector sobek.Value) *Selection {
	if nullish(selector) {
		return s.wrap(s.sel.Children())
	}
	return s.wrap(s.sel.ChildrenFiltered(selector.String()))
}

// Closest returns, for each node, itself or its first ancestor matching selector.
func (s *Selection) Closest(selector string) *Selection { return s.wrap(s.sel.Closest(selector)) }

// Contents returns the children, text and comment nodes included.
func (s *Selection) Contents() *Selection { return s.wrap(s.sel.Contents()) }

// Eq returns the node at index (negative counts from the end).
func (s *Selection) Eq(index int) *Selection { return s.wrap(s.sel.Eq(index)) }

// First returns the first node.
func (s *Selection) First() *Selection { return s.wrap(s.sel.First()) }

// Last returns the last node.
func (s *Selection) Last() *Selection { return s.wrap(s.sel.Last()) }

// Has keeps the nodes with a descendant matching selector (a string or Selection).
func (s *Selection) Has(selector sobek.Value) *Selection {
	if o := selectionOf(selector); o != nil {
		return s.wrap(s.sel.HasSelection(o.sel))
	}
	return s.wrap(s.sel.Has(selector.String()))
}

// Add returns the union with the nodes matching selector, or a Selection.
func (s *Selection) Add(selector sobek.Value) *Selection {
	if o := selectionOf(selector); o != nil {
		return s.wrap(s.sel.AddSelection(o.sel))
	}
	return s.wrap(s.sel.Add(selector.String()))
}

// End returns the selection this one was derived from (jQuery's end).
func (s *Selection) End() *Selection { return s.wrap(s.sel.End()) }

// Size returns the number of nodes.
func (s *Selection) Size() int { return s.sel.Length() }

// Slice returns the nodes from start to end (exclusive; negative counts from
// the end; end defaults to the length).
func (s *Selection) Slice(start int, end sobek.Value) *Selection {
	n := s.sel.Length()
	e := n
	if !nullish(end) {
		e = int(end.ToInteger())
	}
	clamp := func(i int) int {
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n)
	}
	b, e := clamp(start), clamp(e)
	if b >= e {
		return s.wrap(s.sel.Slice(0, 0))
	}
	return s.wrap(s.sel.Slice(b, e))
}

// Text returns the combined text of the nodes and their descendants.
func (s *Selection) Text() string { return s.sel.Text() }

// Html returns the inner HTML of the first node, undefined when empty.
//
//nolint:revive // sobek.UncapFieldNameMapper makes Html the script's html(); HTML would be hTML().
func (s *Selection) Html() sobek.Value {
	if s.sel.Length() == 0 {
		return sobek.Undefined()
	}
	h, err := s.sel.Html()
	if err != nil {
		return sobek.Undefined()
	}
	return s.rt.ToValue(h)
}

// Attr returns the attribute name of the first node, undefined when it has none.
func (s *Selection) Attr(name string) sobek.Value {
	if v, ok := s.sel.Attr(name); ok {
		return s.rt.ToValue(v)
	}
	return sobek.Undefined()
}

// Get returns the Element at index (negative counts from the end), undefined
// out of range; without an index, the array of every Element.
func (s *Selection) Get(index sobek.Value) sobek.Value {
	if nullish(index) {
		return s.rt.ToValue(s.elements(s.sel.Nodes))
	}
	i := int(index.ToInteger())
	if i < 0 {
		i += len(s.sel.Nodes)
	}
	if i < 0 || i >= len(s.sel.Nodes) {
		return sobek.Undefined()
	}
	return s.rt.ToValue(newElement(s.rt, s.sel.Nodes[i], s.url))
}

// elements returns a JavaScript array of the nodes as Elements.
func (s *Selection) elements(nodes []*xhtml.Node) *sobek.Object {
	items := make([]any, len(nodes))
	for i, n := range nodes {
		items[i] = newElement(s.rt, n, s.url)
	}
	return s.rt.NewArray(items...)
}

// ToArray returns each node as a Selection of its own.
func (s *Selection) ToArray() *sobek.Object {
	items := make([]any, len(s.sel.Nodes))
	for i := range s.sel.Nodes {
		items[i] = s.wrap(s.sel.Eq(i))
	}
	return s.rt.NewArray(items...)
}

// Each calls fn(index, element) for each node, with this the element; fn
// returning false stops (jQuery).
func (s *Selection) Each(fn sobek.Callable) {
	for i, n := range s.sel.Nodes {
		el := s.rt.ToValue(newElement(s.rt, n, s.url))
		r, err := fn(el, s.rt.ToValue(i), el)
		if err != nil {
			panic(err)
		}
		if r.StrictEquals(s.rt.ToValue(false)) {
			return
		}
	}
}

// Map returns fn(index, selection) for each node; as jQuery does, null and
// undefined are left out and arrays are flattened.
func (s *Selection) Map(fn sobek.Callable) *sobek.Object {
	var out []any
	for i := range s.sel.Nodes {
		one := s.rt.ToValue(s.wrap(s.sel.Eq(i)))
		r, err := fn(one, s.rt.ToValue(i), one)
		if err != nil {
			panic(err)
		}
		switch {
		case nullish(r):
		case isArray(r):
			o := r.(*sobek.Object)
			for _, k := range o.Keys() {
				out = append(out, o.Get(k))
			}
		default:
			out = append(out, r)
		}
	}
	return s.rt.NewArray(out...)
}

func isArray(v sobek.Value) bool {
	o, ok := v.(*sobek.Object)
	return ok && o.ClassName() == "Array"
}

// tester turns fn(index, selection) into goquery's test.
func (s *Selection) tester(fn sobek.Callable) func(int, *goquery.Selection) bool {
	return func(i int, one *goquery.Selection) bool {
		v := s.rt.ToValue(s.wrap(one))
		r, err := fn(v, s.rt.ToValue(i), v)
		if err != nil {
			panic(err)
		}
		return r.ToBoolean()
	}
}

// Filter keeps the nodes matching a selector string, a test function or a
// Selection.
func (s *Selection) Filter(arg sobek.Value) *Selection {
	if fn, ok := sobek.AssertFunction(arg); ok {
		return s.wrap(s.sel.FilterFunction(s.tester(fn)))
	}
	if o := selectionOf(arg); o != nil {
		return s.wrap(s.sel.FilterSelection(o.sel))
	}
	return s.wrap(s.sel.Filter(arg.String()))
}

// Not removes the nodes matching a selector string, a test function or a
// Selection.
func (s *Selection) Not(arg sobek.Value) *Selection {
	if fn, ok := sobek.AssertFunction(arg); ok {
		return s.wrap(s.sel.NotFunction(s.tester(fn)))
	}
	if o := selectionOf(arg); o != nil {
		return s.wrap(s.sel.NotSelection(o.sel))
	}
	return s.wrap(s.sel.Not(arg.String()))
}

// Is reports whether a node matches a selector string, a test function or a
// Selection.
func (s *Selection) Is(arg sobek.Value) bool {
	if fn, ok := sobek.AssertFunction(arg); ok {
		return s.sel.IsFunction(s.tester(fn))
	}
	if o := selectionOf(arg); o != nil {
		return s.sel.IsSelection(o.sel)
	}
	return s.sel.Is(arg.String())
}
