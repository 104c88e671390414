package series_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/series/seriestest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// render prints series one per line, sorted, in a stable text form.
func render(ss []series.Series) string {
	lines := make([]string, 0, len(ss))
	for _, s := range ss {
		var b strings.Builder
		b.WriteString(s.Name)
		b.WriteByte('{')
		for i, l := range s.Labels {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%q", l.Name, l.Value)
		}
		b.WriteString("} ")
		if s.Histogram != nil {
			b.WriteString(s.Histogram.String())
		} else {
			b.WriteString(strconv.FormatFloat(s.Value, 'g', 10, 64))
		}
		fmt.Fprintf(&b, "  # %s unit=%q help=%q", s.Type, s.Unit, s.Help)
		lines = append(lines, b.String())
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  series.Config
	}{
		{name: "default", cfg: series.Config{TrendStats: series.DefaultTrendStats, TestID: "run-1"}},
		{name: "k6_default_p99", cfg: series.Config{TrendStats: []string{"p(99)"}}},
		{name: "every_stat", cfg: series.Config{
			TrendStats: []string{"count", "sum", "min", "max", "avg", "med", "p(90)", "p(95)", "p(99)", "p(99.9)", "p(0.95)"},
			TestID:     "run-1",
		}},
		{name: "native_histograms_only", cfg: series.Config{NativeHistograms: true, TestID: "run-1", InstanceID: "2"}},
		{name: "labels_and_rules", cfg: series.Config{
			TrendStats: []string{"p(95)", "count"},
			TestID:     "run-1",
			InstanceID: "pod-a",
			Labels:     map[string]string{"team": "checkout", "scenario": "overridden-by-tag", "empty": ""},
			LabelRules: []series.LabelRule{
				{Label: "url", Action: series.ActionDrop},
				{Label: "name", Regex: `http://([^/]+)/.*`, Replacement: "host:$1"},
				{Label: "error_code", Regex: `1503`, Replacement: ""},
			},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := seriestest.NewRun()
			m, err := series.NewMapper(tc.cfg)
			require.NoError(t, err)
			got := render(m.Map(nil, run.Snapshot(1)))
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(want), got)
		})
	}
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		spec, suffix, wantErr string
	}{
		{spec: "p(95)", suffix: "p95"},
		{spec: "p(99.9)", suffix: "p999"},
		{spec: "p(0.95)", suffix: "p095"},
		{spec: "p(100)", suffix: "p100"},
		{spec: " avg ", suffix: "avg"},
		{spec: "med", suffix: "med"},
		{spec: "count", suffix: "count"},
		{spec: "sum", suffix: "sum"},
		{spec: "min", suffix: "min"},
		{spec: "max", suffix: "max"},
		{spec: "p(101)", wantErr: `parse trend stat "p(101)": percentile must be a number from 0 to 100`},
		{spec: "p(-1)", wantErr: `parse trend stat "p(-1)": percentile must be a number from 0 to 100`},
		{spec: "p(1e1)", wantErr: `parse trend stat "p(1e1)": percentile must be a number from 0 to 100`},
		{spec: "p(NaN)", wantErr: `parse trend stat "p(NaN)": percentile must be a number from 0 to 100`},
		{spec: "p(0x10)", wantErr: `parse trend stat "p(0x10)": percentile must be a number from 0 to 100`},
		{spec: "p(.5)", wantErr: `parse trend stat "p(.5)": percentile must be a number from 0 to 100`},
		{spec: "p95", wantErr: `parse trend stat "p95": want count, sum, min, max, avg, med or p(x)`},
		{spec: "mean", wantErr: `parse trend stat "mean": want count, sum, min, max, avg, med or p(x)`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			st, err := series.ParseStat(tc.spec)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.suffix, st.Suffix)
		})
	}
	_, err := series.ParseStats([]string{"p(95)", "p(95)", "bad"})
	require.ErrorContains(t, err, `parse trend stat "p(95)": duplicate`)
	require.ErrorContains(t, err, `parse trend stat "bad"`)
	require.Equal(t, []string{"p(99)", "p(95)", "avg"}, series.SplitStats(" p(99), p(95),,avg "))
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     series.Config
		wantErr string
	}{
		{name: "ok", cfg: series.DefaultConfig},
		{name: "bad regex", cfg: series.Config{LabelRules: []series.LabelRule{{Label: "url", Regex: "("}}},
			wantErr: "label rule 1 (url): compile regex: error parsing regexp: missing closing ): `^(?:()$`"},
		{name: "bad action", cfg: series.Config{LabelRules: []series.LabelRule{{Label: "url", Action: "keep"}}},
			wantErr: `label rule 1 (url): unknown action "keep", want drop or replace`},
		{name: "empty label", cfg: series.Config{LabelRules: []series.LabelRule{{Action: "drop"}}},
			wantErr: "label rule 1: label is empty"},
		{name: "reserved static", cfg: series.Config{Labels: map[string]string{"__name__": "x"}},
			wantErr: `static label "__name__": name is reserved or empty`},
		{name: "unknown long label action", cfg: series.Config{LongLabelValues: "cut"},
			wantErr: `long_label_values "cut": want truncate or drop`},
		{name: "label value cap too small for its marker", cfg: series.Config{LabelValueMaxLength: 12},
			wantErr: "label_value_max_length 12: want 0 (no cap) or more than 12 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.cfg.Validate()
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestAppendLabels(t *testing.T) {
	s := series.Series{Name: "k6_x", Labels: []series.Label{{"A", "1"}, {"b", "2"}}}
	require.Equal(t, []series.Label{{"A", "1"}, {"__name__", "k6_x"}, {"b", "2"}}, s.AppendLabels(nil))
	s.Labels = []series.Label{{"A", "1"}}
	require.Equal(t, []series.Label{{"A", "1"}, {"__name__", "k6_x"}}, s.AppendLabels(nil))
	s.Labels = nil
	require.Equal(t, []series.Label{{"__name__", "k6_x"}}, s.AppendLabels(nil))
}

// TestNoVUOrIter: metadata never becomes a label, even if a tag set carries it.
func TestNoVUOrIter(t *testing.T) {
	run := seriestest.NewRun()
	m, err := series.NewMapper(series.Config{})
	require.NoError(t, err)
	out := m.Map(nil, []series.Input{{Metric: run.Builtin.Iterations, Tags: run.Tags("vu", "3", "iter", "7", "scenario", "s"), Value: 1}})
	require.Len(t, out, 1)
	require.Equal(t, []series.Label{{"scenario", "s"}}, out[0].Labels)
}

// TestMergeAfterDrop: dropping url makes series collide; they merge into one series
// per name with summed counters and rates, and merged trends.
func TestMergeAfterDrop(t *testing.T) {
	run := seriestest.NewRun()
	b := run.Builtin
	m, err := series.NewMapper(series.Config{
		TrendStats:       []string{"count", "sum", "min", "max", "p(50)"},
		NativeHistograms: true,
		LabelRules:       []series.LabelRule{{Label: "url", Action: "drop"}},
	})
	require.NoError(t, err)
	a := run.Tags("url", "/a/1", "status", "200")
	c := run.Tags("url", "/a/2", "status", "200")
	in := []series.Input{
		{Metric: b.HTTPReqs, Tags: a, Value: 5},
		{Metric: b.HTTPReqs, Tags: c, Value: 7},
		{Metric: b.HTTPReqFailed, Tags: a, Passes: 1, Total: 5},
		{Metric: b.HTTPReqFailed, Tags: c, Passes: 1, Total: 7},
		{Metric: b.VUs, Tags: a, Value: 3},
		{Metric: b.VUs, Tags: c, Value: 4},
		{Metric: b.HTTPReqDuration, Tags: a, Trend: seriestest.NewDist(0.1, 0.2, 0.3)},
		{Metric: b.HTTPReqDuration, Tags: c, Trend: seriestest.NewDist(0.4, 0.5)},
	}
	for round := range 2 {
		out := m.Map(nil, in)
		byName := map[string]series.Series{}
		for _, s := range out {
			_, dup := byName[s.Name]
			require.False(t, dup, "round %d: %s emitted twice", round, s.Name)
			require.Equal(t, []series.Label{{"status", "200"}}, s.Labels)
			byName[s.Name] = s
		}
		require.InDelta(t, 12.0, byName["k6_http_reqs_total"].Value, 1e-12)
		require.InDelta(t, 2.0/12, byName["k6_http_req_failed_rate"].Value, 1e-12)
		require.InDelta(t, 4.0, byName["k6_vus"].Value, 1e-12)
		require.InDelta(t, 5.0, byName["k6_http_req_duration_count"].Value, 1e-12)
		require.InDelta(t, 1.5, byName["k6_http_req_duration_sum"].Value, 1e-12)
		require.InDelta(t, 0.1, byName["k6_http_req_duration_min"].Value, 1e-12)
		require.InDelta(t, 0.5, byName["k6_http_req_duration_max"].Value, 1e-12)
		// Median 0.3 within a schema 3 bucket (≈9% wide).
		require.InEpsilon(t, 0.3, byName["k6_http_req_duration_p50"].Value, 0.1)
		h := byName["k6_http_req_duration_seconds"].Histogram
		require.NotNil(t, h)
		require.NoError(t, h.Validate())
		require.Equal(t, uint64(5), h.Count)
	}
}

// TestRefsStable: refs identify (name, labels) across snapshots and differ between
// series.
func TestRefsStable(t *testing.T) {
	run := seriestest.NewRun()
	m, err := series.NewMapper(series.DefaultConfig)
	require.NoError(t, err)
	first := m.Map(nil, run.Snapshot(1))
	second := m.Map(nil, run.Snapshot(2))
	refs := map[uint64]string{}
	for _, s := range first {
		key := fmt.Sprint(s.Name, s.Labels)
		prev, ok := refs[s.Ref]
		require.False(t, ok, "ref %d used by %s and %s", s.Ref, prev, key)
		refs[s.Ref] = key
	}
	for _, s := range second {
		require.Equal(t, refs[s.Ref], fmt.Sprint(s.Name, s.Labels))
	}
}

func TestTrueCount(t *testing.T) {
	// k6 divides the count of a time trend by 1000 (grafana/k6#4582); we do not.
	run := seriestest.NewRun()
	m, err := series.NewMapper(series.Config{TrendStats: []string{"count", "max"}})
	require.NoError(t, err)
	out := m.Map(nil, []series.Input{{Metric: run.Builtin.HTTPReqDuration, Tags: run.Tags(), Trend: seriestest.NewDist(0.5, 1.5, 2)}})
	require.Len(t, out, 2)
	for _, s := range out {
		switch s.Name {
		case "k6_http_req_duration_count":
			require.Equal(t, 3.0, s.Value)
			require.Empty(t, s.Unit)
		case "k6_http_req_duration_max":
			require.Equal(t, 2.0, s.Value)
			require.Equal(t, "seconds", s.Unit)
		default:
			t.Fatalf("unexpected series %s", s.Name)
		}
	}
}

func TestRateWithoutSamples(t *testing.T) {
	run := seriestest.NewRun()
	m, err := series.NewMapper(series.Config{})
	require.NoError(t, err)
	out := m.Map(nil, []series.Input{{Metric: run.Builtin.Checks, Tags: run.Tags()}, {Metric: nil}})
	require.Len(t, out, 3, "the ratio and its two counters")
	for _, s := range out {
		require.Equal(t, 0.0, s.Value, s.Name)
		require.False(t, math.IsNaN(s.Value), s.Name)
	}
}

// TestRateCounters writes a rate's passes and fails as counters under Tidemark's prefix
// besides k6's ratio gauge, which stays as k6 writes it; two instances' counters sum to
// the run's counts, their ratios do not average to its rate.
func TestRateCounters(t *testing.T) {
	t.Parallel()
	run := seriestest.NewRun()
	byName := func(instance string, passes, total uint64) map[string]series.Series {
		m, err := series.NewMapper(series.Config{TestID: "run-1", InstanceID: instance})
		require.NoError(t, err)
		out := map[string]series.Series{}
		for _, s := range m.Map(nil, []series.Input{{Metric: run.Builtin.Checks, Tags: run.Tags("check", "ok"), Passes: passes, Total: total}}) {
			out[s.Name] = s
		}
		return out
	}
	a, b := byName("0", 99, 100), byName("1", 0, 900)
	require.Len(t, a, 3)
	require.Equal(t, series.Gauge, a["k6_checks_rate"].Type)
	require.InDelta(t, 0.99, a["k6_checks_rate"].Value, 1e-12)
	passes, fails := a["tidemark_checks"+series.PassesSuffix], a["tidemark_checks"+series.FailsSuffix]
	require.Equal(t, series.Counter, passes.Type)
	require.Equal(t, series.Counter, fails.Type)
	require.Equal(t, 99.0, passes.Value)
	require.Equal(t, 1.0, fails.Value)
	require.Equal(t, []series.Label{{Name: "check", Value: "ok"}, {Name: series.LabelInstanceID, Value: "0"}, {Name: series.LabelTestID, Value: "run-1"}},
		passes.Labels, "the ratio's labels")
	require.Equal(t, passes.Labels, a["k6_checks_rate"].Labels)
	sumPasses := passes.Value + b["tidemark_checks"+series.PassesSuffix].Value
	sumTotal := sumPasses + fails.Value + b["tidemark_checks"+series.FailsSuffix].Value
	require.InDelta(t, 0.099, sumPasses/sumTotal, 1e-12, "99 of 1000")
	require.NotEqual(t, sumPasses/sumTotal, (a["k6_checks_rate"].Value+b["k6_checks_rate"].Value)/2)
	require.Equal(t, "tidemark_checks", series.RateName(run.Builtin.Checks))
}

// TestFromAggregate maps a real aggregate store: values, trend stats within the
// histogram's error, native histograms, and exact merging after a label drop.
func TestFromAggregate(t *testing.T) {
	run := seriestest.NewRun()
	b := run.Builtin
	store := aggregate.New()
	a := run.Tags("url", "/a", "status", "200")
	c := run.Tags("url", "/b", "status", "200")
	now := time.Now()
	var samples []metrics.Sample
	var all []float64
	for i := range 1000 {
		tags := a
		if i%3 == 0 {
			tags = c
		}
		v := 0.001 * float64(i+1)
		all = append(all, v)
		samples = append(samples,
			metrics.Sample{Metric: b.HTTPReqs, Tags: tags, Time: now, Value: 1},
			metrics.Sample{Metric: b.HTTPReqDuration, Tags: tags, Time: now, Value: v},
			metrics.Sample{Metric: b.HTTPReqFailed, Tags: tags, Time: now, Value: float64(i % 2)},
		)
	}
	samples = append(samples, metrics.Sample{Metric: b.VUs, Tags: run.Tags(), Time: now, Value: 7})
	store.Push(samples)
	exact := seriestest.NewDist(all...)

	for _, tc := range []struct {
		name   string
		rules  []series.LabelRule
		series int
	}{
		{name: "per url", series: 2},
		{name: "url dropped", rules: []series.LabelRule{{Label: "url", Action: series.ActionDrop}}, series: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := series.NewMapper(series.Config{TrendStats: []string{"count", "p(95)", "max"}, NativeHistograms: true, LabelRules: tc.rules})
			require.NoError(t, err)
			out := m.Map(nil, series.FromAggregate(store).Snapshot())
			var reqs, count float64
			var hcount uint64
			n := 0
			for _, s := range out {
				switch s.Name {
				case "k6_http_reqs_total":
					reqs += s.Value
					n++
				case "k6_http_req_duration_count":
					count += s.Value
				case "k6_vus":
					require.Equal(t, 7.0, s.Value)
				case "k6_http_req_duration_seconds":
					require.Equal(t, int32(3), s.Histogram.Schema)
					require.NoError(t, s.Histogram.Validate())
					hcount += s.Histogram.Count
				case "k6_http_req_duration_p95":
					if len(tc.rules) > 0 {
						require.InEpsilon(t, exact.Quantile(0.95), s.Value, 0.003, "exact merge keeps schema-7 precision")
					}
				case "k6_http_req_duration_max":
					if len(tc.rules) > 0 {
						require.Equal(t, 1.0, s.Value)
					}
				}
			}
			require.Equal(t, tc.series, n)
			require.Equal(t, 1000.0, reqs)
			require.Equal(t, 1000.0, count)
			require.Equal(t, uint64(1000), hcount)
		})
	}
}

// FuzzParseStat: any input is rejected or gives a suffix that is a valid name part.
func FuzzParseStat(f *testing.F) {
	for _, s := range []string{"p(95)", "p(99.9)", "p(0.95)", "avg", "p()", "p(1e2)", "p(NaN)", "p(+5)", " med ", "p(100.0000001)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		st, err := series.ParseStat(spec)
		if err != nil {
			return
		}
		require.NotEmpty(t, st.Suffix)
		for _, r := range st.Suffix {
			require.True(t, r >= 'a' && r <= 'z' || r >= '0' && r <= '9', "suffix %q of %q", st.Suffix, spec)
		}
	})
}

