package js

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/metrics"
)

// writeFiles writes name → content under a new temporary directory and returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// collector is a Pusher keeping every sample.
type collector struct {
	mu      sync.Mutex
	samples []metrics.Sample
}

func (c *collector) Push(s []metrics.Sample) {
	c.mu.Lock()
	c.samples = append(c.samples, s...)
	c.mu.Unlock()
}

// of returns the samples of the metric called name.
func (c *collector) of(name string) []metrics.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []metrics.Sample
	for _, s := range c.samples {
		if s.Metric.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// harness is a loaded script with the engine's side faked: an env per scenario.
type harness struct {
	r   *Runner
	c   *collector
	env *engine.VUEnv
}

// load loads main from dir with env as __ENV.
func load(t testing.TB, dir, main string, env map[string]string) (*Runner, error) {
	t.Helper()
	return New(Config{Script: filepath.Join(dir, main), Env: env, Logger: promslog.NewNopLogger()})
}

// start loads the script and prepares its first scenario as the engine does.
func start(t testing.TB, files map[string]string) *harness {
	t.Helper()
	dir := writeFiles(t, files)
	r, err := load(t, dir, "script.js", map[string]string{"NAME": "tidemark"})
	require.NoError(t, err)
	c := &collector{}
	return &harness{r: r, c: c, env: envFor(r, c, metrics.NewTagPool())}
}

// vus prepares the test's first scenario and makes n VUs.
func (h *harness) vus(t testing.TB, n int) []executor.VU {
	t.Helper()
	newVU, err := h.r.Prepare(h.r.Test().Scenarios[0], h.env)
	require.NoError(t, err)
	out := make([]executor.VU, n)
	for i := range out {
		out[i] = newVU(int64(i + 1))
	}
	return out
}

func bg() context.Context { return context.Background() }

// envFor is a scenario env for r pushing into p; a nil pool is a new one.
func envFor(r *Runner, p metrics.Pusher, pool *metrics.TagPool) *engine.VUEnv {
	if pool == nil {
		pool = metrics.NewTagPool()
	}
	return &engine.VUEnv{
		Pusher:  p,
		Metrics: metrics.RegisterBuiltin(r.Registry()),
		Pool:    pool,
		Tags:    pool.Intern([]metrics.Tag{{Key: "scenario", Value: "default"}, {Key: "testid", Value: "t"}}),
		Logger:  promslog.NewNopLogger(),
	}
}

// snapshotOf aggregates the samples h collected.
func snapshotOf(t testing.TB, h *harness) *aggregate.Snapshot {
	t.Helper()
	s := aggregate.New()
	h.c.mu.Lock()
	s.Push(h.c.samples)
	h.c.mu.Unlock()
	return s.Snapshot()
}
