package html

import (
	"strings"

	xhtml "golang.org/x/net/html"
)

// attr returns n's attribute key (case-insensitive, as HTML's are).
func attr(n *xhtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val, true
		}
	}
	return "", false
}

func attrOr(n *xhtml.Node, key, def string) string {
	if v, ok := attr(n, key); ok {
		return v
	}
	return def
}

func hasAttr(n *xhtml.Node, key string) bool {
	_, ok := attr(n, key)
	return ok
}

// textOf is the text of n and its descendants (textContent).
func textOf(n *xhtml.Node) string {
	if n.Type == xhtml.TextNode || n.Type == xhtml.CommentNode {
		return n.Data
	}
	var b strings.Builder
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case xhtml.TextNode:
				b.WriteString(c.Data)
			case xhtml.ElementNode:
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// descendants are n's descendant elements that keep accepts, in document order.
func descendants(n *xhtml.Node, keep func(*xhtml.Node) bool) []*xhtml.Node {
	var out []*xhtml.Node
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != xhtml.ElementNode {
				continue
			}
			if keep(c) {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

// childElements are n's element children that keep accepts.
func childElements(n *xhtml.Node, keep func(*xhtml.Node) bool) []*xhtml.Node {
	var out []*xhtml.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == xhtml.ElementNode && (keep == nil || keep(c)) {
			out = append(out, c)
		}
	}
	return out
}

// root is the top of n's tree (the document node).
func root(n *xhtml.Node) *xhtml.Node {
	for n.Parent != nil {
		n = n.Parent
	}
	return n
}

// byID is the first element of n's tree with that id.
func byID(n *xhtml.Node, id string) *xhtml.Node {
	if id == "" {
		return nil
	}
	found := descendants(root(n), func(c *xhtml.Node) bool { return attrOr(c, "id", "") == id })
	if len(found) == 0 {
		return nil
	}
	return found[0]
}

// ancestor is n's nearest ancestor element named tag.
func ancestor(n *xhtml.Node, tag string) *xhtml.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == xhtml.ElementNode && p.Data == tag {
			return p
		}
	}
	return nil
}

// formOf is the form a control belongs to: the one its form attribute names,
// else its nearest form ancestor.
func formOf(n *xhtml.Node) *xhtml.Node {
	if id, ok := attr(n, "form"); ok {
		if f := byID(n, id); f != nil && f.Data == "form" {
			return f
		}
		return nil
	}
	return ancestor(n, "form")
}

// listed are the elements keep accepts that belong to form (in it without a
// form attribute of their own, or naming it), in document order.
func listed(form *xhtml.Node, keep func(*xhtml.Node) bool) []*xhtml.Node {
	return descendants(root(form), func(c *xhtml.Node) bool { return keep(c) && formOf(c) == form })
}

// isListed reports whether n is a form-associated listed element.
func isListed(n *xhtml.Node) bool {
	switch n.Data {
	case "button", "fieldset", "input", "keygen", "object", "output", "select", "textarea":
		return true
	}
	return false
}

// isLabelable reports whether a label may name n.
func isLabelable(n *xhtml.Node) bool {
	switch n.Data {
	case "button", "keygen", "meter", "output", "progress", "select", "textarea":
		return true
	case "input":
		return !strings.EqualFold(attrOr(n, "type", ""), "hidden")
	}
	return false
}

// labelControl is the control a label names.
func labelControl(l *xhtml.Node) *xhtml.Node {
	if id, ok := attr(l, "for"); ok {
		if c := byID(l, id); c != nil && isLabelable(c) {
			return c
		}
		return nil
	}
	if found := descendants(l, isLabelable); len(found) > 0 {
		return found[0]
	}
	return nil
}

// labelsOf are the labels whose control is n.
func labelsOf(n *xhtml.Node) []*xhtml.Node {
	return descendants(root(n), func(c *xhtml.Node) bool { return c.Data == "label" && labelControl(c) == n })
}
