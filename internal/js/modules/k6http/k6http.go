// Package k6http is the native `k6/http` module (reference/k6-js.md §2.2). Its
// requests run on the VU's request.Client through request.Client.Send, the code
// path of a YAML step's requests, so they are measured the same way: the same
// samples, tags, timings, error codes and redirect hops.
//
// The test options it reads (test.options, once per VU): maxRedirects, batch,
// batchPerHost, discardResponseBodies, noCookiesReset, noVUConnectionReuse and throw,
// with k6's defaults (10, 20, 6, false, false, false, false), as the script's options
// set them (over the --config file, under K6_* and the flags). With throw, a
// request that gets no response throws (http.batch does not).
//
// Response.html, submitForm and clickLink parse the body with k6/html (package
// html). What it does not do: asyncRequest,
// NTLM authentication, and compression other than gzip and deflate
// throw a TypeError or error that names them. data_sent and data_received are
// emitted per request, not once per iteration as k6 does: the totals are the same.
package k6http

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
)

// New returns the module.
func New() modules.Module {
	return module{modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m := &instance{
			vu:          vu,
			jar:         request.NewCookieJar(),
			hidden:      sobek.NewSymbol("k6/http"),
			redirects:   scenario.DefaultMaxRedirects,
			batchLimits: request.BatchLimits{Max: request.DefaultBatch, PerHost: request.DefaultBatchPerHost},
			lastIter:    -1,
		}
		return modules.Exports{Named: m.exports()}, nil
	})}
}

// module is k6/http: it honours the script option throw (modules.OptionReader); the
// others it reads are known to the runtime.
type module struct{ modules.ModuleFunc }

// ReadsOptions implements modules.OptionReader.
func (module) ReadsOptions() []string { return []string{"throw"} }

// instance is the module in one VU's runtime.
type instance struct {
	vu modules.VU
	// client is the VU's HTTP client, made for env on the first request.
	client *request.Client
	env    *engine.VUEnv
	// jar is the VU's cookie jar, emptied before each iteration (k6).
	jar    *request.CookieJar
	jarObj *sobek.Object
	// lastState and lastIter are where the jar was last used: a new iteration
	// empties it first.
	lastState *modules.State
	lastIter  int64
	// hidden keys the Go values behind the module's objects (jars, http.url,
	// http.file, expectedStatuses), out of the script's sight.
	hidden *sobek.Symbol
	// expected and unjudged are the VU's response callback (setResponseCallback).
	expected []scenario.StatusRange
	unjudged bool
	methods  *respMethods      // made by the first response
	bytesOut [2]metrics.Sample // data_sent and data_received, reused
	// The test's options k6/http reads (configure): k6's defaults until then.
	configured     bool
	redirects      int
	batchLimits    request.BatchLimits
	responseType   request.ResponseType
	noCookiesReset bool
	throwErrors    bool // the option throw: a request that got no response throws
	// noVUReuse closes the VU's connections between iterations (noVUConnectionReuse).
	noVUReuse bool
}

// httpOptions are the test options of k6/http, as the script sets them.
type httpOptions struct {
	MaxRedirects          *int `json:"maxRedirects"`
	Batch                 *int `json:"batch"`
	BatchPerHost          *int `json:"batchPerHost"`
	DiscardResponseBodies bool `json:"discardResponseBodies"`
	NoCookiesReset        bool `json:"noCookiesReset"`
	Throw                 bool `json:"throw"`
	NoVUConnectionReuse   bool `json:"noVUConnectionReuse"`
}

// configure reads the test's options once, from the first state.
func (m *instance) configure(st *modules.State) {
	if m.configured || st.Exec == nil {
		return
	}
	m.configured = true
	var o httpOptions
	if err := json.Unmarshal(st.Exec.Options(), &o); err != nil {
		return // the runtime decoded these options already: keep k6's defaults
	}
	if o.MaxRedirects != nil {
		m.redirects = *o.MaxRedirects
	}
	if o.Batch != nil {
		m.batchLimits.Max = *o.Batch
	}
	if o.BatchPerHost != nil {
		m.batchLimits.PerHost = *o.BatchPerHost
	}
	if o.DiscardResponseBodies {
		m.responseType = request.ResponseNone
	}
	m.noCookiesReset = o.NoCookiesReset
	m.throwErrors = o.Throw
	m.noVUReuse = o.NoVUConnectionReuse
}

