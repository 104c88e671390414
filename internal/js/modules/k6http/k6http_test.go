package k6http_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grafana/sobek"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/js/modules/k6http"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
)

func tagsOf(s metrics.Sample) map[string]string {
	out := map[string]string{}
	for _, t := range s.Tags.Tags() {
		out[t.Key] = t.Value
	}
	return out
}

// testVU is a VU of the runtime as the module sees it: a runtime with the
// module's exports as the global `http`.
type testVU struct {
	rt    *sobek.Runtime
	state *modules.State
	reg   *metrics.Registry
	col   *modulestest.Collector
}

func (v *testVU) Runtime() *sobek.Runtime          { return v.rt }
func (v *testVU) State() *modules.State            { return v.state }
func (v *testVU) Registry() *metrics.Registry      { return v.reg }
func (v *testVU) Logger() *slog.Logger             { return slog.New(slog.DiscardHandler) }
func (v *testVU) enterVUContext(st *modules.State) { v.state = st }

// newVU returns a VU in its init context, and the state it gets after.
func newVU(t testing.TB) (*testVU, *modules.State) {
	t.Helper()
	return newVUWith(t, nil)
}

// execution is the run's execution state with the test's options as JSON; the
// methods the module does not call are the nil interface's.
type execution struct {
	modules.Execution
	options string
}

func (e execution) Options() []byte { return []byte(e.options) }

// newVUWith is newVU in a run of exec (nil: none).
func newVUWith(t testing.TB, exec modules.Execution) (*testVU, *modules.State) {
	t.Helper()
	rt := sobek.New()
	rt.SetFieldNameMapper(sobek.UncapFieldNameMapper())
	reg := metrics.NewRegistry()
	pool := metrics.NewTagPool()
	col := &modulestest.Collector{}
	env := &engine.VUEnv{
		Pusher:    col,
		Metrics:   metrics.RegisterBuiltin(reg),
		Pool:      pool,
		Tags:      pool.Intern([]metrics.Tag{{Key: "scenario", Value: "default"}, {Key: "testid", Value: "t"}}),
		UserAgent: "tidemark-test",
	}
	vu := &testVU{rt: rt, reg: reg, col: col}
	inst, err := k6http.New().NewInstance(vu)
	require.NoError(t, err)
	obj := rt.NewObject()
	for k, v := range inst.Exports().Named {
		require.NoError(t, obj.Set(k, v))
	}
	require.NoError(t, rt.Set("http", obj))
	return vu, modules.NewState(env, 1, nil, exec)
}

// vuContext returns a VU out of its init context.
func vuContext(t testing.TB) *testVU {
	t.Helper()
	vu, st := newVU(t)
	vu.enterVUContext(st)
	return vu
}

// run runs js and returns its value exported.
func (v *testVU) run(t testing.TB, js string) any {
	t.Helper()
	val, err := v.rt.RunString(js)
	require.NoError(t, err)
	return val.Export()
}

