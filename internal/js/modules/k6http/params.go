package k6http

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
)

// taggedURL is what http.url`…` returns: the URL and its name tag, the template
// with each ${…} as ${}.
type taggedURL struct{ url, name string }

// fileData is what http.file returns.
type fileData struct {
	data                  []byte
	filename, contentType string
}

// statuses is what http.expectedStatuses returns.
type statuses struct{ ranges []scenario.StatusRange }

// hiddenOf returns the Go value behind one of the module's objects, or nil.
func (m *instance) hiddenOf(v sobek.Value) any {
	o, ok := v.(*sobek.Object)
	if !ok {
		return nil
	}
	h := o.GetSymbol(m.hidden)
	if h == nil || sobek.IsUndefined(h) {
		return nil
	}
	return h.Export()
}

// wrap returns a new object hiding x.
func (m *instance) wrap(x any) *sobek.Object {
	o := m.vu.Runtime().NewObject()
	_ = o.SetSymbol(m.hidden, x) // a new object takes any symbol property
	return o
}

func isNullish(v sobek.Value) bool { return v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) }

// build turns a request function's arguments into a request.
func (m *instance) build(st *modules.State, method string, urlArg, body, params sobek.Value) (*request.Request, request.ResponseType, error) {
	req := &request.Request{
		Method:    method,
		VUTags:    st.Tags(),
		Redirects: m.redirects,
		Expected:  m.expected,
		Unjudged:  m.unjudged,
		Jar:       m.jar,
		Metadata:  st.Metadata(),
		// discardResponseBodies makes none the default.
		ResponseType: m.responseType,
	}
	if u, ok := m.hiddenOf(urlArg).(*taggedURL); ok {
		req.URL = u.url
		req.Tags = append(req.Tags, metrics.Tag{Key: "name", Value: u.name})
	} else {
		if isNullish(urlArg) {
			return nil, 0, errors.New("expected a URL")
		}
		req.URL = urlArg.String()
	}
	rtype, compression, err := m.params(req, params)
	if err != nil {
		return nil, 0, err
	}
	if req.Body, err = m.body(body, req); err != nil {
		return nil, 0, err
	}
	if compression != "" && req.Body != nil {
		if req.Body, err = compress(req.Body, compression); err != nil {
			return nil, 0, err
		}
		req.Header = header(req.Header)
		req.Header.Set("Content-Encoding", compression)
	}
	return req, rtype, nil
}

func header(h http.Header) http.Header {
	if h == nil {
		return http.Header{}
	}
	return h
}

// params applies k6's Params to req; it returns the response type and the
// compression.
func (m *instance) params(req *request.Request, params sobek.Value) (request.ResponseType, string, error) {
	rtype, compression := req.ResponseType, ""
	if isNullish(params) {
		return rtype, compression, nil
	}
	rt := m.vu.Runtime()
	p := params.ToObject(rt)
	for _, k := range p.Keys() {
		v := p.Get(k)
		if isNullish(v) && k != "responseCallback" {
			continue
		}
		switch k {
		case "headers":
			h := v.ToObject(rt)
			req.Header = header(req.Header)
			for _, name := range h.Keys() {
				req.Header.Set(name, h.Get(name).String())
			}
		case "tags":
			t := v.ToObject(rt)
			for _, name := range t.Keys() {
				req.Tags = append(req.Tags, metrics.Tag{Key: name, Value: t.Get(name).String()})
			}
		case "timeout":
			d, err := timeout(v)
			if err != nil {
				return 0, "", err
			}
			req.Timeout = d
		case "redirects":
			req.Redirects = int(v.ToInteger())
		case "cookies":
			c := v.ToObject(rt)
			for _, name := range c.Keys() {
				cv := c.Get(name)
				ck := request.Cookie{Name: name, Value: cv.String()}
				if o, ok := cv.(*sobek.Object); ok {
					ck.Value = o.Get("value").String()
					if r := o.Get("replace"); r != nil {
						ck.Replace = r.ToBoolean()
					}
				}
				req.Cookies = append(req.Cookies, ck)
			}
		case "jar":
			j, ok := m.hiddenOf(v).(*request.CookieJar)
			if !ok {
				return 0, "", errors.New("params.jar: expected a http.CookieJar")
			}
			req.Jar = j
		case "auth":
			// The URL's credentials: basic on every request, or digest.
			switch a := v.String(); a {
			case "basic":
				req.Auth = request.AuthBasic
			case "digest":
				req.Auth = request.AuthDigest
			default:
				return 0, "", fmt.Errorf("params.auth %q is not supported by Tidemark (basic and digest are)", a)
			}
		case "responseType":
			t, err := request.ParseResponseType(v.String())
			if err != nil {
				return 0, "", fmt.Errorf("params.responseType: %w", err)
			}
			rtype = t
		case "responseCallback":
			if sobek.IsUndefined(v) {
				continue
			}
			exp, unjudged, err := m.callback(v)
			if err != nil {
				return 0, "", fmt.Errorf("params.responseCallback: %w", err)
			}
			req.Expected, req.Unjudged = exp, unjudged
		case "compression":
			compression = strings.ReplaceAll(v.String(), " ", "")
		}
	}
	req.ResponseType = rtype
	return rtype, compression, nil
}

