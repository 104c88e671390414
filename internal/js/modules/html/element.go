package html

import (
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"github.com/grafana/sobek"
	xhtml "golang.org/x/net/html"
)

// classed is an Element: its class is the @types/k6 class it is an instance of.
type classed interface{ class() string }

// elem is k6's Element, the base of every typed element: a node of the
// document (an element, text, comment, doctype or the document itself) with a
// DOM-like API. Its methods are the script's.
type elem struct {
	rt   *sobek.Runtime
	node *xhtml.Node
	url  string
	cls  string
}

func (e *elem) class() string { return e.cls }

// wrap returns the Element of n, undefined for nil.
func (e *elem) wrap(n *xhtml.Node) sobek.Value {
	if n == nil {
		return sobek.Undefined()
	}
	return e.rt.ToValue(newElement(e.rt, n, e.url))
}

// array returns the Elements of nodes as a JavaScript array.
func (e *elem) array(nodes []*xhtml.Node) *sobek.Object {
	items := make([]any, len(nodes))
	for i, n := range nodes {
		items[i] = newElement(e.rt, n, e.url)
	}
	return e.rt.NewArray(items...)
}

func (e *elem) str(s string, ok bool) sobek.Value {
	if !ok {
		return sobek.Undefined()
	}
	return e.rt.ToValue(s)
}

// Selection returns the Selection of this node alone ($(element)).
func (e *elem) Selection() *Selection {
	return &Selection{rt: e.rt, sel: goquery.NewDocumentFromNode(root(e.node)).FindNodes(e.node), url: e.url}
}

// Attributes returns the node's attributes by name.
func (e *elem) Attributes() *sobek.Object {
	o := e.rt.NewObject()
	for _, a := range e.node.Attr {
		at := newAttribute(e, a)
		_ = o.Set(at.Name, at)
	}
	return o
}

// ChildElementCount returns the number of element children.
func (e *elem) ChildElementCount() int { return len(childElements(e.node, nil)) }

// ChildNodes returns every child node.
func (e *elem) ChildNodes() *sobek.Object {
	var nodes []*xhtml.Node
	for c := e.node.FirstChild; c != nil; c = c.NextSibling {
		nodes = append(nodes, c)
	}
	return e.array(nodes)
}

// Children returns the element children.
func (e *elem) Children() *sobek.Object { return e.array(childElements(e.node, nil)) }

// ClassList returns the class names.
func (e *elem) ClassList() *sobek.Object {
	return strings2array(e.rt, strings.Fields(attrOr(e.node, "class", "")))
}

func strings2array(rt *sobek.Runtime, list []string) *sobek.Object {
	items := make([]any, len(list))
	for i, s := range list {
		items[i] = s
	}
	return rt.NewArray(items...)
}

// ClassName returns the class attribute, undefined without one.
func (e *elem) ClassName() sobek.Value { return e.str(attr(e.node, "class")) }

// Contains reports whether other is this node or one of its descendants.
func (e *elem) Contains(other sobek.Value) bool {
	o := nodeOf(other)
	for ; o != nil; o = o.Parent {
		if o == e.node {
			return true
		}
	}
	return false
}

// nodeOf returns the node of an Element value, or nil.
func nodeOf(v sobek.Value) *xhtml.Node {
	o, ok := v.(*sobek.Object)
	if !ok {
		return nil
	}
	if n, ok := o.Export().(interface{ base() *elem }); ok {
		return n.base().node
	}
	return nil
}

func (e *elem) base() *elem { return e }

// FirstChild returns the first child node.
func (e *elem) FirstChild() sobek.Value { return e.wrap(e.node.FirstChild) }

// LastChild returns the last child node.
func (e *elem) LastChild() sobek.Value { return e.wrap(e.node.LastChild) }

// FirstElementChild returns the first element child.
func (e *elem) FirstElementChild() sobek.Value { return e.wrap(first(childElements(e.node, nil))) }

// LastElementChild returns the last element child.
func (e *elem) LastElementChild() sobek.Value {
	kids := childElements(e.node, nil)
	if len(kids) == 0 {
		return sobek.Undefined()
	}
	return e.wrap(kids[len(kids)-1])
}

func first(nodes []*xhtml.Node) *xhtml.Node {
	if len(nodes) == 0 {
		return nil
	}
	return nodes[0]
}

// GetAttribute returns the attribute name, undefined without it.
func (e *elem) GetAttribute(name string) sobek.Value { return e.str(attr(e.node, name)) }