// echoHandler answers what it got as JSON, and sets cookies and redirects on
// request.
func echoHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(strings.NewReader(string(b)))
			if err == nil {
				b, _ = io.ReadAll(zr)
			}
		}
		var cookies []string
		for _, c := range r.Cookies() {
			cookies = append(cookies, c.Name+"="+c.Value)
		}
		sort.Strings(cookies)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		fmt.Fprintf(w, `{"method":%q,"uri":%q,"body":%q,"ct":%q,"x":%q,"cookies":%q}`,
			r.Method, r.URL.RequestURI(), b, r.Header.Get("Content-Type"), r.Header.Get("X-Test"), strings.Join(cookies, ";"))
	})
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		for k, v := range r.URL.Query() {
			http.SetCookie(w, &http.Cookie{Name: k, Value: v[0], Path: "/", HttpOnly: true, MaxAge: 60})
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
		if err != nil {
			code = http.StatusBadRequest
		}
		w.WriteHeader(code)
	})
	mux.HandleFunc("/slow", func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"name":{"first":"Tom","last":"Anderson"},"age":37,"children":["Sara","Alex","Jack"],
			"fav.movie":"Deer Hunter","friends":[
			{"first":"Dale","last":"Murphy","age":44,"nets":["ig","fb","tw"]},
			{"first":"Roger","last":"Craig","age":68,"nets":["fb","tw"]},
			{"first":"Jane","last":"Murphy","age":47,"nets":["ig","tw"]}]}`)
	})
	return mux
}

// vuWithServer returns a VU out of its init context and the URL of an
// echoHandler server, which scripts see as BASE.
func vuWithServer(t testing.TB) (*testVU, string) {
	t.Helper()
	srv := httptest.NewServer(echoHandler())
	t.Cleanup(srv.Close)
	vu := vuContext(t)
	require.NoError(t, vu.rt.Set("BASE", srv.URL))
	return vu, srv.URL
}

func TestRequestFunctions(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	got := vu.run(t, `
		const out = [];
		const p = { headers: { 'X-Test': 'yes' } };
		for (const r of [
			http.get(BASE + '/echo?a=1', p),
			http.post(BASE + '/echo', 'raw', p),
			http.put(BASE + '/echo', { a: '1', b: 'x y' }),
			http.patch(BASE + '/echo', JSON.stringify({ a: 1 }), { headers: { 'Content-Type': 'application/json' } }),
			http.del(BASE + '/echo', null, p),
			http.options(BASE + '/echo'),
			http.request('POST', BASE + '/echo', new Uint8Array([104, 105]).buffer),
			http.post(BASE + '/echo', 'zipped', { compression: 'gzip' }),
		]) {
			const j = r.json();
			out.push([r.status, j.method, j.uri, j.body, j.ct, j.x].join('|'));
		}
		out.push(http.head(BASE + '/echo').body === '' ? 'head-empty' : 'head-body');
		out;
	`)
	require.Equal(t, []any{
		"200|GET|/echo?a=1|||yes",
		"200|POST|/echo|raw||yes",
		"200|PUT|/echo|a=1&b=x+y|application/x-www-form-urlencoded|",
		`200|PATCH|/echo|{"a":1}|application/json|`,
		"200|DELETE|/echo|||yes",
		"200|OPTIONS|/echo|||",
		"200|POST|/echo|hi||",
		"200|POST|/echo|zipped||",
		"head-empty",
	}, got)
}

// TestFormBody: an object body is sent as k6 sends it (k6-http/request docs,
// "Form-encoded request bodies"): an array is one field per element, null and
// undefined are empty fields, and the fields are sorted by name (k6 keeps the
// object in a Go map); in a multipart body an array is one part per element.
func TestFormBody(t *testing.T) {
	t.Parallel()
	var parts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			parts = append(parts, strings.Join(r.MultipartForm.Value["a"], ","))
			return
		}
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	vu := vuContext(t)
	require.NoError(t, vu.rt.Set("URL", srv.URL))
	got := vu.run(t, `[
		http.post(URL, { z: 'last', a: ['1', '2', '3'], n: 5 }).body,
		http.post(URL, { a: [1, null, 'x y'], e: null, u: undefined, t: true }).body,
		http.post(URL, { a: [], b: 'only' }).body,
		http.post(URL, { a: ['1', '2'], f: http.file('x', 'f.txt') }).status,
	]`)
	require.Equal(t, []any{
		"a=1&a=2&a=3&n=5&z=last",
		"a=1&a=&a=x+y&e=&t=true&u=",
		"b=only",
		int64(200),
	}, got)
	require.Equal(t, []string{"1,2"}, parts)
}

func TestMultipartFile(t *testing.T) {
	t.Parallel()
	var got struct {
		field, name, ct, data string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got.field = r.FormValue("field")
		f, h, err := r.FormFile("upload")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(f)
		got.name, got.ct, got.data = h.Filename, h.Header.Get("Content-Type"), string(b)
	}))
	defer srv.Close()
	vu := vuContext(t)
	require.NoError(t, vu.rt.Set("URL", srv.URL))
	require.EqualValues(t, 200, vu.run(t, `
		const f = http.file('file body', 'a.txt', 'text/plain');
		if (f.filename !== 'a.txt' || f.content_type !== 'text/plain') throw new Error('FileData fields');
		http.post(URL, { field: 'v', upload: f }).status;
	`))
	require.Equal(t, "v", got.field)
	require.Equal(t, "a.txt", got.name)
	require.Equal(t, "text/plain", got.ct)
	require.Equal(t, "file body", got.data)
}

func TestSamplesAndTags(t *testing.T) {
	t.Parallel()
	vu, base := vuWithServer(t)
	vu.state.SetGroup("::g")
	vu.run(t, `
		const id = 42;
		http.get(http.url`+"`${BASE}/echo?id=${id}`"+`);
		http.get(BASE + '/echo', { tags: { name: 'named', team: 'a' } });
		http.get(BASE + '/status/404');
		http.get(BASE + '/redirect');
	`)
	reqs := vu.col.Of("http_reqs")
	require.Len(t, reqs, 5, "each redirect hop is a request")
	want := func(url, status string, extra map[string]string) map[string]string {
		m := map[string]string{
			"scenario": "default", "testid": "t", "group": "::g", "method": "GET", "url": url, "name": url,
			"status": status, "proto": "HTTP/1.1", "expected_response": "true",
		}
		maps.Copy(m, extra)
		return m
	}
	require.Equal(t, want("${}/echo?id=${}", "200", nil), tagsOf(reqs[0]), "http.url's name is the template")
	require.Equal(t, want("named", "200", map[string]string{"team": "a"}), tagsOf(reqs[1]))
	require.Equal(t, want(base+"/status/404", "404", map[string]string{"expected_response": "false", "error_code": "1404"}), tagsOf(reqs[2]))
	require.Equal(t, want(base+"/redirect", "302", nil), tagsOf(reqs[3]))
	require.Equal(t, want(base+"/echo", "200", nil), tagsOf(reqs[4]))
	for _, name := range []string{"http_req_duration", "http_req_failed", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking", "http_req_sending", "http_req_waiting", "http_req_receiving"} {
		require.Len(t, vu.col.Of(name), 5, name)
	}
	require.InDelta(t, 1, vu.col.Of("http_req_failed")[2].Value, 0)
	var sent, recv float64
	for _, s := range vu.col.Of("data_sent") {
		sent += s.Value
		require.Equal(t, map[string]string{"scenario": "default", "testid": "t"}, tagsOf(s))
	}
	for _, s := range vu.col.Of("data_received") {
		recv += s.Value
	}
	require.Positive(t, sent)
	require.Positive(t, recv)

	// The VU's own tags (vu.metrics.tags) go on every sample, and data_* keep
	// out of the group.
	vu.state.SetVUTag("area", "x", false)
	vu.run(t, `http.get(BASE + '/echo')`)
	reqs = vu.col.Of("http_reqs")
	require.Equal(t, "x", tagsOf(reqs[len(reqs)-1])["area"])
	data := vu.col.Of("data_sent")
	require.Equal(t, map[string]string{"scenario": "default", "testid": "t", "area": "x"}, tagsOf(data[len(data)-1]))
}

func TestResponse(t *testing.T) {
	t.Parallel()
	vu, base := vuWithServer(t)
	got := vu.run(t, `
		const r = http.get(BASE + '/redirect', { headers: { 'X-Test': 'h' }, cookies: { c1: 'v1' } });
		const s = http.get(BASE + '/set?k=v');
		const t = r.timings;
		({
			status: r.status, status_text: r.status_text, proto: r.proto, url: r.url, error: r.error, error_code: r.error_code,
			ct: r.headers['Content-Type'], multi: r.headers['X-Multi'], remote: r.remote_ip !== '' && r.remote_port > 0,
			timings: t.duration >= 0 && Math.abs(t.duration - (t.sending + t.waiting + t.receiving)) < 1e-9 && t.blocked >= 0 && t.connecting >= 0 && t.tls_handshaking === 0,
			req: [r.request.method, r.request.url, r.request.headers['X-Test'][0], r.request.cookies.c1[0].value, r.request.cookies.c1[0].replace].join('|'),
			cookie: [s.cookies.k[0].name, s.cookies.k[0].value, s.cookies.k[0].http_only, s.cookies.k[0].max_age, s.cookies.k[0].path].join('|'),
			same: r.json() === r.json(),
			bodyType: typeof r.body,
		});
	`)
	require.Equal(t, map[string]any{
		"status": int64(200), "status_text": "200 OK", "proto": "HTTP/1.1", "url": base + "/echo", "error": "", "error_code": int64(0),
		"ct": "application/json", "multi": "a, b", "remote": true, "timings": true,
		"req":    "GET|" + base + "/echo|h|v1|false",
		"cookie": "k|v|true|60|/",
		"same":   true, "bodyType": "string",
	}, got)
}

func TestResponseTypes(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	require.Equal(t, []any{true, true, int64(4)}, vu.run(t, `[
		http.get(BASE + '/status/200', { responseType: 'none' }).body === null,
		http.get(BASE + '/echo', { responseType: 'binary' }).body instanceof ArrayBuffer,
		http.get(BASE + '/echo', { responseType: 'binary' }).json('#') === undefined ? 4 : 0,
	]`))
	_, err := vu.rt.RunString(`http.get(BASE, { responseType: 'json' })`)
	require.ErrorContains(t, err, `http.get: params.responseType: parse response type "json"`)
}

func TestErrorsAndTimeouts(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	require.Equal(t, []any{
		"0|1050|request timeout",
		"0|1050|request timeout",
		"503|1503|",
		"0|1212|dial: connection refused",
	}, vu.run(t, `[
		http.get(BASE + '/slow', { timeout: 20 }),
		http.get(BASE + '/slow', { timeout: '20ms' }),
		http.get(BASE + '/status/503'),
		http.get('http://127.0.0.1:1/'),
	].map((r) => [r.status, r.error_code, r.error].join('|'))`))
	for _, tc := range []struct{ js, err string }{
		{`http.get(BASE, { auth: 'ntlm' })`, `http.get: params.auth "ntlm" is not supported by Tidemark (basic and digest are)`},
		{`http.post(BASE, 'x', { compression: 'br' })`, `http.post: params.compression "br" is not supported by Tidemark (gzip and deflate are)`},
		{`http.get(BASE, { timeout: 'soon' })`, `http.get: params.timeout "soon": want a duration ("60s") or milliseconds`},
		{`http.get(BASE, { jar: {} })`, `http.get: params.jar: expected a http.CookieJar`},
		{`http.get()`, `http.get: expected a URL`},
		{`http.asyncRequest('GET', BASE)`, `http.asyncRequest is not supported by Tidemark`},
		{`http.get(BASE + '/echo').submitForm()`, `submitForm: no form matches "form" in the response of http://`},
		{`http.get(BASE + '/echo').clickLink({ selector: 'a.nope' })`, `clickLink: no link matches "a.nope" in the response of http://`},
		{`http.get(BASE + '/status/200', { responseType: 'none' }).json()`, `response.json: the body is null`},
		{`http.get(BASE + '/status/200').json()`, `SyntaxError`},
		{`http.expectedStatuses('x')`, `http.expectedStatuses: argument 1 must be an integer or {min, max}, got x`},
		{`http.setResponseCallback(() => true)`, `http.setResponseCallback: expected the result of http.expectedStatuses or null`},
	} {
		_, err := vu.rt.RunString(tc.js)
		require.ErrorContains(t, err, tc.err, tc.js)
	}
}

