package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCorrelateAndCompareRejectBadFlags checks that bad flags stop both commands before
// any store is opened or report written, with an error naming the flag.
func TestCorrelateAndCompareRejectBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "param not a number", args: []string{"correlate", "--testid", "x", "--param", "db_pool_per_pod=five"},
			wantErr: "--param db_pool_per_pod=five: expected a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			args := append(tc.args, "--storage.tsdb.path", dir+"/data", "--output.dir", dir+"/out")
			code := run(args, &stdout, &stderr)
			require.Equal(t, exitInvalidConfig, code, "stderr: %s", stderr.String())
			require.Contains(t, stderr.String(), tc.wantErr)
			require.NoDirExists(t, dir+"/data", "no store is opened")
			require.NoDirExists(t, dir+"/out", "no report is written")
		})
	}
}
