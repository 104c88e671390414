package testrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/verdict"
)

// TestLoad: a scenario file with the shortcuts over its options, a test of summary
// options alone without a file, and the configuration errors of both.
func TestLoad(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "test.yaml")
	require.NoError(t, os.WriteFile(file, []byte("vus: 1\niterations: 1\nflow:\n  - url: ${__ENV.URL}/\n"), 0o600))
	logger := promslog.NewNopLogger()

	src, err := Load(t.Context(), Options{File: file, Env: []string{"URL=http://127.0.0.1:1"}, Shortcuts: Shortcuts{Iterations: "3"}}, Env{}, pacer.Segment{}, logger)
	require.NoError(t, err)
	require.Len(t, src.Test().Scenarios, 1)
	require.Equal(t, []string{"K6_ITERATIONS"}, src.(*fileSource).replaced)
	require.Nil(t, src.VUs(), "a scenario file runs each scenario's flow")
	require.NoError(t, src.Verdict(nil))

	src, err = Load(t.Context(), Options{Shortcuts: Shortcuts{TrendStats: "avg,p(99)", TimeUnit: "ms"}}, Env{}, pacer.Segment{}, logger)
	require.NoError(t, err)
	require.Equal(t, []string{"avg", "p(99)"}, src.Test().SummaryTrendStats)
	require.Equal(t, "ms", src.Test().SummaryTimeUnit)

	for _, o := range []Options{
		{Shortcuts: Shortcuts{TimeUnit: "h"}},
		{File: file, Env: []string{"novalue"}},
		{File: filepath.Join(t.TempDir(), "missing.yaml")},
	} {
		_, err := Load(t.Context(), o, Env{}, pacer.Segment{}, logger)
		require.ErrorIs(t, err, verdict.ErrInvalid, "%+v", o)
	}
}