func TestInitContext(t *testing.T) {
	t.Parallel()
	vu, _ := newVU(t)
	_, err := vu.rt.RunString(`http.get('http://127.0.0.1:1/')`)
	require.ErrorContains(t, err, "http.get: not available in the init context")
	_, err = vu.rt.RunString(`http.batch(['http://127.0.0.1:1/'])`)
	require.ErrorContains(t, err, "http.batch: not available in the init context")
	// What the init context may make: callbacks, URLs, files and jars.
	_, err = vu.rt.RunString(`const ok = http.expectedStatuses(200, {min: 300, max: 399}); const j = new http.CookieJar(); http.file('x');`)
	require.NoError(t, err)
}

func TestExpectedStatuses(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	vu.run(t, `
		const only404 = http.expectedStatuses(404, { min: 500, max: 502 });
		http.get(BASE + '/status/404', { responseCallback: only404 });
		http.get(BASE + '/status/200', { responseCallback: only404 });
		http.setResponseCallback(http.expectedStatuses(201));
		http.get(BASE + '/status/201');
		http.get(BASE + '/status/200', { responseCallback: null });
		http.setResponseCallback(null);
		http.get(BASE + '/status/500');
	`)
	reqs := vu.col.Of("http_reqs")
	var exp []string
	for _, r := range reqs {
		v, ok := r.Tags.Get("expected_response")
		if !ok {
			v = "-"
		}
		exp = append(exp, v)
	}
	require.Equal(t, []string{"true", "false", "true", "-", "-"}, exp)
	var failed []float64
	for _, s := range vu.col.Of("http_req_failed") {
		failed = append(failed, s.Value)
	}
	require.Equal(t, []float64{0, 1, 0}, failed, "no http_req_failed without a callback")
}

