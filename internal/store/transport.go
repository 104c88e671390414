package store

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/tidemark/tidemark/internal/recorder"
)

// Transport returns an http.RoundTripper that serves every request with Handler inside
// the process, without a network listener. A remote-write client or a Prometheus API
// client given &http.Client{Transport: s.Transport()} and any base URL (for example
// http://tidemark.embedded) writes to and queries this store. It is how tidemark run uses
// the store when no server holds the data directory.
func (s *Store) Transport() http.RoundTripper { return handlerTransport{h: s.handler} }

type handlerTransport struct{ h http.Handler }

// RoundTrip implements http.RoundTripper.
func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	// A server request has a non-nil body and RequestURI set.
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = req.URL.RequestURI()
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	rec := recorder.New()
	t.h.ServeHTTP(rec, r)
	if req.Body != nil {
		_ = req.Body.Close()
	}
	code, body := rec.Status(), rec.Body()
	return &http.Response{
		Status:        strconv.Itoa(code) + " " + http.StatusText(code),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.Header(),
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}
