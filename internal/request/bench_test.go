package request

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// BenchmarkDo is the per-request hot path: one VU's GET with timings, tags and
// samples, against a loopback server.
func BenchmarkDo(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	defer srv.Close()
	u, err := scenario.ParseTemplate(srv.URL + "/")
	if err != nil {
		b.Fatal(err)
	}
	benchmarkStep(b, &scenario.Step{URL: u})
}

// benchmarkStep runs step once per iteration through one VU's client; any error or
// failed check fails the benchmark.
func benchmarkStep(b *testing.B, step *scenario.Step) {
	b.Helper()
	pool := metrics.NewTagPool()
	env := &Env{Pusher: metrics.PusherFunc(func([]metrics.Sample) {}), Metrics: metrics.RegisterBuiltin(metrics.NewRegistry()), Pool: pool}
	st, err := Compile(step, []metrics.Tag{{Key: "scenario", Value: "b"}}, pool, "")
	if err != nil {
		b.Fatal(err)
	}
	c := NewClient(env, Options{})
	defer c.Close()
	ctx := context.Background()
	vars := &scenario.Vars{}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if out := c.Do(ctx, st, vars); out.Err != nil || out.ChecksFailed != 0 {
			b.Fatal(out.Err, out.ChecksFailed)
		}
	}
}

// BenchmarkPlainNetHTTP is the same request with a bare net/http client, for
// comparison.
func BenchmarkPlainNetHTTP(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/", nil)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = resp.Body.Read(make([]byte, 16))
		resp.Body.Close()
	}
}

// BenchmarkDoChecks is BenchmarkDo with the checks of a typical flow on a JSON
// answer: status, several JSON fields (one body decode serves them all), body text
// and a header.
func BenchmarkDoChecks(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id": 42, "code": "42", "data": {"items": [{"id": 1}, {"id": 2}], "ok": true}}`))
	}))
	defer srv.Close()
	tst, err := scenario.Parse("bench.yaml", []byte(`
flow:
  - url: `+srv.URL+`/
    checks:
      - status: 200
      - jsonPath: id
      - {jsonPath: code, equals: "42"}
      - {jsonPath: 'data.items[1].id', equals: 2}
      - {jsonPath: data.ok, equals: true}
      - bodyContains: '"items"'
      - {header: Content-Type, equals: application/json}
`))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkStep(b, &tst.Scenarios[0].Flow.Steps[0])
}
