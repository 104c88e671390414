package output

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// Options are what the JSON and CSV writers need besides the samples.
type Options struct {
	// Thresholds maps a threshold key as written (`http_req_duration` or
	// `http_req_duration{status:200}`) to its expressions, for the JSON Metric lines'
	// thresholds and submetrics.
	Thresholds map[string][]string
	// NoSubmetrics writes `"submetrics":null` on every Metric line. k6 v1.8.1 does so
	// when it makes no sub-metrics at all: with --no-thresholds and the summary
	// disabled both; otherwise it lists the thresholds' sub-metrics and, on
	// http_req_duration, its summary's {expected_response:true}.
	NoSubmetrics bool
	// Location is the time zone of the JSON times and of the CSV's RFC 3339 times; nil is
	// time.Local, as k6.
	Location *time.Location
	// KeepRunMetadata keeps Tidemark's run metadata metrics (tidemark_run_info,
	// tidemark_scenario_target, tidemark_threshold), which k6's outputs do not have;
	// by default they are left out.
	KeepRunMetadata bool
}

func (o Options) location() *time.Location {
	if o.Location == nil {
		return time.Local
	}
	return o.Location
}

// runMetadata reports whether a metric is Tidemark's run metadata rather than a k6
// metric (as internal/summary decides).
func runMetadata(m *metrics.Metric) bool { return strings.HasPrefix(m.Name, "tidemark_") }

// bufferSize is the write buffer of the file writers: large enough that a request's
// ten lines (about 3 KB) rarely reach the file on their own.
const bufferSize = 256 << 10

// JSONWriter writes k6's JSON lines (NDJSON): a Metric line the first time a metric is
// seen, then a Point line per sample. It is not safe for concurrent use.
type JSONWriter struct {
	w      *bufio.Writer
	closer io.Closer
	opts   Options
	loc    *time.Location

	metrics map[*metrics.Metric][]byte   // The `{"metric":…,"type":"Point","data":{"time":"` prefix, once declared.
	tags    map[*metrics.TagSet]tagsJSON // The encoded tags object per tag set.
	subs    map[string][]threshold.Key   // Sub-metric keys per metric name.
	buf     []byte

	// The samples of one request share their time: the last one formatted is kept.
	lastTime time.Time
	lastFmt  []byte
}

// tagsJSON is a tag set encoded as a JSON object, with and without k6's empty group.
type tagsJSON struct{ plain, grouped []byte }

var _ SampleWriter = (*JSONWriter)(nil)

// NewJSONWriter returns a writer of k6's JSON lines to w. Close closes w when it is an
// io.Closer.
func NewJSONWriter(w io.Writer, opts Options) *JSONWriter {
	j := &JSONWriter{
		w: bufio.NewWriterSize(w, bufferSize), opts: opts, loc: opts.location(),
		metrics: map[*metrics.Metric][]byte{}, tags: map[*metrics.TagSet]tagsJSON{}, subs: map[string][]threshold.Key{},
	}
	if c, ok := w.(io.Closer); ok {
		j.closer = c
	}
	for key := range opts.Thresholds {
		k, err := threshold.ParseKey(key)
		if err != nil || k.Tags == nil {
			continue
		}
		j.subs[k.Metric] = append(j.subs[k.Metric], k)
	}
	for name := range j.subs {
		slices.SortFunc(j.subs[name], func(a, b threshold.Key) int { return strings.Compare(a.Name, b.Name) })
	}
	return j
}

