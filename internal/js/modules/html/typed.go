package html

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/grafana/sobek"
	xhtml "golang.org/x/net/html"
)

// classParents maps each class @types/k6 declares in k6/html (but Selection and
// Attribute) to the class it extends ("" for Element).
func classParents() map[string]string {
	return map[string]string{
		"Element": "", "HrefElement": "Element", "AnchorElement": "HrefElement", "AreaElement": "HrefElement",
		"MediaElement": "Element", "AudioElement": "MediaElement", "VideoElement": "MediaElement",
		"FormFieldElement": "Element", "ButtonElement": "FormFieldElement", "InputElement": "FormFieldElement",
		"ModElement": "Element", "DelElement": "ModElement", "InsElement": "ModElement",
		"TableSectionElement": "Element", "TableBodyElement": "TableSectionElement",
		"TableFootElement": "TableSectionElement", "TableHeadElement": "TableSectionElement",
		"TableCellElement": "Element", "TableDataCellElement": "TableCellElement", "TableHeaderCellElement": "TableCellElement",
		"BaseElement": "Element", "CanvasElement": "Element", "DataElement": "Element", "DataListElement": "Element",
		"EmbedElement": "Element", "FieldSetElement": "Element", "FormElement": "Element", "IFrameElement": "Element",
		"ImageElement": "Element", "KeygenElement": "Element", "LabelElement": "Element", "LegendElement": "Element",
		"LiElement": "Element", "LinkElement": "Element", "MapElement": "Element", "MetaElement": "Element",
		"MeterElement": "Element", "ObjectElement": "Element", "OListElement": "Element", "OptGroupElement": "Element",
		"OptionElement": "Element", "OutputElement": "Element", "ParamElement": "Element", "PreElement": "Element",
		"ProgressElement": "Element", "QuoteElement": "Element", "ScriptElement": "Element", "SelectElement": "Element",
		"SourceElement": "Element", "StyleElement": "Element", "TableColElement": "Element", "TableElement": "Element",
		"TableRowElement": "Element", "TextAreaElement": "Element", "TimeElement": "Element", "TitleElement": "Element",
		"TrackElement": "Element", "UListElement": "Element",
	}
}

// tagClass returns the class of an HTML tag ("" for Element).
func tagClass(tag string) string {
	switch tag {
	case "a":
		return "AnchorElement"
	case "blockquote", "q":
		return "QuoteElement"
	case "td":
		return "TableDataCellElement"
	case "th":
		return "TableHeaderCellElement"
	case "col", "colgroup":
		return "TableColElement"
	case "tbody":
		return "TableBodyElement"
	case "thead":
		return "TableHeadElement"
	case "tfoot":
		return "TableFootElement"
	case "tr":
		return "TableRowElement"
	case "img":
		return "ImageElement"
	case "ol":
		return "OListElement"
	case "ul":
		return "UListElement"
	case "optgroup":
		return "OptGroupElement"
	case "datalist":
		return "DataListElement"
	case "fieldset":
		return "FieldSetElement"
	case "iframe":
		return "IFrameElement"
	case "textarea":
		return "TextAreaElement"
	case "area", "audio", "base", "button", "canvas", "data", "del", "embed", "form", "input", "ins", "keygen",
		"label", "legend", "li", "link", "map", "meta", "meter", "object", "option", "output", "param", "pre",
		"progress", "script", "select", "source", "style", "table", "time", "title", "track", "video":
		return strings.ToUpper(tag[:1]) + tag[1:] + "Element"
	}
	return ""
}

// newElement returns the Element of n, typed by its tag.
func newElement(rt *sobek.Runtime, n *xhtml.Node, docURL string) classed {
	e := &elem{rt: rt, node: n, url: docURL, cls: "Element"}
	if n.Type != xhtml.ElementNode || n.Namespace != "" {
		return e
	}
	if c := tagClass(n.Data); c != "" {
		e.cls = c
	}
	switch n.Data {
	case "a", "area":
		return &hrefEl{e}
	case "audio", "video":
		return &mediaEl{e}
	case "button":
		return &buttonEl{fieldEl{e}}
	case "input":
		return &fieldEl{e}
	case "tbody", "thead", "tfoot":
		return &sectionEl{e}
	case "td", "th":
		return &cellEl{e}
	case "script", "title":
		return &textEl{e}
	}
	return typedElement(e)
}

// typedElement returns the other typed elements, e itself for a plain one.
func typedElement(e *elem) classed {
	switch e.node.Data {
	case "canvas":
		return &canvasEl{e}
	case "datalist":
		return &dataListEl{e}
	case "fieldset":
		return &fieldSetEl{e}
	case "form":
		return &formEl{e}
	case "keygen":
		return &keygenEl{e}
	case "label":
		return &labelEl{e}
	case "legend":
		return &legendEl{e}
	case "link":
		return &linkEl{e}
	case "map":
		return &mapEl{e}
	case "meter":
		return &meterEl{e}
	case "object":
		return &objectEl{e}
	case "option":
		return &optionEl{e}
	case "output":
		return &outputEl{e}
	case "progress":
		return &progressEl{e}
	case "select":
		return &selectEl{e}
	case "style":
		return &styleEl{e}
	case "col":
		return &colEl{e}
	case "colgroup":
		return &colEl{e}
	case "table":
		return &tableEl{e}
	case "tr":
		return &rowEl{e}
	case "textarea":
		return &textAreaEl{e}
	}
	return e
}

// form returns the form n belongs to, undefined without one.
func (e *elem) form(n *xhtml.Node) sobek.Value { return e.wrap(formOf(n)) }

// labels returns the labels of e's node.
func (e *elem) labels() *sobek.Object { return e.array(labelsOf(e.node)) }

