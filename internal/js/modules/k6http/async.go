package k6http

import (
	"fmt"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/request"
)

// asyncRequest is http.asyncRequest(method, url, body, params): the request runs
// while the iteration goes on, and the returned promise settles on the VU's event
// loop with its Response (rejected when the arguments are wrong, or with the
// option throw when it got no response). Its samples are a normal request's.
func (m *instance) asyncRequest(call sobek.FunctionCall) sobek.Value {
	const what = "http.asyncRequest"
	rt := m.vu.Runtime()
	promise, resolve, reject := rt.NewPromise()
	st := m.state(what)
	method := call.Argument(0).String()
	req, rtype, err := m.build(st, method, call.Argument(1), call.Argument(2), call.Argument(3))
	if err != nil {
		_ = reject(rt.NewGoError(fmt.Errorf("%s: %w", what, err)))
		return rt.ToValue(promise)
	}
	done := st.Loop.RegisterCallback()
	m.client.SendAsync(st.Context(), req, func(res *request.Response) {
		done(func() error {
			m.pushBytes(st)
			m.failed(res)
			if res.Err != nil && m.throwErrors {
				return reject(rt.NewGoError(fmt.Errorf("%s %s: %w", method, req.URL, res.Err)))
			}
			return resolve(m.response(res, rtype))
		})
	})
	return rt.ToValue(promise)
}