func TestCookies(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	cookies := func(js string) any {
		t.Helper()
		return vu.run(t, `http.get(BASE + '/echo'`+js+`).json().cookies`)
	}
	vu.run(t, `http.get(BASE + '/set?a=1&b=2')`)
	require.Equal(t, "a=1;b=2", cookies(""), "the VU's jar sends what responses set")
	require.Equal(t, "a=9;b=2;own=x", cookies(`, { cookies: { a: { value: '9', replace: true }, own: 'x' } }`))
	require.Equal(t, "a=1;b=2", cookies(""), "request cookies are not stored")
	require.Equal(t, map[string]any{"a": []any{"1"}, "b": []any{"2"}}, vu.run(t, `http.cookieJar().cookiesForURL(BASE + '/')`))
	vu.run(t, `const jar = http.cookieJar(); jar.set(BASE, 'c', '3'); jar.delete(BASE, 'a');`)
	require.Equal(t, "b=2;c=3", cookies(""))
	vu.run(t, `
		const local = new http.CookieJar();
		local.set(BASE + '/', 'l', '1', { path: '/', max_age: 600, http_only: true });
		http.get(BASE + '/set?z=1', { jar: local });
		globalThis.local = local;
	`)
	require.Equal(t, "l=1;z=1", cookies(`, { jar: local }`), "a local jar sends and stores alone")
	require.Equal(t, "b=2;c=3", cookies(""))

	// The next iteration starts with an empty VU jar; local jars keep theirs.
	vu.state.Iteration++
	require.Empty(t, cookies(""))
	vu.run(t, `http.cookieJar().set(BASE, 'n', '1')`)
	require.Equal(t, "n=1", cookies(""), "a cookie set in this iteration is kept")
	require.Equal(t, "l=1;z=1", cookies(`, { jar: local }`))
	vu.run(t, `http.cookieJar().clear(BASE)`)
	require.Empty(t, cookies(""))

	// A domain the URL does not match drops the cookie without a throw (k6's
	// examples/cookies.js); a matching one, with or without its leading dot,
	// is sent to the host.
	vu.run(t, `
		const j = http.cookieJar();
		j.set(BASE + '/echo', 'foreign', '1', { domain: 'example.com', path: '/' });
		j.set(BASE + '/echo', 'own', '2', { domain: '127.0.0.1', path: '/' });
		globalThis.LOCAL = BASE.replace('127.0.0.1', 'localhost');
		j.set(LOCAL + '/echo', 'dotted', '3', { domain: '.localhost', path: '/' });
	`)
	require.Equal(t, "own=2", cookies(""))
	require.Equal(t, "dotted=3", vu.run(t, `http.get(LOCAL + '/echo').json().cookies`))
	vu.run(t, `http.cookieJar().clear(BASE); http.cookieJar().clear(LOCAL)`)

	_, err := vu.rt.RunString(`http.cookieJar().set(BASE, 'x', '1', { expires: 'tomorrow' })`)
	require.ErrorContains(t, err, "jar.set: expires: want an RFC 1123 date")
	_, err = vu.rt.RunString(`http.cookieJar().set('nohost', 'x', '1')`)
	require.ErrorContains(t, err, `jar.set: invalid url "nohost"`)
}

