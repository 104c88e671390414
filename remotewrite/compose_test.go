package remotewrite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/series"
)

// TestInstanceID: one instance gets no instance_id, as k6; a share of a split run or a
// pod of an Indexed Job gets its index, else the host name; --instance-id wins.
func TestInstanceID(t *testing.T) {
	t.Parallel()
	host, err := os.Hostname()
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		explicit string
		env      []string
		share    bool
		want     string
	}{
		{name: "one instance", want: ""},
		{name: "one instance, an empty index", env: []string{"JOB_COMPLETION_INDEX="}, want: ""},
		{name: "explicit", explicit: "pod-a", env: []string{"JOB_COMPLETION_INDEX=4"}, want: "pod-a"},
		{name: "indexed job", env: []string{"A=b", "JOB_COMPLETION_INDEX=4"}, want: "4"},
		{name: "a share of a split run", share: true, want: host},
		{name: "a share in an indexed job", share: true, env: []string{"JOB_COMPLETION_INDEX=2"}, want: "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, InstanceID(tc.explicit, envOf(tc.env), tc.share))
		})
	}
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

// TestNativeHistogramsOnly: native histograms asked for with k6's variables come
// instead of the trend-stat gauges, as in k6 (K6_PROMETHEUS_RW_TREND_STATS applies only
// without native histograms); seven gauges per trend came as well. Stats listed in
// Tidemark's flag or file, and Tidemark's own flag, keep sending both.
func TestNativeHistogramsOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	withStats, noStats := filepath.Join(dir, "stats.yml"), filepath.Join(dir, "none.yml")
	require.NoError(t, os.WriteFile(withStats, []byte("trend_stats: [min, max]\n"), 0o600))
	require.NoError(t, os.WriteFile(noStats, []byte("push_interval: 1s\n"), 0o600))
	on, p95 := true, "p(95)"
	native := map[string]string{"K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM": "true"}
	for _, tc := range []struct {
		name  string
		o     Overrides
		stats []string
	}{
		{"k6 variable", Overrides{Environ: native}, nil},
		{"k6 feature flag", Overrides{Environ: map[string]string{"K6_FEATURES": "native-histograms"}}, nil},
		{"k6 variable, k6 trend stats", Overrides{Environ: map[string]string{"K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM": "true", "K6_PROMETHEUS_RW_TREND_STATS": "p(95)"}}, nil},
		{"k6 variable, file without stats", Overrides{Environ: native, ConfigFile: noStats}, nil},
		{"k6 variable, embedded store", Overrides{Environ: map[string]string{"K6_FEATURES": "native-histograms"}, NativeByDefault: true}, nil},
		{"k6 variable, stats flag", Overrides{Environ: native, TrendStats: &p95}, []string{"p(95)"}},
		{"k6 variable, stats in the file", Overrides{Environ: native, ConfigFile: withStats}, []string{"min", "max"}},
		{"Tidemark's flag", Overrides{NativeHistograms: &on}, series.DefaultTrendStats},
		{"Tidemark's flag and the k6 variable", Overrides{Environ: native, NativeHistograms: &on}, series.DefaultTrendStats},
		{"embedded store", Overrides{NativeByDefault: true}, series.DefaultTrendStats},
		{"k6 variable false", Overrides{Environ: map[string]string{"K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM": "false"}}, series.DefaultTrendStats},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.o.URLs = []string{"http://a/w"}
			base, cfgs, err := Compose(tc.o)
			require.NoError(t, err)
			require.Equal(t, tc.stats, cfgs[0].Series.TrendStats)
			require.Equal(t, tc.stats, base.Series.TrendStats, "the exporter's naming too")
			require.Equal(t, tc.name != "k6 variable false", cfgs[0].Series.NativeHistograms)
		})
	}
}
