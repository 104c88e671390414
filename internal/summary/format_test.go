package summary

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ms     float64
		forced string
		want   string
	}{
		{0, "", "0s"},
		{0.0000005, "", "0ns"},
		{0.000999, "", "999ns"},
		{0.0009999999, "", "999ns"},
		{0.001, "", "1µs"},
		{0.0015, "", "1.5µs"},
		{0.123456, "", "123.45µs"},
		{0.999999, "", "999.99µs"},
		{1, "", "1ms"},
		{1.5, "", "1.5ms"},
		{148.219, "", "148.21ms"},        // truncation, not rounding
		{148.21, "", "148.21ms"},         // exact hundredths survive float noise
		{0.14821 * 1000, "", "148.21ms"}, // seconds → ms as the summary converts
		{999.999, "", "999.99ms"},
		{1000, "", "1s"},
		{1234.5678, "", "1.23s"},
		{59999, "", "59.99s"},
		{60000, "", "1m0s"},
		{61500, "", "1m1s"}, // whole seconds beyond a minute
		{90000, "", "1m30s"},
		{3599999, "", "59m59s"},
		{3600000, "", "1h0m0s"},
		{3723000, "", "1h2m3s"},
		{90061000, "", "25h1m1s"},
		{148.216, "ms", "148.22ms"}, // a forced unit rounds
		{148.216, "s", "0.15s"},
		{148.216, "us", "148216.00µs"},
		{0, "s", "0.00s"},
	} {
		require.Equal(t, tc.want, formatDuration(tc.ms, tc.forced), "%v ms unit %q", tc.ms, tc.forced)
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		b    float64
		want string
	}{
		{0, "0 B"},
		{7, "7 B"},
		{9.5, "9.5 B"},
		{10, "10 B"},
		{718, "718 B"},
		{999, "999 B"},
		{1000, "1.0 kB"},
		{4900, "4.9 kB"},
		{4949, "4.9 kB"},
		{4950, "5.0 kB"}, // rounds half up
		{9960, "10 kB"},
		{519000, "519 kB"},
		{999_949, "1000 kB"}, // rounds to 999.9, printed without decimals
		{1e6, "1.0 MB"},      // k6's log quotient gives "1000 kB" here
		{76_123_456, "76 MB"},
		{1.5e12, "1.5 TB"},
		{1e27, "1000 YB"},
		{1e30, "1000000 YB"},
	} {
		require.Equal(t, tc.want, formatBytes(tc.b), "%v bytes", tc.b)
	}
}

func TestFormatRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0.00%"},
		{1, "100.00%"},
		{0.5, "50.00%"},
		{0.99999, "99.99%"}, // truncation: never shows 100.00% while something failed
		{0.57, "57.00%"},    // 0.57*100*100 is 5699.999… in floats
		{1.0 / 3, "33.33%"},
		{2.0 / 3, "66.66%"},
		{0.000049, "0.00%"},
		{0.0001, "0.01%"},
	} {
		require.Equal(t, tc.want, formatRate(tc.v), "%v", tc.v)
	}
}

func TestJSNumberAndFixed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		got, want string
	}{
		{jsNumber(0), "0"},
		{jsNumber(math.Copysign(0, -1)), "0"},
		{jsNumber(45), "45"},
		{jsNumber(13.122179), "13.122179"},
		{jsNumber(1e21), "1e+21"},
		{jsNumber(1.5e-7), "1.5e-7"},
		{jsNumber(123456789012), "123456789012"},
		{jsNumber(math.Inf(1)), "Infinity"},
		{jsNumber(math.NaN()), "NaN"},
		{fixedNoTrailingZeros(13.1221794, 6), "13.122179"},
		{fixedNoTrailingZeros(6.561090000001, 6), "6.56109"},
		{fixedNoTrailingZeros(45, 6), "45"},
		{fixedNoTrailingZeros(0.0000004, 6), "0"},
		{fixedNoTrailingZeros(1e22, 6), "1e+22"},
		{fixedNoTrailingZeros(-2.5, 6), "-2.5"},
		{fixedNoTrailingZerosTrunc(1.999, 2), "1.99"},
		{fixedNoTrailingZerosTrunc(1.10, 2), "1.1"},
		{toFixed(-0.0001, 2), "0.00"},
		{toFixed(2.5, 0), "2"},
	} {
		require.Equal(t, tc.want, tc.got)
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key, name string
		tags      [][2]string
		wantErr   string
	}{
		{key: "http_reqs", name: "http_reqs"},
		{key: "http_req_duration{expected_response:true}", name: "http_req_duration", tags: [][2]string{{"expected_response", "true"}}},
		{key: ` http_req_duration { scenario: "spike" , method :'GET' } `, name: "http_req_duration", tags: [][2]string{{"scenario", "spike"}, {"method", "GET"}}},
		{key: "group_duration{group:::setup}", name: "group_duration", tags: [][2]string{{"group", "::setup"}}},
		{key: "x{a:b", wantErr: `parse sub-metric "x{a:b": missing closing brace`},
		{key: "x{ab}", wantErr: `parse sub-metric "x{ab}": tag "ab" is not key:value`},
	} {
		name, tags, err := ParseKey(tc.key)
		if tc.wantErr != "" {
			require.EqualError(t, err, tc.wantErr)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.name, name)
		require.Len(t, tags, len(tc.tags))
		for i, kv := range tc.tags {
			require.Equal(t, kv[0], tags[i].Key)
			require.Equal(t, kv[1], tags[i].Value)
		}
	}
}

func TestCompareKeys(t *testing.T) {
	t.Parallel()
	require.Negative(t, compareKeys("http_req_duration", "http_req_duration{a:b}"))
	require.Positive(t, compareKeys("http_req_duration{a:b}", "http_req_duration"))
	require.Negative(t, compareKeys("http_req_duration{a:b}", "http_req_duration{b:a}"))
	require.Negative(t, compareKeys("http_req_duration{z:z}", "http_req_failed"))
	require.Zero(t, compareKeys("a", "a"))
	// JavaScript's localeCompare: case-insensitive first, punctuation before digits
	// before letters.
	require.Negative(t, compareKeys("apdex", "Bytes"))
	require.Negative(t, compareKeys("m_1", "m1"))
	require.Negative(t, compareKeys("m1", "ma"))
	require.Negative(t, compareKeys("http_req_duration", "http_reqs"))
	require.Negative(t, compareKeys("abc", "ABC"))
	require.Negative(t, compareKeys("ab", "abc"))
}
