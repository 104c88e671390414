package jslib_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

const corpus = "../../testdata/corpus/"

// target is a stand-in for `tidemark target`: 200 "ok\n" on every path, counted.
func target(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// TestCorpusJslibUtils runs jslib-utils.js without --modules.dir: the k6-utils URL
// resolves to Tidemark's own module; every check passes (exit 0).
func TestCorpusJslibUtils(t *testing.T) {
	t.Parallel()
	url, n := target(t)
	out := modulestest.RunTest(t, corpus+"jslib-utils.js", map[string]string{"BASE_URL": url})
	require.NoError(t, out.Err)
	require.Equal(t, 0, out.ExitCode)
	require.Regexp(t, `checks_succeeded\.+: 100\.00% 11 out of 11`, out.Summary)
	require.Equal(t, int64(1), n.Load())
}

// TestCorpusJslibSummary runs jslib-summary.js: handleSummary writes textSummary to
// stdout and a file, the data as JSON and an ArrayBuffer.
func TestCorpusJslibSummary(t *testing.T) {
	t.Parallel()
	url, n := target(t)
	dir := t.TempDir()
	out := modulestest.RunTest(t, corpus+"jslib-summary.js", map[string]string{"BASE_URL": url, "SUMMARY_DIR": dir})
	require.NoError(t, out.Err)
	require.Equal(t, int64(3), n.Load())
	// jslib's layout: a thresholded metric marked ✓ in the indentation, indent ' ' and
	// four spaces before every line.
	require.Regexp(t, `(?m)^   ✓ http_reqs\.+: 3 `, out.Summary)
	require.Regexp(t, `(?m)^   ✓ checks\.+: 100\.00% ✓ 3 +✗ 0`, out.Summary)
	require.Regexp(t, `(?m)^     ✓ status is 200$`, out.Summary)
	require.NotContains(t, out.Summary, "\x1b[")
	txt, err := os.ReadFile(filepath.Join(dir, "jslib-summary.txt"))
	require.NoError(t, err)
	require.Equal(t, strings.ReplaceAll(out.Summary, "\n ", "\n"), string(txt), "the same text, without the indent")
	js, err := os.ReadFile(filepath.Join(dir, "jslib-summary.json"))
	require.NoError(t, err)
	require.Contains(t, string(js), `"count==3":{"ok":true}`)
	bin, err := os.ReadFile(filepath.Join(dir, "jslib-summary.bin"))
	require.NoError(t, err)
	require.Equal(t, []byte("tm\n"), bin)
}

// TestTextSummaryIsJslibs: textSummary writes jslib's layout (k6's summary before
// v1.0: groups and checks, then every metric in name order, thresholds as a ✓ or ✗
// mark) with exactly the numbers of the data it is given: a median of 6 is "6ms",
// never one recomputed from a rebuilt histogram (it printed 5.9878 for 6).
func TestTextSummaryIsJslibs(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { textSummary } from 'https://jslib.k6.io/k6-summary/0.1.0/index.js';
export const options = { iterations: 1 };
export default function () {}
export function handleSummary() {
  const data = {
    root_group: { name: '', path: '', id: '', checks: [{ name: 'top level', passes: 6, fails: 0 }],
      groups: [{ name: 'shop', path: '::shop', id: '', groups: [], checks: [{ name: 'even', passes: 3, fails: 3 }] }] },
    options: { summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'], summaryTimeUnit: '', noColor: true },
    state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: 2000 },
    metrics: {
      vus: { type: 'gauge', contains: 'default', values: { value: 1, min: 1, max: 2 } },
      http_reqs: { type: 'counter', contains: 'default', values: { count: 20, rate: 10 } },
      'http_req_duration{expected_response:true}': { type: 'trend', contains: 'time',
        values: { avg: 5, min: 1, med: 6, max: 12.5, 'p(90)': 11, 'p(95)': 12 } },
      http_req_duration: { type: 'trend', contains: 'time', values: { avg: 5.9878, min: 1, med: 6, max: 12.5, 'p(90)': 11, 'p(95)': 12 },
        thresholds: { 'p(95)<10': { ok: false } } },
      data_received: { type: 'counter', contains: 'data', values: { count: 4900, rate: 2450 } },
      checks: { type: 'rate', contains: 'default', values: { rate: 0.75, passes: 9, fails: 3 }, thresholds: { 'rate>0.5': { ok: true } } },
    },
  };
  return { stdout: textSummary(data, { indent: ' ', enableColors: false }) };
}
`})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil)
	require.NoError(t, out.Err)
	require.Equal(t, "\n"+
		"     ✓ top level\n"+
		"\n"+
		"     █ shop\n"+
		"\n"+
		"       ✗ even\n"+
		"        ↳  50% — ✓ 3 / ✗ 3\n"+
		"\n"+
		"   ✓ checks.........................: 75.00% ✓ 9      ✗ 3  \n"+
		"     data_received..................: 4.9 kB 2.5 kB/s\n"+
		"   ✗ http_req_duration..............: avg=5.98ms min=1ms med=6ms max=12.5ms p(90)=11ms p(95)=12ms\n"+
		"       { expected_response:true }...: avg=5ms    min=1ms med=6ms max=12.5ms p(90)=11ms p(95)=12ms\n"+
		"     http_reqs......................: 20     10/s    \n"+
		"     vus............................: 1      min=1    max=2\n"+
		"\n", out.Summary)
}

// TestUtils covers the k6-utils functions the corpus does not.
func TestUtils(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check, randomSeed } from 'k6';
import * as utils from 'https://jslib.k6.io/k6-utils/1.6.0/index.js';
import { findBetween, normalDistributionStages, randomIntBetween, randomString } from 'https://jslib.k6.io/k6-utils/1.0.0/index.js';

function throws(f, want) {
  try { f(); } catch (e) { return String(e).includes(want); }
  return false;
}

export default function () {
  randomSeed(7);
  const a = [randomIntBetween(0, 1000), randomString(12)];
  randomSeed(7);
  const b = [randomIntBetween(0, 1000), randomString(12)];
  const stages = normalDistributionStages(100, 120, 5);
  check(null, {
    'randomSeed makes them repeatable': () => a[0] === b[0] && a[1] === b[1],
    'any version resolves': () => utils.uuidv4().length === 36,
    'default charset': () => /^[a-z0-9]{200}$/.test(randomString(200)),
    'randomString(0)': () => randomString(0) === '',
    'min > max throws': () => throws(() => randomIntBetween(3, 1), 'randomIntBetween(3, 1)'),
    'randomItem of an empty array': () => utils.randomItem([]) === undefined,
    'findBetween': () => findBetween('<a>1</a><a>2</a>', '<a>', '</a>') === '1',
    'findBetween without a match': () => findBetween('abc', '<', '>') === '',
    'findBetween repeat': () => JSON.stringify(findBetween('<a>1</a><a>2</a><a>3', '<a>', '</a>', true)) === '["1","2"]',
    'findBetween repeat without a match': () => Array.isArray(findBetween('x', '<', '>', true)) && findBetween('x', '<', '>', true).length === 0,
    'normalDistributionStages': () => JSON.stringify(stages) ===
      '[{"duration":"20s","target":14},{"duration":"20s","target":61},{"duration":"20s","target":100},{"duration":"20s","target":61},{"duration":"20s","target":14},{"duration":"20s","target":0}]',
    'getCurrentStageIndex in a scenario without stages throws': () => throws(() => utils.getCurrentStageIndex(), 'has no stages'),
  });
}
`})
	h.Iterate(t)
	checks := h.Checks()
	require.Len(t, checks, 12)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
}

