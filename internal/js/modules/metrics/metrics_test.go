package metrics_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	tm "github.com/tidemark/tidemark/internal/metrics"
)

const corpus = "../../testdata/corpus/"

// TestCorpusMetrics runs metrics.js through loadtest, the path `tidemark run` takes:
// the custom metrics' exact values, the thresholds on them, their lines in the summary
// and the --summary-export file, and their series under k6's Prometheus names
// (internal/series, as remote write sends them).
//
// Two of its thresholds compare trend percentiles exactly (corpus_trend med==200 and
// p(75)==300): a trend of a few hundred samples keeps its values (hist.ExactLimit), so
// its percentiles are k6's exact ones and every threshold passes.
func TestCorpusMetrics(t *testing.T) {
	t.Parallel()
	out := modulestest.RunTest(t, corpus+"metrics.js", nil)
	require.Equal(t, 0, out.ExitCode, "%v", out.Err)
	require.NoError(t, out.Err)
	for _, line := range []string{
		`✓ 'count==10' count=10`, `✓ 'value==40' value=40`, `✓ 'value==7' value=7`, `✓ 'rate==0.8' rate=80\.00%`,
		`✓ 'rate==1' rate=100\.00%`, `✓ 'min==300' min=300`, `✓ 'max==3' max=3`,
		`✓ 'min==0' min=0s`, `✓ 'max==400' max=400ms`, `✓ 'avg==200' avg=200ms`,
		`✓ 'med==200' med=200ms`, `✓ 'p\(75\)==300' p\(75\)=300ms`,
		`✓ a metric cannot be created outside init`, `✓ metric.name is the name given`,
	} {
		require.Regexp(t, line, out.Summary)
	}

	counter, ok := out.Snapshot.Metric("corpus_counter")
	require.True(t, ok)
	require.InDelta(t, 15.0, counter.Count, 1e-9)
	require.Equal(t, tm.Counter, counter.Metric.Type)
	double, ok := out.Snapshot.Submetric("corpus_counter", []tm.Tag{{Key: "kind", Value: "double"}})
	require.True(t, ok)
	require.InDelta(t, 10.0, double.Count, 1e-9)
	var tagged []string
	for _, se := range out.Snapshot.Series {
		if se.Metric.Name == "corpus_counter" {
			tagged = append(tagged, se.Tags.String())
		}
	}
	// A sample's tags are merged onto the VU's (run tags, scenario).
	require.ElementsMatch(t, []string{"{scenario:default, testid:test}", "{kind:double, scenario:default, testid:test}"}, tagged)
	trend, ok := out.Snapshot.Metric("corpus_trend")
	require.True(t, ok)
	require.Equal(t, tm.Time, trend.Metric.Contains)
	require.InDelta(t, 0.4, trend.Trend.Max(), 1e-9, "time trends carry seconds")

	for _, line := range []string{
		`corpus_counter\n    ✓ 'count==15' count=15`,
		`CUSTOM\n    corpus_counter\.+: 15 `,
		`corpus_gauge\.+: 40 +min=0 +max=40`,
		`corpus_rate\.+: 80\.00% +8 out of 10`,
		`corpus_size\.+: avg=151\.5 `,
		`corpus_trend\.+: avg=200ms +min=0s +med=200ms +max=400ms`,
	} {
		require.Regexp(t, line, out.Summary)
	}

	var export struct {
		Metrics map[string]map[string]any `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(out.Export, &export))
	require.InDelta(t, 15.0, export.Metrics["corpus_counter"]["count"], 1e-9)
	require.Equal(t, map[string]any{"count==15": false}, export.Metrics["corpus_counter"]["thresholds"])
	require.InDelta(t, 0.8, export.Metrics["corpus_rate"]["value"], 1e-9)
	require.InDelta(t, 400.0, export.Metrics["corpus_trend"]["max"], 1e-9)

	sum := func(name string) float64 {
		t.Helper()
		ss := out.Named(name)
		require.NotEmpty(t, ss, "no series %s", name)
		total := 0.0
		for _, s := range ss {
			total += s.Value
		}
		return total
	}
	require.InDelta(t, 15.0, sum("k6_corpus_counter_total"), 1e-9)
	require.Len(t, out.Named("k6_corpus_gauge"), 2) // untagged and {slot:b}
	require.Len(t, out.Named("k6_corpus_rate_rate"), 2)
	require.InDelta(t, 0.396, sum("k6_corpus_trend_p99"), 0.396*0.003) // seconds, within the histogram's resolution
	require.Len(t, out.Named("k6_corpus_size_p99"), 2)
}

// TestCorpusMetricsFail runs metrics-fail.js: three thresholds on custom metrics fail,
// so the run exits 99, and the summary marks them.
func TestCorpusMetricsFail(t *testing.T) {
	t.Parallel()
	out := modulestest.RunTest(t, corpus+"metrics-fail.js", nil)
	require.Equal(t, 99, out.ExitCode, "%v", out.Err)
	require.ErrorContains(t, out.Err, "corpus_fail_counter, corpus_fail_rate, corpus_fail_trend")
	for _, line := range []string{
		`✓ 'count==3' count=3`, `✗ 'count==4' count=3`,
		`✗ 'rate==1' rate=66\.66%`,
		`✗ 'max<100' max=150`, `✓ 'min==50' min=50`,
	} {
		require.Regexp(t, line, out.Summary)
	}
	c, ok := out.Snapshot.Metric("iterations")
	require.True(t, ok)
	require.InDelta(t, 3.0, c.Count, 1e-9)
}

// TestBadMetricName: the broken corpus script fails its init at the constructor with
// the rule (exit 107).
func TestBadMetricName(t *testing.T) {
	t.Parallel()
	path, err := filepath.Abs(corpus + "broken/bad-metric-name.js")
	require.NoError(t, err)
	_, err = modulestest.Load(t, path, nil)
	require.ErrorContains(t, err, `bad-metric-name.js:9:16: new Counter("orders-placed!"): invalid metric name "orders-placed!": expected a letter or underscore followed by 1 to 128 letters, digits or underscores`)
}

// TestThresholdsOnCustomMetrics: a threshold on a custom metric passes (exit 0) or
// fails (exit 99) as one on a built-in metric does.
func TestThresholdsOnCustomMetrics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, threshold string
		code            int
	}{
		{"counter passes", `orders: ['count==6']`, 0},
		{"counter fails", `orders: ['count>6']`, 99},
		{"sub-metric passes", `'orders{kind:big}': ['count==3']`, 0},
		{"sub-metric fails", `'orders{kind:big}': ['count<3']`, 99},
		{"time trend in milliseconds passes", `latency: ['max==250', 'min==50']`, 0},
		{"time trend fails", `latency: ['max<250']`, 99},
		{"rate passes", `ok: ['rate==0.5']`, 0},
		{"rate fails", `ok: ['rate>0.5']`, 99},
		{"gauge passes", `level: ['value==2']`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
const orders = new Counter('orders');
const latency = new Trend('latency', true);
const ok = new Rate('ok');
const level = new Gauge('level');
export const options = { vus: 1, iterations: 3, thresholds: { ` + tc.threshold + ` } };
export default function () {
  orders.add(1);
  orders.add(1, { kind: 'big' });
  latency.add([50, 150, 250][__ITER]);
  ok.add(true);
  ok.add(false);
  level.add(__ITER);
}
`})
			out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil)
			require.Equal(t, tc.code, out.ExitCode, "%v", out.Err)
		})
	}
}

