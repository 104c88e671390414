package store

import (
	"encoding/binary"
	"errors"
	"math"
)

// This file decodes a remote-write 1.0 request (protobuf message prometheus.WriteRequest of
// prompb/remote.proto and prompb/types.proto) straight from the wire format, for the fast
// ingest path (fastwrite.go). The messages it reads:
//
//	WriteRequest { repeated TimeSeries timeseries = 1; reserved 2; repeated MetricMetadata metadata = 3; }
//	TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2;
//	               repeated Exemplar exemplars = 3; repeated Histogram histograms = 4; }
//	Label        { string name = 1; string value = 2; }
//	Sample       { double value = 1; int64 timestamp = 2; }
//
// It accepts exactly the bytes that gogo-protobuf's generated prompb.WriteRequest.Unmarshal
// accepts, for requests made of labels and float samples only: varints of at most 10 bytes
// (bits past the 64th are dropped, as gogo does), field numbers truncated to int32, a
// known field with a wrong wire type refused, unknown fields (groups included) skipped by
// the same rules, the last occurrence of a scalar field winning. Exemplars, histograms
// and metadata are not decoded: their framing is checked and the request is marked
// [writeV1.other], so that the caller hands it to Prometheus' handler, which decodes
// (and may refuse) their contents. Strings are not copied: a label is a pair of spans
// of the decoded body.

// Wire types of the protobuf encoding.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// Decoding errors. The fast path never shows them to a client (Prometheus' handler
// answers every request the decoder refuses); they name the cause for tests.
var (
	errTruncated    = errors.New("protobuf: unexpected end of input")
	errVarintLong   = errors.New("protobuf: varint longer than 10 bytes")
	errBadLength    = errors.New("protobuf: negative length")
	errIllegalTag   = errors.New("protobuf: illegal field number")
	errEndGroup     = errors.New("protobuf: end group without start group")
	errWireType     = errors.New("protobuf: wrong wire type for field")
	errBadWireType  = errors.New("protobuf: illegal wire type")
	errTooLargeBody = errors.New("protobuf: body larger than 4 GiB")
)

// span is a byte range [off, end) of the decoded body. The body is at most
// maxDecodedSize bytes, so 32 bits hold any offset.
type span struct{ off, end uint32 }

// labelV1 is one Label: spans of its name and value.
type labelV1 struct{ name, value span }

// sampleV1 is one float Sample.
type sampleV1 struct {
	t int64
	v float64
}

// seriesV1 is one TimeSeries: its labels are labels[previous labelsEnd:labelsEnd] and its
// samples samples[previous samplesEnd:samplesEnd] of the writeV1 holding it.
type seriesV1 struct{ labelsEnd, samplesEnd uint32 }

// writeV1 is a decoded WriteRequest. Its slices are reused from one decode to the next,
// so a long-lived writeV1 decodes without allocating once it has seen a request as large.
type writeV1 struct {
	series  []seriesV1
	labels  []labelV1
	samples []sampleV1
	// other is set when the request holds exemplars, histograms or metadata; their
	// contents are not decoded.
	other bool
}

