package browser_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// TestBrowserK6Examples runs k6's own browser examples that need no network (they set
// their pages' content) as they are, async checks of k6-utils included: every check
// passes, as k6 promises, and the runs exit 0.
func TestBrowserK6Examples(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "realworld", "k6", "examples", "browser")
	for _, name := range []string{"elementstate.js", "locator_filter.js", "waitforfunction.js", "cookies.js", "useragent.js", "shadowdom.js", "waitForEvent.js", "framelocator.js"} {
		t.Run(name, func(t *testing.T) {
			out := modulestest.RunTest(t, filepath.Join(dir, name), nil)
			require.NoError(t, out.Err, out.Summary)
			if strings.Contains(out.Summary, "checks_total") {
				require.Regexp(t, `checks_succeeded\.+: 100\.00% [1-9]\d* out of`, out.Summary)
			}
		})
	}
}
