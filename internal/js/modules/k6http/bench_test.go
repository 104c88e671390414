package k6http_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/metrics"
)

// BenchmarkGet is one VU's http.get of a small answer from a script, the
// module's per-request cost on top of request.BenchmarkDo's.
func BenchmarkGet(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	defer srv.Close()
	vu := vuContext(b)
	vu.state.Env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	if err := vu.rt.Set("URL", srv.URL+"/"); err != nil {
		b.Fatal(err)
	}
	fn, err := vu.rt.RunString(`(function () { const r = http.get(URL); if (r.status !== 200) throw new Error(r.error); })`)
	if err != nil {
		b.Fatal(err)
	}
	call, _ := sobek.AssertFunction(fn)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := call(sobek.Undefined()); err != nil {
			b.Fatal(err)
		}
	}
}