// decode decodes body into w, replacing what w held. On error w holds garbage.
func (w *writeV1) decode(body []byte) error {
	w.series, w.labels, w.samples, w.other = w.series[:0], w.labels[:0], w.samples[:0], false
	if uint64(len(body)) > math.MaxUint32 {
		return errTooLargeBody
	}
	for i := 0; i < len(body); {
		field, wt, j, err := readTag(body, i)
		if err != nil {
			return err
		}
		switch field {
		case 1: // timeseries
			if wt != wireBytes {
				return errWireType
			}
			start, end, err := readLen(body, j)
			if err != nil {
				return err
			}
			if err := w.decodeSeries(body[:end], start); err != nil {
				return err
			}
			i = end
		case 3: // metadata: Prometheus' 1.0 receiver ignores it, but decodes (and checks) it.
			if wt != wireBytes {
				return errWireType
			}
			_, end, err := readLen(body, j)
			if err != nil {
				return err
			}
			w.other = true
			i = end
		default:
			if i, err = skipField(body, j, wt); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeSeries decodes the TimeSeries in b[i:]. b is the body cut at the message's end,
// so that offsets stay offsets of the whole body.
func (w *writeV1) decodeSeries(b []byte, i int) error {
	for i < len(b) {
		field, wt, j, err := readTag(b, i)
		if err != nil {
			return err
		}
		switch field {
		case 1, 2, 3, 4: // labels, samples, exemplars, histograms: all messages.
			if wt != wireBytes {
				return errWireType
			}
			start, end, err := readLen(b, j)
			if err != nil {
				return err
			}
			switch field {
			case 1:
				l, err := decodeLabel(b[:end], start)
				if err != nil {
					return err
				}
				w.labels = append(w.labels, l)
			case 2:
				s, err := decodeSample(b[:end], start)
				if err != nil {
					return err
				}
				w.samples = append(w.samples, s)
			default:
				w.other = true
			}
			i = end
		default:
			if i, err = skipField(b, j, wt); err != nil {
				return err
			}
		}
	}
	w.series = append(w.series, seriesV1{labelsEnd: uint32(len(w.labels)), samplesEnd: uint32(len(w.samples))})
	return nil
}

// decodeLabel decodes the Label in b[i:].
func decodeLabel(b []byte, i int) (labelV1, error) {
	// Shortcut for what every sender emits: name (key 0x0a) then value (key 0x12), each
	// shorter than 128 bytes (a one-byte length), and nothing else. The general loop
	// below decodes these bytes the same way.
	if len(b)-i >= 4 && b[i] == 0x0a && b[i+1] < 0x80 {
		ne := i + 2 + int(b[i+1])
		if ne+2 <= len(b) && b[ne] == 0x12 && b[ne+1] < 0x80 && ne+2+int(b[ne+1]) == len(b) {
			return labelV1{name: span{off: uint32(i + 2), end: uint32(ne)}, value: span{off: uint32(ne + 2), end: uint32(len(b))}}, nil
		}
	}
	var l labelV1
	for i < len(b) {
		field, wt, j, err := readTag(b, i)
		if err != nil {
			return l, err
		}
		switch field {
		case 1, 2: // name, value
			if wt != wireBytes {
				return l, errWireType
			}
			start, end, err := readLen(b, j)
			if err != nil {
				return l, err
			}
			s := span{off: uint32(start), end: uint32(end)}
			if field == 1 {
				l.name = s
			} else {
				l.value = s
			}
			i = end
		default:
			if i, err = skipField(b, j, wt); err != nil {
				return l, err
			}
		}
	}
	return l, nil
}

// decodeSample decodes the Sample in b[i:].
func decodeSample(b []byte, i int) (sampleV1, error) {
	var s sampleV1
	for i < len(b) {
		field, wt, j, err := readTag(b, i)
		if err != nil {
			return s, err
		}
		switch field {
		case 1: // value
			if wt != wireFixed64 {
				return s, errWireType
			}
			if len(b)-j < 8 {
				return s, errTruncated
			}
			s.v = math.Float64frombits(binary.LittleEndian.Uint64(b[j:]))
			i = j + 8
		case 2: // timestamp
			if wt != wireVarint {
				return s, errWireType
			}
			v, k, err := readVarint(b, j)
			if err != nil {
				return s, err
			}
			s.t = int64(v)
			i = k
		default:
			if i, err = skipField(b, j, wt); err != nil {
				return s, err
			}
		}
	}
	return s, nil
}

// readVarint reads the varint at b[i:] and returns it and the offset after it. Like gogo,
// it reads at most 10 bytes and drops bits past the 64th.
func readVarint(b []byte, i int) (uint64, int, error) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, nil
	}
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if i >= len(b) {
			return 0, i, errTruncated
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
	return 0, i, errVarintLong
}

// readTag reads the field key at b[i:]: the field number (truncated to int32, as gogo
// does), the wire type and the offset after the key. It refuses what gogo's generated
// decoders refuse before looking at the field: field numbers below 1 and a stray end
// group.
func readTag(b []byte, i int) (field int32, wt int, next int, err error) {
	v, next, err := readVarint(b, i)
	if err != nil {
		return 0, 0, next, err
	}
	field, wt = int32(v>>3), int(v&7)
	if wt == wireEndGroup {
		return 0, 0, next, errEndGroup
	}
	if field <= 0 {
		return 0, 0, next, errIllegalTag
	}
	return field, wt, next, nil
}

// readLen reads the length prefix at b[i:] and returns the offsets of the start and the
// end of the length-delimited value, which must lie within b.
func readLen(b []byte, i int) (start, end int, err error) {
	v, start, err := readVarint(b, i)
	if err != nil {
		return 0, 0, err
	}
	if int64(v) < 0 {
		return 0, 0, errBadLength
	}
	if v > uint64(len(b)-start) {
		return 0, 0, errTruncated
	}
	return start, start + int(v), nil
}

// skipField skips the value of an unknown field of wire type wt starting at b[i:] (just
// after its key) and returns the offset after it. A group is skipped up to its matching
// end, whatever the field numbers inside, as gogo's skip functions do.
func skipField(b []byte, i, wt int) (int, error) {
	depth := 0
	for {
		switch wt {
		case wireVarint:
			_, j, err := readVarint(b, i)
			if err != nil {
				return 0, err
			}
			i = j
		case wireFixed64:
			if len(b)-i < 8 {
				return 0, errTruncated
			}
			i += 8
		case wireBytes:
			_, end, err := readLen(b, i)
			if err != nil {
				return 0, err
			}
			i = end
		case wireStartGroup:
			depth++
		case wireEndGroup:
			if depth == 0 {
				return 0, errEndGroup
			}
			depth--
		case wireFixed32:
			if len(b)-i < 4 {
				return 0, errTruncated
			}
			i += 4
		default:
			return 0, errBadWireType
		}
		if depth == 0 {
			return i, nil
		}
		// Inside a group: the next key, whatever its field number.
		if i >= len(b) {
			return 0, errTruncated
		}
		v, j, err := readVarint(b, i)
		if err != nil {
			return 0, err
		}
		i, wt = j, int(v&7)
	}
}
