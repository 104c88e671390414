package k6http_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// BenchmarkVUIterationJS and BenchmarkVUIterationYAML are one VU's iteration
// of the same GET, as a script (`http.get(url)` in the default function) and as
// a YAML flow step: issue 14 wants the script at least half the flow's
// throughput.
func BenchmarkVUIterationJS(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	defer srv.Close()
	h := modulestest.Start(b, map[string]string{"script.js": `
import http from 'k6/http';
export default function () { http.get('` + srv.URL + `/'); }
`})
	h.Env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	vu := h.VUs(b, 1)[0]
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if !vu.Iterate(ctx) {
			b.Fatal("the iteration did not complete")
		}
	}
}

func BenchmarkVUIterationYAML(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	defer srv.Close()
	tst, err := scenario.Parse("bench.yaml", []byte("flow:\n  - url: "+srv.URL+"/\n"))
	require.NoError(b, err)
	reg := metrics.NewRegistry()
	pool := metrics.NewTagPool()
	env := &engine.VUEnv{
		Pusher:  metrics.PusherFunc(func([]metrics.Sample) {}),
		Metrics: metrics.RegisterBuiltin(reg),
		Pool:    pool,
		Tags:    pool.Intern([]metrics.Tag{{Key: "scenario", Value: "default"}}),
	}
	newVU, err := engine.Flow{}.Prepare(tst.Scenarios[0], env)
	require.NoError(b, err)
	vu := newVU(1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if !vu.Iterate(ctx) {
			b.Fatal("the iteration did not complete")
		}
	}
}
