package store

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"
)

var updateFuzzSeeds = flag.Bool("update-fuzz-seeds", false, "rewrite testdata/fuzz/FuzzWrite seed corpus")

// fuzzSeeds are valid and almost-valid remote-write bodies (uncompressed protobuf), the
// starting points of FuzzWrite. testdata/fuzz/FuzzWrite holds them as files.
func fuzzSeeds(t testing.TB) map[string]struct {
	raw []byte
	v2  bool
} {
	ts := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	k6 := labels.FromStrings("__name__", "k6_http_reqs_total", "testid", "seed", "status", "200", "method", "GET")
	hist := labels.FromStrings("__name__", "k6_http_req_duration_seconds", "testid", "seed")
	float := []series{floatSeries(k6, ts, 15*time.Second, 4, 1)}
	histo := []series{histSeries(hist, ts, 15*time.Second, 3)}
	special := []series{{labels: labels.FromStrings("__name__", "special", "le", "+Inf"), samples: []prompb.Sample{
		{Timestamp: ts.UnixMilli(), Value: math.NaN()}, {Timestamp: ts.UnixMilli() + 1, Value: math.Inf(-1)},
	}}}
	return map[string]struct {
		raw []byte
		v2  bool
	}{
		"v1-floats":     {encodeV1(t, float), false},
		"v2-floats":     {encodeV2(t, float), true},
		"v1-histograms": {encodeV1(t, histo), false},
		"v2-histograms": {encodeV2(t, histo), true},
		"v1-special":    {encodeV1(t, special), false},
		"v2-no-name":    {encodeV2(t, []series{floatSeries(labels.FromStrings("job", "x"), ts, time.Second, 1, 1)}), true},
		"v1-empty":      {encodeV1(t, nil), false},
		"v2-truncated":  {encodeV2(t, float)[:20], true},
	}
}

// bodySeeds are whole request bodies for FuzzWriteBody: the compressed seeds plus bodies
// whose snappy framing lies.
func bodySeeds(t testing.TB) map[string]struct {
	raw []byte
	v2  bool
} {
	out := map[string]struct {
		raw []byte
		v2  bool
	}{
		"claims-4GiB":   {[]byte("\xff\xff\xff\xff\x0f"), false},
		"claims-32MiB":  {[]byte("\x81\x80\x80\x10\x00"), true},
		"literal-short": {[]byte("\x10\x0cabc"), false},
		"empty":         {nil, false},
	}
	for name, s := range fuzzSeeds(t) {
		out["snappy-"+name] = struct {
			raw []byte
			v2  bool
		}{snappy.Encode(nil, s.raw), s.v2}
	}
	return out
}

// TestFuzzSeedCorpus keeps testdata/fuzz/FuzzWrite and FuzzWriteBody in step with
// fuzzSeeds and bodySeeds; run with -args -update-fuzz-seeds to rewrite them.
func TestFuzzSeedCorpus(t *testing.T) {
	t.Parallel()
	writeCorpus(t, "FuzzWrite", fuzzSeeds(t))
	writeCorpus(t, "FuzzWriteBody", bodySeeds(t))
}

func writeCorpus(t *testing.T, target string, seeds map[string]struct {
	raw []byte
	v2  bool
},
) {
	files := map[string]string{}
	for name, s := range seeds {
		files[name] = fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbool(%v)\n", strconv.Quote(string(s.raw)), s.v2)
	}
	checkCorpus(t, target, files)
}

// checkCorpus compares testdata/fuzz/<target> with files (name to content), or writes
// them with -args -update-fuzz-seeds.
func checkCorpus(t *testing.T, target string, files map[string]string) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	for name, content := range files {
		path := filepath.Join(dir, name)
		if *updateFuzzSeeds {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			continue
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err, "run go test -run 'SeedCorpus' -args -update-fuzz-seeds")
		require.Equal(t, content, string(b), path)
	}
}

// FuzzWrite feeds arbitrary protobuf bodies (snappy-compressed by the harness, so that
// the fuzzer explores the decoder rather than the decompressor) to the remote-write
// receiver. It must never crash and never answer 5xx, and must keep answering queries.
func FuzzWrite(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s.raw, s.v2)
	}
	st, err := Open(Config{Dir: f.TempDir(), OutOfOrderWindow: time.Hour}, promslog.NewNopLogger(), nil)
	require.NoError(f, err)
	f.Cleanup(func() { require.NoError(f, st.Close()) })
	h := st.Handler()

	f.Fuzz(func(t *testing.T, raw []byte, v2 bool) {
		checkWrite(t, h, snappy.Encode(nil, raw), v2)
	})
}

// FuzzWriteBody feeds arbitrary request bodies, snappy framing included, to the
// remote-write receiver: lying length headers and truncated blocks must be refused cheaply.
func FuzzWriteBody(f *testing.F) {
	for _, s := range bodySeeds(f) {
		f.Add(s.raw, s.v2)
	}
	st, err := Open(Config{Dir: f.TempDir(), OutOfOrderWindow: time.Hour}, promslog.NewNopLogger(), nil)
	require.NoError(f, err)
	f.Cleanup(func() { require.NoError(f, st.Close()) })
	h := st.Handler()
	f.Fuzz(func(t *testing.T, body []byte, v2 bool) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		checkWrite(t, h, body, v2)
		runtime.ReadMemStats(&after)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<30), "bytes allocated for one request")
	})
}

// checkWrite posts body to the receiver behind h: it must answer 204, 400 or 413 (never
// 5xx, never crash) with a clear message, and the store must keep answering queries.
func checkWrite(t *testing.T, h http.Handler, body []byte, v2 bool) {
	t.Helper()
	ctype := contentTypeV1
	if v2 {
		ctype = contentTypeV2
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/write", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Content-Encoding", "snappy")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	switch rec.Code {
	case http.StatusNoContent, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
	default:
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	if rec.Code == http.StatusBadRequest {
		require.Contains(t, rec.Body.String(), "remote write: ")
	}

	q := httptest.NewRecorder()
	h.ServeHTTP(q, httptest.NewRequest(http.MethodGet, "/api/v1/query?query=count(%7B__name__%3D~%22.%2B%22%7D)", nil))
	require.Equal(t, http.StatusOK, q.Code, q.Body.String())
}
