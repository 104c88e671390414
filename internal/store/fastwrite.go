package store

import (
	"net/http"
	"sync"
	"time"
	"unsafe"

	"github.com/klauspost/compress/snappy"
	remoteapi "github.com/prometheus/client_golang/exp/api/remote"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/timestamp"
	"github.com/prometheus/prometheus/storage"
)

// maxAheadTime is how far in the future a remote-written sample may lie: Prometheus'
// receiver (storage/remote's timeLimitAppenderV2) refuses later samples as out of bounds.
const maxAheadTime = 10 * time.Minute

// maxPooledDecoded bounds the decoded-body buffer kept for the next request. Prometheus
// sends at most 2,000 samples (about 200 KiB) per request by default; a rare huge
// request should not pin its buffer.
const maxPooledDecoded = 4 << 20

// fastWrite ingests plain remote-write 1.0 requests (series of labels and float samples,
// nothing else) without Prometheus' generic protobuf decoding. It is an optimisation
// only: whatever it does not fully handle, it leaves untouched for Prometheus' own
// receiver, which stays the reference for every answer other than a plain success.
type fastWrite struct {
	// appendable is the storage Prometheus' receiver appends to (limitAppendable over
	// the TSDB), so that both paths apply the same limits.
	appendable storage.AppendableV2
	now        func() time.Time
	// observe records the duration of a request the fast path answered, as the API's
	// route instrumentation does for the requests it serves.
	observe func(time.Duration)
	states  sync.Pool // *fastWriteState
}

// fastWriteState is the per-request scratch space of fastWrite, reused across requests.
type fastWriteState struct {
	decoded []byte
	req     writeV1
	builder labels.ScratchBuilder
}

// newFastWrite returns a fast path appending to app (which must be the appendable
// Prometheus' receiver uses), with now as the clock of the future bound and observe, if
// not nil, called with the duration of each request it answers.
func newFastWrite(app storage.AppendableV2, now func() time.Time, observe func(time.Duration)) *fastWrite {
	f := &fastWrite{appendable: app, now: now, observe: observe}
	f.states.New = func() any {
		st := &fastWriteState{builder: labels.NewScratchBuilder(16)}
		// Label strings point into the pooled decoded body; the builder must copy them
		// (stringlabels always does; slicelabels needs to be told).
		st.builder.SetUnsafeAdd(true)
		return st
	}
	return f
}

// serve stores the remote-write request r with compressed body and answers 204 No
// Content, exactly as Prometheus' receiver answers a successful 1.0 request. It returns
// false, having written nothing to w and committed nothing, when the request is anything
// but a plain 1.0 request that Prometheus' receiver would store in full: another
// protocol or encoding, a size over the limits, corrupt snappy or protobuf, exemplars,
// histograms, metadata, invalid labels, or any error from the storage. The caller then
// passes the untouched request to Prometheus' receiver, so that every refusal (status,
// message, log line, counter) is Prometheus' own. (Series the fast path created before
// giving up stay in the head without samples, as after any rolled-back append. The body
// is decoded in full before the first append, and Prometheus' receiver, appending the
// same series in the same order, creates at least the same ones.)
//
// One difference remains, in the TSDB's counters: when the head refuses a sample of a
// plain request (out of order, out of bounds, too old), it counts the refusal in
// prometheus_tsdb_{out_of_order,out_of_bound,too_old}_samples_total both when the fast
// path tries the sample and when Prometheus' receiver tries it again, so such a request
// moves those counters by two instead of one. Answers, data and logs are unaffected.
//
// Prometheus' receiver counts nothing for a successful 1.0 request of float samples (its
// remote_write_invalid_labels_samples_total counts refused series, and, by a quirk of
// v0.316.0, remote_write_without_metadata_appended_samples_total moves only when a 1.0
// commit fails), so there is no counter for the fast path to keep in step; the TSDB's
// own counters are moved by the appends themselves.
func (f *fastWrite) serve(w http.ResponseWriter, r *http.Request, body []byte) bool {
	start := time.Now()
	if !isPlainWriteV1(r) || len(body) > maxDecodedSize {
		return false
	}
	n, err := snappy.DecodedLen(body)
	if err != nil || n > maxDecodedSize {
		return false
	}
	st := f.states.Get().(*fastWriteState)
	defer f.release(st)
	if cap(st.decoded) < n {
		st.decoded = make([]byte, n)
	}
	// The same decoder as the receiver's middleware (klauspost/compress/snappy), so
	// that both accept the same bodies.
	raw, err := snappy.Decode(st.decoded[:n], body)
	if err != nil || len(raw) != n {
		return false
	}
	// Decode the whole body before appending anything: a request the receiver refuses
	// for its encoding must not create series in the head.
	if err := st.req.decode(raw); err != nil || st.req.other {
		return false
	}
	if !f.append(r, raw, st) {
		return false
	}
	w.WriteHeader(http.StatusNoContent)
	if f.observe != nil {
		f.observe(time.Since(start))
	}
	return true
}