// TestVendoredJslibWins: with --modules.dir holding a jslib file, the script runs the
// user's copy, not Tidemark's module; other versions still resolve to Tidemark's.
// TestStageTags: k6-utils' tagWithCurrentStageIndex and tagWithCurrentStageProfile tag
// an iteration's samples with its stage (k6's documentation, "Tagging stages"); they
// threw "not supported" before, which ended every iteration of the documentation's
// examples before its request.
func TestStageTags(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { sleep, check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { getCurrentStageIndex, tagWithCurrentStageIndex, tagWithCurrentStageProfile } from 'https://jslib.k6.io/k6-utils/1.3.0/index.js';
const ticks = new Counter('ticks');
export const options = {
  scenarios: { s: { executor: 'ramping-vus', startVUs: 0, gracefulRampDown: '0s',
    stages: [{ duration: '400ms', target: 2 }, { duration: '400ms', target: 2 }, { duration: '400ms', target: 1 }] } },
};
export default function () {
  tagWithCurrentStageIndex();
  tagWithCurrentStageProfile();
  check(null, { 'the tag is the index': () => exec.vu.tags.stage === String(getCurrentStageIndex()) });
  ticks.add(1);
  sleep(0.05);
}
`})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil)
	require.NoError(t, out.Err)
	want := map[string]string{"0": "ramp-up", "1": "steady", "2": "ramp-down"}
	seen := map[string]bool{}
	for _, se := range out.Snapshot.Series {
		if se.Metric.Name != "ticks" {
			continue
		}
		stage, _ := se.Tags.Get("stage")
		profile, _ := se.Tags.Get("stage_profile")
		require.Equal(t, want[stage], profile, "stage %q", stage)
		seen[stage] = true
	}
	require.Equal(t, map[string]bool{"0": true, "1": true, "2": true}, seen, "every stage tagged its samples")
	checks, ok := out.Snapshot.Metric("checks")
	require.True(t, ok)
	require.Equal(t, checks.Total, checks.Passes, "exec.vu.tags.stage is getCurrentStageIndex()")
}

func TestVendoredJslibWins(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{
		"script.js": `
import { check } from 'k6';
import { randomIntBetween } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';
import { uuidv4 } from 'https://jslib.k6.io/k6-utils/1.2.0/index.js';
export default function () {
  check(null, {
    'the vendored copy runs': () => randomIntBetween(1, 2) === 'vendored',
    'an unvendored version is built in': () => uuidv4().length === 36,
  });
}
`,
		"vendor/jslib.k6.io/k6-utils/1.4.0/index.js": `export function randomIntBetween() { return 'vendored'; }`,
	}, modulestest.WithModulesDir("vendor"))
	h.Iterate(t)
	require.Equal(t, map[string]bool{"the vendored copy runs": true, "an unvendored version is built in": true}, h.Checks())
}

// TestJUnit: one testcase per threshold, failed ones with a failure element.
func TestJUnit(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { Counter } from 'k6/metrics';
import { jUnit } from 'https://jslib.k6.io/k6-summary/0.1.0/index.js';
const c = new Counter('orders');
export const options = { iterations: 2, thresholds: { orders: ['count==2', 'count>5'], iterations: ['count<10'] } };
export default function () { c.add(1); }
export function handleSummary(data) {
  return { stdout: jUnit(data, { name: 'shop <checkout>' }) };
}
`})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil)
	require.Equal(t, 99, out.ExitCode)
	require.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1">
  <testsuite name="shop &lt;checkout&gt;" tests="3" failures="1">
    <testcase name="iterations - count&lt;10" classname="k6"></testcase>
    <testcase name="orders - count==2" classname="k6"></testcase>
    <testcase name="orders - count&gt;5" classname="k6"><failure message="orders threshold count&gt;5 failed"></failure></testcase>
  </testsuite>
