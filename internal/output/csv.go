package output

import (
	"bufio"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
)

// csvColumns are k6's system tag columns with the default system tags, in k6's
// (alphabetical) order, between metric_value and extra_tags.
func csvColumns() []string {
	return []string{"check", "error", "error_code", "expected_response", "group", "method", "name", "proto",
		"scenario", "service", "status", "subproto", "tls_version", "url"}
}

// CSVHeader is the header line k6 v1.8.1 writes with the default system tags.
const CSVHeader = "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata"

// CSVWriter writes k6's CSV rows: metric_name, timestamp, metric_value (6 decimals,
// time metrics in milliseconds), one column per default system tag, the other tags as
// `k=v&k2=v2` (sorted by key) in extra_tags, and the sample's metadata (k6's
// vu.metrics.metadata) in the metadata column, written as extra_tags are. It is not
// safe for concurrent use.
type CSVWriter struct {
	buf    *bufio.Writer
	w      *csv.Writer
	closer io.Closer
	opts   Options
	loc    *time.Location
	format TimeFormat

	columns []string
	index   map[string]int               // Column of a system tag.
	tags    map[*metrics.TagSet][]string // The tag columns (and extra_tags) per tag set.
	row     []string
	scratch []byte
	err     error // The header's write error, returned by the first WriteSamples.
}

var _ SampleWriter = (*CSVWriter)(nil)

// NewCSVWriter returns a writer of k6's CSV to w and writes the header. format is the
// timestamp format; "" is Unix (seconds). Close closes w when it is an io.Closer.
func NewCSVWriter(w io.Writer, format TimeFormat, opts Options) *CSVWriter {
	if format == "" {
		format = Unix
	}
	c := &CSVWriter{opts: opts, loc: opts.location(), format: format, columns: csvColumns(),
		index: map[string]int{}, tags: map[*metrics.TagSet][]string{}}
	c.buf = bufio.NewWriterSize(w, bufferSize)
	c.w = csv.NewWriter(c.buf)
	if cl, ok := w.(io.Closer); ok {
		c.closer = cl
	}
	for i, k := range c.columns {
		c.index[k] = i
	}
	c.row = make([]string, 3+len(c.columns)+2)
	c.err = c.w.Write(strings.Split(CSVHeader, ","))
	return c
}

// WriteSamples writes one row per sample.
func (c *CSVWriter) WriteSamples(samples []metrics.Sample) error {
	if c.err != nil {
		return c.err
	}
	for i := range samples {
		s := &samples[i]
		if s.Metric == nil || (!c.opts.KeepRunMetadata && runMetadata(s.Metric)) {
			continue
		}
		c.row[0] = s.Metric.Name
		c.row[1] = c.timestamp(s.Time)
		c.row[2] = strconv.FormatFloat(k6Value(s.Metric, s.Value), 'f', 6, 64)
		copy(c.row[3:], c.tagColumns(s.Tags))
		if len(s.Metadata) > 0 {
			c.row[len(c.row)-1] = pairs(metadataTags(s.Metadata))
		}
		if err := c.w.Write(c.row); err != nil {
			return err
		}
	}
	return nil
}

// timestamp formats t in the writer's time format.
func (c *CSVWriter) timestamp(t time.Time) string {
	b := c.scratch[:0]
	switch c.format {
	case UnixNano:
		b = strconv.AppendInt(b, t.UnixNano(), 10)
	case UnixMicro:
		b = strconv.AppendInt(b, t.UnixMicro(), 10)
	case UnixMilli:
		b = strconv.AppendInt(b, t.UnixMilli(), 10)
	case RFC3339:
		b = t.In(c.loc).AppendFormat(b, time.RFC3339)
	case RFC3339Nano:
		b = t.In(c.loc).AppendFormat(b, time.RFC3339Nano)
	default:
		b = strconv.AppendInt(b, t.Unix(), 10)
	}
	c.scratch = b
	return string(b)
}

// tagColumns returns the system tag columns, extra_tags and metadata of a tag set.
func (c *CSVWriter) tagColumns(ts *metrics.TagSet) []string {
	if cols, ok := c.tags[ts]; ok {
		return cols
	}
	cols := make([]string, len(c.columns)+2)
	var extra strings.Builder
	for _, t := range ts.Tags() {
		if i, ok := c.index[t.Key]; ok {
			cols[i] = t.Value
			continue
		}
		if extra.Len() > 0 {
			extra.WriteByte('&')
		}
		extra.WriteString(t.Key)
		extra.WriteByte('=')
		extra.WriteString(t.Value)
	}
	cols[len(c.columns)] = extra.String()
	// metadata is the sample's, not the tag set's (WriteSamples).
	c.tags[ts] = cols
	return cols
}

// Flush writes the buffered rows to the file.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return err
	}
	return flush(c.buf, c.closer)
}

// Close flushes and closes the file.
func (c *CSVWriter) Close() error {
	c.w.Flush()
	err := c.w.Error()
	if cerr := closeAll(c.buf, c.closer); err == nil {
		err = cerr
	}
	return err
}

// pairs writes tags as k=v&k2=v2, in their order.
func pairs(tags []metrics.Tag) string {
	var b strings.Builder
	for i, t := range tags {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(t.Key)
		b.WriteByte('=')
		b.WriteString(t.Value)
	}
	return b.String()
}
