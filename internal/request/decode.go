package request

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"slices"
	"strings"
)

// decodeBody undoes the content codings of a response body (the
// Content-Encoding header's, applied in the order listed), as k6 gives a
// script the decoded body: gzip (x-gzip), deflate (zlib, or raw deflate as some
// servers send it) and identity. Others are an error.
func decodeBody(body []byte, encoding string) ([]byte, error) {
	for _, coding := range slices.Backward(strings.Split(encoding, ",")) {
		var r io.Reader
		switch c := strings.ToLower(strings.TrimSpace(coding)); c {
		case "", "identity":
			continue
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				return nil, fmt.Errorf("decode gzip body: %w", err)
			}
			r = zr
		case "deflate":
			zr, err := zlib.NewReader(bytes.NewReader(body))
			if err != nil {
				r = flate.NewReader(bytes.NewReader(body))
			} else {
				r = zr
			}
		default:
			return nil, fmt.Errorf("decode body: content coding %q is not supported (gzip and deflate are)", c)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("decode %s body: %w", strings.TrimSpace(coding), err)
		}
		body = b
	}
	return body, nil
}
