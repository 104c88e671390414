package store

import (
	"fmt"

	"github.com/klauspost/compress/snappy"
	remoteapi "github.com/prometheus/client_golang/exp/api/remote"
	"google.golang.org/protobuf/encoding/protowire"
)

// maxLabelBytes is the longest label name or value Prometheus' labels can hold: their
// encoding gives a string's size three bytes, so one of 2^24 bytes or more corrupts the
// labels built from it, and both receivers (the fast path and Prometheus' own) panic on
// them (the HTTP server recovers, the client sees a dropped connection).
const maxLabelBytes = 1<<24 - 1

// oversizedLabel finds, in a remote-write body (snappy-compressed, as the receiver
// takes it), a label name or value (1.0) or a symbol (2.0) longer than maxLabelBytes,
// and returns its length. A body that decodes to less than that holds none and is not
// decoded; a body that does not decode or parse is left to the receiver's own errors.
func oversizedLabel(msgType remoteapi.WriteMessageType, body []byte) (int, bool) {
	n, err := snappy.DecodedLen(body)
	if err != nil || n <= maxLabelBytes || n > maxDecodedSize {
		return 0, false
	}
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		return 0, false
	}
	switch msgType {
	case remoteapi.WriteV1MessageType:
		// WriteRequest.timeseries (1) → TimeSeries.labels (1) → Label.name (1), value (2).
		return longestIn(raw, 1, func(ts []byte) (int, bool) {
			return longestIn(ts, 1, func(label []byte) (int, bool) {
				return longestIn(label, 0, func(s []byte) (int, bool) { return len(s), len(s) > maxLabelBytes })
			})
		})
	case remoteapi.WriteV2MessageType:
		// Request.symbols (4): every label name and value is one.
		return longestIn(raw, 4, func(s []byte) (int, bool) { return len(s), len(s) > maxLabelBytes })
	}
	return 0, false
}

// longestIn calls check on every length-delimited field numbered field (0: any) of the
// message b, and returns the first that check reports.
func longestIn(b []byte, field protowire.Number, check func([]byte) (int, bool)) (int, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, false
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return 0, false
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return 0, false
		}
		b = b[n:]
		if field == 0 || num == field {
			if l, ok := check(v); ok {
				return l, true
			}
		}
	}
	return 0, false
}

// oversizedLabelError is the answer to a body holding a label over maxLabelBytes.
func oversizedLabelError(n, limit int) string {
	if limit <= 0 || limit > maxLabelBytes {
		limit = maxLabelBytes
	}
	return fmt.Sprintf("remote write: a label name or value is %d bytes, more than the limit of %d", n, limit)
}
