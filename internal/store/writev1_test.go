package store

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/gogo/protobuf/proto"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"
)

// A small protobuf writer for tests, independent of the decoder under test, so that
// tests can build what gogo's Marshal never emits: unknown fields, groups, fields out of
// order, repeated scalars, non-minimal varints.

func appendKey(b []byte, field uint64, wt int) []byte {
	return binary.AppendUvarint(b, field<<3|uint64(wt))
}

func appendBytesField(b []byte, field uint64, v []byte) []byte {
	b = appendKey(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendVarintField(b []byte, field, v uint64) []byte {
	return binary.AppendUvarint(appendKey(b, field, wireVarint), v)
}

func appendFixed64Field(b []byte, field, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendKey(b, field, wireFixed64), v)
}

// Outcomes of decoding a body with writeV1.decode.
const (
	decodedPlain = "plain" // labels and float samples only: the fast path may store it.
	decodedOther = "other" // exemplars, histograms or metadata: Prometheus' receiver decides.
	decodedError = "error"
)

// checkDecodeAgainstGogo decodes raw with writeV1 and with gogo-protobuf's
// prompb.WriteRequest (what Prometheus' receiver uses) and fails unless they agree:
// a body writeV1 refuses, gogo refuses; a body gogo accepts without exemplars,
// histograms and metadata, writeV1 accepts as plain with the same series, labels (in
// wire order) and samples (bit for bit); a body writeV1 finds other content in, gogo
// refuses or finds such content in. It returns writeV1's outcome.
func checkDecodeAgainstGogo(t testing.TB, raw []byte) string {
	t.Helper()
	var w writeV1
	err := w.decode(raw)
	var pb prompb.WriteRequest
	perr := proto.Unmarshal(raw, &pb)
	switch {
	case err != nil:
		require.Error(t, perr, "writeV1 refuses (%v) what gogo accepts: %q", err, raw)
		return decodedError
	case w.other:
		require.True(t, perr != nil || hasOther(&pb), "writeV1 finds exemplars, histograms or metadata that gogo does not: %q", raw)
		return decodedOther
	}
	require.NoError(t, perr, "writeV1 accepts what gogo refuses: %q", raw)
	require.False(t, hasOther(&pb), "writeV1 misses exemplars, histograms or metadata: %q", raw)
	require.Equal(t, gogoSeries(&pb), decodedSeries(&w, raw), "%q", raw)
	return decodedPlain
}

func hasOther(pb *prompb.WriteRequest) bool {
	if len(pb.Metadata) > 0 {
		return true
	}
	for _, ts := range pb.Timeseries {
		if len(ts.Exemplars) > 0 || len(ts.Histograms) > 0 {
			return true
		}
	}
	return false
}

// wireSeries is a series as decoded, labels unsorted, values as bits (NaN payloads
// compare too).
type wireSeries struct {
	Labels  [][2]string
	Samples [][2]uint64
}

func gogoSeries(pb *prompb.WriteRequest) []wireSeries {
	out := []wireSeries{}
	for _, ts := range pb.Timeseries {
		s := wireSeries{Labels: [][2]string{}, Samples: [][2]uint64{}}
		for _, l := range ts.Labels {
			s.Labels = append(s.Labels, [2]string{l.Name, l.Value})
		}
		for _, smp := range ts.Samples {
			s.Samples = append(s.Samples, [2]uint64{uint64(smp.Timestamp), math.Float64bits(smp.Value)})
		}
		out = append(out, s)
	}
	return out
}

func decodedSeries(w *writeV1, raw []byte) []wireSeries {
	out := []wireSeries{}
	var lo, so uint32
	for _, s := range w.series {
		ws := wireSeries{Labels: [][2]string{}, Samples: [][2]uint64{}}
		for _, l := range w.labels[lo:s.labelsEnd] {
			ws.Labels = append(ws.Labels, [2]string{spanString(raw, l.name), spanString(raw, l.value)})
		}
		for _, smp := range w.samples[so:s.samplesEnd] {
			ws.Samples = append(ws.Samples, [2]uint64{uint64(smp.t), math.Float64bits(smp.v)})
		}
		lo, so = s.labelsEnd, s.samplesEnd
		out = append(out, ws)
	}
	return out
}

// testTime is the time of the fixed test series.
func testTime() time.Time { return time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC) }

// Wire building blocks for the decoder table.
var (
	labelName = appendBytesField(appendBytesField(nil, 1, []byte("__name__")), 2, []byte("up"))
	sample1   = appendVarintField(appendFixed64Field(nil, 1, math.Float64bits(1.5)), 2, 1000)
)