// timeout is params.timeout: a duration string ("60s") or milliseconds.
func timeout(v sobek.Value) (time.Duration, error) {
	if sobek.IsNumber(v) {
		return time.Duration(v.ToFloat() * float64(time.Millisecond)), nil
	}
	s := v.String()
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	ms, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("params.timeout %q: want a duration (\"60s\") or milliseconds", s)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// callback is a response callback: expectedStatuses' ranges, or null (no
// judgement).
func (m *instance) callback(v sobek.Value) ([]scenario.StatusRange, bool, error) {
	if sobek.IsNull(v) {
		return nil, true, nil
	}
	s, ok := m.hiddenOf(v).(*statuses)
	if !ok {
		return nil, false, errors.New("expected the result of http.expectedStatuses or null (the only response callbacks k6 supports)")
	}
	return s.ranges, false, nil
}

// body converts a request body: a string, an ArrayBuffer or typed array, or an
// object sent as a form (multipart when it holds http.file values).
func (m *instance) body(v sobek.Value, req *request.Request) ([]byte, error) {
	if isNullish(v) {
		return nil, nil
	}
	if f, ok := m.hiddenOf(v).(*fileData); ok {
		return f.data, nil
	}
	switch x := v.Export().(type) {
	case string:
		return []byte(x), nil
	case sobek.ArrayBuffer:
		return x.Bytes(), nil
	case []byte:
		return x, nil
	}
	o, ok := v.(*sobek.Object)
	if !ok {
		return []byte(v.String()), nil
	}
	keys := o.Keys()
	multi := false
	for _, k := range keys {
		if _, ok := m.hiddenOf(o.Get(k)).(*fileData); ok {
			multi = true
		}
	}
	req.Header = header(req.Header)
	if !multi {
		// k6 encodes the form as Go's url.Values: an array is one field per
		// element, and the fields are sorted by name (k6 holds the object as a Go
		// map, which keeps no order).
		form := url.Values{}
		for _, k := range keys {
			form[k] = formValues(o.Get(k))
		}
		if req.Header.Get("Content-Type") == "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return []byte(form.Encode()), nil
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range keys {
		val := o.Get(k)
		f, ok := m.hiddenOf(val).(*fileData)
		if !ok {
			for _, v := range formValues(val) {
				if err := w.WriteField(k, v); err != nil {
					return nil, fmt.Errorf("write form field %q: %w", k, err)
				}
			}
			continue
		}
		name := f.filename
		if name == "" {
			name = k
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, k, name))
		h.Set("Content-Type", f.contentType)
		part, err := w.CreatePart(h)
		if err == nil {
			_, err = part.Write(f.data)
		}
		if err != nil {
			return nil, fmt.Errorf("write form file %q: %w", k, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("write form: %w", err)
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", w.FormDataContentType())
	}
	return buf.Bytes(), nil
}

// formValues are the values of a form field: one per element of an array,
// and "" for null and undefined (k6 keeps the field, empty).
func formValues(v sobek.Value) []string {
	if isNullish(v) {
		return []string{""}
	}
	o, ok := v.(*sobek.Object)
	if !ok || o.ClassName() != "Array" {
		return []string{v.String()}
	}
	n := o.Get("length").ToInteger()
	out := make([]string, 0, n)
	for i := range n {
		e := o.Get(strconv.FormatInt(i, 10))
		if isNullish(e) {
			out = append(out, "")
			continue
		}
		out = append(out, e.String())
	}
	return out
}

// compress applies params.compression: a comma list of gzip and deflate, in
// order.
func compress(b []byte, algos string) ([]byte, error) {
	for a := range strings.SplitSeq(algos, ",") {
		var buf bytes.Buffer
		var w io.WriteCloser
		switch a {
		case "gzip":
			w = gzip.NewWriter(&buf)
		case "deflate":
			w = zlib.NewWriter(&buf)
		default:
			return nil, fmt.Errorf("params.compression %q is not supported by Tidemark (gzip and deflate are)", a)
		}
		if _, err := w.Write(b); err != nil {
			return nil, fmt.Errorf("compress body: %w", err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("compress body: %w", err)
		}
		b = buf.Bytes()
	}
	return b, nil
}

// url is the http.url tagged template: a URL whose name tag is the template.
func (m *instance) url(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	if len(call.Arguments) == 0 || isNullish(call.Arguments[0]) {
		panic(rt.NewTypeError("http.url is a tagged template: http.url`https://host/items/${id}`"))
	}
	parts := call.Arguments[0].ToObject(rt)
	n := int(parts.Get("length").ToInteger())
	var u, name strings.Builder
	for i := range n {
		s := parts.Get(strconv.Itoa(i)).String()
		u.WriteString(s)
		name.WriteString(s)
		if i+1 < n && i+1 < len(call.Arguments) {
			u.WriteString(call.Arguments[i+1].String())
			name.WriteString("${}")
		}
	}
	o := m.wrap(&taggedURL{url: u.String(), name: name.String()})
	_ = o.Set("url", u.String())
	_ = o.Set("name", name.String())
	_ = o.Set("toString", func(sobek.FunctionCall) sobek.Value { return rt.ToValue(u.String()) })
	return o
}

// file is http.file(data, [filename], [contentType]).
func (m *instance) file(call sobek.FunctionCall) sobek.Value {
	f := &fileData{contentType: "application/octet-stream"}
	switch x := call.Argument(0).Export().(type) {
	case sobek.ArrayBuffer:
		f.data = append([]byte(nil), x.Bytes()...)
	case []byte:
		f.data = append([]byte(nil), x...)
	default:
		f.data = []byte(call.Argument(0).String())
	}
	if a := call.Argument(1); !isNullish(a) {
		f.filename = a.String()
	}
	if a := call.Argument(2); !isNullish(a) {
		f.contentType = a.String()
	}
	o := m.wrap(f)
	_ = o.Set("data", call.Argument(0))
	_ = o.Set("filename", f.filename)
	_ = o.Set("content_type", f.contentType)
	return o
}

// expectedStatuses is http.expectedStatuses(...statuses): integers and
// {min, max} ranges.
func (m *instance) expectedStatuses(call sobek.FunctionCall) sobek.Value {
	rt := m.vu.Runtime()
	s := &statuses{}
	for i, a := range call.Arguments {
		if sobek.IsNumber(a) {
			n := int(a.ToInteger())
			s.ranges = append(s.ranges, scenario.StatusRange{Min: n, Max: n})
			continue
		}
		o, ok := a.(*sobek.Object)
		if !ok || isNullish(o.Get("min")) || isNullish(o.Get("max")) {
			panic(rt.NewTypeError(fmt.Sprintf("http.expectedStatuses: argument %d must be an integer or {min, max}, got %s", i+1, a.String())))
		}
		s.ranges = append(s.ranges, scenario.StatusRange{Min: int(o.Get("min").ToInteger()), Max: int(o.Get("max").ToInteger())})
	}
	return m.wrap(s)
}

// setResponseCallback sets the VU's response callback: expectedStatuses' or
// null.
func (m *instance) setResponseCallback(call sobek.FunctionCall) sobek.Value {
	exp, unjudged, err := m.callback(call.Argument(0))
	if err != nil {
		m.throw(fmt.Errorf("http.setResponseCallback: %w", err))
	}
	m.expected, m.unjudged = exp, unjudged
	return sobek.Undefined()
}
