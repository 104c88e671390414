package html

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/grafana/sobek"
	xhtml "golang.org/x/net/html"
)

// Field is one name and value of a form, as serializeArray returns it.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Val returns the value of the first node as jQuery does: an input's value
// ("on" for a checkbox or radio without one), a select's selected option
// value (an array for a multiple select), a textarea's text, an option's or a
// button's value; undefined for an empty selection or another element.
func (s *Selection) Val() sobek.Value {
	if s.sel.Length() == 0 {
		return sobek.Undefined()
	}
	n := s.sel.Nodes[0]
	switch n.Data {
	case "select":
		vals := selectValues(n)
		if hasAttr(n, "multiple") {
			items := make([]any, len(vals))
			for i, v := range vals {
				items[i] = v
			}
			return s.rt.NewArray(items...)
		}
		if len(vals) == 0 {
			return sobek.Undefined()
		}
		return s.rt.ToValue(vals[0])
	case "textarea":
		return s.rt.ToValue(textOf(n))
	case "option":
		return s.rt.ToValue(optionValue(n))
	case "input":
		return s.rt.ToValue(inputValue(n))
	case "button":
		v, _ := attr(n, "value")
		return s.rt.ToValue(v)
	}
	return sobek.Undefined()
}

func inputValue(n *xhtml.Node) string {
	if v, ok := attr(n, "value"); ok {
		return v
	}
	if t := strings.ToLower(attrOr(n, "type", "")); t == "checkbox" || t == "radio" {
		return "on"
	}
	return ""
}

// optionValue is an option's value attribute, else its text.
func optionValue(n *xhtml.Node) string {
	if v, ok := attr(n, "value"); ok {
		return v
	}
	return textOf(n)
}

// selectValues are the values of a select's selected options; a single select
// without a selected option selects its first one, as browsers do.
func selectValues(n *xhtml.Node) []string {
	opts := descendants(n, func(c *xhtml.Node) bool { return c.Data == "option" })
	var vals []string
	for _, o := range opts {
		if hasAttr(o, "selected") {
			vals = append(vals, optionValue(o))
		}
	}
	if len(vals) == 0 && !hasAttr(n, "multiple") && len(opts) > 0 {
		vals = []string{optionValue(opts[0])}
	}
	if len(vals) > 1 && !hasAttr(n, "multiple") {
		vals = vals[len(vals)-1:] // the last selected wins in a single select
	}
	return vals
}

// Data returns the data-* attribute key (data-test-id is "test-id" or
// "testId") of the first node, converted as jQuery does (true, false, null,
// numbers, JSON objects and arrays); without a key, an object of them all by
// camel-cased name. Undefined when there is no such attribute or node.
func (s *Selection) Data(key sobek.Value) sobek.Value {
	if s.sel.Length() == 0 {
		return sobek.Undefined()
	}
	n := s.sel.Nodes[0]
	if nullish(key) {
		o := s.rt.NewObject()
		for _, a := range n.Attr {
			if name, ok := strings.CutPrefix(a.Key, "data-"); ok {
				_ = o.Set(camel(name), s.dataValue(a.Val))
			}
		}
		return o
	}
	want := camel(key.String())
	for _, a := range n.Attr {
		if name, ok := strings.CutPrefix(a.Key, "data-"); ok && camel(name) == want {
			return s.dataValue(a.Val)
		}
	}
	return sobek.Undefined()
}

// camel turns "test-id" into "testId".
func camel(s string) string {
	parts := strings.Split(s, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// dataValue converts a data attribute as jQuery's data() does.
func (s *Selection) dataValue(v string) sobek.Value {
	switch v {
	case "true":
		return s.rt.ToValue(true)
	case "false":
		return s.rt.ToValue(false)
	case "null":
		return sobek.Null()
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == v {
		return s.rt.ToValue(f)
	}
	if strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		var x any
		if json.Unmarshal([]byte(v), &x) == nil {
			return s.rt.ToValue(x)
		}
	}
	return s.rt.ToValue(v)
}

// Fields returns the successful controls of the selection, as jQuery's
// serializeArray: a form's controls, or the selected controls themselves, with
// a name, not disabled, not a button or file, checkboxes and radios only when
// checked, one entry per selected option.
func Fields(sel *goquery.Selection) []Field {
	var out []Field
	for _, n := range sel.Nodes {
		controls := []*xhtml.Node{n}
		if n.Data == "form" {
			controls = formControls(n)
		}
		for _, c := range controls {
			out = append(out, controlFields(c)...)
		}
	}
	return out
}

// controlFields are the name/value pairs one control submits.
func controlFields(c *xhtml.Node) []Field {
	name, ok := attr(c, "name")
	if !ok || name == "" || hasAttr(c, "disabled") {
		return nil
	}
	switch c.Data {
	case "input":
		switch strings.ToLower(attrOr(c, "type", "text")) {
		case "submit", "button", "image", "reset", "file":
			return nil
		case "checkbox", "radio":
			if !hasAttr(c, "checked") {
				return nil
			}
		}
		return []Field{{name, crlf(inputValue(c))}}
	case "select":
		var out []Field
		for _, v := range selectValues(c) {
			out = append(out, Field{name, crlf(v)})
		}
		return out
	case "textarea":
		return []Field{{name, crlf(textOf(c))}}
	case "keygen":
		return []Field{{name, ""}}
	}
	return nil
}

// crlf normalizes line breaks as jQuery does.
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"), "\n", "\r\n")
}

// formControls are the input, select, textarea and keygen elements of form,
// within it or associated with form="id".
func formControls(form *xhtml.Node) []*xhtml.Node {
	return listed(form, func(n *xhtml.Node) bool {
		switch n.Data {
		case "input", "select", "textarea", "keygen":
			return true
		}
		return false
	})
}

// SerializeArray returns the controls' names and values.
func (s *Selection) SerializeArray() *sobek.Object {
	fields := Fields(s.sel)
	items := make([]any, len(fields))
	for i, f := range fields {
		o := s.rt.NewObject()
		_ = o.Set("name", f.Name)
		_ = o.Set("value", f.Value)
		items[i] = o
	}
	return s.rt.NewArray(items...)
}

// SerializeObject returns the controls' values by name (the last of a name wins).
func (s *Selection) SerializeObject() *sobek.Object {
	o := s.rt.NewObject()
	for _, f := range Fields(s.sel) {
		_ = o.Set(f.Name, f.Value)
	}
	return o
}

// Serialize returns the controls URL-encoded as jQuery's serialize does
// (encodeURIComponent, spaces as +).
func (s *Selection) Serialize() string {
	return Encode(Fields(s.sel))
}

// Encode URL-encodes fields in their order, as jQuery's param does.
func Encode(fields []Field) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(uriComponent(f.Name))
		b.WriteByte('=')
		b.WriteString(uriComponent(f.Value))
	}
	return b.String()
}

// uriComponent is encodeURIComponent with %20 as +.
func uriComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-_.!~*'()", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
