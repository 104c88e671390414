package target

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

func TestParseLatency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    Latency
		wantErr string
	}{
		{in: "", want: Latency{Kind: Fixed}},
		{in: "10ms", want: Latency{Kind: Fixed, A: 10 * time.Millisecond}},
		{in: "fixed:1s", want: Latency{Kind: Fixed, A: time.Second}},
		{in: "uniform:5ms,20ms", want: Latency{Kind: Uniform, A: 5 * time.Millisecond, B: 20 * time.Millisecond}},
		{in: "normal:20ms,5ms", want: Latency{Kind: Normal, A: 20 * time.Millisecond, B: 5 * time.Millisecond}},
		{in: "lognormal:20ms,0.5", want: Latency{Kind: LogNormal, A: 20 * time.Millisecond, S: 0.5}},
		{in: "uniform:20ms,5ms", wantErr: `parse latency "uniform:20ms,5ms": expected min <= max`},
		{in: "gamma:1ms", wantErr: `parse latency "gamma:1ms": unknown distribution "gamma"; expected fixed, uniform, normal or lognormal`},
		{in: "fixed:abc", wantErr: `parse latency "fixed:abc": "abc" is not a duration such as 10ms`},
		{in: "uniform:1ms", wantErr: `parse latency "uniform:1ms": missing argument 2`},
		{in: "fixed:1ms,2ms", wantErr: `parse latency "fixed:1ms,2ms": expected 1 argument(s)`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLatency(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestLatencySample(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	u := Latency{Kind: Uniform, A: 10 * time.Millisecond, B: 20 * time.Millisecond}
	n := Latency{Kind: Normal, A: 20 * time.Millisecond, B: 5 * time.Millisecond}
	ln := Latency{Kind: LogNormal, A: 20 * time.Millisecond, S: 0.5}
	var sumN time.Duration
	var belowMedian int
	for range 10000 {
		d := u.Sample(r)
		require.GreaterOrEqual(t, d, u.A)
		require.LessOrEqual(t, d, u.B)
		sumN += n.Sample(r)
		if ln.Sample(r) < ln.A {
			belowMedian++
		}
	}
	require.InDelta(t, float64(20*time.Millisecond), float64(sumN/10000), float64(300*time.Microsecond))
	require.InDelta(t, 5000, belowMedian, 200, "the lognormal median is A")
}

func TestServerCountsAndOverrides(t *testing.T) {
	t.Parallel()
	s, err := New(Config{BodySize: 10})
	require.NoError(t, err)
	srv := httptest.NewServer(s)
	defer srv.Close()

	get := func(path string) (*http.Response, string) {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, body := get("/")
	require.Equal(t, 200, resp.StatusCode)
	require.Len(t, body, 10)
	resp, _ = get("/x?status=503")
	require.Equal(t, 503, resp.StatusCode)
	start := time.Now()
	_, body = get("/y?delay=50ms&size=2")
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	require.Len(t, body, 2)
	_, _ = get("/healthz")

	_, js := get("/stats")
	var st Stats
	require.NoError(t, json.Unmarshal([]byte(js), &st))
	require.Equal(t, int64(3), st.Requests, "/stats and /healthz are not counted")
	require.Equal(t, int64(1), st.Errors)
	require.Equal(t, map[string]int64{"200": 2, "503": 1}, st.ByStatus)
	require.Equal(t, int64(10+10+2), st.Bytes)

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewCollector(s))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP tidemark_target_requests_total Requests the target served, by status code.
# TYPE tidemark_target_requests_total counter
tidemark_target_requests_total{code="200"} 2
tidemark_target_requests_total{code="503"} 1
`), "tidemark_target_requests_total"))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
}

func TestServerErrorRatio(t *testing.T) {
	t.Parallel()
	s, err := New(Config{ErrorRatio: 0.25, ErrorStatus: 502})
	require.NoError(t, err)
	for range 4000 {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	}
	st := s.Stats()
	require.Equal(t, int64(4000), st.Requests)
	require.InDelta(t, 1000, st.ByStatus["502"], 120)
	require.Equal(t, st.ByStatus["502"], st.Errors)

	_, err = New(Config{ErrorRatio: 2})
	require.EqualError(t, err, "new target: error ratio 2 is not in [0,1]")
}

func TestServerCPUWork(t *testing.T) {
	t.Parallel()
	s, err := New(Config{CPUWork: 20 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now()
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	require.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "error ratio above 1", cfg: Config{ErrorRatio: 2}, wantErr: "new target: error ratio 2 is not in [0,1]"},
		{name: "error status not HTTP", cfg: Config{ErrorStatus: 42}, wantErr: "new target: error status 42 is not a final HTTP status; expected 200 to 999"},
		{name: "error status interim", cfg: Config{ErrorStatus: 100}, wantErr: "new target: error status 100 is not a final HTTP status; expected 200 to 999"},
		{name: "negative body size", cfg: Config{BodySize: -1}, wantErr: "new target: body size -1 is out of range; expected 0 (the default, 3 bytes) to 67108864 bytes"},
		{name: "body too large to hold in memory", cfg: Config{BodySize: 1 << 40}, wantErr: "new target: body size 1099511627776 is out of range; expected 0 (the default, 3 bytes) to 67108864 bytes"},
		{name: "negative CPU work", cfg: Config{CPUWork: -time.Second}, wantErr: "new target: CPU work -1s is negative; expected a duration of 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tc.cfg)
			require.EqualError(t, err, tc.wantErr)
		})
	}
	s, err := New(Config{BodySize: maxBodySize})
	require.NoError(t, err)
	require.Len(t, s.body, maxBodySize, "the largest body is allowed")
}
