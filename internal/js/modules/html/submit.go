package html

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	xhtml "golang.org/x/net/html"
)

// Submission is the request a browser sends to submit a form.
type Submission struct {
	// Method is the form's method, upper case (GET by default).
	Method string
	// URL is the form's action resolved against the page's URL, with the fields
	// as its query for a GET.
	URL string
	// Fields are the form's fields (the body of a POST, URL-encoded).
	Fields []Field
}

// SubmitOptions choose the form and what is submitted (Response.submitForm).
type SubmitOptions struct {
	// FormSelector locates the form ("form" by default).
	FormSelector string
	// SubmitSelector locates the submit button within the form
	// (`[type="submit"]` by default); its name and value are submitted when it
	// has a name.
	SubmitSelector string
	// SubmitValue, when set, picks the submit button with that value.
	SubmitValue string
	// Fields set or override fields, in order.
	Fields []Field
}

// Submit returns the submission of the form opts select in doc, the page at
// pageURL: its successful controls, the submit button, then opts.Fields over
// them.
func Submit(doc *Selection, pageURL string, opts SubmitOptions) (*Submission, error) {
	if opts.FormSelector == "" {
		opts.FormSelector = "form"
	}
	if opts.SubmitSelector == "" {
		opts.SubmitSelector = `[type="submit"]`
	}
	form := doc.sel.Find(opts.FormSelector)
	if form.Length() == 0 {
		return nil, fmt.Errorf("submitForm: no form matches %q in the response of %s", opts.FormSelector, pageURL)
	}
	form = form.First()
	n := form.Nodes[0]
	method := strings.ToUpper(attrOr(n, "method", "GET"))
	action, err := resolve(baseOf(doc, pageURL), attrOr(n, "action", ""))
	if err != nil {
		return nil, fmt.Errorf("submitForm: form action %q: %w", attrOr(n, "action", ""), err)
	}
	fields := Fields(form)
	if b := submitButton(form, opts); b != nil {
		if name, ok := attr(b, "name"); ok && name != "" {
			fields = append(fields, Field{name, attrOr(b, "value", "")})
		}
	}
	fields = override(fields, opts.Fields)
	if method == "GET" {
		u, err := url.Parse(action)
		if err != nil {
			return nil, fmt.Errorf("submitForm: form action %q: %w", action, err)
		}
		u.RawQuery = Encode(fields)
		return &Submission{Method: method, URL: u.String()}, nil
	}
	return &Submission{Method: method, URL: action, Fields: fields}, nil
}

// submitButton is the form's submit button opts pick.
func submitButton(form *goquery.Selection, opts SubmitOptions) *xhtml.Node {
	for _, b := range form.Find(opts.SubmitSelector).Nodes {
		if opts.SubmitValue == "" || attrOr(b, "value", "") == opts.SubmitValue {
			return b
		}
	}
	return nil
}

// override sets each field of set: the first field of its name takes its
// value (later ones of that name are dropped); a new name is appended.
func override(fields, set []Field) []Field {
	for _, f := range set {
		found := false
		out := fields[:0:0]
		for _, g := range fields {
			switch {
			case g.Name != f.Name:
				out = append(out, g)
			case !found:
				out = append(out, f)
				found = true
			}
		}
		if !found {
			out = append(out, f)
		}
		fields = out
	}
	return fields
}

// Link returns the URL of the first link selector matches in doc ("a[href]" by
// default), resolved against pageURL (Response.clickLink).
func Link(doc *Selection, pageURL, selector string) (string, error) {
	if selector == "" {
		selector = "a[href]"
	}
	link := doc.sel.Find(selector)
	if link.Length() == 0 {
		return "", fmt.Errorf("clickLink: no link matches %q in the response of %s", selector, pageURL)
	}
	href, ok := link.Attr("href")
	if !ok {
		return "", fmt.Errorf("clickLink: the element %q matches has no href", selector)
	}
	u, err := resolve(baseOf(doc, pageURL), href)
	if err != nil {
		return "", fmt.Errorf("clickLink: href %q: %w", href, err)
	}
	return u, nil
}

// baseOf is the URL links of the page resolve against: its <base href> (as a
// browser's), else pageURL.
func baseOf(doc *Selection, pageURL string) string {
	if href, ok := doc.sel.Find("base[href]").First().Attr("href"); ok {
		if u, err := resolve(pageURL, href); err == nil {
			return u
		}
	}
	return pageURL
}

// resolve resolves ref against base; an empty ref is base.
func resolve(base, ref string) (string, error) {
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", err
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u := b.ResolveReference(r)
	if strings.TrimSpace(ref) == "" {
		u.Fragment = ""
	}
	return u.String(), nil
}
