// Package modulestest runs scripts in Tidemark's real JavaScript runtime for the tests
// of native modules: one iteration in a few VUs with a sample collector as the engine's
// pusher (Start), or a whole run through loadtest, the path `tidemark run` takes, with
// thresholds, the summary outputs and the series remote write would send (RunTest).
package modulestest

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/secretsource"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/summary"
)

// WriteFiles writes name → content under a new temporary directory and returns it.
func WriteFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// Load loads the script at path with the default modules.
func Load(t testing.TB, path string, env map[string]string) (*js.Runner, error) {
	t.Helper()
	return js.New(js.Config{Script: path, Env: env, Logger: promslog.NewNopLogger()})
}

// Collector is a Pusher keeping every sample.
type Collector struct {
	mu      sync.Mutex
	samples []metrics.Sample
}

// Push keeps a copy of s.
func (c *Collector) Push(s []metrics.Sample) {
	c.mu.Lock()
	c.samples = append(c.samples, s...)
	c.mu.Unlock()
}

// Of returns the samples of the metric called name.
func (c *Collector) Of(name string) []metrics.Sample {
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

// Harness is a loaded script with the engine's side faked.
type Harness struct {
	Runner    *js.Runner
	Collector *Collector
	Env       *engine.VUEnv
}

// Option changes how Start and RunTest load and run the script.
type Option func(*settings)

// settings are what the options change.
type settings struct {
	dir   string // the script's directory
	js    js.Config
	sinks loadtest.SinksFunc
	ctx   context.Context // the run's parent context
}

// WithLogger makes the run log to l.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) { s.js.Logger = l }
}

// WithSecrets gives the run its secret sources (--secret-source), for k6/secrets.
func WithSecrets(set *secretsource.Set) Option {
	return func(s *settings) { s.js.Secrets = set }
}

// WithModulesDir sets --modules.dir to the directory rel of the script's directory.
func WithModulesDir(rel string) Option {
	return func(s *settings) { s.js.ModulesDir = filepath.Join(s.dir, filepath.FromSlash(rel)) }
}

// WithModules makes the script import the native modules of reg.
func WithModules(reg *modules.Registry) Option {
	return func(s *settings) { s.js.Modules = reg }
}

// WithContext runs RunTest's run under ctx: canceling it stops the run as a signal
// does `tidemark run`.
func WithContext(ctx context.Context) Option {
	return func(s *settings) { s.ctx = ctx }
}

// WithSinks gives RunTest's run its sinks (remote write to a test receiver).
func WithSinks(f loadtest.SinksFunc) Option {
	return func(s *settings) { s.sinks = f }
}

