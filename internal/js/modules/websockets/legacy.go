package websockets

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// Legacy returns k6/ws.
func Legacy() modules.Module {
	return throwReader{modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		m, err := registerMetrics(vu)
		if err != nil {
			return nil, err
		}
		l := &legacy{vu: vu, m: m}
		return modules.Exports{Named: map[string]any{"connect": l.connect}}, nil
	})}
}

// throwReader is a module that honours the script option throw.
type throwReader struct{ modules.ModuleFunc }

// ReadsOptions implements modules.OptionReader.
func (throwReader) ReadsOptions() []string { return []string{"throw"} }

// legacy is k6/ws in one VU's runtime.
type legacy struct {
	vu         modules.VU
	m          *wsMetrics
	configured bool
	throwOpt   bool
}

// throwOption reads the script option throw once.
func (l *legacy) throwOption(st *modules.State) bool {
	if !l.configured && st.Exec != nil {
		l.configured = true
		var o struct {
			Throw bool `json:"throw"`
		}
		if json.Unmarshal(st.Exec.Options(), &o) == nil {
			l.throwOpt = o.Throw
		}
	}
	return l.throwOpt
}

// connect is ws.connect(url, [params], callback).
func (l *legacy) connect(call sobek.FunctionCall) sobek.Value {
	rt := l.vu.Runtime()
	if err := modules.VUOnly(l.vu, "ws.connect"); err != nil {
		modules.Throw(rt, err)
	}
	st := l.vu.State()
	paramsV, cbV := call.Argument(1), call.Argument(2)
	if _, ok := sobek.AssertFunction(paramsV); ok {
		paramsV, cbV = sobek.Undefined(), paramsV
	}
	cb, ok := sobek.AssertFunction(cbV)
	if !ok {
		panic(rt.NewTypeError("ws.connect: expected a function as the last argument"))
	}
	u, err := parseURL(call.Argument(0).String())
	if err != nil {
		modules.Throw(rt, fmt.Errorf("ws.connect: %w", err))
	}
	p, err := parseParams(rt, paramsV)
	if err == nil {
		err = p.cookies(rt, u)
	}
	if err != nil {
		modules.Throw(rt, fmt.Errorf("ws.connect: %w", err))
	}
	r := dial(st.Context(), st.Env, st.Tags(), l.m, u, p)
	if r.err != nil {
		return l.failed(st, u, r)
	}
	sock := newSocket(rt, r.s, l.m)
	if err := sock.run(st, cb); err != nil {
		if ex, ok := errors.AsType[*sobek.Exception](err); ok {
			panic(ex)
		}
		modules.Throw(rt, fmt.Errorf("ws.connect: %w", err))
	}
	return responseObject(rt, u, r.res, "", 0)
}

// failed answers a connection that failed: k6's Response with the error (or, with
// the throw option, an exception).
func (l *legacy) failed(st *modules.State, u *url.URL, r dialResult) sobek.Value {
	code := errorCode(r)
	l.vu.Logger().Debug("WebSocket connection failed", "err", r.err, "error_code", code)
	if l.throwOption(st) {
		modules.Throw(l.vu.Runtime(), fmt.Errorf("ws.connect %s: %w", u.Redacted(), r.err))
	}
	return responseObject(l.vu.Runtime(), u, r.res, r.err.Error(), code)
}

// responseObject is k6/ws's Response: url, status, headers, body, error and
// error_code.
func responseObject(rt *sobek.Runtime, u *url.URL, res *http.Response, errMsg string, code int) sobek.Value {
	o := rt.NewObject()
	status := 0
	headers := rt.NewObject()
	if res != nil {
		status = res.StatusCode
		for k, vs := range res.Header {
			if len(vs) > 0 {
				_ = headers.Set(k, vs[0])
			}
		}
	}
	_ = o.Set("url", u.String())
	_ = o.Set("status", status)
	_ = o.Set("headers", headers)
	_ = o.Set("body", "")
	_ = o.Set("error", errMsg)
	_ = o.Set("error_code", code)
	return o
}

// closeWait is how long a socket waits for the peer's close frame after sending its
// own before it drops the connection.
const closeWait = 3 * time.Second
