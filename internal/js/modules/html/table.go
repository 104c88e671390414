package html

import (
	"github.com/grafana/sobek"
	xhtml "golang.org/x/net/html"
)

// selectEl is SelectElement.
type selectEl struct{ *elem }

func (s *selectEl) options() []*xhtml.Node { return descendants(s.node, tagIs("option")) }

// selected are the options the select submits (see selectValues).
func (s *selectEl) selected() []*xhtml.Node {
	opts := s.options()
	var out []*xhtml.Node
	for _, o := range opts {
		if hasAttr(o, "selected") {
			out = append(out, o)
		}
	}
	multiple := hasAttr(s.node, "multiple")
	switch {
	case len(out) == 0 && !multiple && len(opts) > 0:
		out = opts[:1]
	case len(out) > 1 && !multiple:
		out = out[len(out)-1:]
	}
	return out
}

// Form returns the select's form.
func (s *selectEl) Form() sobek.Value { return s.form(s.node) }

// Labels returns the select's labels.
func (s *selectEl) Labels() *sobek.Object { return s.labels() }

// Length returns the number of options.
func (s *selectEl) Length() int { return len(s.options()) }

// Options returns the options.
func (s *selectEl) Options() *sobek.Object { return s.array(s.options()) }

// SelectedIndex returns the index of the first selected option, -1 for none.
func (s *selectEl) SelectedIndex() int {
	sel := s.selected()
	if len(sel) == 0 {
		return -1
	}
	for i, o := range s.options() {
		if o == sel[0] {
			return i
		}
	}
	return -1
}

// SelectedOptions returns the selected options.
func (s *selectEl) SelectedOptions() *sobek.Object { return s.array(s.selected()) }

// Size returns the size attribute (0 by default).
func (s *selectEl) Size() int { return intAttr(s.node, "size", 0) }

// Type returns "select-multiple" or "select-one".
func (s *selectEl) Type() string {
	if hasAttr(s.node, "multiple") {
		return "select-multiple"
	}
	return "select-one"
}

// Value returns the first selected option's value ("" for none).
func (s *selectEl) Value() string {
	if sel := s.selected(); len(sel) > 0 {
		return optionValue(sel[0])
	}
	return ""
}

// tableEl is TableElement.
type tableEl struct{ *elem }

func (t *tableEl) child(tag string) sobek.Value {
	return t.wrap(first(childElements(t.node, tagIs(tag))))
}

// Caption returns the caption child.
func (t *tableEl) Caption() sobek.Value { return t.child("caption") }

// THead returns the thead child.
func (t *tableEl) THead() sobek.Value { return t.child("thead") }

// TFoot returns the tfoot child.
func (t *tableEl) TFoot() sobek.Value { return t.child("tfoot") }

// TBodies returns the tbody children.
func (t *tableEl) TBodies() *sobek.Object { return t.array(childElements(t.node, tagIs("tbody"))) }

// Rows returns the table's rows: the thead's, then those of the body sections and
// direct rows in order, then the tfoot's (the DOM's order).
func (t *tableEl) Rows() *sobek.Object { return t.array(tableRows(t.node)) }

func tableRows(table *xhtml.Node) []*xhtml.Node {
	var head, body, foot []*xhtml.Node
	for _, c := range childElements(table, nil) {
		switch c.Data {
		case "thead":
			head = append(head, childElements(c, tagIs("tr"))...)
		case "tfoot":
			foot = append(foot, childElements(c, tagIs("tr"))...)
		case "tbody":
			body = append(body, childElements(c, tagIs("tr"))...)
		case "tr":
			body = append(body, c)
		}
	}
	return append(append(head, body...), foot...)
}

// sectionEl is TableBodyElement, TableHeadElement and TableFootElement.
type sectionEl struct{ *elem }

// Rows returns the section's rows.
func (s *sectionEl) Rows() *sobek.Object { return s.array(childElements(s.node, tagIs("tr"))) }

// rowEl is TableRowElement.
type rowEl struct{ *elem }

// Cells returns the row's td and th cells.
func (r *rowEl) Cells() *sobek.Object { return r.array(childElements(r.node, tagIs("td", "th"))) }

// RowIndex returns the row's index in its table's rows, -1 outside a table.
func (r *rowEl) RowIndex() int {
	if t := ancestor(r.node, "table"); t != nil {
		return index(tableRows(t), r.node)
	}
	return -1
}

// SectionRowIndex returns the row's index in its section (or table).
func (r *rowEl) SectionRowIndex() int {
	if p := r.node.Parent; p != nil {
		return index(childElements(p, tagIs("tr")), r.node)
	}
	return -1
}

func index(nodes []*xhtml.Node, n *xhtml.Node) int {
	for i, x := range nodes {
		if x == n {
			return i
		}
	}
	return -1
}

// cellEl is TableDataCellElement and TableHeaderCellElement (TableCellElement).
type cellEl struct{ *elem }

// CellIndex returns the cell's index in its row, -1 outside a row.
func (c *cellEl) CellIndex() int {
	if p := c.node.Parent; p != nil && p.Data == "tr" {
		return index(childElements(p, tagIs("td", "th")), c.node)
	}
	return -1
}

// ColSpan returns the colspan attribute (1 by default; k6's documentation lists it).
func (c *cellEl) ColSpan() int { return max(intAttr(c.node, "colspan", 1), 1) }

// RowSpan returns the rowspan attribute (1 by default).
func (c *cellEl) RowSpan() int { return max(intAttr(c.node, "rowspan", 1), 0) }

// Headers returns the headers attribute.
func (c *cellEl) Headers() string { return attrOr(c.node, "headers", "") }