// GetAttributeNode returns the Attribute name, undefined without it.
func (e *elem) GetAttributeNode(name string) sobek.Value {
	for _, a := range e.node.Attr {
		if at := newAttribute(e, a); strings.EqualFold(at.Name, name) {
			return e.rt.ToValue(at)
		}
	}
	return sobek.Undefined()
}

// GetElementsByClassName returns the descendants having every class of names.
func (e *elem) GetElementsByClassName(names string) *sobek.Object {
	want := strings.Fields(names)
	return e.array(descendants(e.node, func(c *xhtml.Node) bool {
		have := strings.Fields(attrOr(c, "class", ""))
		for _, w := range want {
			if !slices.Contains(have, w) {
				return false
			}
		}
		return len(want) > 0
	}))
}

// GetElementsByTagName returns the descendants named tag ("*" for all).
func (e *elem) GetElementsByTagName(tag string) *sobek.Object {
	return e.array(descendants(e.node, func(c *xhtml.Node) bool { return tag == "*" || strings.EqualFold(c.Data, tag) }))
}

// HasAttribute reports whether the attribute name is set.
func (e *elem) HasAttribute(name string) bool { return hasAttr(e.node, name) }

// HasAttributes reports whether any attribute is set.
func (e *elem) HasAttributes() bool { return len(e.node.Attr) > 0 }

// HasChildNodes reports whether the node has children.
func (e *elem) HasChildNodes() bool { return e.node.FirstChild != nil }

// Id returns the id attribute ("" without one).
func (e *elem) Id() string { return attrOr(e.node, "id", "") } //nolint:revive // the script's name is id

// InnerHTML returns the markup of the node's children.
func (e *elem) InnerHTML() sobek.Value {
	var b strings.Builder
	for c := e.node.FirstChild; c != nil; c = c.NextSibling {
		if err := xhtml.Render(&b, c); err != nil {
			return sobek.Undefined()
		}
	}
	return e.rt.ToValue(b.String())
}

// IsDefaultNamespace reports whether the node is in the HTML namespace.
func (e *elem) IsDefaultNamespace() bool { return e.node.Namespace == "" }

// IsEqualNode reports whether other is a node of the same type, name,
// attributes and children.
func (e *elem) IsEqualNode(other sobek.Value) bool {
	o := nodeOf(other)
	if o == nil {
		return false
	}
	var a, b strings.Builder
	if xhtml.Render(&a, e.node) != nil || xhtml.Render(&b, o) != nil {
		return false
	}
	return e.node.Type == o.Type && a.String() == b.String()
}

// IsSameNode reports whether other is this very node.
func (e *elem) IsSameNode(other sobek.Value) bool { return nodeOf(other) == e.node }

// Lang returns the lang attribute of the node or its nearest ancestor having
// one, undefined without.
func (e *elem) Lang() sobek.Value {
	for n := e.node; n != nil; n = n.Parent {
		if v, ok := attr(n, "lang"); ok && n.Type == xhtml.ElementNode {
			return e.rt.ToValue(v)
		}
	}
	return sobek.Undefined()
}

// Matches reports whether the node matches selector.
func (e *elem) Matches(selector string) bool {
	m, err := cascadia.Compile(selector)
	return err == nil && m.Match(e.node)
}

// NamespaceURI returns the node's namespace URI.
func (e *elem) NamespaceURI() string {
	switch e.node.Namespace {
	case "svg":
		return "http://www.w3.org/2000/svg"
	case "math":
		return "http://www.w3.org/1998/Math/MathML"
	}
	return "http://www.w3.org/1999/xhtml"
}

// NextElementSibling returns the next element sibling.
func (e *elem) NextElementSibling() sobek.Value {
	for n := e.node.NextSibling; n != nil; n = n.NextSibling {
		if n.Type == xhtml.ElementNode {
			return e.wrap(n)
		}
	}
	return sobek.Undefined()
}

// PreviousElementSibling returns the previous element sibling.
func (e *elem) PreviousElementSibling() sobek.Value {
	for n := e.node.PrevSibling; n != nil; n = n.PrevSibling {
		if n.Type == xhtml.ElementNode {
			return e.wrap(n)
		}
	}
	return sobek.Undefined()
}

// NextSibling returns the next sibling node.
func (e *elem) NextSibling() sobek.Value { return e.wrap(e.node.NextSibling) }

// PreviousSibling returns the previous sibling node.
func (e *elem) PreviousSibling() sobek.Value { return e.wrap(e.node.PrevSibling) }
