package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// built is the tidemark binary `go build` made once for this test process: the tests
// that run it as a separate process (signals, several instances, k6-operator's
// runners) share it instead of each building its own.
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

// tidemarkBinary returns the path of the tidemark binary built from this package,
// reached under name: "tidemark", or another name as a symlink in a directory of its
// own (k6-operator's runner image calls it k6; put that directory in PATH).
func tidemarkBinary(t testing.TB, name string) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "tidemark-test-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "tidemark")
		built.out, built.err = exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
	})
	require.NoError(t, built.err, "go build:\n%s", built.out)
	if name == "tidemark" {
		return built.path
	}
	link := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.Symlink(built.path, link))
	return link
}