func (m *instance) exports() map[string]any {
	methodFn := func(method string, withBody bool) func(sobek.FunctionCall) sobek.Value {
		what := "http." + strings.ToLower(method)
		if method == http.MethodDelete {
			what = "http.del"
		}
		return func(call sobek.FunctionCall) sobek.Value {
			if withBody {
				return m.request(what, method, call.Argument(0), call.Argument(1), call.Argument(2))
			}
			return m.request(what, method, call.Argument(0), sobek.Undefined(), call.Argument(1))
		}
	}
	unsupported := func(what string) func(sobek.FunctionCall) sobek.Value {
		return func(sobek.FunctionCall) sobek.Value {
			panic(m.vu.Runtime().NewTypeError(what + " is not supported by Tidemark"))
		}
	}
	return map[string]any{
		"get":     methodFn(http.MethodGet, false),
		"head":    methodFn(http.MethodHead, false),
		"post":    methodFn(http.MethodPost, true),
		"put":     methodFn(http.MethodPut, true),
		"patch":   methodFn(http.MethodPatch, true),
		"del":     methodFn(http.MethodDelete, true),
		"options": methodFn(http.MethodOptions, true),
		"request": func(call sobek.FunctionCall) sobek.Value {
			return m.request("http.request", call.Argument(0).String(), call.Argument(1), call.Argument(2), call.Argument(3))
		},
		"batch":               m.batch,
		"url":                 m.url,
		"file":                m.file,
		"expectedStatuses":    m.expectedStatuses,
		"setResponseCallback": m.setResponseCallback,
		"cookieJar":           m.cookieJar,
		"CookieJar":           m.newCookieJar,
		"asyncRequest":        unsupported("http.asyncRequest"),
		"TLS_1_0":             "tls1.0",
		"TLS_1_1":             "tls1.1",
		"TLS_1_2":             "tls1.2",
		"TLS_1_3":             "tls1.3",
	}
}

// throw panics with err as a JavaScript exception.
func (m *instance) throw(err error) {
	modules.Throw(m.vu.Runtime(), err)
}

// state returns the VU's state for what, a call that is not allowed in the init
// context, with the VU's client ready and its jar emptied when a new iteration
// began.
func (m *instance) state(what string) *modules.State {
	if err := modules.VUOnly(m.vu, what); err != nil {
		m.throw(err)
	}
	st := m.vu.State()
	if ctx := st.Context(); ctx.Err() != nil {
		// The iteration is ending (test.abort(), gracefulStop): no new request
		// goes out, as none would after the YAML flow's current step.
		m.throw(fmt.Errorf("%s: %w", what, context.Cause(ctx)))
	}
	m.sync(st)
	if m.env != st.Env {
		if m.client != nil {
			m.client.Close()
		}
		env := st.Env
		m.client = request.NewClient(&request.Env{Pusher: env.Pusher, Metrics: env.Metrics, Pool: env.Pool, UserAgent: env.UserAgent}, env.HTTP)
		m.env = env
	}
	return st
}

// sync empties the VU's jar when st is in another iteration than its last use
// (k6 resets the VU's cookies between iterations).
func (m *instance) sync(st *modules.State) {
	if st == nil || (st == m.lastState && st.Iteration == m.lastIter) {
		return
	}
	m.configure(st)
	if m.lastState != nil && !m.noCookiesReset {
		m.jar.Reset()
	}
	if m.lastState != nil && m.noVUReuse && m.client != nil {
		m.client.CloseIdle()
	}
	m.lastState, m.lastIter = st, st.Iteration
}

// request is every request function: method to the URL urlArg (a string or
// http.url) with body and params.
func (m *instance) request(what, method string, urlArg, body, params sobek.Value) sobek.Value {
	st := m.state(what)
	req, rtype, err := m.build(st, method, urlArg, body, params)
	if err != nil {
		m.throw(fmt.Errorf("%s: %w", what, err))
	}
	res := m.client.Send(st.Context(), req)
	m.pushBytes(st)
	m.failed(res)
	if res.Err != nil && m.throwErrors {
		// k6's throw: a request that got no response (not an HTTP error status)
		// throws, after its samples were pushed.
		m.throw(fmt.Errorf("%s %s: %w", method, req.URL, res.Err))
	}
	return m.response(res, rtype)
}