func TestBatch(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	got := vu.run(t, `
		const a = http.batch([
			['GET', BASE + '/echo?i=0', null, { tags: { ctype: 'a' } }],
			{ method: 'POST', url: BASE + '/echo?i=1', body: 'b' },
			BASE + '/echo?i=2',
			http.url`+"`${BASE}/echo?i=${3}`"+`,
		]);
		const o = http.batch({ front: BASE + '/echo?k=front', other: { url: BASE + '/status/201' } });
		[a.map((r) => r.json().method + r.json().uri + r.json().body).join(','), o.front.json().uri, o.other.status];
	`)
	require.Equal(t, []any{"GET/echo?i=0,POST/echo?i=1b,GET/echo?i=2,GET/echo?i=3", "/echo?k=front", int64(201)}, got)
	reqs := vu.col.Of("http_reqs")
	require.Len(t, reqs, 6)
	names := map[string]bool{}
	for _, r := range reqs {
		n, _ := r.Tags.Get("name")
		names[n] = true
		if c, ok := r.Tags.Get("ctype"); ok {
			require.Equal(t, "a", c)
		}
	}
	require.True(t, names["${}/echo?i=${}"])
	_, err := vu.rt.RunString(`http.batch([{ method: 'GET' }])`)
	require.ErrorContains(t, err, "http.batch: request 0: no url")
}

