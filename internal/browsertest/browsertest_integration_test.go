//go:build integration

package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIntegrationBrowserHarnessSeesErrors proves the harness's checks can fail: a page with a
// console error, an exception and a missing resource is reported as such.
func TestIntegrationBrowserHarnessSeesErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "broken.html")
	require.NoError(t, os.WriteFile(p, []byte(`<!DOCTYPE html><html><body><img src="missing.png">`+
		`<script>console.error("boom"); throw new Error("bad")</script></body></html>`), 0o644))
	v := Open(t, p)
	require.Len(t, v.Exceptions, 1)
	require.Len(t, v.ConsoleErrors, 2, "console.error and the failed image load")
}