func apply(path string, env map[string]string, opts []Option) settings {
	s := settings{dir: filepath.Dir(path), js: js.Config{Script: path, Env: env, Logger: promslog.NewNopLogger()}, ctx: context.Background()}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// Start writes files (the script is "script.js"), loads the script and prepares an
// environment as the engine does (tags scenario=default and testid=t).
func Start(t testing.TB, files map[string]string, opts ...Option) *Harness {
	t.Helper()
	dir := WriteFiles(t, files)
	r, err := js.New(apply(filepath.Join(dir, "script.js"), nil, opts).js)
	require.NoError(t, err)
	c := &Collector{}
	pool := metrics.NewTagPool()
	env := &engine.VUEnv{
		Pusher:  c,
		Metrics: metrics.RegisterBuiltin(r.Registry()),
		Pool:    pool,
		Tags:    pool.Intern([]metrics.Tag{{Key: "scenario", Value: "default"}, {Key: "testid", Value: "t"}}),
		Logger:  promslog.NewNopLogger(),
	}
	return &Harness{Runner: r, Collector: c, Env: env}
}

// VUs prepares the test's first scenario and makes n VUs.
func (h *Harness) VUs(t testing.TB, n int) []executor.VU {
	t.Helper()
	newVU, err := h.Runner.Prepare(h.Runner.Test().Scenarios[0], h.Env)
	require.NoError(t, err)
	out := make([]executor.VU, n)
	for i := range out {
		out[i] = newVU(int64(i + 1))
	}
	return out
}

// Iterate runs one iteration in a new VU and requires it to complete.
func (h *Harness) Iterate(t testing.TB) {
	t.Helper()
	vu := h.VUs(t, 1)[0]
	require.True(t, vu.Iterate(context.Background()), "the iteration did not complete")
	require.NoError(t, h.Runner.Err())
}

// Checks returns the checks' results by name: true when every sample passed.
func (h *Harness) Checks() map[string]bool {
	out := map[string]bool{}
	for _, s := range h.Collector.Of("checks") {
		name, _ := s.Tags.Get("check")
		ok, seen := out[name]
		out[name] = (ok || !seen) && s.Value == 1
	}
	return out
}

// Outcome is how a whole run went.
type Outcome struct {
	// Err is the run's verdict and ExitCode its exit code, as `tidemark run` returns.
	Err      error
	ExitCode int
	// Summary is the text summary, or what handleSummary wrote to stdout.
	Summary string
	// Export is the --summary-export file and Data the --summary-file.
	Export, Data []byte
	// Snapshot is the run's final aggregate state; Series what remote write sends.
	Snapshot *aggregate.Snapshot
	Series   []series.Series
	// Input is the summary input.
	Input summary.Input
}

// RunTest runs the script at path as `tidemark run` does (loadtest.Run with the
// script's VUs and registry, then handleSummary or the text summary) and maps the final
// aggregates to series with series.DefaultConfig.
func RunTest(t testing.TB, path string, env map[string]string, opts ...Option) *Outcome {
	t.Helper()
	set := apply(path, env, opts)
	r, err := js.New(set.js)
	require.NoError(t, err)
	ctx := r.Context(set.ctx)
	var store *aggregate.Store
	res, err := loadtest.Run(ctx, loadtest.Config{
		Test:     r.Test(),
		Source:   path,
		TestID:   "test",
		VUs:      r,
		Registry: r.Registry(),
		Actors: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, tags map[string]string) ([]loadtest.Sink, error) {
			store = agg
			if set.sinks != nil {
				return set.sinks(agg, tags)
			}
			return nil, nil
		})},
		Logger: set.js.Logger,
	})
	require.NotNil(t, res, "the run did not start: %v", err)
	if rerr := r.Err(); rerr != nil {
		err = rerr
	}
	out := &Outcome{Err: err, ExitCode: exitcode.Of(err), Input: res.Summary, Snapshot: store.Snapshot()}
	var stdout, stderr, buf bytes.Buffer
	handled, herr := r.HandleSummary(context.Background(), res.Summary, &stdout, &stderr)
	require.NoError(t, herr)
	if !handled {
		require.NoError(t, summary.WriteText(&stdout, res.Summary))
	}
	out.Summary = stdout.String()
	require.NoError(t, summary.WriteExport(&buf, res.Summary))
	out.Export = bytes.Clone(buf.Bytes())
	buf.Reset()
	require.NoError(t, summary.WriteData(&buf, res.Summary))
	out.Data = bytes.Clone(buf.Bytes())
	mapper, err := series.NewMapper(series.DefaultConfig)
	require.NoError(t, err)
	out.Series = mapper.Map(nil, series.Inputs(nil, out.Snapshot))
	return out
}

// Named returns the series called name.
func (o *Outcome) Named(name string) []series.Series {
	var out []series.Series
	for _, s := range o.Series {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// LogBuffer is a log destination a VU's goroutine and the test share, safe for
// concurrent use.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// RequireChecks requires every check the script ran to have passed, and want of them.
func (h *Harness) RequireChecks(t testing.TB, want int) {
	t.Helper()
	checks := h.Checks()
	for name, ok := range checks {
		require.True(t, ok, name)
	}
	require.Len(t, checks, want)
}
