package output

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

// TestSampleMetadata: a sample's metadata (k6's vu.metrics.metadata) is written
// beside its tags, never as one: "metadata" in a JSON Point, the metadata
// column of a CSV row; a sample without any has none, even after one with.
func TestSampleMetadata(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltin(reg)
	pool := metrics.NewTagPool()
	tags := pool.Intern([]metrics.Tag{{Key: "method", Value: "GET"}})
	at := time.Unix(1700000000, 0).UTC()
	samples := []metrics.Sample{
		{Metric: b.HTTPReqs, Tags: tags, Time: at, Value: 1, Metadata: map[string]string{"trace_id": "abc", "a": "x&y"}},
		{Metric: b.HTTPReqs, Tags: tags, Time: at, Value: 1},
	}
	var js bytes.Buffer
	jw := NewJSONWriter(&js, Options{Location: time.UTC})
	require.NoError(t, jw.WriteSamples(samples))
	require.NoError(t, jw.Flush())
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	require.Len(t, lines, 3)
	//nolint:testifylint // the bytes k6 writes, its HTML escaping (\u0026) included
	require.Equal(t, `{"metric":"http_reqs","type":"Point","data":{"time":"2023-11-14T22:13:20Z","value":1,"tags":{"method":"GET"},"metadata":{"a":"x\u0026y","trace_id":"abc"}}}`, lines[1])
	require.NotContains(t, lines[2], "metadata")

	var csv bytes.Buffer
	cw := NewCSVWriter(&csv, Unix, Options{})
	require.NoError(t, cw.WriteSamples(samples))
	require.NoError(t, cw.Flush())
	rows := strings.Split(strings.TrimSpace(csv.String()), "\n")
	require.Len(t, rows, 3)
	require.True(t, strings.HasSuffix(rows[1], ",a=x&y&trace_id=abc"), rows[1])
	require.True(t, strings.HasSuffix(rows[2], ",,"), rows[2])
}
