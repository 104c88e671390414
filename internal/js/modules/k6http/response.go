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

	"github.com/tidemark/tidemark/internal/request"
)

// jsResponse is the Go side of a Response object.
type jsResponse struct {
	res    *request.Response
	rtype  request.ResponseType
	parsed sobek.Value // json()'s, once parsed
}

// responseShape is what every Response object of a VU shares: its prototype,
// with json and the calls Tidemark does not support, and the getters of the
// fields built on first use (headers, cookies, timings, request), which then
// become data properties of the object.
type responseShape struct {
	proto   *sobek.Object
	getters []lazyField
}

type lazyField struct {
	name           string
	getter, setter sobek.Value
}

func (m *instance) shape() *responseShape {
	if m.respShape != nil {
		return m.respShape
	}
	rt := m.vu.Runtime()
	sh := &responseShape{proto: rt.NewObject()}
	_ = sh.proto.Set("json", func(call sobek.FunctionCall) sobek.Value {
		r := m.responseOf(call.This)
		if r.parsed == nil {
			r.parsed = m.parseJSON(r.res.Body)
		}
		sel := call.Argument(0)
		if isNullish(sel) {
			return r.parsed
		}
		v, ok := selectPath(rt, r.parsed, sel.String())
		if !ok {
			return sobek.Undefined()
		}
		return v
	})
	for _, name := range []string{"html", "submitForm", "clickLink"} {
		_ = sh.proto.Set(name, func(sobek.FunctionCall) sobek.Value {
			panic(rt.NewTypeError("Response." + name + " is not supported by Tidemark"))
		})
	}
	for _, f := range []struct {
		name  string
		build func(*request.Response) sobek.Value
	}{
		{"headers", func(r *request.Response) sobek.Value { return m.headers(r.Header, false) }},
		{"cookies", func(r *request.Response) sobek.Value { return m.responseCookies(r.Cookies) }},
		{"timings", func(r *request.Response) sobek.Value { return m.timings(r.Timings) }},
		{"request", func(r *request.Response) sobek.Value { return m.sentRequest(&r.Request) }},
	} {
		// Once built or assigned, the field is a data property like the others.
		become := func(this, v sobek.Value) {
			if o, ok := this.(*sobek.Object); ok {
				_ = o.DefineDataProperty(f.name, v, sobek.FLAG_TRUE, sobek.FLAG_TRUE, sobek.FLAG_TRUE)
			}
		}
		getter := rt.ToValue(func(call sobek.FunctionCall) sobek.Value {
			v := f.build(m.responseOf(call.This).res)
			become(call.This, v)
			return v
		})
		setter := rt.ToValue(func(call sobek.FunctionCall) sobek.Value {
			become(call.This, call.Argument(0))
			return sobek.Undefined()
		})
		sh.getters = append(sh.getters, lazyField{name: f.name, getter: getter, setter: setter})
	}
	m.respShape = sh
	return sh
}

// responseOf returns the Go side of a Response object; it throws for another
// object.
func (m *instance) responseOf(v sobek.Value) *jsResponse {
	r, ok := m.hiddenOf(v).(*jsResponse)
	if !ok {
		panic(m.vu.Runtime().NewTypeError("not a Response"))
	}
	return r
}

// response is k6's Response object of res.
func (m *instance) response(res *request.Response, rtype request.ResponseType) sobek.Value {
	rt := m.vu.Runtime()
	sh := m.shape()
	o := m.wrap(&jsResponse{res: res, rtype: rtype})
	_ = o.SetPrototype(sh.proto)
	set := func(k string, v any) { _ = o.Set(k, v) } // a new object takes any property
	set("status", res.Status)
	statusText := ""
	if res.Status > 0 {
		statusText = strconv.Itoa(res.Status) + " " + http.StatusText(res.Status)
	}
	set("status_text", statusText)
	set("proto", res.Proto)
	set("url", res.URL)
	set("error", res.Error)
	set("error_code", res.ErrorCode)
	set("remote_ip", res.RemoteIP)
	set("remote_port", res.RemotePort)
	set("tls_version", res.TLSVersion)
	set("tls_cipher_suite", res.TLSCipherSuite)
	switch {
	case res.Body == nil:
		set("body", sobek.Null())
	case rtype == request.ResponseBinary:
		set("body", rt.NewArrayBuffer(res.Body))
	default:
		set("body", string(res.Body))
	}
	for _, f := range sh.getters {
		_ = o.DefineAccessorProperty(f.name, f.getter, f.setter, sobek.FLAG_TRUE, sobek.FLAG_TRUE)
	}
	return o
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
