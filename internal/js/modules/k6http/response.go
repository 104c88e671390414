package k6http

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules/html"
	"github.com/tidemark/tidemark/internal/request"
)

// respObj is a Response object: a dynamic object whose fields are built from
// the request.Response when the script first reads them, so a response costs a
// few allocations whatever the script reads. Fields the script assigns (or adds)
// are kept as they are.
type respObj struct {
	m     *instance
	res   *request.Response
	rtype request.ResponseType
	built [numFields]sobek.Value // by field; nil until read
	extra map[string]sobek.Value // assigned by the script
	// parsed is json()'s value, once parsed.
	parsed sobek.Value
	// doc is the body parsed as HTML (html, submitForm, clickLink), once parsed.
	doc *html.Selection
}

var _ sobek.DynamicObject = (*respObj)(nil)

// A Response's fields, in the order Object.keys and JSON.stringify show them.
const (
	fStatus = iota
	fStatusText
	fProto
	fURL
	fBody
	fHeaders
	fCookies
	fTimings
	fError
	fErrorCode
	fRemoteIP
	fRemotePort
	fTLSVersion
	fTLSCipherSuite
	fRequest
	numFields
)

func fieldNames() []string {
	return []string{
		"status", "status_text", "proto", "url", "body", "headers", "cookies", "timings",
		"error", "error_code", "remote_ip", "remote_port", "tls_version", "tls_cipher_suite", "request",
	}
}

// fieldIndex returns the field named key, or -1.
func fieldIndex(key string) int {
	switch key {
	case "status":
		return fStatus
	case "status_text":
		return fStatusText
	case "proto":
		return fProto
	case "url":
		return fURL
	case "body":
		return fBody
	case "headers":
		return fHeaders
	case "cookies":
		return fCookies
	case "timings":
		return fTimings
	case "error":
		return fError
	case "error_code":
		return fErrorCode
	case "remote_ip":
		return fRemoteIP
	case "remote_port":
		return fRemotePort
	case "tls_version":
		return fTLSVersion
	case "tls_cipher_suite":
		return fTLSCipherSuite
	case "request":
		return fRequest
	}
	return -1
}

// response is k6's Response object of res.
func (m *instance) response(res *request.Response, rtype request.ResponseType) sobek.Value {
	return m.vu.Runtime().NewDynamicObject(&respObj{m: m, res: res, rtype: rtype})
}

// field builds field i.
func (r *respObj) field(i int) sobek.Value {
	m, res := r.m, r.res
	rt := m.vu.Runtime()
	switch i {
	case fStatus:
		return rt.ToValue(res.Status)
	case fStatusText:
		if res.Status == 0 {
			return rt.ToValue("")
		}
		return rt.ToValue(strconv.Itoa(res.Status) + " " + http.StatusText(res.Status))
	case fProto:
		return rt.ToValue(res.Proto)
	case fURL:
		return rt.ToValue(res.URL)
	case fBody:
		switch {
		case res.Body == nil:
			return sobek.Null()
		case r.rtype == request.ResponseBinary:
			return rt.ToValue(rt.NewArrayBuffer(res.Body))
		}
		return rt.ToValue(string(res.Body))
	case fHeaders:
		return m.headers(res.Header, false)
	case fCookies:
		return m.responseCookies(res.Cookies)
	case fTimings:
		return m.timings(res.Timings)
	case fError:
		return rt.ToValue(res.Error)
	case fErrorCode:
		return rt.ToValue(res.ErrorCode)
	case fRemoteIP:
		return rt.ToValue(res.RemoteIP)
	case fRemotePort:
		return rt.ToValue(res.RemotePort)
	case fTLSVersion:
		return rt.ToValue(res.TLSVersion)
	case fTLSCipherSuite:
		return rt.ToValue(res.TLSCipherSuite)
	}
	return m.sentRequest(&res.Request)
}

// Get returns a field, building it on first read, or a method.
func (r *respObj) Get(key string) sobek.Value {
	if v, ok := r.extra[key]; ok {
		return v
	}
	if i := fieldIndex(key); i >= 0 {
		if r.built[i] == nil {
			r.built[i] = r.field(i)
		}
		return r.built[i]
	}
	return r.m.responseMethods().get(key)
}

// Set assigns a field or adds one.
func (r *respObj) Set(key string, val sobek.Value) bool {
	if r.extra == nil {
		r.extra = map[string]sobek.Value{}
	}
	r.extra[key] = val
	return true
}