// TestMetrics covers the constructors' and add's rules in a real runtime.
func TestMetrics(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import * as metrics from 'k6/metrics';

function throws(f, want) {
  try { f(); } catch (e) { return String(e).includes(want); }
  return false;
}

const c = new Counter('c1');
const same = new Counter('c1');
const g = new Gauge('g1', true);
const r = new Rate('r1');
const tr = new Trend('t1');
const clash = throws(() => new Trend('c1'), 'new Trend("c1"): metric "c1" already exists as a counter of default values');
const builtin = throws(() => new Trend('http_reqs'), 'metric "http_reqs" already exists as a counter');
const tooLong = throws(() => new Counter('a'.repeat(130)), 'invalid metric name');
const noName = throws(() => new Counter(), 'new Counter: expected a metric name');
const reserved = throws(() => new Gauge('tidemark_x'), 'new Gauge("tidemark_x"): metric names starting with "tidemark_" are reserved');
const notNew = throws(() => metrics.Counter('x1'), 'Counter is a constructor');
const addInInit = throws(() => c.add(1), 'c1.add: not available in the init context');

export default function () {
  c.add(2);
  same.add(3, { where: 'here', n: 5 });
  g.add(1500);
  r.add(true);
  r.add(0);
  r.add(7);
  tr.add('12.5');
  check(null, {
    'same name, same metric': () => c.name === 'c1' && same.name === 'c1',
    'type clash': () => clash,
    'built-in clash': () => builtin,
    'name too long': () => tooLong,
    'no name': () => noName,
    'reserved prefix': () => reserved,
    'not called with new': () => notNew,
    'add in init': () => addInInit,
    'not a number': () => throws(() => c.add('many'), 'c1.add(many): the value must be a number or a boolean'),
    'undefined': () => throws(() => c.add(), 'the value must be a number or a boolean'),
    'outside init': () => throws(() => new Gauge('g2'), 'new Gauge("g2"): only available in the init context; metrics must be declared in the init context'),
    'name is read-only': () => { try { c.name = 'x'; } catch (e) { /* strict mode */ } return c.name === 'c1'; },
  });
}
`})
	h.Iterate(t)
	checks := h.Checks()
	require.Len(t, checks, 12)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
	c := h.Collector.Of("c1")
	require.Len(t, c, 2)
	require.Same(t, c[0].Metric, c[1].Metric, "one metric for both objects")
	require.InDelta(t, 2.0, c[0].Value, 0)
	require.Equal(t, "{scenario:default, testid:t}", c[0].Tags.String())
	require.Equal(t, "{n:5, scenario:default, testid:t, where:here}", c[1].Tags.String())
	g := h.Collector.Of("g1")
	require.Len(t, g, 1)
	require.Equal(t, tm.Time, g[0].Metric.Contains)
	require.InDelta(t, 1.5, g[0].Value, 1e-12, "time gauges carry seconds")
	var rates []float64
	for _, s := range h.Collector.Of("r1") {
		rates = append(rates, s.Value)
	}
	require.Equal(t, []float64{1, 0, 7}, rates)
	tr := h.Collector.Of("t1")
	require.Len(t, tr, 1)
	require.InDelta(t, 12.5, tr[0].Value, 0)
	require.Equal(t, tm.Default, tr[0].Metric.Contains)
}

// TestMetricsInGroupsAndVUs: samples carry the current group, and the VUs of a run
// register one metric.
func TestMetricsInGroupsAndVUs(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { group } from 'k6';
import { Counter } from 'k6/metrics';
const c = new Counter('grouped');
export default function () {
  group('outer', () => { group('inner', () => c.add(1)); });
}
`})
	for range 3 {
		h.Iterate(t)
	}
	s := h.Collector.Of("grouped")
	require.Len(t, s, 3)
	for _, x := range s {
		require.Same(t, s[0].Metric, x.Metric)
		g, _ := x.Tags.Get("group")
		require.Equal(t, "::outer::inner", g)
	}
	require.Same(t, h.Runner.Registry().Get("grouped"), s[0].Metric)
}