func TestJSONSelectors(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	vu.run(t, `globalThis.r = http.get(BASE + '/json');`)
	for _, tc := range []struct {
		sel  string
		want any
	}{
		{"age", int64(37)},
		{"name.last", "Anderson"},
		{"children", []any{"Sara", "Alex", "Jack"}},
		{"children.#", int64(3)},
		{"children.1", "Alex"},
		{"child*.2", "Jack"},
		{"c?ildren.0", "Sara"},
		{`fav\.movie`, "Deer Hunter"},
		{"friends.#.first", []any{"Dale", "Roger", "Jane"}},
		{"friends.1.last", "Craig"},
		{`friends.#(last=="Murphy").first`, "Dale"},
		{`friends.#(last=="Murphy")#.first`, []any{"Dale", "Jane"}},
		{`friends.#(age>45)#.last`, []any{"Craig", "Murphy"}},
		{`friends.#(first%"D*").last`, "Murphy"},
		{`friends.#(first!%"D*").last`, "Craig"},
		{`friends.#(nets.#(=="fb"))#.first`, []any{"Dale", "Roger"}},
		{"friends.#.nets.#", []any{int64(3), int64(2), int64(2)}},
		{"nope", nil},
		{"children.9", nil},
		{"name.first.x", nil},
		{"@reverse", nil},
	} {
		v, err := vu.rt.RunString(fmt.Sprintf("r.json(%q)", tc.sel))
		require.NoError(t, err, tc.sel)
		if tc.want == nil {
			require.True(t, sobek.IsUndefined(v), "%s: %v", tc.sel, v)
			continue
		}
		require.Equal(t, tc.want, v.Export(), tc.sel)
	}
}

func TestNoRequestAfterTheIterationEnds(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("test aborted"))
	vu.state.SetContext(ctx)
	_, err := vu.rt.RunString(`http.get(BASE + '/echo')`)
	require.ErrorContains(t, err, "http.get: test aborted")
	require.Empty(t, vu.col.Of("http_reqs"))
}

func TestResponseObject(t *testing.T) {
	t.Parallel()
	vu, _ := vuWithServer(t)
	require.Equal(t, []any{true, true, true, "mine", int64(200)}, vu.run(t, `
		'use strict';
		const r = http.get(BASE + '/echo');
		const s = JSON.parse(JSON.stringify(r));
		const keys = Object.keys(r);
		r.headers = 'mine';
		[
			s.headers['Content-Type'] === 'application/json' && s.timings.duration >= 0 && s.request.method === 'GET',
			['status', 'body', 'headers', 'cookies', 'timings', 'request', 'error_code'].every((k) => keys.includes(k)),
			typeof r.json === 'function' && !keys.includes('json'),
			r.headers,
			r.status,
		];
	`))
}