// Has reports whether key is a field, a method or was added.
func (r *respObj) Has(key string) bool {
	if _, ok := r.extra[key]; ok {
		return true
	}
	return fieldIndex(key) >= 0 || r.m.responseMethods().get(key) != nil
}

// Delete removes an added field; the Response's own stay.
func (r *respObj) Delete(key string) bool {
	delete(r.extra, key)
	return fieldIndex(key) < 0
}

// Keys returns the fields and the added ones; methods are not listed.
func (r *respObj) Keys() []string {
	keys := fieldNames()
	for k := range r.extra {
		if fieldIndex(k) < 0 {
			keys = append(keys, k)
		}
	}
	return keys
}

// respMethods are the methods every Response of a VU shares.
type respMethods struct {
	json, html, submitForm, clickLink sobek.Value
}

func (rm *respMethods) get(key string) sobek.Value {
	switch key {
	case "json":
		return rm.json
	case "html":
		return rm.html
	case "submitForm":
		return rm.submitForm
	case "clickLink":
		return rm.clickLink
	}
	return nil
}

func (m *instance) responseMethods() *respMethods {
	if m.methods != nil {
		return m.methods
	}
	rt := m.vu.Runtime()
	m.methods = &respMethods{
		json: rt.ToValue(func(call sobek.FunctionCall) sobek.Value {
			r, ok := call.This.Export().(*respObj)
			if !ok {
				panic(rt.NewTypeError("Response.json called on another object"))
			}
			if r.parsed == nil {
				r.parsed = m.parseJSON(r.res.Body)
			}
			sel := call.Argument(0)
			if isNullish(sel) {
				return r.parsed
			}
			v, found := selectPath(rt, r.parsed, sel.String())
			if !found {
				return sobek.Undefined()
			}
			return v
		}),
		html:       rt.ToValue(m.html),
		submitForm: rt.ToValue(m.submitForm),
		clickLink:  rt.ToValue(m.clickLink),
	}
	return m.methods
}

// document is the Response this (of what) with its body parsed as HTML.
func (m *instance) document(this sobek.Value, what string) (*respObj, *html.Selection) {
	rt := m.vu.Runtime()
	r, ok := this.Export().(*respObj)
	if !ok {
		panic(rt.NewTypeError("Response." + what + " called on another object"))
	}
	if r.doc == nil {
		r.doc = html.Document(rt, string(r.res.Body), r.res.URL)
	}
	return r, r.doc
}

// html is Response.html([selector]): the body as a k6/html Selection.
func (m *instance) html(call sobek.FunctionCall) sobek.Value {
	_, doc := m.document(call.This, "html")
	if sel := call.Argument(0); !isNullish(sel) {
		return m.vu.Runtime().ToValue(doc.Find(sel.String()))
	}
	return m.vu.Runtime().ToValue(doc)
}

// submitForm is Response.submitForm({formSelector, fields, submitSelector,
// submitSelectorValue, params}): it submits the page's form as a browser would.
func (m *instance) submitForm(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	r, doc := m.document(call.This, "submitForm")
	args := optionsOf(rt, call.Argument(0))
	opts := html.SubmitOptions{
		FormSelector: stringOf(args.Get("formSelector")), SubmitSelector: stringOf(args.Get("submitSelector")),
		SubmitValue: stringOf(args.Get("submitSelectorValue")),
	}
	if f, ok := args.Get("fields").(*sobek.Object); ok {
		for _, k := range f.Keys() {
			opts.Fields = append(opts.Fields, html.Field{Name: k, Value: f.Get(k).String()})
		}
	}
	sub, err := html.Submit(doc, r.res.URL, opts)
	if err != nil {
		m.throw(err)
	}
	body := sobek.Undefined()
	if sub.Method != http.MethodGet {
		form := rt.NewObject()
		byName := map[string][]any{}
		for _, f := range sub.Fields {
			byName[f.Name] = append(byName[f.Name], f.Value)
		}
		for name, vals := range byName {
			_ = form.Set(name, rt.NewArray(vals...))
		}
		body = form
	}
	return m.request("submitForm", sub.Method, rt.ToValue(sub.URL), body, orUndefined(args.Get("params")))
}

// clickLink is Response.clickLink({selector, params}): a GET of the page's link.
func (m *instance) clickLink(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	r, doc := m.document(call.This, "clickLink")
	args := optionsOf(rt, call.Argument(0))
	u, err := html.Link(doc, r.res.URL, stringOf(args.Get("selector")))
	if err != nil {
		m.throw(err)
	}
	return m.request("clickLink", http.MethodGet, rt.ToValue(u), sobek.Undefined(), orUndefined(args.Get("params")))
}

