package store

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	writev2 "github.com/prometheus/prometheus/prompb/io/prometheus/write/v2"
	"github.com/stretchr/testify/require"
)

// TestLabelOfTwoToThe24 sends issue 24's label of exactly 2^24 bytes (and one over), in
// remote write 1.0 and 2.0: Prometheus' labels cannot hold it, and the fast path
// panicked on it (recovered by the HTTP server, a dropped connection). It is answered
// 400 with the size and the limit, and the store goes on storing.
func TestLabelOfTwoToThe24(t *testing.T) {
	t.Parallel()
	st := openTestStore(t, Config{})
	for _, n := range []int{1 << 24, 1<<24 + 1} {
		v1 := &prompb.WriteRequest{Timeseries: []prompb.TimeSeries{{
			Labels:  []prompb.Label{{Name: "__name__", Value: "x"}, {Name: "url", Value: strings.Repeat("u", n)}},
			Samples: []prompb.Sample{{Value: 1, Timestamp: 1000}},
		}}}
		raw1, err := v1.Marshal()
		require.NoError(t, err)
		v2 := &writev2.Request{Symbols: []string{"", "__name__", "x", "url", strings.Repeat("u", n)},
			Timeseries: []writev2.TimeSeries{{LabelsRefs: []uint32{1, 2, 3, 4}, Samples: []writev2.Sample{{Value: 1, Timestamp: 1000}}}}}
		raw2, err := v2.Marshal()
		require.NoError(t, err)
		for i, raw := range [][]byte{raw1, raw2} {
			code, body, err := post(http.DefaultClient, st.URL+"/api/v1/write", raw, i == 1)
			require.NoError(t, err, "answered, not a dropped connection")
			require.Equal(t, http.StatusBadRequest, code, body)
			require.Contains(t, body, "a label name or value is")
			require.Contains(t, body, "more than the limit of 16384")
		}
	}
	mustWrite(t, st.URL+"/api/v1/write", []series{floatSeries(labels.FromStrings("__name__", "after", "job", "x"), time.Now(), 0, 1, 1)}, false)
}

// TestRejectedWriteLogIsBounded is issue 24's log amplification: a remote-write 2.0
// request of 40 series, each with a label value over the store's limit, was answered
// with, and logged as, one error listing every series (a 786 KB request logged 16.8 MB).
// The answer is cut to 4 KiB and every logged value to 512 bytes, saying how much was
// left out: what one rejected request logs stays a fraction of its own size.
func TestRejectedWriteLogIsBounded(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	st, err := Open(Config{Dir: t.TempDir()}, slog.New(slog.NewTextHandler(&buf, nil)), prometheus.NewRegistry())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(srv.Close)
	var ss []series
	for i := range 40 {
		ss = append(ss, series{labels: labels.FromStrings("__name__", "x", "i", strings.Repeat("a", i+1), "url", strings.Repeat("u", 20_000)),
			samples: []prompb.Sample{{Value: 1, Timestamp: 1000}}})
	}
	before := buf.Len()
	code, body, err := post(http.DefaultClient, srv.URL+"/api/v1/write", encodeV2(t, ss), true)
	require.NoError(t, err)
	require.Equal(t, http.StatusBadRequest, code)
	require.Less(t, len(body), 5<<10, "the answer is cut")
	require.Contains(t, body, "more bytes)")
	logged := buf.Len() - before
	require.Less(t, logged, 64<<10, "the log lines of one rejected request:\n%.3000s", buf.String()[before:])
	require.Contains(t, buf.String(), "more bytes)")
}

// syncBuffer is a bytes.Buffer safe for the store's goroutines and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