func TestTestOptions(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(echoHandler())
	t.Cleanup(srv.Close)
	vu, st := newVUWith(t, execution{options: `{"maxRedirects": 0, "discardResponseBodies": true, "noCookiesReset": true, "batch": 1, "batchPerHost": 1, "scenarios": {}}`})
	vu.enterVUContext(st)
	require.NoError(t, vu.rt.Set("BASE", srv.URL))
	require.Equal(t, []any{int64(302), true, false}, vu.run(t, `[
		http.get(BASE + '/redirect').status,
		http.get(BASE + '/echo').body === null,
		http.get(BASE + '/echo', { responseType: 'text' }).body === null,
	]`), "maxRedirects 0 follows none; discardResponseBodies drops bodies unless the request wants one")
	vu.run(t, `http.get(BASE + '/set?a=1')`)
	st.Iteration++
	require.Equal(t, "a=1", vu.run(t, `http.get(BASE + '/echo', { responseType: 'text' }).json().cookies`), "noCookiesReset keeps the VU's jar")
	require.Equal(t, int64(2), vu.run(t, `http.batch([BASE + '/echo', BASE + '/echo']).length`))

	// Without options, k6's defaults.
	vu2 := vuContext(t)
	require.NoError(t, vu2.rt.Set("BASE", srv.URL))
	require.Equal(t, int64(200), vu2.run(t, `http.get(BASE + '/redirect').status`))
}

func TestDigestAuth(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), `Digest username="ann"`) {
			w.Header().Set("WWW-Authenticate", `Digest realm="r", qop="auth", nonce="n"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("in"))
	}))
	defer srv.Close()
	vu := vuContext(t)
	require.NoError(t, vu.rt.Set("URL", strings.Replace(srv.URL, "http://", "http://ann:pw@", 1)+"/"))
	require.Equal(t, "200 in", vu.run(t, `const r = http.get(URL, { auth: 'digest' }); r.status + ' ' + r.body`))
	require.Len(t, vu.col.Of("http_reqs"), 2)
}

// FuzzJSONSelector runs Response.json(selector) with any selector: it returns
// a value or undefined, never a Go panic.
func FuzzJSONSelector(f *testing.F) {
	for _, s := range []string{"age", "friends.#(last==\"Murphy\")#.first", "children.#", `fav\.movie`, "friends.#(nets.#(==\"fb\"))#", "#(", "a.#()#", "**?", `\`, "friends.#(age>)", "friends.#(==)"} {
		f.Add(s)
	}
	vu, _ := vuWithServer(f)
	vu.run(f, `globalThis.r = http.get(BASE + '/json');`)
	f.Fuzz(func(t *testing.T, sel string) {
		if len(sel) > 64 {
			t.Skip() // wildcards backtrack: long patterns are slow, not wrong
		}
		require.NoError(t, vu.rt.Set("sel", sel))
		_, _ = vu.rt.RunString(`r.json(sel)`)
	})
}

// TestThrowOption: with the option throw, a request that gets no response throws (after
// its samples), as k6's; an HTTP error status does not; without it, neither does.
func TestThrowOption(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(echoHandler())
	t.Cleanup(srv.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	dead := closed.URL
	closed.Close()
	vu, st := newVUWith(t, execution{options: `{"throw": true, "scenarios": {}}`})
	vu.enterVUContext(st)
	require.NoError(t, vu.rt.Set("BASE", srv.URL))
	require.NoError(t, vu.rt.Set("DEAD", dead))
	require.Equal(t, []any{true, int64(404)}, vu.run(t, `[
		(() => { try { http.get(DEAD + '/'); return false; } catch (e) { return String(e).includes('GET ' + DEAD); } })(),
		http.get(BASE + '/status/404').status,
	]`))
	vu2 := vuContext(t)
	require.NoError(t, vu2.rt.Set("DEAD", dead))
	require.Equal(t, int64(0), vu2.run(t, `http.get(DEAD + '/').status`), "without throw: status 0, no exception")
}
