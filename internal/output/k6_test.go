package output

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

// k6Lines reads a JSON file k6 v1.8.1 wrote and returns its lines and the samples
// that made them, as Tidemark's engine would push them (time values in seconds, no
// empty tags).
func k6Lines(t *testing.T, path string) ([]string, []metrics.Sample) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	reg, pool := metrics.NewRegistry(), metrics.NewTagPool()
	var (
		lines   []string
		samples []metrics.Sample
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		var l struct {
			Type   string
			Metric string
			Data   struct {
				Type, Contains string
				Time           time.Time
				Value          float64
				Tags           map[string]string
			}
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		switch l.Type {
		case "Metric":
			typ, ok := metrics.ParseType(l.Data.Type)
			require.True(t, ok)
			vt, ok := metrics.ParseValueType(l.Data.Contains)
			require.True(t, ok)
			_, err := reg.New(l.Metric, typ, vt)
			require.NoError(t, err)
		case "Point":
			m := reg.Get(l.Metric)
			require.NotNil(t, m, l.Metric)
			var tags []metrics.Tag
			for k, v := range l.Data.Tags {
				tags = append(tags, metrics.Tag{Key: k, Value: v})
			}
			v := l.Data.Value
			if m.Contains == metrics.Time {
				v = (time.Duration(v*1e6+0.5) * time.Nanosecond).Seconds()
			}
			samples = append(samples, metrics.Sample{Metric: m, Tags: pool.Intern(tags), Time: l.Data.Time, Value: v})
		}
	}
	require.NoError(t, sc.Err())
	return lines, samples
}

// TestJSONMatchesK6 feeds the samples of real k6 runs to the JSON writer: every line
// must be k6's, byte for byte.
func TestJSONMatchesK6(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		loc          *time.Location
		thresholds   map[string][]string
		noSubmetrics bool
	}{
		{name: "group", loc: time.UTC, thresholds: map[string][]string{
			"http_req_duration": {"p(95)<500"}, "http_req_duration{status:200}": {"max<1000"},
		}},
		{name: "berlin", loc: time.FixedZone("CET", 3600)},
		{name: "no-submetrics", loc: time.UTC, noSubmetrics: true, thresholds: map[string][]string{
			"http_req_duration": {"p(95)<500"}, "http_req_duration{status:200}": {"max<1000"},
		}},
		{name: "escape", loc: time.UTC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want, samples := k6Lines(t, filepath.Join("testdata", "k6-v1.8.1-"+tc.name+".json"))
			var buf bytes.Buffer
			w := NewJSONWriter(&buf, Options{Location: tc.loc, Thresholds: tc.thresholds, NoSubmetrics: tc.noSubmetrics})
			// One batch per sample and one for all: batching must not matter.
			require.NoError(t, w.WriteSamples(samples[:1]))
			require.NoError(t, w.WriteSamples(samples[1:]))
			require.NoError(t, w.Close())
			require.Equal(t, want, strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"))
		})
	}
}

// TestCSVMatchesK6 feeds the samples of real k6 runs to the CSV writer: every row must
// be k6's, except that k6 writes extra_tags in random order and we sort them.
func TestCSVMatchesK6(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"group", "escape"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, samples := k6Lines(t, filepath.Join("testdata", "k6-v1.8.1-"+name+".json"))
			raw, err := os.ReadFile(filepath.Join("testdata", "k6-v1.8.1-"+name+".csv"))
			require.NoError(t, err)
			var buf bytes.Buffer
			w := NewCSVWriter(&buf, Unix, Options{})
			require.NoError(t, w.WriteSamples(samples))
			require.NoError(t, w.Close())
			require.True(t, strings.HasPrefix(buf.String(), CSVHeader+"\n"))

			want, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
			require.NoError(t, err)
			got, err := csv.NewReader(&buf).ReadAll()
			require.NoError(t, err)
			require.Len(t, got, len(want))
			extra := len(want[0]) - 2
			for i := range want {
				if want[i][extra] != got[i][extra] {
					require.Equal(t, sortedTags(want[i][extra]), sortedTags(got[i][extra]), "row %d extra_tags", i)
					want[i][extra] = got[i][extra]
				}
				require.Equal(t, want[i], got[i], "row %d", i)
			}
		})
	}
}

// sortedTags sorts k6's `k=v&k2=v2` by key.
func sortedTags(s string) string {
	if s == "" {
		return s
	}
	parts := strings.Split(s, "&")
	slices.Sort(parts)
	return strings.Join(parts, "&")
}
