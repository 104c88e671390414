package remotewrite

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDefaultInstanceID(t *testing.T) {
	t.Parallel()
	require.Equal(t, "4", DefaultInstanceID(envOf([]string{"A=b", "JOB_COMPLETION_INDEX=4"})))
	host, err := os.Hostname()
	require.NoError(t, err)
	require.Equal(t, host, DefaultInstanceID(nil))
	require.Equal(t, host, DefaultInstanceID(envOf([]string{"JOB_COMPLETION_INDEX="})), "an empty index is no index")
}

func TestComposeOverrides(t *testing.T) {
	t.Parallel()
	every := 2 * time.Second
	stale, native := false, true
	base, cfgs, err := Compose(Overrides{
		URLs:         []string{"http://a/w", "http://b/w"},
		PushInterval: &every, StaleMarkers: &stale, NativeHistograms: &native,
		Labels: []string{"cluster=eks"}, DropLabels: []string{"url"},
		Environ: envOf([]string{"K6_PROMETHEUS_RW_SERVER_URL=http://env/w", "K6_PROMETHEUS_RW_PUSH_INTERVAL=9s"}),
		TestID:  "t1", InstanceID: "0",
	})
	require.NoError(t, err)
	require.Len(t, cfgs, 2, "every URL is an endpoint; the environment's is replaced")
	require.Equal(t, "http://a/w", cfgs[0].URL.String())
	require.Equal(t, "http://b/w", cfgs[1].URL.String())
	for _, c := range append(cfgs, base) {
		require.Equal(t, every, time.Duration(c.PushInterval), "the override wins over the environment")
		require.False(t, c.StaleMarkers)
		require.True(t, c.Series.NativeHistograms)
		require.Equal(t, map[string]string{"cluster": "eks"}, c.Series.Labels)
		require.Equal(t, "t1", c.Series.TestID)
	}

	_, cfgs, err = Compose(Overrides{})
	require.NoError(t, err)
	require.Empty(t, cfgs, "remote write is off unless an endpoint is configured")

	_, cfgs, err = Compose(Overrides{Outputs: []string{K6Output}})
	require.NoError(t, err)
	require.Equal(t, "http://localhost:9090/api/v1/write", cfgs[0].URL.String(), "k6's default URL")

	_, _, err = Compose(Overrides{Outputs: []string{"csv=out.csv"}})
	require.EqualError(t, err, `output "csv=out.csv": the only output is experimental-prometheus-rw (the exporter serves the series for scraping)`)
}

// envOf is an environment in os.Environ form as a map.
func envOf(kvs []string) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// TestNativeByDefault: native histograms are on for a receiver known to read them,
// unless the flag or K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM says otherwise.
func TestNativeByDefault(t *testing.T) {
	t.Parallel()
	off := false
	for _, tc := range []struct {
		name string
		o    Overrides
		want bool
	}{
		{"default", Overrides{NativeByDefault: true}, true},
		{"not by default", Overrides{}, false},
		{"the flag says no", Overrides{NativeByDefault: true, NativeHistograms: &off}, false},
		{"the environment says no", Overrides{NativeByDefault: true, Environ: map[string]string{"K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM": "false"}}, false},
	} {
		tc.o.URLs = []string{"http://a/w"}
		_, cfgs, err := Compose(tc.o)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, cfgs[0].Series.NativeHistograms, tc.name)
	}
}
