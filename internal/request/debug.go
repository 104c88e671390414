package request

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Debug logs every request and response as k6's --http-debug does: one "Request:"
// and one "Response:" entry per request (and per redirect hop), at info level, with
// the head as sent and received, and with Full the bodies too (--http-debug=full).
// Unlike k6, the values of credential headers (Authorization, Proxy-Authorization,
// Cookie, Set-Cookie) are logged as [REDACTED]: credentials never appear in logs.
// A nil *Debug (the default) logs nothing and costs one pointer check per request.
type Debug struct {
	// Logger receives the entries; nil logs nothing.
	Logger *slog.Logger
	// Full logs the request and response bodies.
	Full bool
}

// redacted replaces the value of a credential header in the dumps.
const redacted = "[REDACTED]"

// credentialHeaders are the headers whose values the dumps never show.
func credentialHeaders() []string {
	return []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}
}

// debugOnce is once with the request logged before it is sent and the response
// after it was read, as k6's http-debug transport does.
func (c *Client) debugOnce(st *spec, method, target string, hdr http.Header, body []byte, static bool) (*http.Response, Outcome) {
	d := c.opts.Debug
	attrs := c.debugAttrs(st)
	//nolint:sloglint // k6's http-debug layout: the dump is the message.
	d.Logger.Info("Request:\n"+string(dumpRequest(method, target, hdr, body, d.Full)), attrs...)
	resp, out := c.send(st, method, target, hdr, body, static)
	if out.Err == nil && resp != nil {
		var b []byte
		if d.Full {
			b = c.body.Bytes()
		}
		//nolint:sloglint // k6's http-debug layout: the dump is the message.
		d.Logger.Info("Response:\n"+string(dumpResponse(resp, b, d.Full)), attrs...)
	}
	return resp, out
}

// debugAttrs are the fields of an entry, k6's: the group and scenario tags, the VU
// and iteration when the request is a step's (Do), and a request id shared by the
// request's and the response's entries.
func (c *Client) debugAttrs(st *spec) []any {
	var group, sc string
	for _, tags := range [][]metrics.Tag{st.base, st.reqTags} {
		for _, t := range tags {
			switch t.Key {
			case "group":
				group = t.Value
			case "scenario":
				sc = t.Value
			}
		}
	}
	attrs := []any{"group", group}
	if c.dbgVars != nil {
		attrs = append(attrs, "iter", c.dbgVars.Iter)
	}
	attrs = append(attrs, "request_id", newRequestID(), "scenario", sc, "source", "http-debug")
	if c.dbgVars != nil {
		attrs = append(attrs, "vu", c.dbgVars.VU)
	}
	return attrs
}

// newRequestID returns a random (version 4) UUID, as k6's request_id.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// dumpRequest is the request as k6 dumps it (Go's httputil.DumpRequestOut with
// line ends as \n): the request line, Host, User-Agent, Content-Length, the other
// fields in sorted order, a blank line, the body when full, and a final newline.
func dumpRequest(method, target string, hdr http.Header, body []byte, full bool) []byte {
	uri, host := target, ""
	u, err := url.Parse(target)
	if err == nil {
		uri, host = u.RequestURI(), u.Host
	}
	if v := hdr["Host"]; len(v) > 0 && v[0] != "" {
		host = v[0]
	}
	b := fmt.Appendf(nil, "%s %s HTTP/1.1\nHost: %s\n", method, uri, host)
	if v := hdr["User-Agent"]; len(v) > 0 {
		b = appendField(b, "User-Agent", v[0])
	}
	if len(body) > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		b = appendField(b, "Content-Length", strconv.Itoa(len(body)))
	}
	if err == nil && u.User != nil && len(hdr["Authorization"]) == 0 {
		b = appendField(b, "Authorization", "Basic "+redacted) // the URL's credentials, as net/http sends them
	}
	b = appendFields(b, hdr, "Host", "User-Agent", "Content-Length", "Transfer-Encoding")
	b = append(b, '\n')
	if full {
		b = append(b, body...)
	}
	return append(b, '\n')
}

// dumpResponse is the response as k6 dumps it (Go's httputil.DumpResponse with line
// ends as \n): the status line, Content-Length, the other fields in sorted order, a
// blank line, the body when full, and a final newline.
func dumpResponse(resp *http.Response, body []byte, full bool) []byte {
	proto := resp.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	b := fmt.Appendf(nil, "%s %d %s\n", proto, resp.StatusCode, http.StatusText(resp.StatusCode))
	if v := resp.Header["Content-Length"]; len(v) > 0 {
		b = appendField(b, "Content-Length", v[0])
	}
	b = appendFields(b, resp.Header, "Content-Length")
	b = append(b, '\n')
	if full {
		b = append(b, body...)
	}
	return append(b, '\n')
}

// appendFields appends hdr's fields but skip in sorted order, credentials redacted.
func appendFields(b []byte, hdr http.Header, skip ...string) []byte {
	keys := make([]string, 0, len(hdr))
	for k := range hdr {
		if !slices.Contains(skip, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range hdr[k] {
			if slices.Contains(credentialHeaders(), k) {
				v = redacted
			}
			b = appendField(b, k, v)
		}
	}
	return b
}

func appendField(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, ": "...)
	b = append(b, v...)
	return append(b, '\n')
}