// TestLongLabelValues: a label value over label_value_max_length is truncated with a
// marker and a hash of the whole value, so two long URLs with a common start stay two
// series, each within the cap; with long_label_values: drop, the series is not mapped at
// all. Both are counted once per tag set, however many snapshots are mapped.
func TestLongLabelValues(t *testing.T) {
	run := seriestest.NewRun()
	long := "/search?q=" + strings.Repeat("é", 20_000) // 40 KB, with multi-byte runes
	in := []series.Input{
		{Metric: run.Builtin.HTTPReqs, Tags: run.Tags("url", long+"a"), Value: 1},
		{Metric: run.Builtin.HTTPReqs, Tags: run.Tags("url", long+"b"), Value: 2},
		{Metric: run.Builtin.HTTPReqs, Tags: run.Tags("url", "/short"), Value: 3},
	}
	t.Run("truncate", func(t *testing.T) {
		m, err := series.NewMapper(series.DefaultConfig)
		require.NoError(t, err)
		var out []series.Series
		for range 3 {
			out = m.Map(nil, in)
		}
		require.Len(t, out, 3, "distinct long values stay distinct series")
		seen := map[string]bool{}
		for _, s := range out {
			v := s.Labels[0].Value
			require.LessOrEqual(t, len(v), series.DefaultLabelValueMaxLength)
			require.True(t, utf8.ValidString(v), "cut on a rune boundary")
			seen[v] = true
		}
		require.Len(t, seen, 3)
		require.Equal(t, series.LongLabels{Truncated: 2, Example: "http_reqs"}, m.LongLabels())
		require.Len(t, series.TruncateValue(long+"a", 2048), 2048, "the cap, marker and hash included")
		require.Len(t, series.TruncateValue(long+"a", 2049), 2048, "cut before a rune that would cross the cap")
		require.Contains(t, series.TruncateValue(long+"a", 2048), "...#")
		require.Equal(t, "/short", series.TruncateValue("/short", 2048))
	})
	t.Run("drop", func(t *testing.T) {
		cfg := series.DefaultConfig
		cfg.LongLabelValues = series.LongDrop
		m, err := series.NewMapper(cfg)
		require.NoError(t, err)
		var out []series.Series
		for range 3 {
			out = m.Map(nil, in)
		}
		require.Len(t, out, 1)
		require.Equal(t, "/short", out[0].Labels[0].Value)
		require.Equal(t, series.LongLabels{Dropped: 2, Example: "http_reqs"}, m.LongLabels())
	})
	t.Run("no cap", func(t *testing.T) {
		m, err := series.NewMapper(series.Config{})
		require.NoError(t, err)
		out := m.Map(nil, in)
		require.Len(t, out, 3)
		require.Zero(t, m.LongLabels())
	})
}