</testsuites>
`, out.Summary)
}

// TestTextSummaryOptions: indent prefixes every line, enableColors adds ANSI colours,
// and a missing data argument throws.
func TestTextSummaryOptions(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { textSummary } from 'https://jslib.k6.io/k6-summary/0.0.4/index.js';
export const options = { iterations: 1 };
export default function () {}
export function handleSummary(data) {
  let threw = '';
  try { textSummary(); } catch (e) { threw = String(e); }
  return { stdout: textSummary(data, { indent: '>>', enableColors: true }) + '\n' + threw };
}
`})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil)
	require.NoError(t, out.Err)
	require.Contains(t, out.Summary, "\x1b[")
	for l := range strings.SplitSeq(strings.TrimSpace(out.Summary), "\n") {
		if l != "" && !strings.HasPrefix(l, "GoError") {
			require.True(t, strings.HasPrefix(l, ">>"), "%q", l)
		}
	}
	require.Contains(t, out.Summary, "textSummary: expected handleSummary's data as the first argument")
}

// TestUtilsAsyncCheck: k6-utils' check waits for checks that return promises, records
// every check with its tags and resolves to whether all passed.
func TestUtilsAsyncCheck(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `import { check } from 'https://jslib.k6.io/k6-utils/1.5.0/index.js';
export const options = { thresholds: { 'checks{kind:async}': ['rate==0.5'] } };
export default async function () {
	const all = await check(2, {
		'sync pass': (v) => v === 2,
		'async pass': async (v) => v * 2 === 4,
		'async fail': (v) => Promise.resolve(v === 3),
		'plain value': false,
	}, { kind: 'async' });
	if (all !== false) throw new Error('check resolved to ' + all);
	const ok = await check(null, { 'one': () => Promise.resolve(true) });
	if (ok !== true) throw new Error('check resolved to ' + ok);
}
`})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil)
	require.NoError(t, out.Err, out.Summary)
	require.Regexp(t, `checks_succeeded\.+: 60\.00% 3 out of 5`, out.Summary)
	require.Regexp(t, `✓ 'rate==0\.5' rate=50\.00%`, out.Summary)
	require.Contains(t, out.Summary, "✗ async fail")
}
