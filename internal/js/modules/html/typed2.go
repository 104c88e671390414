package html

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/grafana/sobek"
	xhtml "golang.org/x/net/html"
)

func tagIs(tags ...string) func(*xhtml.Node) bool {
	return func(n *xhtml.Node) bool { return slices.Contains(tags, n.Data) }
}

// canvasEl is CanvasElement.
type canvasEl struct{ *elem }

// Width returns the width attribute (300 by default).
func (c *canvasEl) Width() int { return intAttr(c.node, "width", 300) }

// Height returns the height attribute (150 by default).
func (c *canvasEl) Height() int { return intAttr(c.node, "height", 150) }

// dataListEl is DataListElement.
type dataListEl struct{ *elem }

// Options returns the option descendants.
func (d *dataListEl) Options() *sobek.Object { return d.array(descendants(d.node, tagIs("option"))) }

// fieldSetEl is FieldSetElement.
type fieldSetEl struct{ *elem }

// Elements returns the listed controls within.
func (f *fieldSetEl) Elements() *sobek.Object { return f.array(descendants(f.node, isListed)) }

// Form returns the fieldset's form.
func (f *fieldSetEl) Form() sobek.Value { return f.form(f.node) }

// Type returns "fieldset".
func (f *fieldSetEl) Type() string { return "fieldset" }

// Validity returns undefined (no constraint validation).
func (f *fieldSetEl) Validity() sobek.Value { return sobek.Undefined() }

// formEl is FormElement.
type formEl struct{ *elem }

// Elements returns the form's listed controls.
func (f *formEl) Elements() *sobek.Object { return f.array(listed(f.node, isListed)) }

// Length returns the number of the form's listed controls.
func (f *formEl) Length() int { return len(listed(f.node, isListed)) }

// Method returns the method attribute in lower case ("get" by default).
func (f *formEl) Method() string { return strings.ToLower(attrOr(f.node, "method", "get")) }

// keygenEl is KeygenElement.
type keygenEl struct{ *elem }

// Form returns the control's form.
func (k *keygenEl) Form() sobek.Value { return k.form(k.node) }

// Labels returns the control's labels.
func (k *keygenEl) Labels() *sobek.Object { return k.labels() }

// labelEl is LabelElement.
type labelEl struct{ *elem }

// Control returns the labelled control.
func (l *labelEl) Control() sobek.Value { return l.wrap(labelControl(l.node)) }

// Form returns the labelled control's form.
func (l *labelEl) Form() sobek.Value {
	if c := labelControl(l.node); c != nil {
		return l.form(c)
	}
	return sobek.Undefined()
}

// legendEl is LegendElement.
type legendEl struct{ *elem }

// Form returns the form of the parent fieldset.
func (l *legendEl) Form() sobek.Value {
	if p := l.node.Parent; p != nil && p.Data == "fieldset" {
		return l.form(p)
	}
	return sobek.Undefined()
}

// linkEl is LinkElement.
type linkEl struct{ *elem }

// RelList returns the rel attribute's words.
func (l *linkEl) RelList() *sobek.Object { return l.relList() }

// mapEl is MapElement.
type mapEl struct{ *elem }

// Areas returns the area descendants.
func (m *mapEl) Areas() *sobek.Object { return m.array(descendants(m.node, tagIs("area"))) }

// Images returns the img and object elements using this map (usemap="#name").
func (m *mapEl) Images() *sobek.Object {
	name := attrOr(m.node, "name", attrOr(m.node, "id", ""))
	return m.array(descendants(root(m.node), func(c *xhtml.Node) bool {
		return (c.Data == "img" || c.Data == "object") && name != "" && attrOr(c, "usemap", "") == "#"+name
	}))
}

// meterEl is MeterElement.
type meterEl struct{ *elem }

// Labels returns the meter's labels.
func (m *meterEl) Labels() *sobek.Object { return m.labels() }

// objectEl is ObjectElement.
type objectEl struct{ *elem }

// Form returns the object's form.
func (o *objectEl) Form() sobek.Value { return o.form(o.node) }

// optionEl is OptionElement.
type optionEl struct{ *elem }

// owner is the option's select.
func (o *optionEl) owner() *xhtml.Node { return ancestor(o.node, "select") }

// Disabled reports whether the option or its optgroup is disabled.
func (o *optionEl) Disabled() bool {
	if hasAttr(o.node, "disabled") {
		return true
	}
	p := o.node.Parent
	return p != nil && p.Data == "optgroup" && hasAttr(p, "disabled")
}

// Form returns the form of the option's select.
func (o *optionEl) Form() sobek.Value {
	if s := o.owner(); s != nil {
		return o.form(s)
	}
	return sobek.Undefined()
}

// Index returns the option's index in its select (0 outside one).
func (o *optionEl) Index() int {
	if s := o.owner(); s != nil {
		for i, c := range descendants(s, tagIs("option")) {
			if c == o.node {
				return i
			}
		}
	}
	return 0
}

// Label returns the label attribute, else the text.
func (o *optionEl) Label() string {
	if v, ok := attr(o.node, "label"); ok {
		return v
	}
	return o.Text()
}

// Text returns the text with white space collapsed.
func (o *optionEl) Text() string { return strings.Join(strings.Fields(textOf(o.node)), " ") }

// Value returns the value attribute, else the text.
func (o *optionEl) Value() string { return optionValue(o.node) }

// outputEl is OutputElement.
type outputEl struct{ *elem }

// DefaultValue returns the element's text.
func (o *outputEl) DefaultValue() string { return textOf(o.node) }

// Value returns the element's text.
func (o *outputEl) Value() string { return textOf(o.node) }

// Form returns the output's form.
func (o *outputEl) Form() sobek.Value { return o.form(o.node) }

// Labels returns the output's labels.
func (o *outputEl) Labels() *sobek.Object { return o.labels() }

// progressEl is ProgressElement.
type progressEl struct{ *elem }

// Labels returns the progress's labels.
func (p *progressEl) Labels() *sobek.Object { return p.labels() }

// Max returns the max attribute (1 by default).
func (p *progressEl) Max() float64 {
	m, _ := floatAttr(p.node, "max", 1)
	if m <= 0 {
		return 1
	}
	return m
}

// Value returns the value attribute, within [0, max] (0 by default).
func (p *progressEl) Value() float64 {
	v, _ := floatAttr(p.node, "value", 0)
	return min(max(v, 0), p.Max())
}

// Position returns value/max, -1 for an indeterminate progress (no value).
func (p *progressEl) Position() float64 {
	if _, ok := floatAttr(p.node, "value", 0); !ok {
		return -1
	}
	return p.Value() / p.Max()
}

// styleEl is StyleElement.
type styleEl struct{ *elem }

// Type returns the type attribute.
func (s *styleEl) Type() string { return attrOr(s.node, "type", "") }

// Text returns the style sheet's text.
func (s *styleEl) Text() string { return textOf(s.node) }

// colEl is TableColElement.
type colEl struct{ *elem }

// Span returns the span attribute (1 by default).
func (c *colEl) Span() int { return max(intAttr(c.node, "span", 1), 1) }

// textAreaEl is TextAreaElement.
type textAreaEl struct{ *elem }

// Form returns the textarea's form.
func (t *textAreaEl) Form() sobek.Value { return t.form(t.node) }

// Labels returns the textarea's labels.
func (t *textAreaEl) Labels() *sobek.Object { return t.labels() }

// Length returns the number of characters of its value.
func (t *textAreaEl) Length() int { return utf8.RuneCountInString(textOf(t.node)) }
