package jslib_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
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
	require.Contains(t, out.Summary, " ✓ 'count==3' count=3")
	require.Contains(t, out.Summary, " ✓ 'rate==1' rate=100.00%")
	require.Regexp(t, `(?m)^     http_reqs\.+: 3 `, out.Summary, "indent ' ' before the renderer's own")
	require.NotContains(t, out.Summary, "\x1b[")
	txt, err := os.ReadFile(filepath.Join(dir, "jslib-summary.txt"))
	require.NoError(t, err)
	require.Equal(t, strings.ReplaceAll(out.Summary, "\n ", "\n"), string(txt))
	js, err := os.ReadFile(filepath.Join(dir, "jslib-summary.json"))
	require.NoError(t, err)
	require.Contains(t, string(js), `"count==3":{"ok":true}`)
	bin, err := os.ReadFile(filepath.Join(dir, "jslib-summary.bin"))
	require.NoError(t, err)
	require.Equal(t, []byte("tm\n"), bin)
}

// numbers matches the numbers of a summary line.
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// TestTextSummaryIsTheSummary: textSummary of handleSummary's data is Tidemark's own
// end-of-test summary of the same run (without the STAGES table): every line equal,
// except that the numbers of trend lines (and so their columns' widths) may differ by
// the histogram's resolution. The
// thresholds of a metric are defined in alphabetical order: the data lists them so
// (summary.WriteData), where the text summary keeps the order of definition; and the
// checks at the root run before those in groups: the data keeps each group's order,
// not the order across groups.
func TestTextSummaryIsTheSummary(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { check, group } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import { textSummary } from 'https://jslib.k6.io/k6-summary/0.0.2/index.js';

const orders = new Counter('orders');
const bytes = new Gauge('queue');
const ok = new Rate('ok');
const latency = new Trend('latency', true);
const sizes = new Trend('sizes');

export const options = {
  vus: 1, iterations: 6,
  thresholds: {
    orders: ['count==12'], 'orders{kind:big}': ['count==6'], ok: ['rate>0.4'],
    latency: ['avg<600', 'p(95)<1000'], 'sizes{kind:big}': ['max>100'], checks: ['rate>0.5'],
  },
};

export default function () {
  orders.add(1);
  orders.add(1, { kind: 'big' });
  bytes.add(__ITER * 3);
  ok.add(__ITER % 2 === 0);
  latency.add(__ITER * 111.5);
  sizes.add(__ITER, { kind: __ITER > 2 ? 'big' : 'small' });
  sizes.add(__ITER * 50, { kind: 'big' });
  check(null, { 'top level': () => true });
  group('shop', () => {
    check(__ITER, { 'even': (i) => i % 2 === 0, 'small': (i) => i < 10 });
  });
}

export function handleSummary(data) {
  return { stdout: textSummary(data, { indent: '', enableColors: false }) };
}
`})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil)
	require.NoError(t, out.Err)
	in := out.Input
	in.Stages = nil
	var own strings.Builder
	require.NoError(t, writeText(&own, in))
	want, got := strings.Split(own.String(), "\n"), strings.Split(out.Summary, "\n")
	require.Len(t, got, len(want), out.Summary)
	trendLine := regexp.MustCompile(`(avg|p\(95\))=`)
	for i := range want {
		if !trendLine.MatchString(want[i]) {
			require.Equal(t, want[i], got[i], "line %d", i)
			continue
		}
		shape := func(s string) string { return strings.Join(strings.Fields(numbers.ReplaceAllString(s, "N")), " ") }
		require.Equal(t, shape(want[i]), shape(got[i]), "line %d", i)
		wn, gn := numbers.FindAllString(want[i], -1), numbers.FindAllString(got[i], -1)
		for j := range wn {
			w := atof(t, wn[j])
			require.InDelta(t, w, atof(t, gn[j]), 0.01*w, "line %d: %s vs %s", i, want[i], got[i])
		}
	}
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
    'unsupported exports throw naming themselves': () => throws(() => utils.getCurrentStageIndex(), 'k6-utils getCurrentStageIndex is not supported by Tidemark'),
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
