package k6http_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

const corpus = "../../testdata/corpus/"

// TestCorpusHTTP runs the corpus's k6/http scripts as `tidemark run` does,
// against the built-in target, each alone: exit code, the run's request count
// and the target's own (it does not count /stats), as each script's header says;
// every script's thresholds and checks must pass.
func TestCorpusHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script           string
		requests, target int64
	}{
		{script: "http-methods.js", requests: 11, target: 11},
		{script: "http-batch.js", requests: 9, target: 8},
		{script: "http-url.js", requests: 5, target: 5},
		// The target does not count the two requests the script times out.
		{script: "http-params.js", requests: 14, target: -1},
		{script: "http-cookies.js", requests: 5, target: 5},
		{script: "http-response.js", requests: 4, target: 3},
		{script: "http-chaining.js", requests: 14, target: 9},
		{script: "register.js", requests: 10, target: 10},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			ts, base := targettest.Start(t, target.Config{})
			out := modulestest.RunTest(t, corpus+tc.script, map[string]string{"BASE_URL": base})
			require.Equal(t, 0, out.ExitCode, "%v\n%s", out.Err, out.Summary)
			reqs, ok := out.Snapshot.Metric("http_reqs")
			require.True(t, ok)
			require.InDelta(t, float64(tc.requests), reqs.Count, 0)
			if tc.target >= 0 {
				require.Equal(t, tc.target, ts.Stats().Requests)
			}
		})
	}
}