// append appends the samples of st.req to the storage and commits them. It rolls back
// and returns false where Prometheus' receiver would skip a series or fail.
func (f *fastWrite) append(r *http.Request, raw []byte, st *fastWriteState) bool {
	// Prometheus' receiver computes its future bound once per request, too.
	maxT := timestamp.FromTime(f.now().Add(maxAheadTime))
	app := f.appendable.AppenderV2(r.Context())
	committed := false
	defer func() {
		if !committed {
			_ = app.Rollback()
		}
	}()
	if _, ok := app.(storage.ExemplarAppenderV2); !ok {
		// The receiver refuses to write then (500); let it say so.
		return false
	}
	b := &st.builder
	var lo, so uint32
	for _, s := range st.req.series {
		b.Reset()
		for _, l := range st.req.labels[lo:s.labelsEnd] {
			b.Add(spanString(raw, l.name), spanString(raw, l.value))
		}
		lo = s.labelsEnd
		// Sorted as prompb's TimeSeries.ToLabels sorts, with the same builder.
		b.Sort()
		ls := b.Labels()
		// The receiver skips these series with a warning and a counter: let it.
		if !ls.Has(model.MetricNameLabel) || !ls.IsValid(model.UTF8Validation) {
			return false
		}
		if _, dup := ls.HasDuplicateLabelNames(); dup {
			return false
		}
		var ref storage.SeriesRef
		for _, smp := range st.req.samples[so:s.samplesEnd] {
			if smp.t > maxT {
				return false
			}
			var err error
			// ref 0 for the first sample of each series, as the receiver does; the
			// label limits of limitAppender apply then.
			if ref, err = app.Append(ref, ls, 0, smp.t, smp.v, nil, nil, storage.AOptions{}); err != nil {
				return false
			}
		}
		so = s.samplesEnd
	}
	// A failed Commit has stored nothing (the head rolls back itself); the receiver
	// then retries the request and answers the error its own way.
	committed = true
	return app.Commit() == nil
}

func (f *fastWrite) release(st *fastWriteState) {
	if cap(st.decoded) > maxPooledDecoded {
		st.decoded = nil
	}
	// Nor should its decoded series, labels and samples (16 bytes each at most; a body of
	// empty labels decodes to 8 bytes of them per byte).
	if cap(st.req.labels) > maxPooledDecoded/16 || cap(st.req.samples) > maxPooledDecoded/16 || cap(st.req.series) > maxPooledDecoded/16 {
		st.req = writeV1{}
	}
	f.states.Put(st)
}

// isPlainWriteV1 reports whether r is a remote-write 1.0 request with a body that the
// receiver's middleware (client_golang exp/api/remote) decodes as snappy: the same
// Content-Type and Content-Encoding rules.
func isPlainWriteV1(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != string(remoteapi.SnappyBlockCompression) {
		return false
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/x-protobuf"
	}
	msgType, err := remoteapi.ParseProtoMsg(ct)
	return err == nil && msgType == remoteapi.WriteV1MessageType
}

// spanString returns the bytes of s in raw as a string without copying them. The string
// is valid only while raw is neither modified nor reused; the ScratchBuilder copies it
// in Labels.
func spanString(raw []byte, s span) string {
	if s.end == s.off {
		return ""
	}
	return unsafe.String(&raw[s.off], int(s.end-s.off))
}