func seriesOf(parts ...[]byte) []byte {
	var ts []byte
	for _, p := range parts {
		ts = append(ts, p...)
	}
	return appendBytesField(nil, 1, ts)
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestWriteV1DecodeMatchesGogo(t *testing.T) {
	t.Parallel()
	plainSeries := seriesOf(appendBytesField(nil, 1, labelName), appendBytesField(nil, 2, sample1))
	tenByteZero := []byte("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00")
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty body", nil, decodedPlain},
		{"one empty series", []byte("\x0a\x00"), decodedPlain},
		{"plain series", plainSeries, decodedPlain},
		{"two series", cat(plainSeries, plainSeries), decodedPlain},
		{"gogo marshal", encodeV1(t, []series{floatSeries(labels.FromStrings("__name__", "k6_vus", "testid", "ü"), testTime(), time.Second, 3, 1)}), decodedPlain},
		{"samples before labels", seriesOf(appendBytesField(nil, 2, sample1), appendBytesField(nil, 1, labelName)), decodedPlain},
		{"timestamp before value", seriesOf(appendBytesField(nil, 2, appendFixed64Field(appendVarintField(nil, 2, 7), 1, 3))), decodedPlain},
		{"value before name", seriesOf(appendBytesField(nil, 1, appendBytesField(appendBytesField(nil, 2, []byte("v")), 1, []byte("n")))), decodedPlain},
		{"repeated scalars: last wins", seriesOf(appendBytesField(nil, 1, cat(labelName, appendBytesField(nil, 1, []byte("other")))), appendBytesField(nil, 2, cat(sample1, appendVarintField(nil, 2, 5), appendFixed64Field(nil, 1, 9)))), decodedPlain},
		{"label value of 127 bytes", seriesOf(appendBytesField(nil, 1, appendBytesField(appendBytesField(nil, 1, []byte("n")), 2, bytes.Repeat([]byte("v"), 127)))), decodedPlain},
		{"label value of 128 bytes", seriesOf(appendBytesField(nil, 1, appendBytesField(appendBytesField(nil, 1, []byte("n")), 2, bytes.Repeat([]byte("v"), 128)))), decodedPlain},
		{"label value longer than its label", seriesOf(appendBytesField(nil, 1, cat(appendBytesField(nil, 1, []byte("n")), []byte{0x12, 0x05, 'v'}))), decodedError},
		{"label with a field after the value", seriesOf(appendBytesField(nil, 1, cat(labelName, appendVarintField(nil, 1, 1)))), decodedError},
		{"label with an unknown field after the value", seriesOf(appendBytesField(nil, 1, cat(labelName, appendVarintField(nil, 9, 1)))), decodedPlain},
		{"empty label and sample", seriesOf(appendBytesField(nil, 1, nil), appendBytesField(nil, 2, nil)), decodedPlain},
		{"invalid utf-8 is not checked by protobuf", seriesOf(appendBytesField(nil, 1, appendBytesField(nil, 2, []byte("\xff\xfe")))), decodedPlain},
		{"negative timestamp", seriesOf(appendBytesField(nil, 2, appendVarintField(nil, 2, uint64(math.MaxUint64)))), decodedPlain},
		{"10-byte varint, high bits dropped", seriesOf(appendBytesField(nil, 2, cat([]byte{0x10}, []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f")))), decodedPlain},
		{"non-minimal length varint", cat([]byte{0x0a}, tenByteZero), decodedPlain},
		{"11-byte varint", cat([]byte{0x0a}, []byte("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00")), decodedError},
		{"length 2^63 (negative)", cat([]byte{0x0a}, []byte("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01")), decodedError},
		{"truncated key", []byte{0x8a}, decodedError},
		{"truncated length", []byte{0x0a, 0x80}, decodedError},
		{"length past end", []byte{0x0a, 0x05, 0x0a, 0x00}, decodedError},
		{"truncated value", seriesOf(appendBytesField(nil, 2, []byte{0x09, 1, 2, 3})), decodedError},
		{"truncated timestamp", seriesOf(appendBytesField(nil, 2, []byte{0x10, 0x80})), decodedError},
		{"truncated label", seriesOf(appendBytesField(nil, 1, []byte{0x0a, 0x03, 'a'})), decodedError},
		{"field 0", []byte{0x02, 0x00}, decodedError},
		{"field 0 in label", seriesOf(appendBytesField(nil, 1, []byte{0x00, 0x00})), decodedError},
		{"series as varint", []byte{0x08, 0x01}, decodedError},
		{"label as fixed64", seriesOf(appendFixed64Field(nil, 1, 0)), decodedError},
		{"name as varint", seriesOf(appendBytesField(nil, 1, appendVarintField(nil, 1, 1))), decodedError},
		{"value as varint", seriesOf(appendBytesField(nil, 2, appendVarintField(nil, 1, 1))), decodedError},
		{"timestamp as fixed64", seriesOf(appendBytesField(nil, 2, appendFixed64Field(nil, 2, 1))), decodedError},
		{"stray end group", []byte{0x0c}, decodedError},
		{"stray end group in sample", seriesOf(appendBytesField(nil, 2, []byte{0x14})), decodedError},
		{"wire type 6", []byte{0x2e}, decodedError},
		{"wire type 7 in series", seriesOf([]byte{0x2f}), decodedError},
		{"unknown varint", cat(appendVarintField(nil, 9, 300), plainSeries), decodedPlain},
		{"unknown fixed32", cat(appendKey(nil, 9, wireFixed32), []byte{1, 2, 3, 4}, plainSeries), decodedPlain},
		{"unknown fixed64", seriesOf(appendFixed64Field(nil, 7, 1), appendBytesField(nil, 1, labelName)), decodedPlain},
		{"unknown bytes", seriesOf(appendBytesField(nil, 1, cat(labelName, appendBytesField(nil, 3, []byte("x"))))), decodedPlain},
		{"reserved field 2", cat(appendBytesField(nil, 2, []byte("old")), plainSeries), decodedPlain},
		{"huge unknown field number", cat(appendVarintField(nil, 1<<28, 1), plainSeries), decodedPlain},
		{"field number truncated to 1", cat(appendKey(nil, 1<<32|1, wireBytes), []byte{0x00}), decodedPlain},
		{"field number truncated to negative", cat(appendKey(nil, 1<<31, wireVarint), []byte{0x00}), decodedError},
		{"unknown group", cat(appendKey(nil, 5, wireStartGroup), appendVarintField(nil, 1, 1), appendKey(nil, 5, wireEndGroup), plainSeries), decodedPlain},
		{"nested groups", seriesOf(appendKey(nil, 5, wireStartGroup), appendKey(nil, 6, wireStartGroup), appendFixed64Field(nil, 0, 1), appendKey(nil, 6, wireEndGroup), appendKey(nil, 5, wireEndGroup)), decodedPlain},
		{"group ends with another field number", cat(appendKey(nil, 5, wireStartGroup), appendKey(nil, 6, wireEndGroup)), decodedPlain},
		{"unterminated group", cat(appendKey(nil, 5, wireStartGroup), appendVarintField(nil, 1, 1)), decodedError},
		{"group with bad wire type", cat(appendKey(nil, 5, wireStartGroup), []byte{0x0e}, appendKey(nil, 5, wireEndGroup)), decodedError},
		{"group with truncated bytes", cat(appendKey(nil, 5, wireStartGroup), []byte{0x0a, 0x05}), decodedError},
		{"unknown bytes past end", cat(plainSeries, []byte{0x4a, 0x09, 0x00}), decodedError},
		{"unknown fixed64 past end", cat(plainSeries, []byte{0x49, 0x00}), decodedError},
		{"exemplar", seriesOf(appendBytesField(nil, 1, labelName), appendBytesField(nil, 3, appendVarintField(nil, 3, 1))), decodedOther},
		{"histogram", seriesOf(appendBytesField(nil, 1, labelName), appendBytesField(nil, 4, nil)), decodedOther},
		{"metadata", cat(plainSeries, appendBytesField(nil, 3, appendBytesField(nil, 2, []byte("up")))), decodedOther},
		{"metadata as varint", appendVarintField(nil, 3, 1), decodedError},
		{"histogram as varint", seriesOf(appendVarintField(nil, 4, 1)), decodedError},
		{"exemplar past end", seriesOf([]byte{0x1a, 0x05}), decodedError},
		// writeV1 does not look inside exemplars: gogo refuses this one, and the fast path
		// hands it to Prometheus' receiver, which answers with gogo's error.
		{"corrupt exemplar", seriesOf(appendBytesField(nil, 3, []byte{0x08, 0x01})), decodedOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, checkDecodeAgainstGogo(t, tc.raw))
		})
	}
}

// TestWriteV1DecodeReuses checks that a writeV1 decodes the next request without
// leftovers of the previous one.
func TestWriteV1DecodeReuses(t *testing.T) {
	t.Parallel()
	var w writeV1
	big := encodeV1(t, benchRequest(1, testTime()))
	require.NoError(t, w.decode(big))
	require.Len(t, w.series, benchSeriesPerWriter)
	small := encodeV1(t, []series{floatSeries(labels.FromStrings("__name__", "x"), testTime(), time.Second, 2, 0)})
	require.NoError(t, w.decode(small))
	require.Equal(t, []wireSeries{{Labels: [][2]string{{"__name__", "x"}}, Samples: [][2]uint64{
		{uint64(testTime().UnixMilli()), math.Float64bits(0)}, {uint64(testTime().UnixMilli() + 1000), math.Float64bits(1)},
	}}}, decodedSeries(&w, small))
	require.NoError(t, w.decode(seriesOf(appendBytesField(nil, 3, nil))))
	require.True(t, w.other)
	require.NoError(t, w.decode(small))
	require.False(t, w.other, "other is reset")
}

func TestWriteV1DecodeAllocations(t *testing.T) {
	raw := encodeV1(t, benchRequest(1, testTime()))
	var w writeV1
	require.NoError(t, w.decode(raw))
	allocs := testing.AllocsPerRun(10, func() {
		if err := w.decode(raw); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs, "a reused writeV1 decodes without allocating")
	require.Equal(t, "https://svc/item/7", spanString(raw, w.labels[7*7+3].value))
}
