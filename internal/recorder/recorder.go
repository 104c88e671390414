// Package recorder keeps an http.Handler's response in memory, for serving a
// handler without a net/http server: in-process round trips and hand-written
// connection loops.
package recorder

import (
	"bytes"
	"net/http"
)

// Response is an http.ResponseWriter that keeps the status, header and body.
type Response struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// New returns an empty response.
func New() *Response { return &Response{header: http.Header{}} }

// Header returns the response header.
func (r *Response) Header() http.Header { return r.header }

// WriteHeader records the status of the first call.
func (r *Response) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

// Write buffers body bytes, with status 200 unless one was written.
func (r *Response) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// Status returns the written status; 200 when the handler wrote none.
func (r *Response) Status() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// Body returns the body written so far.
func (r *Response) Body() []byte { return r.body.Bytes() }
