package html

import (
	"strings"

	"github.com/andybalholm/cascadia"
	"github.com/grafana/sobek"
	xhtml "golang.org/x/net/html"
)

// NodeName returns the DOM node name: the upper-case tag of an HTML element,
// #text, #comment, #document, or the doctype's name.
func (e *elem) NodeName() string {
	switch e.node.Type {
	case xhtml.TextNode:
		return "#text"
	case xhtml.CommentNode:
		return "#comment"
	case xhtml.DocumentNode:
		return "#document"
	case xhtml.ElementNode:
		if e.node.Namespace == "" {
			return strings.ToUpper(e.node.Data)
		}
	}
	return e.node.Data
}

// NodeType returns the NodeType: 1 element, 3 text, 8 comment, 9 document,
// 10 doctype.
func (e *elem) NodeType() sobek.Value {
	switch e.node.Type {
	case xhtml.ElementNode:
		return e.rt.ToValue(1)
	case xhtml.TextNode:
		return e.rt.ToValue(3)
	case xhtml.CommentNode:
		return e.rt.ToValue(8)
	case xhtml.DocumentNode:
		return e.rt.ToValue(9)
	case xhtml.DoctypeNode:
		return e.rt.ToValue(10)
	}
	return sobek.Undefined()
}

// NodeValue returns a text or comment node's text, undefined for others.
func (e *elem) NodeValue() sobek.Value {
	if e.node.Type == xhtml.TextNode || e.node.Type == xhtml.CommentNode {
		return e.rt.ToValue(e.node.Data)
	}
	return sobek.Undefined()
}

// OwnerDocument returns the document node, undefined for the document itself.
func (e *elem) OwnerDocument() sobek.Value {
	if e.node.Type == xhtml.DocumentNode {
		return sobek.Undefined()
	}
	return e.wrap(root(e.node))
}

// ParentElement returns the parent when it is an element.
func (e *elem) ParentElement() sobek.Value {
	if p := e.node.Parent; p != nil && p.Type == xhtml.ElementNode {
		return e.wrap(p)
	}
	return sobek.Undefined()
}

// ParentNode returns the parent node.
func (e *elem) ParentNode() sobek.Value { return e.wrap(e.node.Parent) }

// QuerySelector returns the first descendant matching selector.
func (e *elem) QuerySelector(selector string) sobek.Value {
	m, err := cascadia.Compile(selector)
	if err != nil {
		return sobek.Undefined()
	}
	return e.wrap(m.MatchFirst(e.node))
}

// QuerySelectorAll returns the descendants matching selector.
func (e *elem) QuerySelectorAll(selector string) *sobek.Object {
	m, err := cascadia.Compile(selector)
	if err != nil {
		return e.array(nil)
	}
	return e.array(m.MatchAll(e.node))
}

// TextContent returns the text of the node and its descendants.
func (e *elem) TextContent() string { return textOf(e.node) }

// ToString returns the DOM's description of the node, as
// Object.prototype.toString shows it in a browser: "[object HTMLAnchorElement]".
func (e *elem) ToString() string {
	switch e.node.Type {
	case xhtml.TextNode:
		return "[object Text]"
	case xhtml.CommentNode:
		return "[object Comment]"
	case xhtml.DocumentNode:
		return "[object HTMLDocument]"
	case xhtml.DoctypeNode:
		return "[object DocumentType]"
	}
	return "[object HTML" + e.cls + "]"
}

// Attribute is an attribute of an Element.
type Attribute struct {
	// Name is the qualified name (prefix:local).
	Name string
	// OwnerElement is the Element carrying the attribute.
	OwnerElement any
	// Value is the attribute's value.
	Value string
	ns    string
	local string
}

func newAttribute(e *elem, a xhtml.Attribute) *Attribute {
	name := a.Key
	if a.Namespace != "" {
		name = a.Namespace + ":" + a.Key
	}
	return &Attribute{Name: name, OwnerElement: newElement(e.rt, e.node, e.url), Value: a.Val, ns: a.Namespace, local: a.Key}
}

// LocalName returns the name without its prefix.
func (a *Attribute) LocalName() string { return a.local }

// Prefix returns the namespace prefix ("" for none).
func (a *Attribute) Prefix() string { return a.ns }

// NamespaceURI returns the namespace of a prefixed attribute ("" for none).
func (a *Attribute) NamespaceURI() string {
	switch a.ns {
	case "xlink":
		return "http://www.w3.org/1999/xlink"
	case "xml":
		return "http://www.w3.org/XML/1998/namespace"
	case "xmlns":
		return "http://www.w3.org/2000/xmlns/"
	}
	return ""
}