// failed logs a request that got no response. k6 warns "Request Failed"; a
// line per request is Debug here (STYLE R5), the error_code tag counts them.
func (m *instance) failed(res *request.Response) {
	if res.Err != nil {
		m.vu.Logger().Debug("Request failed", "err", res.Err, "error_code", res.ErrorCode)
	}
}

// pushBytes emits the bytes on the wire since the last request as data_sent and
// data_received with the VU's tags outside groups. k6 emits them once per iteration; the
// module has no end-of-iteration hook, so it emits them per request: the same
// sums, with more samples.
func (m *instance) pushBytes(st *modules.State) {
	sent, recv := m.client.TakeBytes()
	if sent == 0 && recv == 0 {
		return
	}
	b := st.Env.Metrics
	now := time.Now()
	tags := iterationTags(st)
	// A Pusher does not keep the slice (the flow's VUs reuse theirs too).
	m.bytesOut = [2]metrics.Sample{
		{Metric: b.DataSent, Tags: tags, Time: now, Value: float64(sent)},
		{Metric: b.DataReceived, Tags: tags, Time: now, Value: float64(recv)},
	}
	st.Env.Pusher.Push(m.bytesOut[:])
}

// iterationTags are the tags of a VU's iteration samples: its tags without the
// group (k6 emits data_sent and data_received at the end of the iteration,
// outside any group).
func iterationTags(st *modules.State) *metrics.TagSet {
	if st.Group() == "" {
		return st.Tags()
	}
	keys := st.VUTagKeys()
	if len(keys) == 0 {
		return st.Env.Tags
	}
	extra := make([]metrics.Tag, 0, len(keys))
	for _, k := range keys {
		v, _ := st.VUTag(k)
		extra = append(extra, metrics.Tag{Key: k, Value: v})
	}
	return st.Env.Pool.With(st.Env.Tags, extra...)
}

// batch is http.batch(requests): an array or object of requests, each an array
// [method, url, body, params], an object {method, url, body, params} or a URL.
// It returns the responses in the same shape.
func (m *instance) batch(call sobek.FunctionCall) sobek.Value {
	st := m.state("http.batch")
	rt := m.vu.Runtime()
	arg := call.Argument(0)
	if sobek.IsUndefined(arg) || sobek.IsNull(arg) {
		m.throw(errors.New("http.batch: expected an array or object of requests"))
	}
	obj := arg.ToObject(rt)
	isArray := obj.ClassName() == "Array"
	keys := obj.Keys()
	reqs := make([]*request.Request, len(keys))
	types := make([]request.ResponseType, len(keys))
	for i, k := range keys {
		var err error
		reqs[i], types[i], err = m.batchItem(st, obj.Get(k))
		if err != nil {
			m.throw(fmt.Errorf("http.batch: request %s: %w", k, err))
		}
	}
	res := m.client.Batch(st.Context(), reqs, m.batchLimits)
	m.pushBytes(st)
	if isArray {
		items := make([]any, len(res))
		for i, r := range res {
			m.failed(r)
			items[i] = m.response(r, types[i])
		}
		return rt.NewArray(items...)
	}
	out := rt.NewObject()
	for i, k := range keys {
		m.failed(res[i])
		_ = out.Set(k, m.response(res[i], types[i]))
	}
	return out
}

// batchItem is one request of a batch.
func (m *instance) batchItem(st *modules.State, v sobek.Value) (*request.Request, request.ResponseType, error) {
	rt := m.vu.Runtime()
	o, isObj := v.(*sobek.Object)
	if !isObj || m.hiddenOf(v) != nil {
		return m.build(st, http.MethodGet, v, sobek.Undefined(), sobek.Undefined())
	}
	get := func(k string) sobek.Value {
		if x := o.Get(k); x != nil {
			return x
		}
		return sobek.Undefined()
	}
	if o.ClassName() == "Array" {
		return m.build(st, get("0").String(), get("1"), get("2"), get("3"))
	}
	method := http.MethodGet
	if x := get("method"); !sobek.IsUndefined(x) && !sobek.IsNull(x) {
		method = x.String()
	}
	if sobek.IsUndefined(get("url")) {
		return nil, 0, fmt.Errorf("no url in %s", rt.ToValue(o).String())
	}
	return m.build(st, method, get("url"), get("body"), get("params"))
}
