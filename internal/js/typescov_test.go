package js

import (
	"bufio"
	gojson "encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/k6types"
	k6target "github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/grpctarget"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// typesDir holds @types/k6's declarations (scripts/update-types-k6.sh), k6's own list
// of its JavaScript API.
const typesDir = "testdata/types-k6"

// apiProbe says how the coverage test reaches the objects a module hands a script.
type apiProbe struct {
	// init is code run in the init context before the probes (an import's setup:
	// custom metrics, files to open); names it declares are seen by the probes.
	init string
	// objects maps a class, abstract class or interface with members to an
	// expression giving such an object in an iteration (await allowed); `mod` is the
	// module's namespace, URL the loopback target's base URL.
	objects map[string]string
	// inputs are the interfaces a script passes in (options, parameters, callbacks):
	// there is no object of the module's to look at.
	inputs []string
	// absent are types whose objects Tidemark never hands a script because it does
	// not implement what makes them (docs/browser.md lists them): their members are
	// not looked up. Every other name of the module still is.
	absent []string
}

// apiProbes covers every module of @types/k6; "global" is global.d.ts.
var apiProbes = map[string]apiProbe{
	"global":       {init: "const probeMeta = import.meta;", objects: map[string]string{"ImportMeta": "probeMeta"}},
	"k6":           {},
	"k6/crypto":    {objects: map[string]string{"Hasher": "mod.createHash('sha256')"}},
	"k6/data":      {},
	"k6/encoding":  {},
	"k6/execution": {},
	"k6/metrics": {
		init: "const probes = {counter: new mod.Counter('probe_counter'), gauge: new mod.Gauge('probe_gauge'), " +
			"rate: new mod.Rate('probe_rate'), trend: new mod.Trend('probe_trend')};",
		objects: map[string]string{"Metric": "probes.counter", "Counter": "probes.counter", "Gauge": "probes.gauge", "Rate": "probes.rate", "Trend": "probes.trend"},
	},
	"k6/timers": {},
	"k6/experimental/fs": {
		init:    "const probeFile = mod.open('script.js');",
		objects: map[string]string{"File": "probeFile", "FileInfo": "probeFile.then((f) => f.stat())"},
	},
	"k6/experimental/csv": {
		init:    "import { open as probeOpen } from 'k6/experimental/fs'; const probeCSV = probeOpen('script.js');",
		objects: map[string]string{"Parser": "probeCSV.then((f) => new mod.Parser(f))"},
		inputs:  []string{"Options"},
	},
	"k6/experimental/streams": {
		objects: map[string]string{
			"ReadableStream": "new mod.ReadableStream()", "ReadableStreamDefaultReader": "new mod.ReadableStream().getReader()",
			"ReadableStreamDefaultController": "(() => { let c; new mod.ReadableStream({start(x) { c = x; }}); return c; })()",
			"CountQueuingStrategy":            "new mod.CountQueuingStrategy()",
		},
		inputs: []string{"UnderlyingSource", "QueuingStrategy"},
	},
	"k6/ws": {
		init: "const WS = () => __ENV.URL.replace('http', 'ws') + '/ws';",
		objects: map[string]string{
			"Socket":   "(() => { let s; mod.connect(WS(), (x) => { s = x; x.on('open', () => x.close()); }); return s; })()",
			"Response": "mod.connect(WS(), (s) => s.on('open', () => s.close()))",
			"WebSocketError": "(() => { let e; mod.connect(WS(), (s) => { s.on('error', (x) => { e = e || x; }); " +
				"s.on('open', () => { s.close(); s.send('after close'); }); }); return e; })()",
		},
		inputs: []string{"Params", "Executor", "TimerHandler", "CloseEventHandler", "ErrorEventHandler", "MessageEventHandler",
			"BinaryMessageEventHandler", "OpenEventHandler", "PingEventHandler", "PongEventHandler"},
	},
	"k6/websockets": {
		init: "const WS = () => __ENV.URL.replace('http', 'ws') + '/ws';",
		objects: map[string]string{
			"WebSocket": "(() => { const w = new mod.WebSocket(WS()); w.onopen = () => w.close(); return w; })()",
			"Blob":      "new mod.Blob(['x'], {type: 'text/plain'})",
			"MessageEvent": "new Promise((res) => { const w = new mod.WebSocket(WS()); w.onopen = () => w.send('x'); " +
				"w.onmessage = (e) => { w.close(); res(e); }; })",
			"ErrorEvent": "new Promise((res) => { const w = new mod.WebSocket('ws://127.0.0.1:1/'); w.onerror = res; })",
		},
		inputs: []string{"Params", "BlobOptions"},
	},
	"k6/secrets": {objects: map[string]string{"SecretSource": "mod.default.source('probe')"}},
	"k6/net/grpc": {
		// The gRPC target at __ENV.GRPC, by reflection; a stream is ended at once.
		init: "const probeClient = new mod.Client(); let probeConnected = false;\n" +
			"const grpcClient = () => { if (!probeConnected) { probeClient.connect(__ENV.GRPC, {plaintext: true, reflect: true}); probeConnected = true; } return probeClient; };\n" +
			"const echo = (req) => grpcClient().invoke('tidemark.echo.Echo/Echo', req);",
		objects: map[string]string{
			"Client": "probeClient", "Response": "echo({text: 'x'})", "GrpcError": "echo({text: 'x', code: 3}).error",
			"HealthCheckResponse": "grpcClient().healthCheck()",
			"Stream":              "(() => { const s = new mod.Stream(grpcClient(), 'tidemark.echo.Echo/Chat'); s.end(); return s; })()",
			"StreamMessageMetadata": "new Promise((res) => { const s = new mod.Stream(grpcClient(), 'tidemark.echo.Echo/Chat'); " +
				"s.on('data', (_, meta) => res(meta)); s.write({text: 'x'}); s.end(); })",
		},
		inputs: []string{"ConnectParams", "TLSParams", "Params"},
	},
	"k6/http": {
		objects: map[string]string{
			"Response": "mod.get(URL + '/x')", "RefinedResponse": "mod.get(URL + '/x', {responseType: 'text'})",
			"FileData": "mod.file('data', 'f.txt', 'text/plain')", "CookieJar": "mod.cookieJar()",
			"ResponseCookie": "({name: 'c', value: '', domain: '', path: '/', httpOnly: false, secure: false, maxAge: 0, expires: 0})",
		},
		inputs: []string{"Params", "RefinedParams", "ObjectBatchRequest", "ObjectRefinedBatchRequest", "RequestCookie", "CookieOptions", "ExpectedStatusesObject"},
	},
	"k6/html": {
		// One document with an element of every typed kind @types/k6 declares.
		init: "const doc = `<html><head><title>t</title><base href='http://h/'><meta name='m'><link rel='x'>" +
			"<style></style><script></script></head><body><div id='d' class='c' data-x='1'><p>p</p></div>" +
			"<a href='http://u:p@h:81/p?q#f'>a</a><map name='m'><area href='/x'></map><audio></audio><video></video>" +
			"<canvas></canvas><data value='1'></data><datalist></datalist><del></del><ins></ins><embed><iframe></iframe>" +
			"<img><keygen><label>l</label><ul><li>i</li></ul><ol></ol><meter></meter><object></object><output></output>" +
			"<param><pre></pre><progress></progress><q></q><source><time></time><track><textarea></textarea>" +
			"<form><fieldset><legend>l</legend></fieldset><input name='i' value='v'><button>b</button>" +
			"<select><optgroup><option>o</option></optgroup></select></form>" +
			"<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>d</td></tr></tbody><tfoot></tfoot><col></table></body></html>`;\n" +
			"const el = (sel) => mod.parseHTML(doc).find(sel).get(0);",
		objects: map[string]string{
			"Selection": "mod.parseHTML(doc)", "FormValue": "mod.parseHTML(doc).find('form').serializeArray()[0]",
			"Attribute":              "el('div').attributes()['id']",
			"AnchorElement":          "el('a')",
			"AreaElement":            "el('area')",
			"AudioElement":           "el('audio')",
			"BaseElement":            "el('base')",
			"ButtonElement":          "el('button')",
			"CanvasElement":          "el('canvas')",
			"DataElement":            "el('data')",
			"DataListElement":        "el('datalist')",
			"DelElement":             "el('del')",
			"Element":                "el('div')",
			"EmbedElement":           "el('embed')",
			"FieldSetElement":        "el('fieldset')",
			"FormElement":            "el('form')",
			"FormFieldElement":       "el('input')",
			"HrefElement":            "el('a')",
			"IFrameElement":          "el('iframe')",
			"ImageElement":           "el('img')",
			"InputElement":           "el('input')",
			"InsElement":             "el('ins')",
			"KeygenElement":          "el('keygen')",
			"LabelElement":           "el('label')",
			"LegendElement":          "el('legend')",
			"LiElement":              "el('li')",
			"LinkElement":            "el('link')",
			"MapElement":             "el('map')",
			"MediaElement":           "el('video')",
			"MetaElement":            "el('meta')",
			"MeterElement":           "el('meter')",
			"ModElement":             "el('del')",
			"OListElement":           "el('ol')",
			"ObjectElement":          "el('object')",
			"OptGroupElement":        "el('optgroup')",
			"OptionElement":          "el('option')",
			"OutputElement":          "el('output')",
			"ParamElement":           "el('param')",
			"PreElement":             "el('pre')",
			"ProgressElement":        "el('progress')",
			"QuoteElement":           "el('q')",
			"ScriptElement":          "el('script')",
			"SelectElement":          "el('select')",
			"SourceElement":          "el('source')",
			"StyleElement":           "el('style')",
			"TableBodyElement":       "el('tbody')",
			"TableCellElement":       "el('td')",
			"TableColElement":        "el('col')",
			"TableDataCellElement":   "el('td')",
			"TableElement":           "el('table')",
			"TableFootElement":       "el('tfoot')",
			"TableHeadElement":       "el('thead')",
			"TableHeaderCellElement": "el('th')",
			"TableRowElement":        "el('tr')",
			"TableSectionElement":    "el('tbody')",
			"TextAreaElement":        "el('textarea')",
			"TimeElement":            "el('time')",
			"TitleElement":           "el('title')",
			"TrackElement":           "el('track')",
			"UListElement":           "el('ul')",
			"VideoElement":           "el('video')",
		},
	},
	"k6/browser": {
		// One browser context and page for every probe, on the target's browser test
		// page (with an iframe added for the frame locator).
		init: "export const options = { scenarios: { ui: { executor: 'shared-iterations', options: { browser: { type: 'chromium' } } } } };\n" +
			"let probeState;\n" +
			"const P = async () => { if (!probeState) { const ctx = await mod.browser.newContext({ ignoreHTTPSErrors: true }); const page = await ctx.newPage(); " +
			"const res = await page.goto(URL + '/browser.php'); await page.evaluate(() => document.body.appendChild(document.createElement('iframe'))); " +
			"probeState = { ctx, page, res }; } return probeState; };",
		objects: map[string]string{
			"Browser": "mod.browser", "BrowserType": "mod.chromium", "Device": "mod.devices['iPhone X']",
			"BrowserContext": "P().then((p) => p.ctx)", "Page": "P().then((p) => p.page)",
			"Frame":         "P().then((p) => p.page.mainFrame())",
			"Locator":       "P().then((p) => p.page.locator('h1'))",
			"FrameLocator":  "P().then((p) => p.page.locator('iframe').contentFrame())",
			"ElementHandle": "P().then((p) => p.page.$('h1'))",
			"JSHandle":      "P().then((p) => p.page.evaluateHandle(() => ({ a: 1 })))",
			"Keyboard":      "P().then((p) => p.page.keyboard)", "Mouse": "P().then((p) => p.page.mouse)",
			"Touchscreen": "P().then((p) => p.page.touchscreen)",
			"Response":    "P().then((p) => p.res)", "Request": "P().then((p) => p.res.request())",
			"ResourceTiming": "P().then((p) => p.res.request().timing())",
			"Rect":           "P().then((p) => p.page.locator('h1').boundingBox())",
			"ConsoleMessage": "P().then(async (p) => { let m; p.page.on('console', (x) => { m = m || x; }); " +
				"await p.page.evaluate(() => console.log('probe')); await p.page.title(); return m; })",
			"MetricMessage": "P().then(async (p) => { let m; p.page.on('metric', (x) => { m = m || x; }); " +
				"await p.page.evaluate(() => fetch('/browser.php').then((r) => r.text())); for (let i = 0; i < 250 && !m; i++) await p.page.waitForTimeout(20); return m; })",
			"ConnectedBrowser": "mod.chromium.connectOverCDP(__ENV.CDP)",
			"Route": "P().then(async (p) => { let r; await p.page.route('**/probe-route', (x) => { r = x; x.fulfill({ body: 'ok' }); }); " +
				"await p.page.evaluate(() => fetch('/probe-route').then((x) => x.text())); await p.page.unrouteAll(); return r; })",
			"Worker": "P().then(async (p) => { await p.page.evaluate(() => { window.__probeWorker = new Worker(URL.createObjectURL(new Blob(['setInterval(() => {}, 1000);']))); }); " +
				"for (let i = 0; i < 250 && p.page.workers().length === 0; i++) await p.page.waitForTimeout(20); return p.page.workers()[0]; })",
			"RequestFailure": "P().then(async (p) => { let f; p.page.on('requestfailed', (r) => { f = f || r.failure(); }); " +
				"await p.page.route('**/probe-fail', (x) => x.abort()); await p.page.evaluate(() => fetch('/probe-fail').catch(() => null)); " +
				"for (let i = 0; i < 250 && !f; i++) await p.page.waitForTimeout(20); await p.page.unroute('**/probe-fail'); return f; })",
			// A page of its own on an HTTPS server (the target serves no TLS).
			"SecurityDetailsObject": "P().then(async (p) => { const pg = await p.ctx.newPage(); const r = await pg.goto(__ENV.TLS + '/'); " +
				"const d = await r.securityDetails(); await pg.close(); return d; })",
		},
		inputs: []string{"CPUProfile", "NetworkProfile", "SelectOptionsObject", "TimeoutOptions", "StrictnessOptions",
			"EventSequenceOptions", "File", "KeyboardModifierOptions", "MouseDownUpOptions", "ScreenshotOptions", "PollingOptions",
			"ElementStateFilter", "NewBrowserContextOptions", "LocatorOptions", "LocatorFilterOptions", "Cookie"},
	},
	"k6/options": {inputs: []string{
		"Options", "Stage", "ObjectThreshold", "Certificate", "BaseScenario", "SharedIterationsScenario", "PerVUIterationsScenario",
		"ConstantVUsScenario", "RampingVUsScenario", "ConstantArrivalRateScenario", "RampingArrivalRateScenario", "ScenarioOptions",
	}},
}

// TestTypesK6Coverage: every exported name of every module @types/k6 declares (but
// k6/browser) exists in Tidemark's runtime: the module's values on its namespace and
// on its default export, the members of its object constants (k6/execution's vu,
// test…) and enums, and the members of every class and interface whose objects a
// script receives, looked up on real objects the module returned (a response of the
// loopback target, a parsed document, an open socket). Types a script only passes in
// are listed as inputs. A module or an interface with members that apiProbes does not
// know fails the test: the list is to be completed, not skipped.
// The table of docs/js-runtime.md is made from what the test counted and must match
// it: `go test ./internal/js -run TestTypesK6Coverage -update-coverage` rewrites it.
func TestTypesK6Coverage(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, k6target.Config{})
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<title>tls</title>")) }))
	t.Cleanup(tlsSrv.Close)
	env := map[string]string{"URL": url, "GRPC": startGRPCTarget(t), "CDP": startCDPBrowser(t), "TLS": tlsSrv.URL}
	var mu sync.Mutex
	counts := map[string][2]int{}
	t.Run("modules", func(t *testing.T) {
		for _, module := range typeModules(t) {
			t.Run(module, func(t *testing.T) {
				t.Parallel()
				m := parseTypes(t, module)
				probe, ok := apiProbes[module]
				require.True(t, ok, "%s is in @types/k6 and not in apiProbes", module)
				names := apiLookups(t, module, m, probe)
				if len(names) > 0 {
					missing := runCoverage(t, module, probe, names, env)
					require.Empty(t, missing, "%s: names @types/k6 declares that Tidemark's runtime lacks", module)
				}
				mu.Lock()
				counts[module] = [2]int{len(m.Values()), len(names)}
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	checkCoverageTable(t, counts)
}

var updateCoverage = flag.Bool("update-coverage", false, "rewrite the coverage table of docs/js-runtime.md")

const (
	coverageStart = "<!-- types-k6 coverage: made by TestTypesK6Coverage -->\n"
	coverageEnd   = "<!-- end of types-k6 coverage -->\n"
)

// checkCoverageTable requires docs/js-runtime.md to show counts, module by module.
func checkCoverageTable(t *testing.T, counts map[string][2]int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(coverageStart)
	b.WriteString("| module (@types/k6 2.3.0) | exported values | names checked (values, default export, members) | in Tidemark |\n|---|---|---|---|\n")
	for _, module := range slices.Sorted(maps.Keys(counts)) {
		c := counts[module]
		in := "all"
		if absent := apiProbes[module].absent; len(absent) > 0 {
			in = "all but the members of " + strings.Join(absent, ", ") + " (not implemented)"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %s |\n", module, c[0], c[1], in)
	}
	b.WriteString(coverageEnd)
	const doc = "../../docs/js-runtime.md"
	src, err := os.ReadFile(doc)
	require.NoError(t, err)
	start, end := strings.Index(string(src), coverageStart), strings.Index(string(src), coverageEnd)
	require.True(t, start >= 0 && end > start, "%s has no coverage table between %q and %q", doc, coverageStart, coverageEnd)
	got := string(src[start : end+len(coverageEnd)])
	if *updateCoverage {
		out := string(src[:start]) + b.String() + string(src[end+len(coverageEnd):])
		require.NoError(t, os.WriteFile(doc, []byte(out), 0o644))
		return
	}
	require.Equal(t, b.String(), got, "%s: the coverage table is stale; run this test with -update-coverage", doc)
}

// startGRPCTarget serves tidemark target's gRPC services on loopback until the test
// ends and returns their address.
func startGRPCTarget(t *testing.T) string {
	t.Helper()
	srv, err := grpctarget.New()
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Stop()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// startCDPBrowser runs a headless Chromium with remote debugging until the test ends
// and returns its DevTools WebSocket URL, for chromium.connectOverCDP.
func startCDPBrowser(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
		"--user-data-dir="+t.TempDir(), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, ws, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return strings.TrimSpace(ws)
		}
	}
	t.Fatal("chromium did not print its DevTools URL")
	return ""
}

// typeModules lists the modules of typesDir: "k6", "k6/http", …, and "global".
func typeModules(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(typesDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".d.ts") {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, typesDir+string(filepath.Separator)))
		switch rel {
		case "global.d.ts":
			out = append(out, "global")
		case "index.d.ts":
			out = append(out, "k6")
		default:
			out = append(out, "k6/"+strings.TrimSuffix(rel, "/index.d.ts"))
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(out)
	return out
}

func parseTypes(t *testing.T, module string) *k6types.Module {
	t.Helper()
	p := filepath.Join(typesDir, "global.d.ts")
	if module != "global" {
		p = filepath.Join(typesDir, strings.TrimPrefix(strings.TrimPrefix(module, "k6"), "/"), "index.d.ts")
	}
	src, err := os.ReadFile(p)
	require.NoError(t, err)
	m, err := k6types.Parse(p, src)
	require.NoError(t, err)
	return m
}

// check is one name to look up: in the iteration, `on` evaluates to the object and
// path is looked up on it ("a.b": b of a).
type check struct {
	Name string `json:"name"` // the check's name: module, type and member
	On   string `json:"on"`
	Path string `json:"path"`
}

// apiLookups lists the lookups that prove m's names exist.
func apiLookups(t *testing.T, module string, m *k6types.Module, probe apiProbe) []check {
	t.Helper()
	var out []check
	base := "mod"
	if module == "global" {
		base = "globalThis"
	}
	for _, v := range m.Values() {
		out = append(out, check{Name: v, On: base, Path: v})
		if m.Default == "namespace" {
			out = append(out, check{Name: "default." + v, On: base + ".default", Path: v})
		}
	}
	for _, d := range m.Decls {
		members := m.Members(d.Name)
		if len(members) == 0 {
			continue
		}
		switch {
		case d.Kind == k6types.Const || d.Kind == k6types.Enum:
			on := base + "." + d.Name
			if d.Name == m.Default {
				on = base + ".default"
			}
			for _, mem := range members {
				out = append(out, check{Name: d.Name + "." + mem, On: on, Path: mem})
			}
		case slices.Contains(probe.inputs, d.Name), slices.Contains(probe.absent, d.Name):
		default:
			expr, ok := probe.objects[d.Name]
			require.True(t, ok, "%s: %s %s (line %d) has members %v: give apiProbes an object of it or list it as an input", module, d.Kind, d.Name, d.Line, members)
			for _, mem := range members {
				out = append(out, check{Name: d.Name + "." + mem, On: "(" + expr + ")", Path: mem})
			}
		}
	}
	return out
}

// runCoverage runs one iteration of a script that looks every name up and returns the
// names not found.
func runCoverage(t *testing.T, module string, probe apiProbe, names []check, env map[string]string) []string {
	t.Helper()
	list, err := gojson.Marshal(names)
	require.NoError(t, err)
	imp := fmt.Sprintf("import * as mod from %q;", module)
	if module == "global" {
		imp = ""
	}
	script := fmt.Sprintf(`%s
import { check } from 'k6';
%s
const URL = __ENV.URL;
const names = %s;
function has(o, path) {
	try {
		for (const seg of path.split('.')) {
			if (o === null || o === undefined || !(seg in Object(o))) return false;
			o = o[seg];
		}
		return true;
	} catch (e) {
		return false;
	}
}
export default async function () {
	const objects = {};
	for (const n of names) {
		if (!(n.on in objects)) {
			try { objects[n.on] = await eval(n.on); } catch (e) { objects[n.on] = undefined; console.error(n.on + ': ' + e); }
		}
		check(null, { [n.name]: () => has(objects[n.on], n.path) });
	}
}
`, imp, probe.init, list)
	dir := writeFiles(t, map[string]string{"script.js": script})
	r, err := load(t, dir, "script.js", env)
	require.NoError(t, err)
	h := &harness{r: r, c: &collector{}}
	h.env = envFor(r, h.c, nil)
	v := h.vus(t, 1)[0]
	v.Iterate(bg())
	var missing []string
	seen := 0
	for _, s := range h.c.of("checks") {
		seen++
		if s.Value == 0 {
			name, _ := s.Tags.Get("check")
			missing = append(missing, name)
		}
	}
	require.Equal(t, len(names), seen, "%s: every name checked once (the iteration ended early?)", module)
	return missing
}
