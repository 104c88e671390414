package store

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/gogo/protobuf/proto"
	"github.com/klauspost/compress/snappy"
	remoteapi "github.com/prometheus/client_golang/exp/api/remote"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/prompb"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
)

// The receiver (client_golang/exp/api/remote) refuses bodies, compressed or decompressed,
// over 32 MiB; maxWriteBody bounds the compressed body kept for diagnosis, and the
// diagnosis never decompresses more than maxDecodedSize.
const (
	maxDecodedSize = 32 << 20
	maxWriteBody   = maxDecodedSize + 1
)

// clearWriteErrors wraps the remote-write receiver so that a rejected request (4xx) says
// which stage failed. Prometheus' receiver answers a corrupt body with a bare
// "s2: corrupt input" or "unexpected EOF"; this names the stage and the message type.
// Successful requests pass through untouched; the body is diagnosed again only after a
// rejection.
//
// When fast is not nil, it gets the first go at every request (see fastWrite.serve);
// what it declines goes to next unchanged. requests counts the requests each path
// answered (label path: fast or prometheus).
//
// A body holding a label longer than Prometheus' labels can hold (maxLabelBytes) is
// answered 400 here, before either path builds labels from it; maxValueLen is the
// store's own label value limit, for the message.
//
// While refusing returns true (after a failed WAL write, until the TSDB has been
// reopened: liveDB), every write is answered 503, which senders retry.
func clearWriteErrors(next http.Handler, fast *fastWrite, requests *prometheus.CounterVec, maxValueLen int, refusing func() bool) http.Handler {
	var bodies sync.Pool // *[]byte: compressed request bodies.
	fastTotal, promTotal := requests.WithLabelValues("fast"), requests.WithLabelValues("prometheus")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refusing() {
			http.Error(w, walRefusal, http.StatusServiceUnavailable)
			return
		}
		bp, _ := bodies.Get().(*[]byte)
		if bp == nil {
			bp = new([]byte)
		}
		defer func() {
			if cap(*bp) <= maxPooledDecoded {
				bodies.Put(bp)
			}
		}()
		// Size the buffer from Content-Length: at most one allocation instead of
		// io.ReadAll's doubling, none when a pooled buffer is large enough. The claim is
		// trusted only up to the pooled size: a larger body grows the buffer as it
		// arrives, so that clients claiming 32 MiB and sending slowly cannot pin memory.
		buf := bytes.NewBuffer((*bp)[:0])
		buf.Grow(int(min(max(r.ContentLength, 0), maxPooledDecoded-bytes.MinRead)) + bytes.MinRead)
		_, err := buf.ReadFrom(io.LimitReader(r.Body, maxWriteBody))
		body := buf.Bytes()
		*bp = body
		if err != nil {
			http.Error(w, "remote write: read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		ct := r.Header.Get("Content-Type")
		if ct == "" {
			ct = "application/x-protobuf"
		}
		if msgType, err := remoteapi.ParseProtoMsg(ct); err == nil {
			if n, ok := oversizedLabel(msgType, body); ok {
				http.Error(w, oversizedLabelError(n, maxValueLen), http.StatusBadRequest)
				return
			}
		}
		if fast != nil && fast.serve(w, r, body) {
			fastTotal.Inc()
			return
		}
		promTotal.Inc()
		r.Body = io.NopCloser(bytes.NewReader(body))
		cw := &errorCapture{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		if cw.code < http.StatusBadRequest || cw.code >= http.StatusInternalServerError {
			return
		}
		msg := diagnoseWrite(r.Header.Get("Content-Type"), body, strings.TrimSpace(cw.body.String()))
		http.Error(w, capText(msg, maxAnswerText), cw.code)
	})
}

// walRefusal answers writes while the store refuses them after a failed WAL write.
const walRefusal = "remote write: the store could not write its WAL (disk full?) and refuses writes until it has " +
	"reopened its TSDB, which it does by itself once there is free space: retry later"

// diagnoseWrite returns the message for a rejected remote-write body.
func diagnoseWrite(contentType string, body []byte, orig string) string {
	if rest, ok := strings.CutPrefix(orig, "s2: "); ok {
		return "remote write: decompress body (snappy block format): " + rest
	}
	// Never decode what the receiver refused for its size: a 5-byte body can claim 4 GiB.
	if n, err := snappy.DecodedLen(body); err != nil || n > maxDecodedSize {
		return "remote write: " + orig
	}
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		return "remote write: " + orig
	}
	var (
		msg  proto.Message = &prompb.WriteRequest{}
		name               = "prometheus.WriteRequest"
	)
	if strings.Contains(contentType, "io.prometheus.write.v2.Request") {
		msg, name = &writev2.Request{}, "io.prometheus.write.v2.Request"
	}
	if err := proto.Unmarshal(raw, msg); err != nil {
		return fmt.Sprintf("remote write: decode %s (protobuf): %v", name, err)
	}
	return "remote write: " + orig
}

// errorCapture forwards a successful response and holds back an error response (status
// 400..499) for clearWriteErrors to rewrite.
type errorCapture struct {
	http.ResponseWriter
	code int
	body bytes.Buffer
}

func (c *errorCapture) WriteHeader(code int) {
	if c.code != 0 {
		return
	}
	c.code = code
	if code < http.StatusBadRequest || code >= http.StatusInternalServerError {
		c.ResponseWriter.WriteHeader(code)
	}
}

func (c *errorCapture) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.code >= http.StatusBadRequest && c.code < http.StatusInternalServerError {
		return c.body.Write(b)
	}
	return c.ResponseWriter.Write(b)
}
