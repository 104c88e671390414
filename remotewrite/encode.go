package remotewrite

import (
	"math"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"

	"github.com/tidemark/tidemark/internal/series"
)

// staleNaN is Prometheus' stale marker (model/value.StaleNaN).
var staleNaN = math.Float64frombits(0x7ff0000000000002)

// Header values of the two protocols.
const (
	contentTypeV1 = "application/x-protobuf"
	contentTypeV2 = "application/x-protobuf;proto=io.prometheus.write.v2.Request"
	versionV1     = "0.1.0"
	versionV2     = "2.0.0"
)

// encoder turns a batch into a snappy-compressed request body. Each series carries one
// sample at ts: its value, its native histogram, or, when stale, a stale marker. The
// returned slice is reused by the next call.
type encoder interface {
	encode(batch []series.Series, ts int64, stale bool) ([]byte, error)
	contentType() string
	version() string
}

func newEncoder(protocol string) encoder {
	if protocol == Protocol2 {
		return &encoderV2{st: writev2.NewSymbolTable()}
	}
	return &encoderV1{}
}

// encoderV1 builds prometheus.WriteRequest (remote write 1.0), as k6 does: labels
// sorted by name, no metadata.
type encoderV1 struct {
	req     prompb.WriteRequest
	labels  []prompb.Label
	samples []prompb.Sample
	hists   []prompb.Histogram
	scratch []series.Label
	raw     []byte
	out     []byte
}

func (e *encoderV1) contentType() string { return contentTypeV1 }
func (e *encoderV1) version() string     { return versionV1 }

func (e *encoderV1) encode(batch []series.Series, ts int64, stale bool) ([]byte, error) {
	nl := 0
	for i := range batch {
		nl += len(batch[i].Labels) + 1
	}
	// The TimeSeries below point into these slices, so size them up front.
	if cap(e.labels) < nl {
		e.labels = make([]prompb.Label, 0, nl)
	}
	if cap(e.samples) < len(batch) {
		e.samples = make([]prompb.Sample, 0, len(batch))
	}
	if cap(e.hists) < len(batch) {
		e.hists = make([]prompb.Histogram, 0, len(batch))
	}
	if cap(e.req.Timeseries) < len(batch) {
		e.req.Timeseries = make([]prompb.TimeSeries, 0, len(batch))
	}
	e.labels, e.samples, e.hists, e.req.Timeseries = e.labels[:0], e.samples[:0], e.hists[:0], e.req.Timeseries[:0]
	for i := range batch {
		s := &batch[i]
		start := len(e.labels)
		e.scratch = s.AppendLabels(e.scratch[:0])
		for _, l := range e.scratch {
			e.labels = append(e.labels, prompb.Label{Name: l.Name, Value: l.Value})
		}
		t := prompb.TimeSeries{Labels: e.labels[start:len(e.labels):len(e.labels)]}
		switch {
		case stale:
			e.samples = append(e.samples, prompb.Sample{Value: staleNaN, Timestamp: ts})
			t.Samples = e.samples[len(e.samples)-1 : len(e.samples) : len(e.samples)]
		case s.Histogram != nil:
			e.hists = append(e.hists, prompb.FromIntHistogram(ts, s.Histogram))
			t.Histograms = e.hists[len(e.hists)-1 : len(e.hists) : len(e.hists)]
		default:
			e.samples = append(e.samples, prompb.Sample{Value: s.Value, Timestamp: ts})
			t.Samples = e.samples[len(e.samples)-1 : len(e.samples) : len(e.samples)]
		}
		e.req.Timeseries = append(e.req.Timeseries, t)
	}
	size := e.req.Size()
	if cap(e.raw) < size {
		e.raw = make([]byte, size)
	}
	n, err := e.req.MarshalToSizedBuffer(e.raw[:size])
	if err != nil {
		return nil, err
	}
	e.out = snappy.Encode(e.out[:cap(e.out)], e.raw[size-n:size])
	return e.out, nil
}

// encoderV2 builds io.prometheus.write.v2.Request: interned symbols, and type, help
// and unit metadata on every series.
type encoderV2 struct {
	st      writev2.SymbolsTable
	req     writev2.Request
	refs    []uint32
	samples []writev2.Sample
	hists   []writev2.Histogram
	scratch []series.Label
	raw     []byte
	out     []byte
}

func (e *encoderV2) contentType() string { return contentTypeV2 }
func (e *encoderV2) version() string     { return versionV2 }

func metadataType(t series.Type) writev2.Metadata_MetricType {
	switch t {
	case series.Counter:
		return writev2.Metadata_METRIC_TYPE_COUNTER
	case series.Histogram:
		return writev2.Metadata_METRIC_TYPE_HISTOGRAM
	default:
		return writev2.Metadata_METRIC_TYPE_GAUGE
	}
}

func (e *encoderV2) encode(batch []series.Series, ts int64, stale bool) ([]byte, error) {
	nr := 0
	for i := range batch {
		nr += 2 * (len(batch[i].Labels) + 1)
	}
	if cap(e.refs) < nr {
		e.refs = make([]uint32, 0, nr)
	}
	if cap(e.samples) < len(batch) {
		e.samples = make([]writev2.Sample, 0, len(batch))
	}
	if cap(e.hists) < len(batch) {
		e.hists = make([]writev2.Histogram, 0, len(batch))
	}
	if cap(e.req.Timeseries) < len(batch) {
		e.req.Timeseries = make([]writev2.TimeSeries, 0, len(batch))
	}
	e.st.Reset()
	e.refs, e.samples, e.hists, e.req.Timeseries = e.refs[:0], e.samples[:0], e.hists[:0], e.req.Timeseries[:0]
	for i := range batch {
		s := &batch[i]
		start := len(e.refs)
		e.scratch = s.AppendLabels(e.scratch[:0])
		for _, l := range e.scratch {
			e.refs = append(e.refs, e.st.Symbolize(l.Name), e.st.Symbolize(l.Value))
		}
		t := writev2.TimeSeries{
			LabelsRefs: e.refs[start:len(e.refs):len(e.refs)],
			Metadata: writev2.Metadata{
				Type:    metadataType(s.Type),
				HelpRef: e.st.Symbolize(s.Help),
				UnitRef: e.st.Symbolize(s.Unit),
			},
		}
		switch {
		case stale:
			e.samples = append(e.samples, writev2.Sample{Value: staleNaN, Timestamp: ts})
			t.Samples = e.samples[len(e.samples)-1 : len(e.samples) : len(e.samples)]
		case s.Histogram != nil:
			e.hists = append(e.hists, writev2.FromIntHistogram(0, ts, s.Histogram))
			t.Histograms = e.hists[len(e.hists)-1 : len(e.hists) : len(e.hists)]
		default:
			e.samples = append(e.samples, writev2.Sample{Value: s.Value, Timestamp: ts})
			t.Samples = e.samples[len(e.samples)-1 : len(e.samples) : len(e.samples)]
		}
		e.req.Timeseries = append(e.req.Timeseries, t)
	}
	e.req.Symbols = e.st.Symbols()
	raw, err := e.req.OptimizedMarshal(e.raw[:0])
	if err != nil {
		return nil, err
	}
	e.raw = raw
	e.out = snappy.Encode(e.out[:cap(e.out)], raw)
	return e.out, nil
}