// WriteSamples writes the batch's lines.
func (j *JSONWriter) WriteSamples(samples []metrics.Sample) error {
	for i := range samples {
		s := &samples[i]
		if s.Metric == nil || (!j.opts.KeepRunMetadata && runMetadata(s.Metric)) {
			continue
		}
		prefix, ok := j.metrics[s.Metric]
		if !ok {
			if err := j.declare(s.Metric); err != nil {
				return err
			}
			prefix = j.metrics[s.Metric]
		}
		b := append(j.buf[:0], prefix...)
		if !s.Time.Equal(j.lastTime) || j.lastFmt == nil {
			j.lastTime = s.Time
			j.lastFmt = s.Time.In(j.loc).AppendFormat(j.lastFmt[:0], time.RFC3339Nano)
		}
		b = append(b, j.lastFmt...)
		b = append(b, `","value":`...)
		b = appendValue(b, s.Metric, s.Value)
		b = append(b, `,"tags":`...)
		b = append(b, j.tagsOf(s)...)
		if len(s.Metadata) > 0 {
			b = append(b, `,"metadata":`...)
			b = append(b, encodeTags(metadataTags(s.Metadata))...)
		}
		b = append(b, "}}\n"...)
		j.buf = b
		if _, err := j.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// declare writes m's Metric line and remembers its Point prefix.
func (j *JSONWriter) declare(m *metrics.Metric) error {
	type submetric struct {
		Name   string            `json:"name"`
		Suffix string            `json:"suffix"`
		Tags   map[string]string `json:"tags"`
	}
	type data struct {
		Name       string      `json:"name"`
		Type       string      `json:"type"`
		Contains   string      `json:"contains"`
		Thresholds []string    `json:"thresholds"`
		Submetrics []submetric `json:"submetrics"`
	}
	type line struct {
		Type   string `json:"type"`
		Data   data   `json:"data"`
		Metric string `json:"metric"`
	}
	d := data{Name: m.Name, Type: m.Type.String(), Contains: m.Contains.String(), Thresholds: []string{}}
	d.Thresholds = append(d.Thresholds, j.opts.Thresholds[m.Name]...)
	keys := j.subs[m.Name]
	if j.opts.NoSubmetrics {
		keys = nil
	} else if m.Name == "http_req_duration" {
		// k6 always makes this sub-metric, for its summary, after the thresholds' ones.
		if !slices.ContainsFunc(keys, func(k threshold.Key) bool { return k.Suffix == "expected_response:true" }) {
			keys = append(slices.Clip(keys), threshold.Key{Metric: m.Name, Name: m.Name + "{expected_response:true}",
				Suffix: "expected_response:true", Tags: []metrics.Tag{{Key: "expected_response", Value: "true"}}})
		}
	}
	for _, k := range keys {
		tags := make(map[string]string, len(k.Tags))
		for _, t := range k.Tags {
			tags[t.Key] = t.Value
		}
		d.Submetrics = append(d.Submetrics, submetric{Name: k.Name, Suffix: k.Suffix, Tags: tags})
	}
	// k6 escapes HTML characters in Point lines but not in Metric lines (a threshold
	// `p(95)<500` stays as written).
	enc := json.NewEncoder(j.w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line{Type: "Metric", Data: d, Metric: m.Name}); err != nil {
		return fmt.Errorf("encode metric %s: %w", m.Name, err)
	}
	name, _ := json.Marshal(m.Name)
	prefix := append([]byte(`{"metric":`), name...)
	j.metrics[m] = append(prefix, `,"type":"Point","data":{"time":"`...)
	return nil
}

// tagsOf returns the sample's tags as a JSON object. A sample of a VU (one with a
// scenario tag) at the root group carries `"group":""` in k6, which a TagSet cannot
// hold; vus, vus_max and dropped_iterations have no group in k6.
func (j *JSONWriter) tagsOf(s *metrics.Sample) []byte {
	e, ok := j.tags[s.Tags]
	if !ok {
		tags := s.Tags.Tags()
		e.plain = encodeTags(tags)
		_, hasScenario := s.Tags.Get("scenario")
		if _, hasGroup := s.Tags.Get("group"); hasScenario && !hasGroup {
			grouped := append(slices.Clone(tags), metrics.Tag{Key: "group"})
			slices.SortStableFunc(grouped, func(a, b metrics.Tag) int { return strings.Compare(a.Key, b.Key) })
			e.grouped = encodeTags(grouped)
		} else {
			e.grouped = e.plain
		}
		j.tags[s.Tags] = e
	}
	if s.Metric.Name == "dropped_iterations" {
		return e.plain
	}
	return e.grouped
}

// encodeTags encodes sorted tags as a JSON object, escaped as encoding/json (and k6)
// escape strings.
func encodeTags(tags []metrics.Tag) []byte {
	b := []byte{'{'}
	for i, t := range tags {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(t.Key) // A string always encodes.
		v, _ := json.Marshal(t.Value)
		b = append(b, k...)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}')
}

// metadataTags returns a sample's metadata sorted by key, to write as tags are.
func metadataTags(md map[string]string) []metrics.Tag {
	out := make([]metrics.Tag, 0, len(md))
	for _, k := range slices.Sorted(maps.Keys(md)) {
		out = append(out, metrics.Tag{Key: k, Value: md[k]})
	}
	return out
}

// appendValue appends v in k6's units and notation: a time metric's seconds become
// milliseconds, rounded to the nanosecond as k6's durations are; the number is Go's
// shortest 'g' form (0.442076, 1e-07, 1.23456789125e+08), as k6 writes it. NaN and
// infinities, which JSON cannot hold, are written as null.
func appendValue(b []byte, m *metrics.Metric, v float64) []byte {
	v = k6Value(m, v)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// k6Value converts a value to k6's unit: milliseconds for time metrics.
func k6Value(m *metrics.Metric, v float64) float64 {
	if m.Contains == metrics.Time {
		return math.Round(v*1e9) / 1e6
	}
	return v
}

// Flush writes the buffered lines to the file (through the gzip stream, when there
// is one, so that a live .gz file can be read up to here).
func (j *JSONWriter) Flush() error { return flush(j.w, j.closer) }

// Close flushes and closes the file.
func (j *JSONWriter) Close() error { return closeAll(j.w, j.closer) }

// flush flushes w, then c when it is a stream with a buffer of its own (gzip).
func flush(w *bufio.Writer, c io.Closer) error {
	if err := w.Flush(); err != nil {
		return err
	}
	if f, ok := c.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// closeAll flushes w and closes c.
func closeAll(w *bufio.Writer, c io.Closer) error {
	err := w.Flush()
	if c != nil {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