// TestAddTagSets: the tag sets of tagged samples follow the tags and the group (the
// cache of tag sets never mixes them up), beyond the cache's bound too.
func TestAddTagSets(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { group } from 'k6';
import { Counter } from 'k6/metrics';
const c = new Counter('tagged');
export default function () {
  c.add(1, { kind: 'a' });
  c.add(1, { kind: 'b' });
  c.add(1, { kind: 'a' });
  group('g', () => c.add(1, { kind: 'a' }));
  c.add(1, { k: 'inda:b' });
  c.add(1, { 'kind:a': '' });
  for (let i = 0; i < 300; i++) { c.add(1, { id: String(i) }); }
  c.add(1, { id: '299' });
}
`})
	h.Iterate(t)
	var got []string
	for _, s := range h.Collector.Of("tagged") {
		got = append(got, s.Tags.String())
	}
	require.Len(t, got, 307)
	require.Equal(t, []string{
		"{kind:a, scenario:default, testid:t}",
		"{kind:b, scenario:default, testid:t}",
		"{kind:a, scenario:default, testid:t}",
		"{group:::g, kind:a, scenario:default, testid:t}",
		"{k:inda:b, scenario:default, testid:t}",
		"{scenario:default, testid:t}", // An empty value is no tag, as in k6.
	}, got[:6])
	require.Equal(t, "{id:0, scenario:default, testid:t}", got[6])
	require.Equal(t, "{id:299, scenario:default, testid:t}", got[305])
	require.Equal(t, got[305], got[306])
}
