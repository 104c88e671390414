package k6http_test

import (
	"net/http"
	"net/http/httptest"
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

// TestMaxRedirectsOption is options.maxRedirects through the real runtime: the
// module reads it from the test's options.
func TestMaxRedirectsOption(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	defer srv.Close()
	h := modulestest.Start(t, map[string]string{"script.js": `
import http from 'k6/http';
import { check } from 'k6';
export const options = { maxRedirects: 2 };
export default function () {
  check(http.get('` + srv.URL + `/'), { 'the last of three hops': (r) => r.status === 302 && r.url.endsWith('/again') });
}
`})
	h.Iterate(t)
	require.Equal(t, map[string]bool{"the last of three hops": true}, h.Checks())
	require.Len(t, h.Collector.Of("http_reqs"), 3)
}