// optionsOf is the options object v, or an empty one.
func optionsOf(rt *sobek.Runtime, v sobek.Value) *sobek.Object {
	if o, ok := v.(*sobek.Object); ok {
		return o
	}
	return rt.NewObject()
}

// stringOf is v as a string, "" when missing.
func stringOf(v sobek.Value) string {
	if isNullish(v) {
		return ""
	}
	return v.String()
}

func orUndefined(v sobek.Value) sobek.Value {
	if v == nil {
		return sobek.Undefined()
	}
	return v
}

// parseJSON is JSON.parse of the body; it throws as JSON.parse does.
func (m *instance) parseJSON(body []byte) sobek.Value {
	rt := m.vu.Runtime()
	if body == nil {
		m.throw(fmt.Errorf("response.json: the body is null (responseType none, or no response)"))
	}
	parse, _ := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
	v, err := parse(sobek.Undefined(), rt.ToValue(string(body)))
	if err != nil {
		panic(err)
	}
	return v
}

// headers is a header as k6 shows it: canonical names, values joined with ", "
// for a response (scripts compare them with strings), arrays for a request.
func (m *instance) headers(h http.Header, arrays bool) *sobek.Object {
	rt := m.vu.Runtime()
	o := rt.NewObject()
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if arrays {
			items := make([]any, len(h[k]))
			for i, v := range h[k] {
				items[i] = v
			}
			_ = o.Set(k, rt.NewArray(items...))
			continue
		}
		_ = o.Set(k, strings.Join(h[k], ", "))
	}
	return o
}

// responseCookies are {name: [cookie, …]}. The docs name the fields both
// http_only and httpOnly, max_age and maxAge: both are set.
func (m *instance) responseCookies(cs []*http.Cookie) *sobek.Object {
	rt := m.vu.Runtime()
	o := rt.NewObject()
	byName := map[string][]any{}
	var order []string
	for _, c := range cs {
		co := rt.NewObject()
		var expires int64
		if !c.Expires.IsZero() {
			expires = c.Expires.UnixMilli()
		}
		for _, kv := range []struct {
			k string
			v any
		}{
			{"name", c.Name}, {"value", c.Value}, {"domain", c.Domain}, {"path", c.Path},
			{"http_only", c.HttpOnly}, {"httpOnly", c.HttpOnly}, {"secure", c.Secure},
			{"max_age", c.MaxAge}, {"maxAge", c.MaxAge}, {"expires", expires},
		} {
			_ = co.Set(kv.k, kv.v)
		}
		if _, ok := byName[c.Name]; !ok {
			order = append(order, c.Name)
		}
		byName[c.Name] = append(byName[c.Name], co)
	}
	for _, n := range order {
		_ = o.Set(n, rt.NewArray(byName[n]...))
	}
	return o
}

// timings are k6's timings in milliseconds.
func (m *instance) timings(t request.Timings) *sobek.Object {
	o := m.vu.Runtime().NewObject()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, kv := range []struct {
		k string
		d time.Duration
	}{
		{"blocked", t.Blocked}, {"connecting", t.Connecting}, {"tls_handshaking", t.TLSHandshaking},
		{"sending", t.Sending}, {"waiting", t.Waiting}, {"receiving", t.Receiving}, {"duration", t.Duration()},
	} {
		_ = o.Set(kv.k, ms(kv.d))
	}
	return o
}

// sentRequest is Response.request.
func (m *instance) sentRequest(r *request.SentRequest) *sobek.Object {
	rt := m.vu.Runtime()
	o := rt.NewObject()
	_ = o.Set("method", r.Method)
	_ = o.Set("url", r.URL)
	_ = o.Set("headers", m.headers(r.Header, true))
	_ = o.Set("body", string(r.Body))
	cookies := rt.NewObject()
	byName := map[string][]any{}
	var order []string
	for _, c := range r.Cookies {
		co := rt.NewObject()
		_ = co.Set("name", c.Name)
		_ = co.Set("value", c.Value)
		_ = co.Set("replace", c.Replace)
		if _, ok := byName[c.Name]; !ok {
			order = append(order, c.Name)
		}
		byName[c.Name] = append(byName[c.Name], co)
	}
	for _, n := range order {
		_ = cookies.Set(n, rt.NewArray(byName[n]...))
	}
	_ = o.Set("cookies", cookies)
	return o
}