// relList splits the rel attribute.
func (e *elem) relList() *sobek.Object {
	return strings2array(e.rt, strings.Fields(attrOr(e.node, "rel", "")))
}

// hrefEl is AnchorElement and AreaElement (HrefElement).
type hrefEl struct{ *elem }

// href is the link's URL, resolved against the document's.
func (h *hrefEl) href() *url.URL {
	u, err := url.Parse(strings.TrimSpace(attrOr(h.node, "href", "")))
	if err != nil {
		return &url.URL{}
	}
	if base, err := url.Parse(h.url); err == nil && h.url != "" {
		u = base.ResolveReference(u)
	}
	return u
}

// Hash returns "#fragment" ("" without one).
func (h *hrefEl) Hash() string {
	if f := h.href().EscapedFragment(); f != "" {
		return "#" + f
	}
	return ""
}

// Host returns host[:port], without the scheme's default port.
func (h *hrefEl) Host() string {
	u := h.href()
	if p := u.Port(); p != "" && p != defaultPort(u.Scheme) {
		return u.Hostname() + ":" + p
	}
	return u.Hostname()
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	case "ftp":
		return "21"
	}
	return ""
}

// Hostname returns the host name.
func (h *hrefEl) Hostname() string { return h.href().Hostname() }

// Origin returns scheme://host[:port].
func (h *hrefEl) Origin() string {
	u := h.href()
	if u.Scheme == "" {
		return ""
	}
	return u.Scheme + "://" + h.Host()
}

// Password returns the URL's password.
func (h *hrefEl) Password() string {
	p, _ := h.href().User.Password()
	return p
}

// Username returns the URL's user name.
func (h *hrefEl) Username() string { return h.href().User.Username() }

// Pathname returns the path.
func (h *hrefEl) Pathname() string { return h.href().EscapedPath() }

// Port returns the explicit port, "" for the scheme's default.
func (h *hrefEl) Port() string {
	u := h.href()
	if p := u.Port(); p != defaultPort(u.Scheme) {
		return p
	}
	return ""
}

// Protocol returns the scheme with its colon ("https:").
func (h *hrefEl) Protocol() string {
	if s := h.href().Scheme; s != "" {
		return s + ":"
	}
	return ""
}

// RelList returns the rel attribute's words.
func (h *hrefEl) RelList() *sobek.Object { return h.relList() }

// Search returns "?query" ("" without one).
func (h *hrefEl) Search() string {
	if q := h.href().RawQuery; q != "" {
		return "?" + q
	}
	return ""
}

// Text returns the link's text.
func (h *hrefEl) Text() string { return textOf(h.node) }

// mediaEl is AudioElement and VideoElement.
type mediaEl struct{ *elem }

// TextTracks returns the track children.
func (m *mediaEl) TextTracks() *sobek.Object {
	return m.array(childElements(m.node, func(c *xhtml.Node) bool { return c.Data == "track" }))
}

// fieldEl is InputElement (FormFieldElement).
type fieldEl struct{ *elem }

// Form returns the control's form.
func (f *fieldEl) Form() sobek.Value { return f.form(f.node) }

// formAttr is the control's own attribute over its form's.
func (f *fieldEl) formAttr(own, ofForm, def string) string {
	if v, ok := attr(f.node, own); ok {
		return v
	}
	if form := formOf(f.node); form != nil {
		if v, ok := attr(form, ofForm); ok {
			return v
		}
	}
	return def
}

// FormAction returns formaction, else the form's action, resolved against the
// document's URL.
func (f *fieldEl) FormAction() string {
	a := f.formAttr("formaction", "action", "")
	if base, err := url.Parse(f.url); err == nil && f.url != "" {
		if u, err := url.Parse(a); err == nil {
			return base.ResolveReference(u).String()
		}
	}
	return a
}

// FormEnctype returns formenctype, else the form's enctype.
func (f *fieldEl) FormEnctype() string {
	return f.formAttr("formenctype", "enctype", "application/x-www-form-urlencoded")
}

// FormMethod returns formmethod, else the form's method, in lower case.
func (f *fieldEl) FormMethod() string {
	return strings.ToLower(f.formAttr("formmethod", "method", "get"))
}

// FormNoValidate reports the formnovalidate attribute.
func (f *fieldEl) FormNoValidate() bool { return hasAttr(f.node, "formnovalidate") }

// FormTarget returns formtarget, else the form's target.
func (f *fieldEl) FormTarget() string { return f.formAttr("formtarget", "target", "") }

// Labels returns the control's labels.
func (f *fieldEl) Labels() *sobek.Object { return f.labels() }

// Name returns the name attribute.
func (f *fieldEl) Name() string { return attrOr(f.node, "name", "") }

// buttonEl is ButtonElement.
type buttonEl struct{ fieldEl }

// Value returns the value attribute.
func (b *buttonEl) Value() string { return attrOr(b.node, "value", "") }

// textEl is ScriptElement and TitleElement.
type textEl struct{ *elem }

// Text returns the element's text.
func (t *textEl) Text() string { return textOf(t.node) }

// intAttr is an integer attribute, def when missing or invalid.
func intAttr(n *xhtml.Node, key string, def int) int {
	if v, err := strconv.Atoi(strings.TrimSpace(attrOr(n, key, ""))); err == nil {
		return v
	}
	return def
}

// floatAttr is a number attribute, def when missing or invalid.
func floatAttr(n *xhtml.Node, key string, def float64) (float64, bool) {
	if v, err := strconv.ParseFloat(strings.TrimSpace(attrOr(n, key, "")), 64); err == nil {
		return v, true
	}
	return def, false
}
