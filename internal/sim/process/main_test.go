//go:build integration

package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// built is the tidemark binary `go build` made once for this test process: the pods run it.
var built struct {
	once      sync.Once
	dir, path string
	out       []byte
	err       error
}

// TestMain removes the built binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// tidemarkBinary returns the path of the tidemark binary built from cmd/tidemark.
func tidemarkBinary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "tidemark-process-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "tidemark")
		built.out, built.err = exec.Command("go", "build", "-o", built.path, "../../../cmd/tidemark").CombinedOutput()
	})
	require.NoError(t, built.err, "go build:\n%s", built.out)
	return built.path
}
